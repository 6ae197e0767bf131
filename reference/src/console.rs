//! What every game's console shares: where typed input comes from, and what a run of it did.
//!
//! A game's console asks its [`InputSource`] at each prompt; a prompt says how many tokens the real
//! program's `scanf` reads there, so that standard input is read as the C program reads it.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};

pub use crate::tokens::Tokens;

/// A prompt of a game's console, as input sources see it.
pub trait Prompt {
    /// How many whitespace-separated tokens the program reads at this prompt (its `scanf`
    /// conversions); they may span lines, and a line may hold several answers.
    fn tokens(&self) -> usize;
}

/// Where a console's input comes from.
pub trait InputSource<P: ?Sized> {
    /// What the user types at `prompt` (its tokens joined by single spaces), or `None` when input has
    /// ended.
    fn next_input(&mut self, prompt: &P) -> Option<String>;
}

/// An input source that types a fixed list of lines, in order, whatever the prompt.
#[derive(Debug, Clone, Default)]
pub struct Script {
    lines: VecDeque<String>,
}

impl Script {
    /// A source typing these lines.
    pub fn new<S: Into<String>>(lines: impl IntoIterator<Item = S>) -> Self {
        Self { lines: lines.into_iter().map(Into::into).collect() }
    }

    /// The lines not typed yet.
    pub fn remaining(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(String::as_str)
    }
}

impl<P: ?Sized> InputSource<P> for Script {
    fn next_input(&mut self, _prompt: &P) -> Option<String> {
        self.lines.pop_front()
    }
}

/// Reads as many tokens as the prompt's `scanf` does; `None` when input ends before all of them.
impl<R: BufRead, P: Prompt + ?Sized> InputSource<P> for Tokens<R> {
    fn next_input(&mut self, prompt: &P) -> Option<String> {
        let mut tokens = Vec::with_capacity(prompt.tokens());
        for _ in 0..prompt.tokens() {
            tokens.push(self.next_token()?);
        }
        Some(tokens.join(" "))
    }
}

/// A console's reads and writes: each read shows its prompt first, and every answer is kept.
pub struct Terminal<'a, S: ?Sized> {
    /// Where answers come from.
    pub source: &'a mut S,
    /// Where the program prints.
    pub out: &'a mut dyn Write,
    /// Write each answer, and a newline, right after its prompt: the view of a terminal, where the
    /// user's typing is echoed. A real program does not print its input.
    pub echo: bool,
    /// Every answer read, in order.
    pub consumed: Vec<String>,
}

impl<'a, S: ?Sized> Terminal<'a, S> {
    /// A terminal reading from `source` and printing to `out`.
    pub fn new(source: &'a mut S, out: &'a mut dyn Write, echo: bool) -> Self {
        Self { source, out, echo, consumed: Vec::new() }
    }

    /// Prints the prompt's text, flushes (the user must see it before typing), and reads the answer;
    /// `None` when input has ended.
    pub fn ask<P: ?Sized>(&mut self, text: &str, prompt: &P) -> io::Result<Option<String>>
    where
        S: InputSource<P>,
    {
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        let Some(answer) = self.source.next_input(prompt) else {
            return Ok(None);
        };
        if self.echo {
            writeln!(self.out, "{answer}")?;
        }
        self.consumed.push(answer.clone());
        Ok(Some(answer))
    }
}

/// What a run of a game's console did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session<Ending, Board> {
    /// Why it stopped.
    pub ending: Ending,
    /// Every answer read, in order (the standard input that reproduces the run, one per line).
    pub consumed: Vec<String>,
    /// Number of turns started.
    pub turns: u64,
    /// The board when the program stopped.
    pub board: Board,
}

/// Runs a console on the tokens of `input` (a `reference <game>` command, and
/// [`crate::Solution::run_console`]); a read error that ended the input is the run's error.
pub fn run_stdin<T>(
    input: &mut dyn BufRead,
    run: impl FnOnce(&mut Tokens<&mut dyn BufRead>) -> io::Result<T>,
) -> io::Result<T> {
    let mut tokens = Tokens::new(input);
    let result = run(&mut tokens)?;
    match tokens.take_error() {
        Some(e) => Err(e),
        None => Ok(result),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Asks(usize);

    impl Prompt for Asks {
        fn tokens(&self) -> usize {
            self.0
        }
    }

    #[test]
    fn tokens_are_read_as_many_as_the_prompt_wants_across_lines() {
        let mut input: &[u8] = b"1 2\n3\n4 5 6 7\n8";
        let mut tokens = Tokens::new(&mut input);
        assert_eq!(tokens.next_input(&Asks(4)).as_deref(), Some("1 2 3 4"));
        assert_eq!(tokens.next_input(&Asks(1)).as_deref(), Some("5"));
        assert_eq!(tokens.next_input(&Asks(2)).as_deref(), Some("6 7"));
        assert_eq!(tokens.next_input(&Asks(2)), None, "input ends inside an answer");
    }

    #[test]
    fn a_script_types_its_lines_whatever_the_prompt() {
        let mut script = Script::new(["a", "b c"]);
        assert_eq!(script.next_input(&Asks(4)).as_deref(), Some("a"));
        assert_eq!(script.remaining().collect::<Vec<_>>(), ["b c"]);
        assert_eq!(script.next_input(&Asks(1)).as_deref(), Some("b c"));
        assert_eq!(InputSource::<Asks>::next_input(&mut script, &Asks(1)), None);
    }
}
