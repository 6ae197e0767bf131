//! The backgammon-ai referee: plays seeded games with a program over the protocol of
//! `shared/specs/backgammon-ai.md`, checks every answer with the full rules, and scores what its case
//! grades. Each case has one focus, and steers around the others: the grader rolls the dice, so outside
//! the legal-play cases it gives both sides "plain" rolls (no doubles, both dice playable, no bearing
//! off to tempt a program whose bearing off is wrong), and only the legal-play cases steer the AI into
//! the rare situations on purpose. Outside the protocol case, stray lines on stdout are skipped and a
//! slow answer is waited for, so that those defects cost only there.
//!
//! The doubling cube (the spec's optional extension, a bonus category) is offered in its own case
//! only. Where the spec is silent we decided: the grader asks `double?` before the AI's turns when the
//! AI may double (the cube centred or the AI's, never on the opening roll), and always takes the AI's
//! double (the game goes on with the grader's `roll`); the grader doubles before its own roll when it
//! may; after a drop the game is over and `result` names the doubler as winner of a `single` game
//! worth the cube before the double (`result black single 2` after a drop at 4).

mod dice;
mod game;
mod illegal;
#[cfg(test)]
mod tests;

use std::time::Duration;

use crate::referee::{wilson_interval, Game, GameOutcome, Match, MatchScore};
use crate::ScenarioError;

use game::BackgammonGame;

/// The time a `go` may take in the protocol case, where the time limit is graded.
const STRICT_ANSWER: Duration = Duration::from_secs(2);

/// The time an answer may take elsewhere: a slow program is still graded for its play.
const PATIENT_ANSWER: Duration = Duration::from_secs(5);

/// Win rate against the random player below which strength earns nothing, and from which it earns
/// everything (the rubric curve).
const STRENGTH_ZERO: f64 = 0.50;
const STRENGTH_FULL: f64 = 0.65;

/// What a case grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The program starts, answers `new`, and ends at `quit`.
    Starts,
    /// Every answer has its shape, `position` matches after every turn, answers come in time.
    Protocol,
    /// Exactly one line answers each command, whatever the game brings: fair dice (doubles, bearing
    /// off, entering), refused plays, `position` and `result` asked; a line that answers nothing (a
    /// debug line on stdout), or no answer at all, is what this case grades.
    Quiet,
    /// Every `move` of the AI is legal; the AI is steered into `Situation`.
    Legal(Situation),
    /// Illegal plays of the grader are refused and legal ones accepted.
    Illegal,
    /// `result` is right at the end of every game.
    Results,
    /// Games won against the random player.
    Strength,
    /// The doubling cube: answers to `double?` and `double`, and the cube in `result`'s points.
    Cube,
}

/// A rule situation the AI is steered into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Situation {
    /// No steering: uniform dice, doubles included; every move is judged.
    Any,
    /// A double that can be played in full: four moves.
    Doubles,
    /// Only one die can be played, and it must be the higher (the lower alone could move).
    HigherDie,
    /// A double of which only one, two or three moves can be played.
    PartialDouble,
    /// All checkers home and a die larger than the highest point: bear off from the highest.
    BearOffLarger,
    /// Checkers still outside the home board while a die matches a home checker: no bearing off yet.
    BearIn,
    /// A checker on the bar: it must enter first.
    Enter,
    /// One checker on the bar, entered with one die; the other die then free for any checker.
    EnterThenFree,
    /// The side to roll bears off its last checkers while the other has borne off none (results).
    Gammon,
    /// As [`Situation::Gammon`], with a checker of the other side on the bar or in the winner's home
    /// board (results).
    Backgammon,
}

/// Who plays the grader's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opponent {
    Random,
    Reference,
}

/// An interactive case of backgammon-ai, from its `[scenario]`.
#[derive(Debug, Clone)]
pub struct BackgammonMatch {
    focus: Focus,
    games: usize,
    seed: u64,
    opponent: Opponent,
    /// Situations judged per game (legal-play cases).
    situations: u32,
    /// Games played in one program start, `new` between them (the strength case plays many).
    games_per_start: u32,
    /// Each situation judged is put on the board with `setup` (legal-play, illegal-plays).
    setup: bool,
    /// The situations set up, in turn.
    drills: Vec<Situation>,
}

