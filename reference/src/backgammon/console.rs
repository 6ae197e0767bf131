//! The whole backgammon program, printed exactly as a correct submission prints it.
//!
//! The board at start, then for each turn `Rolling dice:  A B`, the prompt `White's move:  ` or
//! `Red's move:  `, and after each move either `Invalid move` or the new board; `0 0` ends the program
//! (`shared/specs/backgammon.md` has the exact layout). Dice come from a [`Dice`] source: glibc's
//! `random()` as an unmodified program draws it, or a fixed list. Input comes from an [`InputSource`],
//! which is shown the game at every read: the standard-input source ([`Tokens`]) ignores it, the
//! scenario policy uses it to choose a move. Output goes to any writer; nothing here prints by itself.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};

pub use crate::console::{Script, Tokens};

use super::rules::{Board, Colour, Move, Turn, BOARD_SIZE};
use crate::rng::GlibcRandom;

/// Printed when a move is invalid with every remaining die; the prompt follows again.
pub const INVALID_MOVE: &str = "Invalid move";
/// The most checkers drawn on one point (section 1).
pub const MAX_DRAWN: i32 = 5;

/// The prompt for `mover`'s move (two spaces, no newline).
pub fn prompt_text(mover: Colour) -> &'static str {
    match mover {
        Colour::White => "White's move:  ",
        Colour::Red => "Red's move:  ",
    }
}

/// Where the dice come from: the handout's `roll_die()`, called twice at the start of each turn.
pub trait Dice {
    /// One die, 1..=6, or `None` when the source has no more.
    fn roll_die(&mut self) -> Option<u8>;
}

impl Dice for GlibcRandom {
    fn roll_die(&mut self) -> Option<u8> {
        Some(GlibcRandom::roll_die(self))
    }
}

/// Dice given in advance, in the order they are rolled (for the handout's examples and tests).
#[derive(Debug, Clone, Default)]
pub struct FixedDice {
    dice: VecDeque<u8>,
}

impl FixedDice {
    /// Dice rolled as these pairs, each pair's first die first. Panics on a die outside 1..=6.
    pub fn new(pairs: impl IntoIterator<Item = (u8, u8)>) -> Self {
        let dice: VecDeque<u8> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
        assert!(dice.iter().all(|d| (1..=6).contains(d)), "a die shows 1 to 6: {dice:?}");
        Self { dice }
    }
}

impl Dice for FixedDice {
    fn roll_die(&mut self) -> Option<u8> {
        self.dice.pop_front()
    }
}

/// A move prompt, with what the player sees at that moment.
#[derive(Debug, Clone, Copy)]
pub struct Prompt<'a> {
    /// Number of the turn, counting every turn started from 1 (White's first turn is 1).
    pub turn: u64,
    /// Whose move it is.
    pub mover: Colour,
    /// The dice of the turn, in the order rolled.
    pub dice: (u8, u8),
    /// The dice not used yet, in roll order (two before the first valid move, one after it).
    pub remaining: &'a [u8],
    /// The board before the move.
    pub board: &'a Board,
    /// True when this prompt follows `Invalid move`.
    pub retry: bool,
}

impl Prompt<'_> {
    /// The exact prompt text.
    pub fn text(&self) -> &'static str {
        prompt_text(self.mover)
    }
}

impl crate::console::Prompt for Prompt<'_> {
    /// A move is read with `scanf("%d %d")`: it may span lines and a line may hold several moves.
    fn tokens(&self) -> usize {
        2
    }
}

/// Where the program's input comes from: shown the game at every read.
pub trait InputSource: for<'p> crate::console::InputSource<Prompt<'p>> {}

impl<T: for<'p> crate::console::InputSource<Prompt<'p>> + ?Sized> InputSource for T {}

/// The move in a line typed at a prompt: exactly two C `int`s separated by whitespace.
pub fn parse_move(text: &str) -> Option<Move> {
    let mut numbers = text.split_ascii_whitespace().map(str::parse::<i32>);
    match (numbers.next(), numbers.next(), numbers.next()) {
        (Some(Ok(from)), Some(Ok(to)), None) => Some(Move::new(from, to)),
        _ => None,
    }
}

/// How the console runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Write each line read, and a newline, right after its prompt: the view of a terminal, where
    /// the user's typing is echoed (as in the handout's examples). A real program does not print its
    /// input; off by default.
    pub echo_input: bool,
    /// Stop before starting a turn past this many (`None`: play on for ever, as the real program).
    pub turn_limit: Option<u64>,
    /// The board the program starts from (the start position; another for the handout's section 5).
    pub start: Board,
}

impl Default for Options {
    fn default() -> Self {
        Self { echo_input: false, turn_limit: None, start: Board::start() }
    }
}

