//! A correct submission's side of the grading protocol (spec "The protocol"): one command per line
//! in, exactly one answer line out for each, flushed; the AI is [`OnePlyPlayer`].
//!
//! Decisions where the spec is silent, all answered with one line so that a referee never waits:
//!
//! - `quit` is answered by ending (the spec's "exits with status 0"): no line. End of input ends too.
//! - Blank lines are not commands and get no answer.
//! - A `play` that cannot be read, comes without dice for the grader's colour (no `roll`, or the last
//!   `roll` was the AI's), or breaks the rules is `illegal REASON`, the state unchanged.
//! - Other misuse is `error CODE DETAIL`: `UNKNOWN-COMMAND`, `BAD-ARGUMENTS`, `NO-GAME` (before the
//!   first `new`), `NO-ROLL` (`go` without dice for the AI), `GAME-OVER` (`go` after the end).
//! - Turn order is not policed beyond the colour named in `roll`: `play` needs the last `roll` to be
//!   the grader's colour, `go` the AI's, and each uses those dice up.
//! - The cube: the AI never doubles (`double?` is `no`) and always takes (`double` is `take`, the
//!   cube's value doubles and multiplies the points of `result`). After a drop (other policies, for
//!   the referee's tests) the doubler has won a `single` game worth the cube before the double.

use std::io::{self, BufRead, Write};

use super::players::{OnePlyPlayer, Player};
use super::rules::{check_play, format_play, game_result, parse_play, Colour, Position};

/// How the AI handles the doubling cube. The reference is [`CubePolicy::Takes`]; the others play
/// the referee's cube case from the other sides in tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CubePolicy {
    /// Never doubles, always takes.
    Takes,
    /// Doubles whenever it may, always takes.
    Doubles,
    /// Never doubles, always drops.
    Drops,
}

/// The state of one protocol session.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    position: Position,
    /// The AI's colour, once `new` has been seen.
    ai: Option<Colour>,
    /// The colour and dice of the last `roll` not yet played.
    roll: Option<(Colour, (u8, u8))>,
    cube: u32,
    cube_policy: CubePolicy,
    /// The winner of a game ended by a dropped double.
    dropped: Option<Colour>,
    player: OnePlyPlayer,
}

impl Session {
    pub(crate) fn new() -> Self {
        Self::with_cube_policy(CubePolicy::Takes)
    }

    pub(crate) fn with_cube_policy(cube_policy: CubePolicy) -> Self {
        Self {
            position: Position::start(),
            ai: None,
            roll: None,
            cube: 1,
            cube_policy,
            dropped: None,
            player: OnePlyPlayer,
        }
    }

    /// The answer to one command line; `None` to end the session.
    pub(crate) fn answer(&mut self, line: &str) -> Option<String> {
        let mut words = line.split_whitespace();
        let command = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        let no_args = |answer: String| {
            if args.is_empty() {
                answer
            } else {
                format!("error BAD-ARGUMENTS {command} takes no arguments")
            }
        };
        Some(match command {
            "quit" => return None,
            "new" => self.new_game(&args),
            "roll" => self.roll(&args),
            "play" => self.play(&args.join(" ")),
            "go" => no_args(self.go()),
            "position" => no_args(self.position.to_wire()),
            "result" => no_args(self.result()),
            "double?" => no_args(self.offer_double()),
            "double" => no_args(self.answer_double()),
            "setup" => self.setup(&args),
            _ => format!("error UNKNOWN-COMMAND {command}"),
        })
    }

    fn new_game(&mut self, args: &[&str]) -> String {
        match args {
            [colour] => match colour.parse::<Colour>() {
                Ok(colour) => {
                    *self = Self::with_cube_policy(self.cube_policy);
                    self.ai = Some(colour);
                    "ok".to_owned()
                }
                Err(e) => format!("error BAD-ARGUMENTS {e}"),
            },
            _ => "error BAD-ARGUMENTS new black or new white".to_owned(),
        }
    }

    /// `setup POSITION turn COLOUR`: the game in progress (or a new one, the AI black when no `new`
    /// came before) replaced by this position, the cube centred at 1, COLOUR to roll next.
    fn setup(&mut self, args: &[&str]) -> String {
        let [black, white, bar, off, "turn", colour] = args else {
            return "error BAD-ARGUMENTS setup black:LIST white:LIST bar:B,W off:B,W turn COLOUR".to_owned();
        };
        // The turn is the next `roll`'s to say: COLOUR is only checked.
        if colour.parse::<Colour>().is_err() {
            return format!("error BAD-ARGUMENTS `{colour}` is not black or white");
        }
        match Position::from_wire(&[*black, *white, *bar, *off].join(" ")) {
            Ok(position) => {
                let ai = self.ai.unwrap_or(Colour::Black);
                *self = Self::with_cube_policy(self.cube_policy);
                self.ai = Some(ai);
                self.position = position;
                "ok".to_owned()
            }
            Err(e) => format!("illegal {}", e.0),
        }
    }

