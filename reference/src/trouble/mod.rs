//! The Trouble assignment (handout `shared/seeds/001_e52fb11de4bf0b8b.txt`, template facts in
//! `shared/specs/trouble.md`).
//!
//! Where each part of the handout lives:
//!
//! - "Background" and the rules for moving the pieces, "Data Representation" (colours, positions on
//!   the board, location of each piece, state of the game): [`rules`], which keeps the handout's four
//!   arrays and answers `initializeBoard`, `printMoves`' list, `movePiece` and `checkWin`.
//! - "Program Specification" (`printStatus`, `printMoves`' output, `playerTurn`) and the template's
//!   `main` and die ([`crate::rng::TroubleRng`]): [`console`], the whole program's exact text.
//! - The function-level tests the handout's grading criteria call for: [`driver`], the command
//!   language of `cases/trouble/README.md`.
//! - "APPENDIX: Sample Run" is reproduced by `tests/trouble_appendix.rs`.
//! - Cases' `[scenario]` tables: [`scenario`].

use std::io::{self, BufRead, Write};

use crate::{Expansion, ScenarioError, Solution};

pub mod console;
pub mod driver;
pub mod rules;
pub mod scenario;

/// The Trouble assignment, as the grader reaches it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Trouble;

impl Solution for Trouble {
    fn id(&self) -> &'static str {
        "trouble"
    }

    fn expand_transcript(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        scenario::expand_transcript(scenario)
    }

    fn expand_unit(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        crate::scenario::expand_unit::<driver::Driver>(scenario)
    }

    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
        console::run_stdin(input, output).map(|_| ())
    }
}
