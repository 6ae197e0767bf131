//! The backgammon AI assignment (handout `shared/seeds/002_55443f4fbce3f79e.txt`, the grading
//! protocol and the wire coordinates in `shared/specs/backgammon-ai.md`).
//!
//! Submissions are Java programs played against over a line protocol, so this module is not a
//! console program but what the referee needs and what a correct submission does:
//!
//! - Appendix A (the full rules: entering, hitting, closed points, doubles, using as many dice as
//!   possible and the higher one, bearing off, single/gammon/backgammon), in the spec's absolute
//!   numbering and its `FROM/TO` notation: [`rules`], pure. [`rules::legal_plays`] lists the distinct
//!   plays of a roll; [`rules::check_play`] judges a play as written, with a short reason.
//! - The AI and the random opponent the strength cases measure it against, a seeded generator of our
//!   own, and whole games between two players: [`players`].
//! - The protocol's `--protocol` mode, answered as a correct submission answers it: [`protocol`].
//! - The referee of the grader's interactive cases: seeded games played with a program over the
//!   protocol, each case grading one thing and steering around the others: [`referee`].
//!
//! The doubling cube (appendix A.7) is optional in the handout; the protocol's cube extension is
//! answered by never doubling and always taking.

pub mod players;
pub mod protocol;
pub mod referee;
pub mod rules;

use std::io::{self, BufRead, Write};

use crate::{Expansion, ScenarioError, Solution};

/// The assignment as the grader reaches it: interactive cases only.
#[derive(Debug, Clone, Copy)]
pub struct BackgammonAi;

impl Solution for BackgammonAi {
    fn id(&self) -> &'static str {
        "backgammon-ai"
    }

    fn expand_transcript(&self, _scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
        Err(ScenarioError::new("backgammon-ai has no transcript cases: its cases are interactive"))
    }

    fn interactive(&self, scenario: &toml::Table) -> Result<Box<dyn crate::referee::Match>, ScenarioError> {
        Ok(Box::new(referee::BackgammonMatch::from_scenario(scenario)?))
    }

    /// A correct submission's `--protocol` mode.
    fn run_console(&self, input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
        protocol::run_protocol(input, output)
    }
}
