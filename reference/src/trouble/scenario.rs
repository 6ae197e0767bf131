//! Expansion of a Trouble case's `[scenario]` table into the stdin fed to a program and the stdout a
//! correct program prints.
//!
//! Transcript cases either list every token typed (`inputs`) or give a seed, the players and a
//! policy that plays the game (`seed`, `players`, `policy`); unit cases list driver commands.
//! Every value that could not give a well-defined transcript is an error here, before any student
//! program runs.

use std::collections::VecDeque;

use serde::Deserialize;

use super::console::{self, Ending, InputSource, Options, Prompt, PromptKind, EXIT_SEED, QUIT};
use super::rules::Location;
use crate::scenario::{error, parse};
use crate::{Expansion, ScenarioError};

/// A game that has not ended after this many turns is an error (transcripts must stay readable, and
/// some seeds reach the generator's fixed point 0, after which nobody can leave Home).
pub const TURN_LIMIT: u64 = 5000;

/// `[scenario]` of a transcript case: exactly one of `inputs` or `seed`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TranscriptScenario {
    /// Every token typed, in order.
    inputs: Option<Vec<String>>,
    /// The seed typed at the seed prompt (policy form).
    seed: Option<i64>,
    /// The number of players typed, or the list of numbers typed until a valid one.
    players: Option<toml::Value>,
    /// How moves are chosen.
    policy: Option<PolicyConfig>,
}

/// `policy = { seed = 7, illegal-every = 4, quit-after-turns = 30 }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PolicyConfig {
    /// Seed of the `fastrand` generator choosing among the legal moves.
    seed: u64,
    /// At every Nth move decision, type a location that is not a legal origin first.
    illegal_every: Option<u64>,
    /// Type `Q` at the first prompt once more than this many turns have started.
    quit_after_turns: Option<u64>,
}

const SEED_ZERO: &str = "seed 0 leaves the generator at 0: every roll is 1 and no piece can ever leave Home";

/// Expands a transcript case: the whole program's stdin and stdout.
pub fn expand_transcript(scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
    let s: TranscriptScenario = parse(scenario)?;
    match (s.inputs, s.seed) {
        (Some(inputs), None) => {
            if s.players.is_some() || s.policy.is_some() {
                return error("scenario: `players` and `policy` go with `seed`, not with `inputs`");
            }
            explicit(inputs)
        }
        (None, Some(seed)) => with_policy(seed, s.players, s.policy),
        (Some(_), Some(_)) => error("scenario: give either `inputs` or `seed`, not both"),
        (None, None) => error("scenario: a transcript needs `inputs = [...]` or `seed = N`"),
    }
}

/// Runs the console on a source, with the turn limit, and returns its stdout and session.
fn play(source: &mut dyn InputSource) -> Result<(Vec<u8>, console::Session), ScenarioError> {
    let mut out = Vec::new();
    let options = Options { echo_input: false, turn_limit: Some(TURN_LIMIT) };
    let session = console::run(source, &mut out, options)
        .map_err(|e| ScenarioError::new(format!("writing the transcript: {e}")))?;
    Ok((out, session))
}

/// How an ending reads in messages.
fn describe(ending: &Ending) -> String {
    match ending {
        Ending::Exited => "seed -1 exits at once".to_owned(),
        Ending::Won { player, turn } => format!("{player} won on turn {turn}"),
        Ending::Quit { player, turn } => format!("Q typed on turn {turn} ({player})"),
        Ending::InputEnded { at, turn: Some(turn) } => {
            format!("inputs end at the prompt `{}` of turn {turn}", at.text())
        }
        Ending::InputEnded { at, turn: None } => {
            format!("inputs end at the prompt `{}`", at.text())
        }
        Ending::NotANumber { at, token } => {
            format!("`{token}` at the prompt `{}` is not an int", at.text())
        }
        Ending::TurnLimit { turns } => format!("the game did not end within {turns} turns"),
    }
}

/// The explicit form: every token typed, in order.
fn explicit(inputs: Vec<String>) -> Result<Expansion, ScenarioError> {
    let mut source = Checked { lines: inputs.into(), typed: 0, error: None };
    let (stdout, session) = play(&mut source)?;
    if let Some(e) = source.error {
        return Err(e);
    }
    match session.ending {
        Ending::Exited | Ending::Won { .. } | Ending::Quit { .. } => {}
        ref other => {
            let hint = match other {
                Ending::InputEnded { at: PromptKind::Move, .. } => {
                    " (end the inputs with Q to stop the game there)"
                }
                _ => "",
            };
            return error(format!("{}{hint}", describe(other)));
        }
    }
    ScenarioError::check_all_typed(&source.lines, &describe(&session.ending))?;
    Ok(Expansion::typed(&session.consumed, stdout))
}

/// The explicit list, checked token by token against the prompt it answers.
struct Checked {
    lines: VecDeque<String>,
    typed: usize,
    error: Option<ScenarioError>,
}

impl Checked {
    fn check(&self, token: &str, prompt: &Prompt<'_>) -> Result<(), String> {
        let n = self.typed;
        if token.is_empty() || token.chars().any(|c| c.is_ascii_whitespace()) {
            return Err(format!(
                "input {n} ({token:?}) is not one token: the program reads with scanf, which splits at whitespace"
            ));
        }
        match prompt {
            Prompt::Seed => match token.parse::<i32>() {
                Ok(0) => Err(SEED_ZERO.to_owned()),
                Ok(_) => Ok(()),
                Err(_) => Err(format!("input {n} `{token}` at the seed prompt is not an int")),
            },
            Prompt::Players => match token.parse::<i32>() {
                Ok(_) => Ok(()),
                Err(_) => Err(format!("input {n} `{token}` at the players prompt is not an int")),
            },
            Prompt::Move(request) => {
                if token == QUIT || token.parse::<Location>().is_ok() {
                    Ok(())
                } else {
                    Err(format!(
                        "input {n} `{token}` at the move prompt of turn {} is neither a location \
                         string nor Q (the handout lets programs assume a valid location)",
                        request.turn
                    ))
                }
            }
        }
    }
}

