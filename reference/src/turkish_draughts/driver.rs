//! The function-level driver's command language for Turkish draughts, answered by the rules.
//!
//! `cases/turkish-draughts/driver.c` is compiled with a student's file and reads these commands; this
//! module prints what it prints when the student's functions are correct, so cases' expected output is
//! generated. Coordinates and symbols are the handout's (`board[x][y]`, x the row, 0 at the top; `-`,
//! `w`, `b`, `W`, `B`); the C driver translates them into the conventions it finds in the student's
//! program (where `init_board` puts white, whether `move` counts from 0 or 1), so the rules are graded
//! under those. Scripts whose answer the rules leave open are rejected.
//!
//! | command | output after the echo |
//! |---|---|
//! | `clear`, `start` | nothing: the driver itself empties the board, or sets the start |
//! | `init` | nothing: `init_board(board)` (what it prints is dropped) |
//! | `position R0/R1/.../R7` | nothing: the driver sets the board, eight rows of eight symbols |
//! | `set X Y S` | nothing: the driver sets one square |
//! | `move FX FY TX TY PLAYER [L1X L1Y ...]` | `move returned N`; from an empty square, `move from an empty square returned -1 or -2` when it did. A capture sequence may list its landing squares (the last is `TX TY`): the driver needs them for a program whose `move` takes the first landing, one jump per call, or the square of each piece it takes |
//! | `end` | `check_end_of_game returned N` (-1, 10 white, 20 black) |
//! | `convention functions`, `pieces`, `orientation`, `coordinates` | what the driver found; the handout's, in [`HANDOUT_CONVENTIONS`], for a correct program |
//! | `convention captures` | how `move` takes a capture sequence, all correct: `capture sequences: the final square` here; a program may take `the final square or the first landing, move() finishing the sequence`, `the first landing, move() finishing the sequence` (with ` as far as it goes straight (a turn ends the call)` when the piece stops where the sequence turns and the next call goes on, and `; a king's long landing ends the call` when a king that lands beyond the square right behind the piece it took stops there and the sequence goes on with the next call), `one jump per call`, `the square of the piece taken, one jump per call` or `the square of the piece taken, move() finishing the sequence`; for men and kings apart when they differ (`men: ...; kings: ...`) |
//! | `convention king-landing` | where a king lands after a capture (rule 6): `king captures: land on any vacant square beyond the piece taken` here, the official rule; a program may read rule 6 as `land right behind the piece taken` (a convention `conventions` charges) |
//! | `at X Y` | `X Y: S`, the symbol on one square as the driver reads it |
//! | `dump` | the board as the driver reads it: eight rows of eight symbols |
//! | `display` | what `display_board(board)` prints (the C driver puts the rows of a program with white on rows 1-2 in the handout's order) |
//! | `display-content` | the eight rows of symbols `display_board` showed, without blank lines, spaces, cell borders, a column header or row labels (digits or words) |

use std::io::Write;

use super::rules::{Board, Outcome, Piece, Player, Square, SIZE};
use crate::driver::{arity, number, LineDriver};

/// The line `move` prints for an empty origin square when the function answered -1 or -2: the
/// handout's "a piece that does not belong to him" does not say which.
pub const EMPTY_ORIGIN: &str = "move from an empty square returned -1 or -2";

/// What `convention NAME` prints for a program in the handout's conventions, by name: `functions`
/// says which of the four required functions the C driver had to stand in for. `captures` is the
/// reference's own way; the others are as correct.
pub const HANDOUT_CONVENTIONS: [(&str, &str); 6] = [
    ("functions", "functions: the four defined"),
    ("pieces", "pieces: the handout's enum"),
    ("orientation", "orientation: white starts on rows 5-6"),
    ("coordinates", "coordinates: 0-based"),
    ("captures", "capture sequences: the final square"),
    ("king-landing", "king captures: land on any vacant square beyond the piece taken"),
];

/// The driver: the board a script has set up.
#[derive(Debug, Clone, Default)]
pub struct Driver {
    /// `None` until `clear`, `start`, `init` or `position`.
    board: Option<Board>,
}