impl BackgammonMatch {
    /// Reads a `[scenario]`: `focus` (starts, protocol, quiet, legal, illegal, results, strength,
    /// cube), `situation` for legal (any, doubles, higher-die, partial-double, bear-off-larger, bear-in,
    /// enter, enter-then-free), `games` (program starts), `games-per-start`, `seed`, `opponent`
    /// (random, reference), `situations` per game, `setup` (each situation put on the board with the
    /// protocol's `setup`: legal-play's, illegal-plays' doubles and higher die, results' gammons and
    /// backgammons).
    pub fn from_scenario(scenario: &toml::Table) -> Result<BackgammonMatch, ScenarioError> {
        const KEYS: [&str; 8] =
            ["focus", "situation", "games", "games-per-start", "seed", "opponent", "situations", "setup"];
        if let Some(key) = scenario.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(ScenarioError::new(format!("unknown key `{key}` (keys: {})", KEYS.join(", "))));
        }
        let text = |key: &str| scenario.get(key).and_then(toml::Value::as_str);
        let number =
            |key: &str, default: i64, range: std::ops::RangeInclusive<i64>| -> Result<i64, ScenarioError> {
                match scenario.get(key) {
                    None => Ok(default),
                    Some(value) => value.as_integer().filter(|n| range.contains(n)).ok_or_else(|| {
                        ScenarioError::new(format!("`{key}` must be a whole number in {range:?}"))
                    }),
                }
            };
        let situation = match text("situation").unwrap_or("any") {
            "any" => Situation::Any,
            "doubles" => Situation::Doubles,
            "higher-die" => Situation::HigherDie,
            "partial-double" => Situation::PartialDouble,
            "bear-off-larger" => Situation::BearOffLarger,
            "bear-in" => Situation::BearIn,
            "enter" => Situation::Enter,
            "enter-then-free" => Situation::EnterThenFree,
            other => return Err(ScenarioError::new(format!("unknown situation `{other}`"))),
        };
        let focus =
            match text("focus") {
                Some("starts") => Focus::Starts,
                Some("protocol") => Focus::Protocol,
                Some("quiet") => Focus::Quiet,
                Some("legal") => Focus::Legal(situation),
                Some("illegal") => Focus::Illegal,
                Some("results") => Focus::Results,
                Some("strength") => Focus::Strength,
                Some("cube") => Focus::Cube,
                Some(other) => return Err(ScenarioError::new(format!("unknown focus `{other}`"))),
                None => return Err(ScenarioError::new(
                    "`focus` is required: starts, protocol, quiet, legal, illegal, results, strength or cube",
                )),
            };
        let setup_illegal =
            focus == Focus::Illegal && scenario.get("setup").and_then(toml::Value::as_bool) == Some(true);
        if scenario.contains_key("situation") && !matches!(focus, Focus::Legal(_)) && !setup_illegal {
            return Err(ScenarioError::new(
                "`situation` is for focus = \"legal\", or \"illegal\" with `setup`",
            ));
        }
        // The situations set up in turn: the legal-play case's own; for illegal-plays, the higher die,
        // or doubles (in part and in full), or all three; for results, a gammon and a backgammon.
        let drills = match (focus, situation) {
            (Focus::Legal(situation), _) => vec![situation],
            (Focus::Results, _) => vec![Situation::Gammon, Situation::Backgammon],
            (_, Situation::HigherDie) => vec![Situation::HigherDie],
            (_, Situation::Doubles) => vec![Situation::PartialDouble, Situation::Doubles],
            (_, Situation::Any) => vec![Situation::HigherDie, Situation::PartialDouble, Situation::Doubles],
            (_, _) => {
                return Err(ScenarioError::new(format!(
                    "illegal-plays sets up `higher-die` or `doubles`, not `{}`",
                    text("situation").unwrap_or_default()
                )))
            }
        };
        let setup = match scenario.get("setup") {
            None => false,
            Some(value) => {
                value.as_bool().ok_or_else(|| ScenarioError::new("`setup` must be true or false"))?
            }
        };
        if setup
            && !matches!(focus, Focus::Legal(s) if s != Situation::Any)
            && !matches!(focus, Focus::Illegal | Focus::Results)
        {
            return Err(ScenarioError::new(
                "`setup` is for focus = \"legal\" with a situation, \"illegal\" or \"results\"",
            ));
        }
        if matches!(focus, Focus::Legal(Situation::EnterThenFree)) && !setup {
            return Err(ScenarioError::new("situation `enter-then-free` is set up: it needs `setup = true`"));
        }
        let opponent = match text("opponent").unwrap_or("random") {
            "random" => Opponent::Random,
            "reference" => Opponent::Reference,
            other => {
                return Err(ScenarioError::new(format!("unknown opponent `{other}` (random, reference)")))
            }
        };
        Ok(BackgammonMatch {
            focus,
            games: number("games", 1, 1..=500)? as usize,
            seed: number("seed", 1, 0..=i64::MAX)? as u64,
            opponent,
            situations: number("situations", 2, 1..=50)? as u32,
            games_per_start: number("games-per-start", 1, 1..=1000)? as u32,
            setup,
            drills,
        })
    }
}

impl Match for BackgammonMatch {
    fn games(&self) -> usize {
        self.games
    }

    fn game(&self, index: usize) -> Box<dyn Game> {
        Box::new(BackgammonGame::new(self, index))
    }

    fn answer_timeout(&self) -> Duration {
        if self.focus == Focus::Protocol {
            STRICT_ANSWER
        } else {
            PATIENT_ANSWER
        }
    }