/// Why the program stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// `0 0` was typed (section 6): the program exits with status 0.
    Quit {
        /// Whose prompt it was.
        mover: Colour,
        /// The turn.
        turn: u64,
    },
    /// Input ended at a prompt (the real program would then misbehave; the reference stops).
    InputEnded {
        /// Whose prompt it was.
        mover: Colour,
        /// The turn.
        turn: u64,
    },
    /// A line that is not two `int`s was typed (the real program's `scanf` would fail and it would
    /// misbehave; the reference stops).
    NotAMove {
        /// Whose prompt it was.
        mover: Colour,
        /// The turn.
        turn: u64,
        /// The line typed.
        text: String,
    },
    /// The [`Dice`] source had no more dice at the start of a turn.
    DiceRanOut {
        /// The turn that could not start.
        turn: u64,
    },
    /// [`Options::turn_limit`] turns were played without the program ending.
    TurnLimit {
        /// The number of turns played.
        turns: u64,
    },
}

/// What a run of the console did.
pub type Session = crate::console::Session<Ending, Board>;

/// Runs the program on tokens read from `input` with these dice, until it ends or input runs out
/// (the `reference backgammon` console; [`crate::Solution::run_console`] passes glibc's default
/// sequence).
pub fn run_stdin(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
    dice: &mut dyn Dice,
) -> io::Result<Session> {
    crate::console::run_stdin(input, |tokens| run(tokens, dice, output, Options::default()))
}

/// Runs the program: a correct `main` with the handout's required functions.
pub fn run(
    source: &mut dyn InputSource,
    dice: &mut dyn Dice,
    out: &mut dyn Write,
    options: Options,
) -> io::Result<Session> {
    let mut board = options.start;
    let mut turns = 0;
    let mut io = Terminal::new(source, out, options.echo_input);
    let ending = play(&mut io, dice, options.turn_limit, &mut board, &mut turns)?;
    io.out.flush()?;
    Ok(Session { ending, consumed: io.consumed, turns, board })
}

/// The program's reads and writes.
type Terminal<'a> = crate::console::Terminal<'a, dyn InputSource + 'a>;

/// The program's main loop; returns why it stopped.
fn play(
    io: &mut Terminal<'_>,
    dice: &mut dyn Dice,
    turn_limit: Option<u64>,
    board: &mut Board,
    turns: &mut u64,
) -> io::Result<Ending> {
    write_board(io.out, board)?;
    let mut mover = Colour::White;
    loop {
        if turn_limit.is_some_and(|limit| *turns >= limit) {
            return Ok(Ending::TurnLimit { turns: *turns });
        }
        *turns += 1;
        let turn = *turns;
        let (Some(a), Some(b)) = (dice.roll_die(), dice.roll_die()) else {
            return Ok(Ending::DiceRanOut { turn });
        };
        writeln!(io.out, "Rolling dice:  {a} {b}")?;
        let mut state = Turn::new(mover, (a, b));
        let mut retry = false;
        while !state.is_over() {
            let prompt = Prompt { turn, mover, dice: (a, b), remaining: state.remaining(), board, retry };
            let Some(text) = io.ask(prompt_text(mover), &prompt)? else {
                return Ok(Ending::InputEnded { mover, turn });
            };
            let Some(mv) = parse_move(&text) else {
                return Ok(Ending::NotAMove { mover, turn, text });
            };
            if mv == Move::QUIT {
                return Ok(Ending::Quit { mover, turn });
            }
            match state.play(board, mv) {
                Ok(_) => {
                    write_board(io.out, board)?;
                    retry = false;
                }
                Err(_) => {
                    writeln!(io.out, "{INVALID_MOVE}")?;
                    retry = true;
                }
            }
        }
        mover = mover.opponent();
    }
}

/// The letter drawn for `point` in row `row` (0 nearest the numbers): `W`, `R` or `|`. A point
/// holding both colours (which no game reaches) draws white first.
fn cell(board: &Board, point: i32, row: i32) -> char {
    if board.count(Colour::White, point) > row {
        'W'
    } else if board.count(Colour::Red, point) > row {
        'R'
    } else {
        '|'
    }
}

