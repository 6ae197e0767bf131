//! The loop shared by the assignments' function-level drivers: one command per line, each answered by
//! the assignment's rules, a rejected line reported with its number and text.

use std::fmt::Display;
use std::io::{self, BufRead, Write};
use std::ops::RangeInclusive;
use std::str::FromStr;

use crate::ScenarioError;

/// A command a driver refuses: unknown, malformed, or with no defined answer in this state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Rejection(pub String);

/// An assignment's driver: answers its command language one line at a time, as its C driver does.
pub trait LineDriver: Default {
    /// Answers one command, writing what the C driver and a correct submission print after the echo;
    /// an error when the command has no defined answer.
    fn command(&mut self, name: &str, args: &[&str], out: &mut Vec<u8>) -> anyhow::Result<()>;

    /// The line as the C driver should get it, given what came before: a driver may spell out what a
    /// case leaves implicit (the landing squares of a capture sequence). The line itself by default.
    fn complete(&self, line: &str) -> String {
        line.to_owned()
    }

    /// Everything printed for one line: nothing for an empty line or a comment (first token starting
    /// with `#`), otherwise the echo `> ` and the tokens joined by single spaces, then the command's
    /// output.
    fn execute(&mut self, line: &str) -> Result<String, Rejection> {
        // The C drivers split at spaces, tabs and carriage returns only.
        let tokens: Vec<&str> = line.split([' ', '\t', '\r']).filter(|t| !t.is_empty()).collect();
        let Some((&name, args)) = tokens.split_first() else {
            return Ok(String::new());
        };
        if name.starts_with('#') {
            return Ok(String::new());
        }
        let mut out = format!("> {}\n", tokens.join(" ")).into_bytes();
        self.command(name, args, &mut out).map_err(|e| Rejection(e.to_string()))?;
        Ok(String::from_utf8(out).expect("the drivers print ASCII"))
    }
}

/// Checks that a command got `n` arguments; the error is its usage line.
pub fn arity(args: &[&str], n: usize, usage: &str) -> anyhow::Result<()> {
    anyhow::ensure!(args.len() == n, "usage: {usage}");
    Ok(())
}

/// A whole decimal number within `range`; the error names `what` and the range.
pub fn number<T: FromStr + PartialOrd + Display>(
    token: &str,
    range: RangeInclusive<T>,
    what: &str,
) -> anyhow::Result<T> {
    token
        .parse::<T>()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| anyhow::anyhow!("{what} `{token}` is not a number {}..{}", range.start(), range.end()))
}

/// Why [`run`] stopped before the end of its input.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// A line was rejected; the output of the lines before it has been written.
    #[error(transparent)]
    Rejected(#[from] ScenarioError),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn rejected(number: usize, line: &str, why: impl Display) -> ScenarioError {
    ScenarioError::new(format!("command {number} (`{line}`): {why}"))
}

/// Runs a whole script and returns the driver's output; a rejected line is an error naming its
/// 1-based number and text.
pub fn run_script<D: LineDriver, S: AsRef<str>>(lines: &[S]) -> Result<String, ScenarioError> {
    let mut driver = D::default();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.as_ref();
        out.push_str(&driver.execute(line).map_err(|e| rejected(i + 1, line, e))?);
    }
    Ok(out)
}

/// Runs a whole script as [`run_script`] does, each line first completed by the driver
/// ([`LineDriver::complete`]): the lines to type and the driver's output.
pub fn run_completed_script<D: LineDriver, S: AsRef<str>>(
    lines: &[S],
) -> Result<(Vec<String>, String), ScenarioError> {
    let mut driver = D::default();
    let (mut typed, mut out) = (Vec::with_capacity(lines.len()), String::new());
    for (i, line) in lines.iter().enumerate() {
        let line = driver.complete(line.as_ref());
        out.push_str(&driver.execute(&line).map_err(|e| rejected(i + 1, &line, e))?);
        typed.push(line);
    }
    Ok((typed, out))
}

/// Runs the driver language line by line from `input` (`reference <assignment> --driver`).
pub fn run<D: LineDriver>(input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), DriverError> {
    let mut driver = D::default();
    let mut buffer = Vec::new();
    let mut number = 0;
    loop {
        buffer.clear();
        if input.read_until(b'\n', &mut buffer)? == 0 {
            return Ok(());
        }
        number += 1;
        let line = String::from_utf8_lossy(&buffer);
        let line = line.trim_end_matches(['\n', '\r']);
        let printed = driver.execute(line).map_err(|e| rejected(number, line, e))?;
        output.write_all(printed.as_bytes())?;
        output.flush()?;
    }
}
