//! The referee against a reference session made wrong on purpose: what each case charges.

use super::super::protocol::{CubePolicy, Session};
use super::*;
use crate::referee::{Answer, Step};

/// Plays every game of `m` with a reference session under `policy`, its answers passed through
/// `alter(command, answer)` (to make a wrong program of a right one).
fn play(
    m: &BackgammonMatch,
    policy: CubePolicy,
    alter: impl Fn(&str, String) -> String,
) -> (MatchScore, Vec<GameOutcome>) {
    let outcomes: Vec<GameOutcome> = (0..m.games())
        .map(|index| {
            let mut session = Session::with_cube_policy(policy);
            let mut game = m.game(index);
            let mut step = game.start();
            loop {
                match step {
                    Step::Send(command) => {
                        step = match session.answer(&command) {
                            Some(line) => game.answer(Answer::Line(&alter(&command, line))),
                            None => game.answer(Answer::Ended),
                        }
                    }
                    Step::Read => step = game.answer(Answer::TimedOut),
                    Step::Done(outcome) => break outcome,
                }
            }
        })
        .collect();
    (m.score(&outcomes), outcomes)
}

fn cube_match(games: i64) -> BackgammonMatch {
    let scenario = format!("focus = \"cube\"\ngames = {games}\nseed = 7");
    BackgammonMatch::from_scenario(&toml::from_str(&scenario).unwrap()).unwrap()
}

fn total(outcomes: &[GameOutcome], counter: &str) -> u32 {
    outcomes.iter().map(|o| o.count(counter)).sum()
}

#[test]
fn every_cube_policy_of_a_correct_program_gets_full_credit() {
    let m = cube_match(4);
    for (policy, counter) in
        [(CubePolicy::Takes, "taken"), (CubePolicy::Doubles, "ai_doubles"), (CubePolicy::Drops, "dropped")]
    {
        let (score, outcomes) = play(&m, policy, |_, line| line);
        assert_eq!(score.credit, 1.0, "{policy:?}: {}", score.summary);
        assert!(outcomes.iter().all(|o| o.problem.is_none()), "{policy:?}: {outcomes:?}");
        assert_eq!(total(&outcomes, "cube_games"), 4, "{policy:?}: every game's result judged");
        assert!(total(&outcomes, counter) >= 4, "{policy:?}: {counter} in every game: {}", score.summary);
    }
}

#[test]
fn a_program_without_the_cube_earns_nothing_and_is_not_waited_for() {
    let (score, outcomes) = play(&cube_match(2), CubePolicy::Takes, |command, line| {
        if command.starts_with("double") {
            format!("error UNKNOWN-COMMAND {command}")
        } else {
            line
        }
    });
    assert_eq!(score.credit, 0.0);
    assert_eq!(total(&outcomes, "stray"), 0, "an error line is the answer, not debug output");
    let problem = outcomes[0].problem.as_deref().unwrap();
    assert!(problem.contains("expected `double` or `no`") || problem.contains("expected `take` or `drop`"));
}

#[test]
fn a_result_that_ignores_the_cube_is_wrong() {
    let (score, outcomes) = play(&cube_match(2), CubePolicy::Takes, |command, line| {
        if command == "result" {
            // The points of a game at cube 1: what a program that never multiplies says.
            let mut words: Vec<String> = line.split(' ').map(str::to_owned).collect();
            if let Some(points) = words.get_mut(3) {
                *points = (points.parse::<u32>().unwrap() / 2).max(1).to_string();
            }
            words.join(" ")
        } else {
            line
        }
    });
    assert_eq!(score.credit, 0.0, "{}", score.summary);
    assert!(outcomes[0].problem.as_deref().unwrap().contains("at cube 2 is worth"), "{outcomes:?}");
}

#[test]
fn a_wrong_kind_of_win_is_left_to_the_results_case() {
    // A program that never sees gammons, but multiplies by the cube what it does see.
    let gammons = std::cell::Cell::new(0);
    let (score, outcomes) = play(&cube_match(4), CubePolicy::Takes, |command, line| {
        if command == "result" && line.contains("gammon") {
            gammons.set(gammons.get() + 1);
            let words: Vec<&str> = line.split(' ').collect();
            let cube = words[3].parse::<u32>().unwrap() / if words[2] == "gammon" { 2 } else { 3 };
            format!("result {} single {cube}", words[1])
        } else {
            line
        }
    });
    assert_eq!(score.credit, 1.0, "{}", score.summary);
    assert_eq!(total(&outcomes, "cube_right"), 4);
    assert!(gammons.get() > 0, "the seeded games have a gammon to get wrong");
}

#[test]
fn the_cube_is_asked_about_only_in_its_own_case() {
    let m =
        BackgammonMatch::from_scenario(&toml::from_str("focus = \"results\"\ngames = 2").unwrap()).unwrap();
    let (score, _) = play(&m, CubePolicy::Drops, |command, line| {
        assert!(!command.starts_with("double"), "{command}");
        line
    });
    assert_eq!(score.credit, 1.0);
}

