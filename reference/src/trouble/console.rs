//! The whole Trouble program, printed exactly as a correct `main.c` on the course template prints it.
//!
//! Input comes from an [`InputSource`], which is shown the prompt and the game at every read: the
//! standard-input source ([`Tokens`]) ignores them, the scenario policy uses them to choose a move.
//! Output goes to any writer; nothing here prints by itself.

use std::io::{self, BufRead, Write};

pub use crate::console::{Script, Tokens};

use super::rules::{Board, Colour, Location, Move};
use crate::rng::TroubleRng;

/// The template's seed prompt (no newline).
pub const SEED_PROMPT: &str = "Enter a random seed: ";
/// The template's prompt for the number of players (no newline), repeated until 2, 3 or 4.
pub const PLAYERS_PROMPT: &str = "Enter the number of players (2, 3, 4): ";
/// `playerTurn`'s prompt for a move (no newline).
pub const MOVE_PROMPT: &str = "Enter position of piece to move: ";
/// Printed when `printMoves` found nothing.
pub const NO_MOVES: &str = "You have no legal moves.";
/// Printed when `movePiece` refused the typed location; the prompt follows again.
pub const ILLEGAL_MOVE: &str = "Illegal move, try again.";
/// Printed after a roll of 6, before the status and the next roll.
pub const ROLL_AGAIN: &str = "You rolled 6, so you get to roll again.";
/// Typed at the move prompt, ends the game ("NEW in V2").
pub const QUIT: &str = "Q";
/// The seed that makes the template's `main` exit at once.
pub const EXIT_SEED: i32 = -1;

/// Which of the program's three reads is asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `Enter a random seed: `, read with `scanf("%d")`.
    Seed,
    /// `Enter the number of players (2, 3, 4): `, read with `scanf("%d")`.
    Players,
    /// `Enter position of piece to move: `, read with `scanf("%s")`.
    Move,
}

impl PromptKind {
    /// The exact prompt text printed before the read.
    pub fn text(self) -> &'static str {
        match self {
            PromptKind::Seed => SEED_PROMPT,
            PromptKind::Players => PLAYERS_PROMPT,
            PromptKind::Move => MOVE_PROMPT,
        }
    }
}

/// A read of the program, with what the player sees at that moment.
#[derive(Debug, Clone, Copy)]
pub enum Prompt<'a> {
    /// The seed prompt.
    Seed,
    /// The number-of-players prompt (again after an invalid number).
    Players,
    /// The move prompt of a turn.
    Move(MoveRequest<'a>),
}

impl Prompt<'_> {
    /// Which read this is.
    pub fn kind(&self) -> PromptKind {
        match self {
            Prompt::Seed => PromptKind::Seed,
            Prompt::Players => PromptKind::Players,
            Prompt::Move(_) => PromptKind::Move,
        }
    }

    /// The exact prompt text.
    pub fn text(&self) -> &'static str {
        self.kind().text()
    }
}

/// The game as the player sees it at a move prompt.
#[derive(Debug, Clone, Copy)]
pub struct MoveRequest<'a> {
    /// Number of the turn, counting every turn started from 1.
    pub turn: u64,
    /// Whose turn it is.
    pub player: Colour,
    /// The roll to move by.
    pub roll: u8,
    /// The board before the move.
    pub board: &'a Board,
    /// The moves `printMoves` listed (never empty at a prompt), in its order.
    pub legal: &'a [Move],
    /// True when this prompt follows `Illegal move, try again.`.
    pub retry: bool,
}

impl crate::console::Prompt for Prompt<'_> {
    /// Every read is one `scanf` conversion (`%d` or `%s`).
    fn tokens(&self) -> usize {
        1
    }
}

/// Where the program's input comes from: shown the prompt and the game at every read.
pub trait InputSource: for<'p> crate::console::InputSource<Prompt<'p>> {}

impl<T: for<'p> crate::console::InputSource<Prompt<'p>> + ?Sized> InputSource for T {}

/// How the console runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Write each token read, and a newline, right after its prompt: the view of a terminal, where
    /// the user's typing is echoed. A real program does not print its input; off by default.
    pub echo_input: bool,
    /// Stop before starting a turn past this many (`None`: play on for ever, as the real program).
    pub turn_limit: Option<u64>,
}

/// Why the program stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The seed was -1: the template's `main` returns at once.
    Exited,
    /// A move completed the player's Finish Line: `playerTurn` returned 1.
    Won {
        /// The winner.
        player: Colour,
        /// The turn of the winning move.
        turn: u64,
    },
    /// `Q` was typed at a move prompt: `playerTurn` returned 1.
    Quit {
        /// Whose turn it was.
        player: Colour,
        /// The turn.
        turn: u64,
    },
    /// Input ended at a prompt (the real program would then misbehave; the reference stops).
    InputEnded {
        /// The prompt left unanswered.
        at: PromptKind,
        /// Its turn, for a move prompt.
        turn: Option<u64>,
    },
    /// A token that `scanf("%d")` cannot read as an `int` was typed at a number prompt (the real
    /// program would then read garbage or loop; the reference stops).
    NotANumber {
        /// The prompt.
        at: PromptKind,
        /// The token typed.
        token: String,
    },
    /// [`Options::turn_limit`] turns were played without the game ending.
    TurnLimit {
        /// The number of turns played.
        turns: u64,
    },
}

