//! The Turkish draughts assignment (handout `shared/seeds/004_3028bf6b2535b655.txt`, facts and our
//! decisions in `shared/specs/turkish-draughts.md`): a C function API (`init_board`, `move`,
//! `check_end_of_game`, `display_board`) with no console protocol.
//!
//! Where each part of the handout lives:
//!
//! - Rules 1-9 (the board, men's and kings' moves, captures, maximum capture, taking the captured
//!   pieces away, losing by elimination or blocking), `move()`'s return values, `check_end_of_game` and
//!   `display_board`'s symbols: [`rules`]. `tests/turkish_draughts_rules.rs` holds the rules suite.
//! - The functions called one at a time: [`driver`], the command language that
//!   `cases/turkish-draughts/driver.c` answers with the student's functions, in the handout's
//!   conventions; the C driver finds the student's own conventions and translates.
//!
//! There is no whole program to grade: every case is a unit case.

use std::io::{self, BufRead, Write};

use crate::{Expansion, ScenarioError, Solution};

pub mod driver;
pub mod rules;

/// The Turkish draughts assignment, as the grader reaches it.
#[derive(Debug, Clone, Copy, Default)]
pub struct TurkishDraughts;

impl Solution for TurkishDraughts {
    fn id(&self) -> &'static str {
        "turkish-draughts"
    }

    fn expand_transcript(&self, _scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        crate::scenario::error("turkish-draughts has no console program: its cases are unit cases")
    }

    fn expand_unit(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        crate::scenario::expand_unit::<driver::Driver>(scenario)
    }

    /// The handout's program is the four functions: what stands for it is the driver's language.
    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
        crate::driver::run::<driver::Driver>(input, output).map_err(|e| match e {
            crate::driver::DriverError::Io(e) => e,
            rejected => io::Error::new(io::ErrorKind::InvalidInput, rejected.to_string()),
        })
    }
}
