//! The loop shared by the assignments' function-level drivers: one command per line, each answered by
//! the assignment's rules, a rejected line reported with its number and text.

use std::fmt::Display;
use std::io::{self, BufRead, Write};

use crate::ScenarioError;

/// An assignment's driver: answers one line of its command language at a time.
pub trait LineDriver: Default {
    /// Why a line has no defined answer.
    type Rejection: Display;

    /// What the C driver and a correct submission print for this line (its echo included).
    fn execute_line(&mut self, line: &str) -> Result<String, Self::Rejection>;
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
        out.push_str(&driver.execute_line(line).map_err(|e| rejected(i + 1, line, e))?);
    }
    Ok(out)
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
        let printed = driver.execute_line(line).map_err(|e| rejected(number, line, e))?;
        output.write_all(printed.as_bytes())?;
        output.flush()?;
    }
}