    fn score(&self, outcomes: &[GameOutcome]) -> MatchScore {
        let sum = |counter: &str| -> u32 { outcomes.iter().map(|o| o.count(counter)).sum() };
        // A share of what was judged; when nothing was, `none`: checks that never came up charge
        // nothing (1), a case whose every game was left out cannot vouch for the program (0).
        let share =
            |good: u32, all: u32, none: f64| if all == 0 { none } else { f64::from(good) / f64::from(all) };
        let clean = outcomes.iter().filter(|o| o.problem.is_none()).count() as u32;
        let games = outcomes.len() as u32;
        let judged_games = games - sum("left_out");
        let stray = sum("stray");
        let first_stray = outcomes.iter().flat_map(|o| o.examples("stray")).next();
        let mut score = match self.focus {
            Focus::Starts => MatchScore {
                credit: share(clean, games, 0.0),
                summary: format!("{clean} of {games} starts answered `new` and ended at `quit`"),
            },
            Focus::Protocol => MatchScore {
                credit: share(clean, judged_games, 0.0),
                summary: format!(
                    "{clean} of {judged_games} games with every answer in shape and in time, and every position right \
                     ({} positions compared)",
                    sum("positions")
                ),
            },
            Focus::Quiet => {
                // A game left out (the program accepted an illegal play, and its world went its own way)
                // still vouches for the lines it saw; one that failed here does not.
                let quiet = outcomes
                    .iter()
                    .filter(|o| o.count("stray") == 0 && (o.problem.is_none() || o.count("left_out") > 0))
                    .count() as u32;
                let lines = match first_stray {
                    Some(line) => format!("; {stray} lines that answer no command, the first `{line}`"),
                    None => String::new(),
                };
                MatchScore {
                    credit: share(quiet, games, 0.0),
                    summary: format!(
                        "{quiet} of {games} games with exactly one line answering each command, on fair dice, with \
                         refused plays{lines}"
                    ),
                }
            }
            Focus::Legal(_) => {
                let (judged, legal) = (sum("situations"), sum("legal"));
                MatchScore {
                    credit: share(legal, judged, 1.0),
                    summary: format!("{legal} of {judged} moves of the AI legal in the situations played"),
                }
            }
            Focus::Illegal => {
                let (checks, right) = (sum("checks"), sum("right"));
                MatchScore {
                    credit: share(right, checks, 1.0),
                    summary: format!(
                        "{right} of {checks} plays of the grader judged right: {} illegal ({} of them with a double) to \
                         refuse, the position unchanged after; {} legal ({} four-move doubles) to accept",
                        sum("attempts"),
                        sum("double_attempts"),
                        checks.saturating_sub(sum("attempts")),
                        sum("doubles")
                    ),
                }
            }
            Focus::Results => {
                let (checked, right) = (sum("results"), sum("results_right"));
                MatchScore {
                    credit: share(right, checked, 0.0),
                    summary: format!("{right} of {checked} game results right"),
                }
            }
            Focus::Strength => {
                let (counted, won) = (sum("counted"), sum("won"));
                let rate = share(won, counted, 0.0);
                let (low, high) = wilson_interval(won, counted);
                let left_out = match sum("left_out") {
                    0 => String::new(),
                    n => format!(
                        "; {n} of {games} program starts failed, their unfinished games left out (graded by protocol)"
                    ),
                };
                MatchScore {
                    credit: ((rate - STRENGTH_ZERO) / (STRENGTH_FULL - STRENGTH_ZERO)).clamp(0.0, 1.0),
                    summary: format!(
                        "won {won} of {counted} games against the random player: {:.0}% (95% interval {:.0}%-{:.0}%; \
                         full marks from {:.0}%){left_out}",
                        rate * 100.0,
                        low * 100.0,
                        high * 100.0,
                        STRENGTH_FULL * 100.0
                    ),
                }
            }
            Focus::Cube => {
                let (judged, right) = (sum("cube_games"), sum("cube_right"));
                let left_out = match sum("left_out") {
                    0 => String::new(),
                    n => format!("; {n} games left out (the program failed in them: graded by the protocol case)"),
                };
                MatchScore {
                    credit: share(right, judged, 0.0),
                    summary: format!(
                        "{right} of {judged} games with the cube right: every answer to `double?` and `double` \
                         in shape, and `result`'s points times the cube ({} doubles of the grader taken, {} dropped, \
                         {} doubles of the AI){left_out}",
                        sum("taken"),
                        sum("dropped"),
                        sum("ai_doubles")
                    ),
                }
            }
        };
        if let (Some(line), false) = (first_stray, self.focus == Focus::Quiet) {
            score.summary += &format!(
                "; {stray} lines that answer no command skipped (graded by protocol's quiet case), the first `{line}`"
            );
        }
        score
    }
}