impl crate::console::InputSource<Prompt<'_>> for Checked {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        let token = self.lines.pop_front()?;
        self.typed += 1;
        match self.check(&token, prompt) {
            Ok(()) => Some(token),
            Err(message) => {
                self.error = Some(ScenarioError::new(message));
                None
            }
        }
    }
}

/// The policy form: a seed, the numbers of players typed, and a policy choosing the moves.
fn with_policy(
    seed: i64,
    players: Option<toml::Value>,
    policy: Option<PolicyConfig>,
) -> Result<Expansion, ScenarioError> {
    let Ok(seed) = i32::try_from(seed) else {
        return error(format!("scenario: seed {seed} does not fit a C int"));
    };
    if seed == 0 {
        return error(SEED_ZERO);
    }
    let (players, policy) = if seed == EXIT_SEED {
        if players.is_some() || policy.is_some() {
            return error("scenario: seed -1 exits at once, so `players` and `policy` would never be used");
        }
        (Vec::new(), None)
    } else {
        let Some(players) = players else {
            return error("scenario: `players` is missing (2, 3 or 4, or a list ending in one)");
        };
        let Some(policy) = policy else {
            return error("scenario: `policy` is missing (policy = { seed = N })");
        };
        if policy.illegal_every == Some(0) {
            return error("scenario: policy.illegal-every must be at least 1");
        }
        (player_counts(&players)?, Some(policy))
    };
    let policy_seed = policy.as_ref().map_or(0, |p| p.seed);
    let mut source = Policy {
        seed: seed.to_string(),
        players: players.iter().map(i32::to_string).collect(),
        rng: fastrand::Rng::with_seed(policy_seed),
        illegal_every: policy.as_ref().and_then(|p| p.illegal_every),
        quit_after_turns: policy.as_ref().and_then(|p| p.quit_after_turns),
        decisions: 0,
        owe_legal: false,
    };
    let (stdout, session) = play(&mut source)?;
    match session.ending {
        Ending::Exited | Ending::Won { .. } | Ending::Quit { .. } => {}
        Ending::TurnLimit { turns } => {
            return error(format!(
                "nobody has won within {turns} turns (policy seed {policy_seed}); set quit-after-turns"
            ))
        }
        ref other => return error(describe(other)),
    }
    Ok(Expansion::typed(&session.consumed, stdout))
}

/// `players = 3` or `players = [5, 1, 3]`: all but the last invalid, the last 2, 3 or 4.
fn player_counts(value: &toml::Value) -> Result<Vec<i32>, ScenarioError> {
    let items = match value {
        toml::Value::Array(items) => items.clone(),
        single => vec![single.clone()],
    };
    let counts = items
        .iter()
        .map(|item| {
            item.as_integer().and_then(|n| i32::try_from(n).ok()).ok_or_else(|| {
                ScenarioError::new(format!(
                    "scenario: players: {item} is not an int (give 2, 3, 4 or a list of ints)"
                ))
            })
        })
        .collect::<Result<Vec<i32>, _>>()?;
    let valid = |n: &i32| (2..=4).contains(n);
    match counts.split_last() {
        None => error("scenario: players is an empty list"),
        Some((last, _)) if !valid(last) => {
            error(format!("scenario: players: the last number typed must be 2, 3 or 4, not {last}"))
        }
        Some((_, before)) if before.iter().any(valid) => error(format!(
            "scenario: players: {counts:?} has a valid number before the last, so the rest would \
             never be read"
        )),
        Some(_) => Ok(counts),
    }
}

/// Plays the game: uniform among the legal moves, with optional deliberate mistakes and a quit.
struct Policy {
    seed: String,
    players: VecDeque<String>,
    rng: fastrand::Rng,
    illegal_every: Option<u64>,
    quit_after_turns: Option<u64>,
    /// Move decisions taken so far (the retry after a deliberate mistake is part of its decision).
    decisions: u64,
    /// The last token was a deliberate illegal location: the next must be legal.
    owe_legal: bool,
}

impl crate::console::InputSource<Prompt<'_>> for Policy {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        let request = match prompt {
            Prompt::Seed => return Some(self.seed.clone()),
            Prompt::Players => return self.players.pop_front(),
            Prompt::Move(request) => request,
        };
        if self.quit_after_turns.is_some_and(|limit| request.turn > limit) {
            return Some(QUIT.to_owned());
        }
        let legal = request.legal;
        if !self.owe_legal {
            self.decisions += 1;
            if self.illegal_every.is_some_and(|n| self.decisions % n == 0) {
                // Any of the 45 location strings but a legal origin: at most 4 are legal.
                let wrong: Vec<Location> =
                    Location::all().filter(|at| legal.iter().all(|mv| mv.from != *at)).collect();
                self.owe_legal = true;
                return Some(wrong[self.rng.usize(..wrong.len())].to_string());
            }
        }
        self.owe_legal = false;
        Some(legal[self.rng.usize(..legal.len())].from.to_string())
    }
}