/// `print_board()`: points 13..24 above, stacked downward from their numbers, points 12..1 below,
/// stacked upward toward theirs, at most five checkers drawn per point, then the bar line.
///
/// Every line but the bar line ends with a space: each label is followed by one space (two below
/// 10 on the bottom), each cell by two, and three more spaces separate the two quadrants.
pub fn write_board(out: &mut dyn Write, board: &Board) -> io::Result<()> {
    let top: Vec<i32> = (13..=BOARD_SIZE).collect();
    let bottom: Vec<i32> = (1..=12).rev().collect();
    let mut text = String::new();
    let gap = |text: &mut String, i: usize| {
        if i == 5 {
            text.push_str("   ");
        }
    };
    for (i, p) in top.iter().enumerate() {
        text.push_str(&format!("{p} "));
        gap(&mut text, i);
    }
    text.push('\n');
    for row in 0..MAX_DRAWN {
        for (i, &p) in top.iter().enumerate() {
            text.push(cell(board, p, row));
            text.push_str("  ");
            gap(&mut text, i);
        }
        text.push('\n');
    }
    text.push('\n');
    for row in (0..MAX_DRAWN).rev() {
        for (i, &p) in bottom.iter().enumerate() {
            text.push(cell(board, p, row));
            text.push_str("  ");
            gap(&mut text, i);
        }
        text.push('\n');
    }
    for (i, p) in bottom.iter().enumerate() {
        text.push_str(&if *p >= 10 { format!("{p} ") } else { format!("{p}  ") });
        gap(&mut text, i);
    }
    text.push('\n');
    text.push_str(&format!("  Bar:  White-{}  Red-{}\n", board.bar(Colour::White), board.bar(Colour::Red)));
    out.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::InputSource as _;

    fn run_script(dice: &[(u8, u8)], lines: &[&str]) -> (String, Session) {
        let mut out = Vec::new();
        let session = run(
            &mut Script::new(lines.iter().copied()),
            &mut FixedDice::new(dice.iter().copied()),
            &mut out,
            Options::default(),
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), session)
    }

    #[test]
    fn moves_are_parsed_as_two_ints() {
        assert_eq!(parse_move("24 23"), Some(Move::new(24, 23)));
        assert_eq!(parse_move("  -1\t+7 "), Some(Move::new(-1, 7)));
        for text in ["", "24", "24 23 1", "a b", "24 x", "99999999999 1", "1.5 2"] {
            assert_eq!(parse_move(text), None, "{text:?}");
        }
    }

    #[test]
    fn tokens_pair_up_across_lines_as_scanf_does() {
        let mut input: &[u8] = b"24\n23 13 9\n\n  0\x0b0\r\n7";
        let mut tokens = Tokens::new(&mut input);
        let board = Board::start();
        let prompt = Prompt {
            turn: 1,
            mover: Colour::White,
            dice: (1, 4),
            remaining: &[1, 4],
            board: &board,
            retry: false,
        };
        let got: Vec<String> = std::iter::from_fn(|| tokens.next_input(&prompt)).collect();
        assert_eq!(got, ["24 23", "13 9", "0 0"]);
    }

    #[test]
    fn zero_zero_ends_the_program_at_once() {
        let (out, session) = run_script(&[(2, 5), (4, 2)], &["0 0", "24 22"]);
        assert!(out.ends_with("Rolling dice:  2 5\nWhite's move:  "), "{out}");
        assert_eq!(session.ending, Ending::Quit { mover: Colour::White, turn: 1 });
        assert_eq!(session.consumed, ["0 0"]);
    }

    #[test]
    fn an_invalid_move_prints_the_message_and_the_prompt_again() {
        let (out, session) = run_script(&[(2, 5), (4, 2)], &["24 21", "24 22", "13 8", "0 0"]);
        assert!(out.contains("White's move:  Invalid move\nWhite's move:  13 14 15"), "{out}");
        assert!(out.ends_with("Rolling dice:  4 2\nRed's move:  "), "{out}");
        assert_eq!(session.ending, Ending::Quit { mover: Colour::Red, turn: 2 });
        assert_eq!(session.board.count(Colour::White, 22), 1);
        assert_eq!(session.board.count(Colour::White, 8), 4);
    }

    #[test]
    fn the_program_stops_when_input_or_dice_run_out_or_a_line_is_not_a_move() {
        let (_, session) = run_script(&[(2, 5)], &["24 22"]);
        assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 1 });
        let (_, session) = run_script(&[(2, 5)], &["24 22", "13 8"]);
        assert_eq!(session.ending, Ending::DiceRanOut { turn: 2 });
        let (_, session) = run_script(&[(2, 5)], &["24"]);
        let text = "24".to_owned();
        assert_eq!(session.ending, Ending::NotAMove { mover: Colour::White, turn: 1, text });
    }

    #[test]
    fn the_turn_limit_stops_before_the_next_roll() {
        let mut out = Vec::new();
        let options = Options { turn_limit: Some(1), ..Options::default() };
        let session =
            run(&mut Script::new(["24 22", "13 8"]), &mut GlibcRandom::default(), &mut out, options).unwrap();
        assert_eq!(session.ending, Ending::TurnLimit { turns: 1 });
        assert!(String::from_utf8(out).unwrap().ends_with("  Bar:  White-0  Red-0\n"));
    }
}
