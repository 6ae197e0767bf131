//! The whole checkers program, printed exactly as a correct submission prints it
//! (`shared/specs/checkers.md`): the board once at the start, then for each move the prompt
//! `RED's move:  ` or `WHITE's move:  `, and after the four numbers either `INVALID MOVE.  TRY AGAIN!!`
//! (and the same prompt again) or an empty line and the new board. The game "continues forever": the
//! reference stops when input ends.

use std::io::{self, BufRead, Write};

use super::rules::{Board, Colour, Move, Square, SIZE};

pub use crate::console::{Script, Tokens};

/// Printed when a move is invalid; the same player is prompted again.
pub const INVALID_MOVE: &str = "INVALID MOVE.  TRY AGAIN!!";

/// The prompt for `mover`'s move (two spaces, no newline).
pub fn prompt_text(mover: Colour) -> String {
    format!("{}'s move:  ", mover.name())
}

/// A read of the program, with what the player sees at that moment.
#[derive(Debug, Clone, Copy)]
pub struct Prompt<'a> {
    /// The 1-based number of the valid move being asked for.
    pub turn: u64,
    /// Whose move.
    pub mover: Colour,
    /// The board.
    pub board: &'a Board,
    /// True when this prompt follows `INVALID MOVE.  TRY AGAIN!!`.
    pub retry: bool,
}

impl crate::console::Prompt for Prompt<'_> {
    /// A move is read with `scanf("%d %d %d %d")`.
    fn tokens(&self) -> usize {
        4
    }
}

/// Where the program's input comes from: shown the game at every read.
pub trait InputSource: for<'p> crate::console::InputSource<Prompt<'p>> {}

impl<T: for<'p> crate::console::InputSource<Prompt<'p>> + ?Sized> InputSource for T {}

/// The move in a line typed at a prompt: exactly four C `int`s separated by whitespace.
pub fn parse_move(text: &str) -> Option<Move> {
    let numbers: Vec<i32> = text.split_ascii_whitespace().map(str::parse).collect::<Result<_, _>>().ok()?;
    match numbers[..] {
        [x1, y1, x2, y2] => Some(Move::new(x1, y1, x2, y2)),
        _ => None,
    }
}

/// How the console runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Write each line read, and a newline, right after its prompt (the view of a terminal).
    pub echo_input: bool,
    /// Stop before asking for valid move number `turn_limit + 1` (`None`: for ever, as the program).
    pub turn_limit: Option<u64>,
}

/// Why the program stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Input ended at a prompt (the handout's program never ends; the reference stops).
    InputEnded {
        /// Whose prompt it was.
        mover: Colour,
        /// The move number asked for.
        turn: u64,
    },
    /// A line that is not four `int`s was typed (`scanf` would fail; the reference stops).
    NotAMove {
        /// Whose prompt it was.
        mover: Colour,
        /// The move number asked for.
        turn: u64,
        /// The line typed.
        text: String,
    },
    /// [`Options::turn_limit`] valid moves were played.
    TurnLimit {
        /// The number of valid moves played.
        turns: u64,
    },
}

/// What a run of the console did.
pub type Session = crate::console::Session<Ending, Board>;

/// Runs the program on tokens read from `input` until input runs out (the `reference checkers`
/// console, and [`crate::Solution::run_console`]).
pub fn run_stdin(input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<Session> {
    crate::console::run_stdin(input, |tokens| run(tokens, output, Options::default()))
}

/// The program's reads and writes.
type Terminal<'a> = crate::console::Terminal<'a, dyn InputSource + 'a>;

/// Runs the program: the board, then moves until input ends.
pub fn run(source: &mut dyn InputSource, out: &mut dyn Write, options: Options) -> io::Result<Session> {
    let mut board = Board::start();
    let mut turns = 0;
    let mut io = Terminal::new(source, out, options.echo_input);
    let ending = play(&mut io, options.turn_limit, &mut board, &mut turns)?;
    io.out.flush()?;
    Ok(Session { ending, consumed: io.consumed, turns, board })
}

fn play(
    io: &mut Terminal<'_>,
    turn_limit: Option<u64>,
    board: &mut Board,
    turns: &mut u64,
) -> io::Result<Ending> {
    write_board(io.out, board)?;
    let mut mover = Colour::Red;
    let mut retry = false;
    loop {
        if !retry && turn_limit.is_some_and(|limit| *turns >= limit) {
            return Ok(Ending::TurnLimit { turns: *turns });
        }
        let turn = *turns + 1;
        let prompt = Prompt { turn, mover, board, retry };
        let Some(text) = io.ask(&prompt_text(mover), &prompt)? else {
            return Ok(Ending::InputEnded { mover, turn });
        };
        let Some(mv) = parse_move(&text) else {
            return Ok(Ending::NotAMove { mover, turn, text });
        };
        match board.play(mover, mv) {
            Ok(_) => {
                writeln!(io.out)?;
                write_board(io.out, board)?;
                *turns += 1;
                mover = mover.opponent();
                retry = false;
            }
            Err(_) => {
                writeln!(io.out, "{INVALID_MOVE}")?;
                retry = true;
            }
        }
    }
}

/// Prints the board: the column numbers, then each row between border lines, then an empty line.
pub fn write_board(out: &mut dyn Write, board: &Board) -> io::Result<()> {
    const BORDER: &str = " |---|---|---|---|---|---|---|---|";
    let mut text = String::from("  ");
    for x in 0..SIZE {
        text.push_str(&format!(" {x}  "));
    }
    text.truncate(text.len() - 1);
    text.push('\n');
    for y in 0..SIZE {
        text.push_str(BORDER);
        text.push('\n');
        text.push_str(&format!("{y}|"));
        for x in 0..SIZE {
            let letter = board.get(Square::new(x, y)).map_or(' ', |p| p.letter());
            text.push_str(&format!(" {letter} |"));
        }
        text.push('\n');
    }
    text.push_str(BORDER);
    text.push_str("\n\n");
    out.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_script(lines: &[&str]) -> (String, Session) {
        let mut out = Vec::new();
        let session = run(&mut Script::new(lines.iter().copied()), &mut out, Options::default()).unwrap();
        (String::from_utf8(out).unwrap(), session)
    }

    #[test]
    fn moves_are_four_ints() {
        assert_eq!(parse_move("1 2 0 3"), Some(Move::new(1, 2, 0, 3)));
        assert_eq!(parse_move(" -1\t2  0 +3 "), Some(Move::new(-1, 2, 0, 3)));
        for text in ["", "1 2 0", "1 2 0 3 4", "a b c d", "1.0 2 0 3"] {
            assert_eq!(parse_move(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_board_lines_are_33_and_34_characters() {
        let mut out = Vec::new();
        write_board(&mut out, &Board::start()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 19);
        assert_eq!(lines[0], "   0   1   2   3   4   5   6   7 ");
        assert!(lines[1..18].iter().all(|l| l.len() == 34), "{text}");
        assert_eq!(lines[2], "0|   | r |   | r |   | r |   | r |");
        assert_eq!(lines[18], "");
    }

    #[test]
    fn a_valid_move_prints_an_empty_line_and_the_board_an_invalid_one_the_message() {
        let (out, session) = run_script(&["1 2 1 3", "1 2 0 3", "0 5 1 4"]);
        assert!(out.contains("RED's move:  INVALID MOVE.  TRY AGAIN!!\nRED's move:  \n   0   1"), "{out}");
        assert!(out.ends_with("\n\nRED's move:  "), "{out}");
        assert_eq!(session.ending, Ending::InputEnded { mover: Colour::Red, turn: 3 });
        assert_eq!(session.turns, 2);
    }
}