    fn roll(&mut self, args: &[&str]) -> String {
        if self.ai.is_none() {
            return no_game();
        }
        let usage = "error BAD-ARGUMENTS roll COLOUR D1 D2 with dice 1 to 6".to_owned();
        let [colour, d1, d2] = args else { return usage };
        let die = |d: &str| d.parse::<u8>().ok().filter(|d| (1..=6).contains(d));
        match (colour.parse::<Colour>(), die(d1), die(d2)) {
            (Ok(colour), Some(d1), Some(d2)) => {
                self.roll = Some((colour, (d1, d2)));
                "ok".to_owned()
            }
            _ => usage,
        }
    }

    fn play(&mut self, text: &str) -> String {
        let Some(ai) = self.ai else { return no_game() };
        let grader = ai.opponent();
        let moves = match parse_play(text) {
            Ok(moves) => moves,
            Err(e) => return format!("illegal {e}"),
        };
        let dice = match self.roll {
            Some((colour, dice)) if colour == grader => dice,
            _ => return format!("illegal no dice rolled for {grader}"),
        };
        match check_play(&self.position, grader, dice, &moves) {
            Ok(next) => {
                self.position = next;
                self.roll = None;
                "ok".to_owned()
            }
            Err(reason) => format!("illegal {reason}"),
        }
    }

    /// `double?`: the grader takes every double (the game goes on with its `roll`).
    fn offer_double(&mut self) -> String {
        if self.cube_policy == CubePolicy::Doubles {
            self.cube *= 2;
            "double".to_owned()
        } else {
            "no".to_owned()
        }
    }

    /// The grader's `double`.
    fn answer_double(&mut self) -> String {
        if self.cube_policy == CubePolicy::Drops {
            self.dropped = self.ai.map(Colour::opponent);
            "drop".to_owned()
        } else {
            self.cube *= 2;
            "take".to_owned()
        }
    }

    fn go(&mut self) -> String {
        let Some(ai) = self.ai else { return no_game() };
        if game_result(&self.position).is_some() || self.dropped.is_some() {
            return "error GAME-OVER the game is over".to_owned();
        }
        let dice = match self.roll {
            Some((colour, dice)) if colour == ai => dice,
            _ => return format!("error NO-ROLL no dice rolled for {ai}"),
        };
        let moves = self.player.choose(&self.position, ai, dice);
        self.position = check_play(&self.position, ai, dice, &moves).expect("the AI plays legal plays");
        self.roll = None;
        if moves.is_empty() {
            "move".to_owned()
        } else {
            format!("move {}", format_play(&moves))
        }
    }

    fn result(&self) -> String {
        if let Some(winner) = self.dropped {
            return format!("result {winner} single {}", self.cube);
        }
        match game_result(&self.position) {
            None => "result none".to_owned(),
            Some(r) => format!("result {} {} {}", r.winner, r.kind.name(), r.points(self.cube)),
        }
    }
}

fn no_game() -> String {
    "error NO-GAME send new black or new white first".to_owned()
}

/// Answers the protocol's commands from `input` on `output` until `quit` or the end of input, as a
/// correct submission started with `--protocol` does: one line per command, flushed at once.
pub fn run_protocol(input: &mut dyn BufRead, output: &mut dyn Write) -> io::Result<()> {
    let mut session = Session::new();
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        match session.answer(line.trim()) {
            None => return Ok(()),
            Some(answer) => {
                writeln!(output, "{answer}")?;
                output.flush()?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ai_that_cannot_move_answers_move_alone_and_passes_the_turn() {
        let mut session = Session::new();
        assert_eq!(session.answer("new black").as_deref(), Some("ok"));
        session.position = Position::from_lists("bar 6x2", "19x2 20x2 21x2 22x2 23x2 24x2").unwrap();
        assert_eq!(session.answer("roll black 3 5").as_deref(), Some("ok"));
        assert_eq!(session.answer("go").as_deref(), Some("move"));
        assert_eq!(session.answer("go").as_deref(), Some("error NO-ROLL no dice rolled for black"));
        assert_eq!(session.answer("roll white 1 2").as_deref(), Some("ok"));
        assert_eq!(session.answer("play 19/20").as_deref(), Some("illegal must use both dice"));
    }

    #[test]
    fn the_cube_multiplies_the_points_of_the_result() {
        let mut session = Session::new();
        session.answer("new white");
        session.answer("double");
        session.answer("double");
        session.position = Position::from_lists("", "bar 19x14").unwrap();
        assert_eq!(session.answer("result").as_deref(), Some("result black backgammon 12"));
        assert_eq!(session.answer("quit"), None);
    }
}
