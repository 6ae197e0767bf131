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
    play_reference_with(m, |_| None)
}

/// [`play_reference`], with `junk(command)` printed on stdout before the answer to `command`.
fn play_reference_with(m: &BackgammonMatch, junk: impl Fn(&str) -> Option<&'static str>) -> MatchScore {
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
                        if let Some(junk) = junk(&command) {
                            assert_eq!(game.answer(Answer::Line(junk)), Step::Read, "{junk} is skipped");
                        }
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
        "focus = \"illegal\"\nsetup = true\ngames = 2\nsituations = 6\nseed = 32",
        "focus = \"illegal\"\nsetup = true\nsituation = \"higher-die\"\ngames = 1\nsituations = 4\nseed = 33",
        "focus = \"legal\"\nsituation = \"higher-die\"\nsetup = true\ngames = 2\nsituations = 3\nseed = 23",
        "focus = \"quiet\"\ngames = 2\nseed = 17",
        "focus = \"strength\"\ngames = 2\ngames-per-start = 5\nseed = 52",
        "focus = \"cube\"\ngames = 2\nseed = 61",
        "focus = \"results\"\ngames = 2\nseed = 41",
        "focus = \"results\"\nsetup = true\ngames = 1\nsituations = 4\nseed = 44",
        "focus = \"legal\"\nsituation = \"enter-then-free\"\nsetup = true\ngames = 1\nseed = 28",
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
fn junk_lines_are_skipped_in_every_case_and_charged_once_in_the_quiet_case() {
    // A debug line before the AI's answers to `go` only when its dice are a double: the quiet case's
    // fair dice bring doubles; the others skip the line and say so.
    let junk = |command: &str| (command == "go").then_some("DEBUG thinking");
    let quiet = play_reference_with(&scenario("focus = \"quiet\"\ngames = 2\nseed = 17"), junk);
    assert_eq!(quiet.credit, 0.0, "{}", quiet.summary);
    assert!(quiet.summary.contains("the first `DEBUG thinking`"), "{}", quiet.summary);
    for text in ["focus = \"protocol\"\ngames = 1\nseed = 5", "focus = \"legal\"\ngames = 1\nseed = 21"] {
        let score = play_reference_with(&scenario(text), junk);
        assert_eq!(score.credit, 1.0, "{text}: {}", score.summary);
        assert!(score
            .summary
            .contains("skipped (graded by protocol's quiet case), the first `DEBUG thinking`"));
    }
    // A program that prints nothing but junk never answers: that is charged where answers are.
    let (score, outcomes) =
        play_scripted(&scenario("focus = \"protocol\"\ngames = 1\nseed = 5"), |command| {
            (command != "quit").then(|| "DEBUG thinking".to_owned())
        });
    assert_eq!(score.credit, 0.0);
    assert!(
        outcomes[0].problem.as_deref().unwrap().contains("no answer to `new black`"),
        "{:?}",
        outcomes[0]
    );
}

#[test]
fn a_bad_scenario_is_refused_with_what_is_wrong() {
    for (text, wanted) in [
        ("games = 2", "`focus` is required"),
        ("focus = \"legal\"\nsituation = \"sideways\"", "unknown situation `sideways`"),
        (
            "focus = \"results\"\nsituation = \"doubles\"",
            "`situation` is for focus = \"legal\", or \"illegal\" with `setup`",
        ),
        (
            "focus = \"strength\"\nsetup = true",
            "`setup` is for focus = \"legal\" with a situation, \"illegal\" or \"results\"",
        ),
        ("focus = \"legal\"\nsituation = \"enter-then-free\"", "it needs `setup = true`"),
        (
            "focus = \"illegal\"\nsetup = true\nsituation = \"enter\"",
            "illegal-plays sets up `higher-die` or `doubles`",
        ),
        ("focus = \"strength\"\ngames-per-start = 0", "`games-per-start` must be a whole number"),
        ("focus = \"strength\"\ngames = 0", "`games` must be a whole number"),
        ("focus = \"strength\"\nopponent = \"gnubg\"", "unknown opponent `gnubg`"),
        ("focus = \"strength\"\nplayers = 2", "unknown key `players`"),
    ] {
        let err = BackgammonMatch::from_scenario(&toml::from_str(text).unwrap()).unwrap_err();
        assert!(err.0.contains(wanted), "{text}: {}", err.0);
    }
}