impl Driver {
    /// The board, once set.
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
    }

    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()> {
        let arity = |n: usize, usage: &str| arity(args, n, usage);
        match name {
            "clear" => {
                arity(0, name)?;
                self.board = Some(Board::empty());
            }
            "start" | "init" => {
                arity(0, name)?;
                self.board = Some(Board::start());
            }
            "position" => {
                arity(1, "position R0/R1/R2/R3/R4/R5/R6/R7")?;
                let board = Board::parse(&args[0].replace('/', "\n")).ok_or_else(|| {
                    anyhow::anyhow!("`{}` is not eight rows of eight of - w b W B", args[0])
                })?;
                no_man_on_its_last_row(&board)?;
                self.board = Some(board);
            }
            "set" => {
                arity(3, "set X Y SYMBOL")?;
                let square = square(args[0], args[1])?;
                let piece = symbol(args[2])?;
                let board = self.board_mut()?;
                board.set(square, piece);
                no_man_on_its_last_row(board)?;
            }
            "move" => {
                anyhow::ensure!(
                    args.len() >= 5 && args.len() % 2 == 1,
                    "usage: move FX FY TX TY PLAYER [L1X L1Y ...]"
                );
                let from = square(args[0], args[1])?;
                let to = square(args[2], args[3])?;
                let player = player(args[4])?;
                let landings =
                    args[5..].chunks(2).map(|xy| square(xy[0], xy[1])).collect::<anyhow::Result<Vec<_>>>()?;
                let board = self.board_mut()?;
                let legal = board.legal_moves(player);
                let matching: Vec<_> = legal.iter().filter(|m| m.from == from && m.to == to).collect();
                let sorted = |squares: &[Square]| {
                    let mut squares = squares.to_vec();
                    squares.sort();
                    squares
                };
                if matching.iter().any(|m| sorted(&m.captured) != sorted(&matching[0].captured)) {
                    anyhow::bail!("two maximal sequences from {from} end on {to} capturing different pieces");
                }
                if !landings.is_empty() && !matching.iter().any(|m| m.landings == landings) {
                    anyhow::bail!("the landings are not those of a legal capture sequence from {from} to {to}");
                }
                // Without its landings, a square on the way of a sequence of several captures means one
                // thing to a move() that takes the final square and another to one that takes the first
                // landing or one jump per call.
                if landings.is_empty() {
                    let on_the_way =
                        legal.iter().any(|m| m.from == from && m.landings.iter().rev().skip(1).any(|&l| l == to));
                    anyhow::ensure!(
                        !on_the_way,
                        "{to} is on the way of a capture sequence from {from}: give its landing squares"
                    );
                }
                // A program whose move() takes the first landing finishes the sequence its own way: the
                // first landing must settle where it ends and what it takes.
                if let Some(first) = landings.first() {
                    let settled = legal.iter().filter(|m| m.from == from).all(|m| {
                        m.landings.first() != Some(first) || (m.to == to && sorted(&m.captured) == sorted(&matching[0].captured))
                    });
                    anyhow::ensure!(settled, "from {from}, the first landing {first} does not settle the sequence");
                }
                let empty = board.get(from).is_none();
                match board.play(player, from, to) {
                    Outcome::NotYourPiece if empty => writeln!(out, "{EMPTY_ORIGIN}")?,
                    outcome => writeln!(out, "move returned {}", outcome.code())?,
                }
            }
            "convention" => {
                arity(1, "convention functions|pieces|orientation|coordinates|captures|king-landing")?;
                let (_, line) = HANDOUT_CONVENTIONS.iter().find(|(n, _)| *n == args[0]).ok_or_else(|| {
                    anyhow::anyhow!(
                        "no convention `{}` (functions, pieces, orientation, coordinates, captures, king-landing)",
                        args[0]
                    )
                })?;
                writeln!(out, "{line}")?;
            }
            "at" => {
                arity(2, "at X Y")?;
                let at = square(args[0], args[1])?;
                let symbol = self.board_ref()?.get(at).map_or('-', Piece::symbol);
                writeln!(out, "{at}: {symbol}")?;
            }
            "end" => {
                arity(0, name)?;
                let code = self.board_ref()?.winner().map_or(-1, Player::code);
                writeln!(out, "check_end_of_game returned {code}")?;
            }
            "dump" | "display" | "display-content" => {
                arity(0, name)?;
                out.write_all(self.board_ref()?.display().as_bytes())?;
            }
            _ => anyhow::bail!(
                "unknown command `{name}` (clear, start, init, position, set, move, at, convention, end, dump, display, display-content)"
            ),
        }
        Ok(())
    }

    fn board_ref(&self) -> anyhow::Result<&Board> {
        self.board.as_ref().ok_or_else(unset)
    }

    fn board_mut(&mut self) -> anyhow::Result<&mut Board> {
        self.board.as_mut().ok_or_else(unset)
    }
}

fn unset() -> anyhow::Error {
    anyhow::anyhow!("the board is not set yet: start the script with clear, start, init or position")
}

/// The spec keeps cases away from a man on its own last row (it would have been crowned).
fn no_man_on_its_last_row(board: &Board) -> anyhow::Result<()> {
    for player in Player::ALL {
        if let Some((square, _)) = board.pieces(player).find(|(s, p)| !p.king && s.x == player.last_row()) {
            anyhow::bail!("a {} man on its last row ({square}) would be a king", player.name());
        }
    }
    Ok(())
}

