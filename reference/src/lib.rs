//! Reference implementations of the assignments: what a correct submission prints, for any scenario.
//!
//! Each assignment is a module of the same shape (`rules`, `console`, `driver`, `scenario`), reached
//! by the grader through the [`Assignment`] trait without knowing any game.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

pub mod backgammon;
pub mod driver;
pub mod rng;
pub mod tokens;
pub mod trouble;

/// How a case exercises a submission; decides which part of the reference expands its scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseKind {
    /// The whole program, fed a stdin, compared with the console's transcript.
    Transcript,
    /// One function at a time through the assignment's C driver, compared with the Rust driver.
    Unit,
}

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

/// One assignment as the grader sees it.
pub trait Assignment: Sync {
    /// The id used everywhere: folder names under `cases/` and `fixtures/`, `--assignment`.
    fn id(&self) -> &'static str;

    /// Expands the `[scenario]` table of a case of the given kind.
    fn expand(&self, kind: CaseKind, scenario: &toml::Table) -> Result<Expansion, ScenarioError>;

    /// Runs the console program, as a correct submission would, until it ends or input runs out.
    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()>;
}

/// Every assignment the reference knows.
pub fn assignments() -> &'static [&'static dyn Assignment] {
    &[&trouble::Trouble, &backgammon::Backgammon]
}

/// The assignment with this id, if the reference knows it.
pub fn assignment(id: &str) -> Option<&'static dyn Assignment> {
    assignments().iter().copied().find(|a| a.id() == id)
}
