//! The function-level driver's command language (`cases/backgammon/README.md`), answered by the rules.
//!
//! `cases/backgammon/driver.c` links a student's functions and reads these commands; this module
//! prints what that driver prints when the student's functions are correct, so unit cases' expected
//! output is generated. Scripts whose answer the handout leaves open are rejected.

use std::io::{self, Write};

use super::console::write_board;
use super::rules::{
    check_board_bounds, Board, CheckFunction, Colour, BOARD_SIZE, INVALID_MOVE, NUM_PIECES, VALID_MOVE,
};
use crate::driver::{arity, number, LineDriver};

/// The largest magnitude the driver accepts for an int argument (as the Trouble driver does).
pub const INT_LIMIT: i32 = 1_000_000;

/// The driver: the course's globals, once a script has set them.
#[derive(Debug, Clone, Default)]
pub struct Driver {
    /// `None` until `start` or `clear`: what `board.c` initialises them to is not part of the contract.
    globals: Option<Board>,
}

impl Driver {
    /// A driver whose globals are not set yet: `start` or `clear` must come before any command that
    /// reads or changes them.
    pub fn new() -> Self {
        Self { globals: None }
    }

    /// The globals, once set.
    pub fn board(&self) -> Option<&Board> {
        self.globals.as_ref()
    }

    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()> {
        let arity = |n: usize, usage: &str| arity(args, n, usage);
        match name {
            "start" => {
                arity(0, name)?;
                self.globals = Some(Board::start());
            }
            "clear" => {
                arity(0, name)?;
                self.globals = Some(Board::empty());
            }
            "set" => {
                arity(3, "set COLOUR POINT N")?;
                let colour = colour(args[0])?;
                let point = number(args[1], 1..=BOARD_SIZE, "point")?;
                let count = number(args[2], 0..=NUM_PIECES, "count")?;
                self.board_mut()?.set_count(colour, point, count)?;
            }
            "bar" => {
                arity(2, "bar COLOUR N")?;
                let colour = colour(args[0])?;
                let count = number(args[1], 0..=NUM_PIECES, "count")?;
                self.board_mut()?.set_bar(colour, count)?;
            }
            "print" => {
                arity(0, name)?;
                let board = self.board_ref()?;
                if let Some(point) = board.mixed_point() {
                    anyhow::bail!(
                        "point {point} holds checkers of both colours, which no game reaches: how \
                         print_board draws it is not defined"
                    );
                }
                write_board(out, board)?;
            }
            "check" | "effects" => {
                arity(5, &format!("{name} FUNCTION COLOUR FROM TO DIE"))?;
                let function = CheckFunction::from_name(args[0]).ok_or_else(|| {
                    let names: Vec<&str> = CheckFunction::ALL.iter().map(|f| f.name()).collect();
                    anyhow::anyhow!("unknown function `{}` ({})", args[0], names.join(", "))
                })?;
                let mover = colour(args[1])?;
                let from = number(args[2], -INT_LIMIT..=INT_LIMIT, "FROM")?;
                let to = number(args[3], -INT_LIMIT..=INT_LIMIT, "TO")?;
                let die = number::<u8>(args[4], 1..=6, "die")?;
                let before = *self.board_ref()?;
                // Both commands ask only what the handout defines: a query it leaves open may make a
                // correct function do anything, side effects included.
                let validity = function.answer(&before, mover, from, to, die)?;
                if name == "check" {
                    // The C driver then restores the globals silently.
                    writeln!(out, "{} returned {}", function.name(), validity.value())?;
                } else {
                    // A correct function changes no global and returns VALID_MOVE or INVALID_MOVE, so
                    // the C driver prints neither a change nor the return value.
                    let after = before;
                    for line in changes(function.name(), &before, &after) {
                        writeln!(out, "{line}")?;
                    }
                    if let Some(line) = unexpected_return(function.name(), validity.value()) {
                        writeln!(out, "{line}")?;
                    }
                }
            }
            "bounds" => {
                arity(1, "bounds N")?;
                let index = number(args[0], -INT_LIMIT..=INT_LIMIT, "N")?;
                writeln!(out, "check_board_bounds returned {}", check_board_bounds(index).value())?;
            }
            "dump" => {
                arity(0, name)?;
                write_dump(out, self.board_ref()?)?;
            }
            _ => {
                anyhow::bail!(
                    "unknown command `{name}` (start, clear, set, bar, print, check, effects, bounds, dump)"
                )
            }
        }
        Ok(())
    }

