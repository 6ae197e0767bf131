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
//!   conventions. Probing a student's own conventions, the cases and the rubric come next; until then
//!   the assignment is not registered with the grader.

pub mod driver;
pub mod rules;