fn square(x: &str, y: &str) -> anyhow::Result<Square> {
    Ok(Square::new(number(x, 0..=SIZE - 1, "X")?, number(y, 0..=SIZE - 1, "Y")?))
}

fn symbol(token: &str) -> anyhow::Result<Option<Piece>> {
    match token {
        "-" => Ok(None),
        _ => token
            .chars()
            .next()
            .filter(|_| token.len() == 1)
            .and_then(Piece::from_symbol)
            .map(Some)
            .ok_or_else(|| anyhow::anyhow!("symbol `{token}` is not one of - w b W B")),
    }
}

fn player(token: &str) -> anyhow::Result<Player> {
    match token {
        "white" => Ok(Player::White),
        "black" => Ok(Player::Black),
        _ => anyhow::bail!("player `{token}` is not white or black"),
    }
}

impl LineDriver for Driver {
    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()> {
        Driver::command(self, name, args, out)
    }

    /// A `move` of a capture sequence of two or more captures, written with its final square only,
    /// gets its landing squares: cases say what is played, the driver needs them for a program whose
    /// `move` takes the first landing or one jump per call.
    fn complete(&self, line: &str) -> String {
        let tokens: Vec<&str> = line.split([' ', '\t', '\r']).filter(|t| !t.is_empty()).collect();
        let (Some(board), ["move", fx, fy, tx, ty, who]) = (&self.board, tokens.as_slice()) else {
            return line.to_owned();
        };
        let (Ok(from), Ok(to), Ok(player)) = (square(fx, fy), square(tx, ty), player(who)) else {
            return line.to_owned();
        };
        match board.legal_moves(player).iter().find(|m| m.from == from && m.to == to) {
            Some(m) if m.landings.len() > 1 => {
                let landings: String = m.landings.iter().map(|l| format!(" {} {}", l.x, l.y)).collect();
                format!("{}{landings}", tokens.join(" "))
            }
            _ => line.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::run_script;

    #[test]
    fn a_script_sets_up_plays_and_reads_back() {
        let out = run_script::<Driver, _>(&[
            "position --------/--------/--------/---b----/---w----/--------/--------/--------",
            "move 4 3 3 3 white",
            "move 4 3 2 3 white",
            "move 2 3 1 3 black",
            "move 4 3 5 3 black",
            "end",
            "dump",
        ])
        .unwrap();
        let expected = "> position --------/--------/--------/---b----/---w----/--------/--------/--------\n\
                        > move 4 3 3 3 white\nmove returned -2\n\
                        > move 4 3 2 3 white\nmove returned 1\n\
                        > move 2 3 1 3 black\nmove returned -1\n\
                        > move 4 3 5 3 black\nmove from an empty square returned -1 or -2\n\
                        > end\ncheck_end_of_game returned 10\n\
                        > dump\n--------\n--------\n---w----\n--------\n--------\n--------\n--------\n--------\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn scripts_the_rules_leave_open_are_rejected() {
        let err = run_script::<Driver, _>(&["clear", "set 0 3 w"]).unwrap_err().to_string();
        assert!(err.contains("a white man on its last row"), "{err}");
        let err = run_script::<Driver, _>(&["move 5 0 4 0 white"]).unwrap_err().to_string();
        assert!(err.contains("not set yet"), "{err}");
        let err = run_script::<Driver, _>(&["start", "move 5 0 4 0 red"]).unwrap_err().to_string();
        assert!(err.contains("not white or black"), "{err}");
        let err = run_script::<Driver, _>(&["start", "move 5 0 4 8 white"]).unwrap_err().to_string();
        assert!(err.contains("Y `8` is not a number 0..7"), "{err}");
        let capture = "position --------/--------/---b----/--------/---b----/---w----/--------/--------";
        let err = run_script::<Driver, _>(&[capture, "move 5 3 1 3 white 2 3 1 3"]).unwrap_err().to_string();
        assert!(err.contains("not those of a legal capture sequence"), "{err}");
        let err = run_script::<Driver, _>(&[capture, "move 5 3 3 3 white"]).unwrap_err().to_string();
        assert!(err.contains("give its landing squares"), "{err}");
        let out = run_script::<Driver, _>(&[capture, "move 5 3 1 3 white 3 3 1 3"]).unwrap();
        assert!(out.ends_with("move returned 2\n"), "{out}");
        // A king landing on (3 3) goes on left or right: the first landing does not settle the sequence.
        let fork = "position --------/--------/--------/-b---b--/--------/---b----/--------/---W----";
        let err = run_script::<Driver, _>(&[fork, "move 7 3 3 0 white 3 3 3 0"]).unwrap_err().to_string();
        assert!(err.contains("does not settle the sequence"), "{err}");
    }
}
