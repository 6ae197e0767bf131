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
    for situation in
        [Situation::HigherDie, Situation::PartialDouble, Situation::Doubles, Situation::BearOffLarger]
    {
        for colour in [Colour::Black, Colour::White] {
            for _ in 0..10 {
                let (position, dice) = position_for(&mut rng, colour, situation).expect("found");
                assert!(super::dice::is_situation(&position, colour, dice, situation));
            }
        }
    }
}