/// What a run of the console did.
pub type Session = crate::console::Session<Ending, Board>;

/// Runs the program on tokens read from `input` until it ends or input runs out (the
/// `reference trouble` console, and [`crate::Solution::run_console`]).
pub fn run_stdin(input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<Session> {
    crate::console::run_stdin(input, |tokens| run(tokens, output, Options::default()))
}

/// Runs the program: the template's `main` and a correct `playerTurn`.
pub fn run(source: &mut dyn InputSource, out: &mut dyn Write, options: Options) -> io::Result<Session> {
    let mut io = Terminal::new(source, out, options.echo_input);
    let mut game = Game { board: Board::new(), rng: TroubleRng::new(), turn: 0 };
    let ending = game.play(&mut io, options.turn_limit)?;
    io.out.flush()?;
    Ok(Session { ending, consumed: io.consumed, turns: game.turn, board: game.board })
}

/// The player after `player` (the template's `main`): Red and Yellow alternate in a two-player
/// game; otherwise Red, Green, Yellow (and Blue) in turn.
pub fn next_player(player: Colour, players: u8) -> Colour {
    let players = usize::from(players.clamp(2, 4));
    let next = if players == 2 { (player.index() + 2) % 4 } else { (player.index() + 1) % players };
    Colour::ALL[next]
}

/// `printStatus`: one line per colour, the name right-aligned in 6 columns (`%6s`), then `: ` and
/// the locations of its four pieces in piece-id order, joined by commas.
pub fn write_status(out: &mut dyn Write, board: &Board) -> io::Result<()> {
    for colour in Colour::ALL {
        let locations: Vec<String> = colour.pieces().map(|piece| board.location(piece).to_string()).collect();
        writeln!(out, "{:>6}: {}", colour.name(), locations.join(","))?;
    }
    Ok(())
}

/// `printMoves`' output: `X to Y`, one line per legal move.
pub fn write_moves(out: &mut dyn Write, moves: &[Move]) -> io::Result<()> {
    for mv in moves {
        writeln!(out, "{mv}")?;
    }
    Ok(())
}

/// The program's reads and writes.
type Terminal<'a> = crate::console::Terminal<'a, dyn InputSource + 'a>;

/// Reads an `int` at a number prompt; `Err` is the ending when there is none.
fn ask_int(io: &mut Terminal<'_>, prompt: &Prompt<'_>) -> io::Result<Result<i32, Ending>> {
    let at = prompt.kind();
    Ok(match io.ask(prompt.text(), prompt)? {
        None => Err(Ending::InputEnded { at, turn: None }),
        Some(token) => token.parse::<i32>().map_err(|_| Ending::NotANumber { at, token }),
    })
}

/// The template's globals, and the turn count.
struct Game {
    board: Board,
    rng: TroubleRng,
    turn: u64,
}

impl Game {
    /// The template's `main`.
    fn play(&mut self, io: &mut Terminal<'_>, turn_limit: Option<u64>) -> io::Result<Ending> {
        let seed = match ask_int(io, &Prompt::Seed)? {
            Ok(seed) => seed,
            Err(ending) => return Ok(ending),
        };
        if seed == EXIT_SEED {
            return Ok(Ending::Exited);
        }
        self.rng.seed(seed);
        let players = loop {
            match ask_int(io, &Prompt::Players)? {
                Ok(n @ 2..=4) => break n as u8,
                Ok(_) => {}
                Err(ending) => return Ok(ending),
            }
        };
        let mut player = Colour::Red;
        loop {
            if turn_limit.is_some_and(|limit| self.turn >= limit) {
                return Ok(Ending::TurnLimit { turns: self.turn });
            }
            self.turn += 1;
            if let Some(ending) = self.player_turn(io, player)? {
                return Ok(ending);
            }
            player = next_player(player, players);
        }
    }

    /// A correct `playerTurn`; `Some` when the program ends during it.
    fn player_turn(&mut self, io: &mut Terminal<'_>, player: Colour) -> io::Result<Option<Ending>> {
        let turn = self.turn;
        write!(io.out, "\n---- {}'s turn\n", player.name())?;
        loop {
            write_status(io.out, &self.board)?;
            let roll = self.rng.roll();
            writeln!(io.out, "You rolled {roll}.")?;
            let legal = self.board.legal_moves(player, roll);
            write_moves(io.out, &legal)?;
            if legal.is_empty() {
                writeln!(io.out, "{NO_MOVES}")?;
            } else {
                let mut retry = false;
                loop {
                    let request =
                        MoveRequest { turn, player, roll, board: &self.board, legal: &legal, retry };
                    let prompt = Prompt::Move(request);
                    let Some(token) = io.ask(prompt.text(), &prompt)? else {
                        let at = PromptKind::Move;
                        return Ok(Some(Ending::InputEnded { at, turn: Some(turn) }));
                    };
                    if token == QUIT {
                        return Ok(Some(Ending::Quit { player, turn }));
                    }
                    // The handout lets the program assume a valid location string; anything else
                    // is treated like any location that is not a legal move.
                    let moved = token
                        .parse::<Location>()
                        .ok()
                        .and_then(|from| self.board.play(player, from, roll).ok());
                    if moved.is_some() {
                        break;
                    }
                    writeln!(io.out, "{ILLEGAL_MOVE}")?;
                    retry = true;
                }
                if self.board.has_won(player) {
                    return Ok(Some(Ending::Won { player, turn }));
                }
            }
            if roll != 6 {
                return Ok(None);
            }
            writeln!(io.out, "{ROLL_AGAIN}")?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::InputSource as _;

    fn run_script(tokens: &[&str]) -> (String, Session) {
        let mut out = Vec::new();
        let session = run(&mut Script::new(tokens.iter().copied()), &mut out, Options::default()).unwrap();
        (String::from_utf8(out).unwrap(), session)
    }

    #[test]
    fn seed_minus_one_exits_after_the_first_prompt() {
        let (out, session) = run_script(&["-1", "2"]);
        assert_eq!(out, SEED_PROMPT);
        assert_eq!(session.ending, Ending::Exited);
        assert_eq!(session.consumed, ["-1"]);
    }

    #[test]
    fn the_players_prompt_repeats_until_two_three_or_four() {
        let (out, session) = run_script(&["1234", "5", "1", "0", "3", "Q"]);
        let expected = format!("{SEED_PROMPT}{}", PLAYERS_PROMPT.repeat(4));
        assert!(out.starts_with(&expected), "{out}");
        assert!(out[expected.len()..].starts_with("\n---- Red's turn\n   Red: H,H,H,H\n"));
        // Red rolls 5 and Green 2 (no moves); Yellow rolls a 6 and types Q.
        let quit = Ending::Quit { player: Colour::Yellow, turn: 3 };
        assert_eq!(session.ending, quit);
    }

    #[test]
    fn the_status_right_aligns_colour_names_in_six_columns() {
        let mut out = Vec::new();
        let mut board = Board::new();
        board.place(0, "R1".parse().unwrap()).unwrap();
        board.place(2, "RF3".parse().unwrap()).unwrap();
        write_status(&mut out, &board).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "   Red: R1,H,RF3,H\n Green: H,H,H,H\nYellow: H,H,H,H\n  Blue: H,H,H,H\n"
        );
    }

    #[test]
    fn two_players_are_red_and_yellow_three_are_red_green_yellow() {
        use Colour::*;
        let order = |n: u8| {
            let mut p = Red;
            let mut seen = vec![p];
            for _ in 0..5 {
                p = next_player(p, n);
                seen.push(p);
            }
            seen
        };
        assert_eq!(order(2), [Red, Yellow, Red, Yellow, Red, Yellow]);
        assert_eq!(order(3), [Red, Green, Yellow, Red, Green, Yellow]);
        assert_eq!(order(4), [Red, Green, Yellow, Blue, Red, Green]);
    }

    #[test]
    fn end_of_input_at_a_number_prompt_stops_the_program() {
        let (out, session) = run_script(&["7"]);
        assert_eq!(out, format!("{SEED_PROMPT}{PLAYERS_PROMPT}"));
        assert_eq!(session.ending, Ending::InputEnded { at: PromptKind::Players, turn: None });
        let (_, session) = run_script(&["x"]);
        let token = "x".to_owned();
        assert_eq!(session.ending, Ending::NotANumber { at: PromptKind::Seed, token });
    }

    #[test]
    fn tokens_are_split_on_any_whitespace_across_lines() {
        let mut input: &[u8] = b"  1234\t2\n\nH \x0b R5\r\n";
        let mut tokens = Tokens::new(&mut input);
        let got: Vec<String> = std::iter::from_fn(|| tokens.next_input(&Prompt::Seed)).collect();
        assert_eq!(got, ["1234", "2", "H", "R5"]);
    }

    #[test]
    fn the_turn_limit_stops_before_the_next_turn() {
        let mut out = Vec::new();
        let options = Options { echo_input: false, turn_limit: Some(2) };
        // Seed 1234: Red rolls 5, Yellow rolls 2, then Red would roll a 6.
        let session = run(&mut Script::new(["1234", "2"]), &mut out, options).unwrap();
        assert_eq!(session.ending, Ending::TurnLimit { turns: 2 });
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches("'s turn").count(), 2);
        assert!(out.ends_with("You rolled 2.\nYou have no legal moves.\n"));
    }
}
