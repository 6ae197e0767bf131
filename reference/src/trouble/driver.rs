//! The function-level driver's command language (`cases/trouble/README.md`), answered by the rules.
//!
//! `cases/trouble/driver.c` links a student's functions and reads these commands; this module prints
//! what that driver prints when the student's functions are correct, so unit cases' expected output
//! is generated. Scripts whose answer a correct program would not define are rejected.

use std::io::{self, Write};

use super::console::{write_moves, write_status};
use super::rules::{Board, Colour, Location, FINISH, PIECES, RING};
use crate::driver::{arity, number, LineDriver};

/// What the driver's globals hold.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Globals {
    /// Nothing set yet: the template's static initialisers are not part of the contract.
    Unset,
    /// `scramble`'s junk, which `dump` shows and nothing else can use.
    Scrambled,
    /// A consistent board (boxed: the other states are empty).
    Board(Box<Board>),
}

/// The driver: its globals and the commands that act on them.
#[derive(Debug, Clone)]
pub struct Driver {
    globals: Globals,
}

impl Default for Driver {
    fn default() -> Self {
        Self::new()
    }
}

impl Driver {
    /// A driver whose globals are not set yet: the first command must be `clear`, `init` or
    /// `scramble`.
    pub fn new() -> Self {
        Self { globals: Globals::Unset }
    }

    /// The board, when the globals hold one.
    pub fn board(&self) -> Option<&Board> {
        match &self.globals {
            Globals::Board(board) => Some(board),
            _ => None,
        }
    }

    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()> {
        let arity = |n: usize, usage: &str| arity(args, n, usage);
        match name {
            "clear" | "init" => {
                arity(0, name)?;
                self.globals = Globals::Board(Box::default());
            }
            "scramble" => {
                arity(0, name)?;
                self.globals = Globals::Scrambled;
            }
            "place" => {
                arity(2, "place PIECE LOC")?;
                let piece = number(args[0], 0..=15, "piece")?;
                let at = location(args[1])?;
                self.board_mut("place")?.place(piece, at)?;
            }
            "status" => {
                arity(0, name)?;
                write_status(out, self.board_ref("printStatus")?)?;
            }
            "moves" => {
                arity(2, "moves PLAYER ROLL")?;
                let (player, roll) = (player(args[0])?, roll(args[1])?);
                let moves = self.board_ref("printMoves")?.legal_moves(player, roll);
                write_moves(out, &moves)?;
                writeln!(out, "printMoves returned {}", moves.len())?;
            }
            "move" => {
                arity(3, "move PLAYER LOC ROLL")?;
                let (player, from, roll) = (player(args[0])?, location(args[1])?, roll(args[2])?);
                let moved = self.board_mut("movePiece")?.play(player, from, roll).is_ok();
                writeln!(out, "movePiece returned {}", u8::from(moved))?;
            }
            "win" => {
                arity(1, "win PLAYER")?;
                let player = player(args[0])?;
                let won = self.board_ref("checkWin")?.has_won(player);
                writeln!(out, "checkWin returned {}", u8::from(won))?;
            }
            "dump" => {
                arity(0, name)?;
                self.dump(out)?;
            }
            // `move` and `win` hide what the student's function prints; `show` shows it, and a
            // correct function prints nothing.
            "show" => match args.split_first() {
                Some((&inner @ ("move" | "win"), rest)) => self.command(inner, rest, out)?,
                _ => anyhow::bail!("usage: show move PLAYER LOC ROLL | show win PLAYER"),
            },
            _ => anyhow::bail!(
                "unknown command `{name}` (clear, scramble, init, place, status, moves, move, win, show, dump)"
            ),
        }
        Ok(())
    }

    fn board_ref(&self, function: &str) -> anyhow::Result<&Board> {
        match &self.globals {
            Globals::Board(board) => Ok(board),
            other => Err(undefined(other, function)),
        }
    }

    fn board_mut(&mut self, function: &str) -> anyhow::Result<&mut Board> {
        match &mut self.globals {
            Globals::Board(board) => Ok(board),
            other => Err(undefined(other, function)),
        }
    }

    /// `dump`: the four globals, each value preceded by one space.
    fn dump(&self, out: &mut Vec<u8>) -> anyhow::Result<()> {
        let (pieces, home, ring, finish): (Vec<i32>, Vec<i32>, Vec<i32>, Vec<Vec<i32>>) = match &self.globals
        {
            Globals::Unset => return Err(undefined(&self.globals, "dump")),
            Globals::Board(b) => (
                b.pieces().to_vec(),
                b.home().to_vec(),
                b.ring().to_vec(),
                b.finish().iter().map(|row| row.to_vec()).collect(),
            ),
            // The README's junk: gPieces[i] = 90 + i, gHome[c] = 7, gRing[i] = 50 + i,
            // gFinish[c][k] = 60 + 4c + k.
            Globals::Scrambled => (
                (90..90 + PIECES as i32).collect(),
                vec![7; 4],
                (50..50 + RING as i32).collect(),
                (0..4).map(|c| (0..FINISH as i32).map(|k| 60 + 4 * c + k).collect()).collect(),
            ),
        };
        let line = |out: &mut Vec<u8>, name: &str, values: &[i32]| -> io::Result<()> {
            write!(out, "{name}:")?;
            for v in values {
                write!(out, " {v}")?;
            }
            writeln!(out)
        };
        line(out, "gPieces", &pieces)?;
        line(out, "gHome", &home)?;
        line(out, "gRing", &ring)?;
        for (c, row) in finish.iter().enumerate() {
            line(out, &format!("gFinish[{c}]"), row)?;
        }
        Ok(())
    }
}

/// Why a command has no defined answer in this state.
fn undefined(globals: &Globals, function: &str) -> anyhow::Error {
    match globals {
        Globals::Unset => {
            anyhow::anyhow!("the globals are not set yet: start the script with clear, init or scramble")
        }
        _ => anyhow::anyhow!(
            "the globals hold scramble's junk: what {function} does with them is not defined \
             (run init or clear first)"
        ),
    }
}

fn player(token: &str) -> anyhow::Result<Colour> {
    let n: usize = number(token, 0..=3, "player")?;
    Ok(Colour::ALL[n])
}

fn roll(token: &str) -> anyhow::Result<u8> {
    let n = number(token, 1..=6, "roll")?;
    Ok(u8::try_from(n)?)
}

fn location(token: &str) -> anyhow::Result<Location> {
    Ok(token.parse::<Location>()?)
}

impl LineDriver for Driver {
    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()> {
        Driver::command(self, name, args, out)
    }
}
