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

pub mod rules;
