//! Reading input as C's `scanf` does: whitespace-separated tokens, one line at a time.

use std::collections::VecDeque;
use std::io::{self, BufRead};

/// Whitespace-separated tokens from a reader. Lines are read one at a time, so that an interactive
/// user is never waited for before the prompt is shown; a token may be followed by others on its line.
#[derive(Debug)]
pub struct Tokens<R> {
    input: R,
    pending: VecDeque<String>,
    error: Option<io::Error>,
}

impl<R: BufRead> Tokens<R> {
    /// Tokens of `input`.
    pub fn new(input: R) -> Self {
        Self { input, pending: VecDeque::new(), error: None }
    }

    /// The read error that ended the input, if one did (the tokens then end as at end of input).
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// The next token, or `None` at end of input.
    pub fn next_token(&mut self) -> Option<String> {
        let mut line = Vec::new();
        while self.pending.is_empty() {
            line.clear();
            match self.input.read_until(b'\n', &mut line) {
                Ok(0) => return None,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    // C's isspace, which scanf skips, includes the vertical tab that Rust's does not.
                    let tokens = text
                        .split(|c: char| c.is_ascii_whitespace() || c == '\x0b')
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned);
                    self.pending.extend(tokens);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
        }
        self.pending.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_span_lines_and_skip_every_kind_of_c_whitespace() {
        let mut tokens = Tokens::new(&b"  13 11\r\n\n\x0b8\t6\n"[..]);
        let all: Vec<String> = std::iter::from_fn(|| tokens.next_token()).collect();
        assert_eq!(all, ["13", "11", "8", "6"]);
        assert!(tokens.take_error().is_none());
    }
}
