//! Reference implementations of the assignments: what a correct submission prints, for any scenario.
//!
//! Each assignment is a module of the same shape (`rules`, `console`, `scenario`, and `driver` where
//! functions are graded one at a time), reached by the grader through the [`Solution`] trait without
//! knowing any game. What the games share lives beside them: [`console`] (input sources, sessions),
//! [`scenario`] (parsing `[scenario]` tables, unit cases), [`driver`] (the drivers' command loop).

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

pub mod backgammon;
pub mod backgammon_ai;
pub mod checkers;
pub mod console;
pub mod driver;
pub mod referee;
pub mod rng;
pub mod scenario;
pub mod tokens;
pub mod trouble;
pub mod turkish_draughts;

/// A scenario expanded into what the grader feeds a program and what it expects back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expansion {
    /// Bytes fed to the program's standard input.
    pub stdin: Vec<u8>,
    /// The canonical transcript: what a correct program prints on standard output.
    pub stdout: Vec<u8>,
    /// Environment variables the program runs with (for example a seed read by a preload library).
    pub env: BTreeMap<String, String>,
}

impl Expansion {
    /// The expansion of a run that read `typed` (one line each) and printed `stdout`.
    pub fn typed<S: AsRef<str>>(typed: &[S], stdout: Vec<u8>) -> Self {
        let stdin = typed.iter().flat_map(|t| t.as_ref().bytes().chain(std::iter::once(b'\n'))).collect();
        Self { stdin, stdout, env: BTreeMap::new() }
    }
}

/// A scenario that cannot be expanded: bad values, or a game that cannot progress.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct ScenarioError(pub String);

impl ScenarioError {
    /// Builds an error from anything printable.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// Explicit inputs must end where the program does: an error naming those left over, if any.
    pub fn check_all_typed<'a>(
        left: impl IntoIterator<Item = &'a String>,
        ending: &str,
    ) -> Result<(), ScenarioError> {
        let rest: Vec<String> = left.into_iter().map(|t| format!("`{t}`")).collect();
        if rest.is_empty() {
            return Ok(());
        }
        let n = rest.len();
        Err(Self(format!("{n} input(s) remain after the program ended ({ending}): {}", rest.join(", "))))
    }
}

/// The reference solution of one assignment, as the grader sees it.
pub trait Solution: Sync {
    /// The id used everywhere: folder names under `cases/` and `fixtures/`, `--assignment`.
    fn id(&self) -> &'static str;

    /// Expands the `[scenario]` table of a whole-program case: what is typed and what is printed.
    fn expand_transcript(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError>;

    /// Expands the `[scenario]` table of a function-level case: driver commands and their answers.
    /// Assignments without a driver have none.
    fn expand_unit(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        let _ = scenario;
        Err(ScenarioError::new(format!("{} has no function-level driver, so no unit cases", self.id())))
    }

    /// Builds the referee of an interactive case from its `[scenario]` table: the games it plays with
    /// the program and how it scores them. Assignments without interactive cases have none.
    fn interactive(&self, scenario: &toml::Table) -> Result<Box<dyn referee::Match>, ScenarioError> {
        let _ = scenario;
        Err(ScenarioError::new(format!("{} has no referee, so no interactive cases", self.id())))
    }

    /// Runs the console program, as a correct submission would, until it ends or input runs out.
    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()>;
}

/// Every assignment the reference solves.
pub fn solutions() -> &'static [&'static dyn Solution] {
    &[
        &trouble::Trouble,
        &backgammon::Backgammon,
        &checkers::Checkers,
        &turkish_draughts::TurkishDraughts,
        &backgammon_ai::BackgammonAi,
    ]
}

/// The solution of the assignment with this id, if the reference has one.
pub fn solution(id: &str) -> Option<&'static dyn Solution> {
    solutions().iter().copied().find(|a| a.id() == id)
}