    fn board_ref(&self) -> anyhow::Result<&Board> {
        self.globals.as_ref().ok_or_else(unset)
    }

    fn board_mut(&mut self) -> anyhow::Result<&mut Board> {
        self.globals.as_mut().ok_or_else(unset)
    }
}

fn unset() -> anyhow::Error {
    anyhow::anyhow!(
        "the globals are not set yet (what board.c initialises them to is not defined): start the \
         script with start or clear"
    )
}

/// The globals in `dump` order, each with its C name: `the_board_white[1..=24]`,
/// `the_board_red[1..=24]`, `the_bar_white`, `the_bar_red`, `num_white`, `num_red`.
pub fn globals(board: &Board) -> Vec<(String, i32)> {
    let mut all = Vec::with_capacity(52);
    for colour in Colour::ALL {
        let name = array_name(colour);
        for (point, &count) in board.points(colour).iter().enumerate().skip(1) {
            all.push((format!("{name}[{point}]"), count));
        }
    }
    all.push(("the_bar_white".to_owned(), board.bar(Colour::White)));
    all.push(("the_bar_red".to_owned(), board.bar(Colour::Red)));
    all.push(("num_white".to_owned(), board.num(Colour::White)));
    all.push(("num_red".to_owned(), board.num(Colour::Red)));
    all
}

fn array_name(colour: Colour) -> &'static str {
    match colour {
        Colour::White => "the_board_white",
        Colour::Red => "the_board_red",
    }
}

/// The lines the C driver's `effects` prints after a check function that changed globals:
/// `FUNCTION changed NAME from A to B`, one per global that differs, in `dump` order.
pub fn changes(function: &str, before: &Board, after: &Board) -> Vec<String> {
    globals(before)
        .into_iter()
        .zip(globals(after))
        .filter(|((_, a), (_, b))| a != b)
        .map(|((name, a), (_, b))| format!("{function} changed {name} from {a} to {b}"))
        .collect()
}

/// The line the C driver's `effects` prints last when a check function returned something other than
/// `VALID_MOVE` (1) or `INVALID_MOVE` (2): `FUNCTION returned R, neither VALID_MOVE nor INVALID_MOVE`.
/// So a stub that returns 0 and changes nothing does not pass as a function without side effects.
pub fn unexpected_return(function: &str, returned: i32) -> Option<String> {
    (returned != VALID_MOVE && returned != INVALID_MOVE)
        .then(|| format!("{function} returned {returned}, neither VALID_MOVE nor INVALID_MOVE"))
}

/// `dump`: the two arrays (points 1..=24), the bars and the counts, each value preceded by a space.
pub fn write_dump(out: &mut dyn Write, board: &Board) -> io::Result<()> {
    for colour in Colour::ALL {
        write!(out, "{}:", array_name(colour))?;
        for count in &board.points(colour)[1..] {
            write!(out, " {count}")?;
        }
        writeln!(out)?;
    }
    writeln!(out, "the_bar_white: {}", board.bar(Colour::White))?;
    writeln!(out, "the_bar_red: {}", board.bar(Colour::Red))?;
    writeln!(out, "num_white: {}", board.num(Colour::White))?;
    writeln!(out, "num_red: {}", board.num(Colour::Red))
}

fn colour(token: &str) -> anyhow::Result<Colour> {
    match token {
        "white" => Ok(Colour::White),
        "red" => Ok(Colour::Red),
        _ => anyhow::bail!("colour `{token}` is not white or red"),
    }
}

impl LineDriver for Driver {
    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()> {
        Driver::command(self, name, args, out)
    }
}
