//! The backgammon-ai referee against the reference's own protocol (a correct program: every case gives
//! full credit) and against scripted wrong answers (each case charges what it grades).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use reference::backgammon_ai::referee::BackgammonMatch;
use reference::referee::{Answer, GameOutcome, Match, MatchScore, Step};

fn scenario(text: &str) -> BackgammonMatch {
    BackgammonMatch::from_scenario(&toml::from_str(text).unwrap()).unwrap()
}

/// Plays every game with the reference's protocol (`reference backgammon-ai --protocol`).
fn play_reference(m: &BackgammonMatch) -> MatchScore {
    let outcomes: Vec<GameOutcome> = (0..m.games())
        .map(|index| {
            let mut program = Command::new(env!("CARGO_BIN_EXE_reference"))
                .args(["backgammon-ai", "--protocol"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            let mut commands = program.stdin.take().unwrap();
            let mut answers = BufReader::new(program.stdout.take().unwrap());
            let mut game = m.game(index);
            let mut step = game.start();
            let outcome = loop {
                match step {
                    Step::Send(command) => {
                        writeln!(commands, "{command}").unwrap();
                        let mut line = String::new();
                        step = if answers.read_line(&mut line).unwrap() == 0 {
                            game.answer(Answer::Ended)
                        } else {
                            game.answer(Answer::Line(line.trim_end()))
                        };
                    }
                    Step::Read => panic!("the reference prints no stray line"),
                    Step::Done(outcome) => break outcome,
                }
            };
            drop(commands);
            assert!(program.wait().unwrap().success());
            outcome
        })
        .collect();
    m.score(&outcomes)
}

/// Plays every game with a scripted program: `answer(command)` is its one line.
fn play_scripted(
    m: &BackgammonMatch,
    answer: impl Fn(&str) -> Option<String>,
) -> (MatchScore, Vec<GameOutcome>) {
    let outcomes: Vec<GameOutcome> = (0..m.games())
        .map(|index| {
            let mut game = m.game(index);
            let mut step = game.start();
            loop {
                match step {
                    Step::Send(command) => {
                        let line = answer(&command);
                        step = match &line {
                            Some(line) => game.answer(Answer::Line(line)),
                            None => game.answer(Answer::Ended),
                        };
                    }
                    Step::Read => step = game.answer(Answer::TimedOut),
                    Step::Done(outcome) => break outcome,
                }
            }
        })
        .collect();
    (m.score(&outcomes), outcomes)
}

#[test]
fn a_correct_program_gets_full_credit_in_every_case() {
    for text in [
        "focus = \"starts\"",
        "focus = \"protocol\"\ngames = 2\nseed = 11",
        "focus = \"legal\"\ngames = 2\nseed = 21",
        "focus = \"legal\"\nsituation = \"doubles\"\ngames = 2\nseed = 22",
        "focus = \"legal\"\nsituation = \"partial-double\"\ngames = 2\nsituations = 1\nseed = 24",
        "focus = \"legal\"\nsituation = \"bear-off-larger\"\ngames = 1\nsituations = 1\nseed = 25",
        "focus = \"legal\"\nsituation = \"bear-in\"\ngames = 1\nseed = 26",
        "focus = \"legal\"\nsituation = \"enter\"\ngames = 1\nseed = 27",
        "focus = \"illegal\"\ngames = 2\nsituations = 6\nseed = 31",
        "focus = \"cube\"\ngames = 2\nseed = 61",
        "focus = \"results\"\ngames = 2\nseed = 41",
        "focus = \"strength\"\ngames = 6\nseed = 51",
    ] {
        let score = play_reference(&scenario(text));
        assert_eq!(score.credit, 1.0, "{text}: {}", score.summary);
    }
}

#[test]
fn the_steered_situations_come_up_in_every_grading() {
    for (situation, at_least) in
        [("doubles", 4), ("partial-double", 2), ("bear-off-larger", 2), ("bear-in", 4), ("enter", 4)]
    {
        let m = scenario(&format!(
            "focus = \"legal\"\nsituation = \"{situation}\"\ngames = 2\nsituations = 2\nseed = 9"
        ));
        let score = play_reference(&m);
        let judged: u32 = score.summary.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(judged >= at_least, "{situation}: {}", score.summary);
    }
}

#[test]
fn a_program_that_accepts_every_play_loses_the_illegal_play_case_only() {
    // Answers `ok` to everything and never moves: its own moves are illegal whenever it could move.
    let yes = |command: &str| match command {
        "quit" => None,
        "go" => Some("move".to_owned()),
        "result" => Some("result none".to_owned()),
        _ => Some("ok".to_owned()),
    };
    let (score, outcomes) =
        play_scripted(&scenario("focus = \"illegal\"\ngames = 2\nsituations = 4\nseed = 3"), yes);
    assert_eq!(score.credit, 0.0, "{}", score.summary);
    let problem = outcomes[0].problem.as_deref().unwrap();
    assert!(problem.starts_with("answered `ok` to `play"), "{problem}");
    // In the results case its illegal moves (it never moves) are applied as played, so the game goes on
    // to its end, where the grader has won; its `result none` is what that case charges.
    let (score, outcomes) = play_scripted(&scenario("focus = \"results\"\ngames = 1\nseed = 3"), yes);
    assert_eq!(score.summary, "0 of 1 game results right");
    let problem = outcomes[0].problem.as_deref().unwrap();
    assert!(
        problem.starts_with("expected `result white") && problem.ends_with("got `result none`"),
        "{problem}"
    );
    assert!(outcomes[0].count("illegal_moves") > 0);
}

#[test]
fn junk_lines_are_skipped_outside_the_protocol_case_and_charged_in_it() {
    let m = scenario("focus = \"protocol\"\ngames = 1\nseed = 5");
    let (score, outcomes) = play_scripted(&m, |command| match command {
        "quit" => None,
        _ => Some("DEBUG thinking".to_owned()),
    });
    assert_eq!(score.credit, 0.0);
    assert!(outcomes[0].problem.as_deref().unwrap().contains("`DEBUG thinking`"));
}

#[test]
fn a_bad_scenario_is_refused_with_what_is_wrong() {
    for (text, wanted) in [
        ("games = 2", "`focus` is required"),
        ("focus = \"legal\"\nsituation = \"sideways\"", "unknown situation `sideways`"),
        ("focus = \"results\"\nsituation = \"doubles\"", "`situation` is for focus = \"legal\" only"),
        ("focus = \"strength\"\ngames = 0", "`games` must be a whole number"),
        ("focus = \"strength\"\nopponent = \"gnubg\"", "unknown opponent `gnubg`"),
        ("focus = \"strength\"\nplayers = 2", "unknown key `players`"),
    ] {
        let err = BackgammonMatch::from_scenario(&toml::from_str(text).unwrap()).unwrap_err();
        assert!(err.0.contains(wanted), "{text}: {}", err.0);
    }
}
