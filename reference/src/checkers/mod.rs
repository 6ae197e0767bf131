//! The checkers assignment (handout `shared/seeds/003_506f69cf375204fa.txt`, exact strings and our
//! decisions in `shared/specs/checkers.md`).
//!
//! Where each part of the handout lives:
//!
//! - Section 1 (the board, steps and jumps), section 4 (conditions 1-4), section 5 (kings), section 6
//!   (no multiple jumps) and section 7 (no end of game): [`rules`].
//! - Section 2 (the board drawn with `-` and `|`) and section 3 (prompts, four numbers per move):
//!   [`console`], the whole program's exact text.
//! - Cases' `[scenario]` tables: [`scenario`]. There is no function-level driver: the handout names no
//!   functions.

use std::io::{self, BufRead, Write};

use crate::{Expansion, ScenarioError, Solution};

pub mod console;
pub mod rules;
pub mod scenario;

/// The checkers assignment, as the grader reaches it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checkers;

impl Solution for Checkers {
    fn id(&self) -> &'static str {
        "checkers"
    }

    fn expand_transcript(&self, scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        scenario::expand_transcript(scenario)
    }

    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
        console::run_stdin(input, output).map(|_| ())
    }
}