#[test]
fn a_position_is_found_for_every_situation_a_case_sets_up() {
    use super::super::players::Rng;
    use super::super::rules::Colour;
    use super::dice::position_for;
    let mut rng = Rng::new(5);
    for situation in [
        Situation::HigherDie,
        Situation::PartialDouble,
        Situation::Doubles,
        Situation::BearOffLarger,
        Situation::EnterThenFree,
        Situation::Gammon,
        Situation::Backgammon,
    ] {
        for colour in [Colour::Black, Colour::White] {
            for _ in 0..10 {
                let (position, dice) = position_for(&mut rng, colour, situation).expect("found");
                assert!(super::dice::is_situation(&position, colour, dice, situation));
            }
        }
    }
}

fn scenario(text: &str) -> BackgammonMatch {
    BackgammonMatch::from_scenario(&toml::from_str(text).unwrap()).unwrap()
}

#[test]
fn the_set_up_results_are_gammons_and_backgammons_won_by_either_side() {
    let m = scenario("focus = \"results\"\nsetup = true\ngames = 2\nsituations = 4\nseed = 44");
    let asked = std::sync::Mutex::new(Vec::new());
    let (score, outcomes) = play(&m, CubePolicy::Takes, |command, line| {
        if command == "result" {
            asked.lock().unwrap().push(line.clone());
        }
        line
    });
    assert_eq!(score.credit, 1.0, "{}", score.summary);
    assert_eq!(score.summary, "8 of 8 game results right");
    let asked = asked.into_inner().unwrap();
    for wanted in ["black gammon 2", "white gammon 2", "black backgammon 3", "white backgammon 3"] {
        assert!(asked.iter().any(|line| line.ends_with(wanted)), "{wanted} in {asked:?}");
    }
    assert!(outcomes
        .iter()
        .all(|o| o.end.as_deref().is_some_and(|end| end.contains("4 positions set up and played"))));

    // A program that scores every win as single loses each one, and each is its own situation.
    let (score, outcomes) = play(&m, CubePolicy::Takes, |command, line| {
        if command == "result" {
            let words: Vec<&str> = line.split_whitespace().collect();
            format!("result {} single 1", words[1])
        } else {
            line
        }
    });
    assert_eq!(score.summary, "0 of 8 game results right");
    assert!(outcomes[0].problem.as_deref().unwrap().contains("to `result`, got `result"), "{outcomes:?}");
}

#[test]
fn a_program_without_setup_loses_each_set_up_case_and_is_told_why() {
    for text in [
        "focus = \"results\"\nsetup = true\ngames = 2\nsituations = 4\nseed = 44",
        "focus = \"legal\"\nsituation = \"enter-then-free\"\nsetup = true\ngames = 2\nseed = 28",
    ] {
        let (score, outcomes) = play(&scenario(text), CubePolicy::Takes, |command, line| {
            if command.starts_with("setup ") {
                "error unknown command setup".to_owned()
            } else {
                line
            }
        });
        assert_eq!(score.credit, 0.0, "{text}: {}", score.summary);
        assert!(outcomes[0].problem.as_deref().unwrap().contains("to `setup`, which the protocol requires"));
    }
}

#[test]
fn entering_then_playing_the_other_die_elsewhere_is_judged() {
    let m = scenario("focus = \"legal\"\nsituation = \"enter-then-free\"\nsetup = true\ngames = 4\nsituations = 2\nseed = 28");
    let (score, outcomes) = play(&m, CubePolicy::Takes, |_, line| line);
    assert_eq!(score.summary, "8 of 8 moves of the AI legal in the situations played");
    assert!(outcomes.iter().all(|o| o.problem.is_none() && o.end.is_some()));
    // A program that moves a checker on the board before entering is wrong in every one.
    let (score, _) = play(&m, CubePolicy::Takes, |command, line| {
        if command == "go" {
            let moves: Vec<&str> = line.split_whitespace().skip(1).collect();
            format!("move {}", moves.iter().rev().copied().collect::<Vec<_>>().join(" "))
        } else {
            line
        }
    });
    assert!(score.credit < 1.0, "{}", score.summary);
}

#[test]
fn a_game_left_out_names_the_category_that_grades_it() {
    // The AI's illegal moves cannot even be applied (a checker it does not have): the results case
    // leaves the game out, for legal-play to grade.
    let m = scenario("focus = \"results\"\ngames = 1\nseed = 41");
    let (_, outcomes) =
        play(
            &m,
            CubePolicy::Takes,
            |command, line| if command == "go" { "move 3/off".to_owned() } else { line },
        );
    let left_out = outcomes[0].left_out.expect("left out");
    assert_eq!((left_out.what, left_out.category), ("an illegal move of the AI", "legal-play"));
    assert!(outcomes[0].end.is_none());
}
