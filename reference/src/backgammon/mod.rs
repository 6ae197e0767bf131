//! The backgammon assignment (handout `shared/seeds/000_0dc96a747749d778.txt`, course facts in
//! `shared/specs/backgammon.md`).
//!
//! Where each part of the handout lives:
//!
//! - Section 1 "The Board" (the globals of `board.c`, the start position) and sections 2 to 5 (the
//!   object, the dice, basic moves and their validity conditions 1 to 5, hits and entry moves from the
//!   bar, bearing off), section 7 (no doubles, no detection of a stuck player): [`rules`], which also
//!   answers the required check functions of section 8.1.
//! - Section 1's board drawing (`print_board`), section 3.1's `roll_die` ([`crate::rng::GlibcRandom`])
//!   and section 6 (`0 0` ends the program): [`console`], the whole program's exact text.
//! - Section 8.1's required functions, tested one at a time: [`driver`], the command language of
//!   `cases/backgammon/README.md`.
//! - The examples of sections 3.2, 4 and 5 are reproduced by `tests/backgammon_handout.rs`.
//! - Cases' `[scenario]` tables: [`scenario`].

use std::io::{self, BufRead, Write};

use crate::rng::GlibcRandom;
use crate::{Expansion, ScenarioError, Solution};

pub mod console;
pub mod driver;
pub mod rules;
pub mod scenario;

/// The backgammon assignment, as the grader reaches it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Backgammon;

impl Solution for Backgammon {
    fn id(&self) -> &'static str {
        "backgammon"
    }

    fn expand_transcript(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        scenario::expand_transcript(scenario)
    }

    fn expand_unit(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        crate::scenario::expand_unit::<driver::Driver>(scenario)
    }

    /// Runs the program with glibc's default dice, as an unmodified submission rolls them.
    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
        console::run_stdin(input, output, &mut GlibcRandom::default()).map(|_| ())
    }
}
