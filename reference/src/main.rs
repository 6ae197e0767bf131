//! `reference`: runs a reference program on standard input and output, as a correct submission would.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use reference::backgammon::{console, driver, scenario};
use reference::driver::{DriverError, LineDriver};
use reference::rng::GlibcRandom;

/// Exit status when a driver script is rejected (usage error).
const EXIT_USAGE: u8 = 2;
/// Exit status when reading or writing failed.
const EXIT_INTERNAL: u8 = 3;

/// Reference implementations of the board-game assignments.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Prints the ids of the assignments the reference knows.
    List,
    /// Runs the Trouble program (a correct main.c) on stdin/stdout.
    Trouble {
        /// Answer the function-level driver's command language instead (cases/trouble/README.md).
        #[arg(long)]
        driver: bool,
    },
    /// Runs the checkers program (a correct submission) on stdin/stdout; it stops at end of input.
    Checkers,
    /// Answers the Turkish draughts driver's command language (cases/turkish-draughts/README.md) on
    /// stdin/stdout, as the C driver does with a correct submission: the handout names functions only.
    TurkishDraughts,
    /// Runs the backgammon program (a correct submission) on stdin/stdout.
    ///
    /// The dice are glibc's `random()` after `srandom(N)` with `--seed N`, else with the seed in
    /// BACKGAMMON_SEED when it is set (as the cases' preload library does), else never seeded.
    Backgammon {
        /// Answer the function-level driver's command language instead (cases/backgammon/README.md).
        #[arg(long, conflicts_with = "seed")]
        driver: bool,
        /// The argument of `srandom` (0 to 4294967295).
        #[arg(long)]
        seed: Option<u32>,
    },
    /// The backgammon AI: with `--protocol`, answers the grading protocol on stdin/stdout as a
    /// correct submission does.
    ///
    /// The protocol is in shared/specs/backgammon-ai.md; the AI is the one-ply player.
    BackgammonAi {
        /// Speak the line protocol (`new`, `roll`, `play`, `go`, `position`, `result`, `quit`).
        #[arg(long)]
        protocol: bool,
    },
}

fn main() -> ExitCode {
    main_impl(Cli::parse())
}

fn main_impl(cli: Cli) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let (mut input, mut output) = (stdin.lock(), stdout.lock());
    let result: Result<(), (u8, String)> = match cli.command {
        Command::List => reference::solutions()
            .iter()
            .try_for_each(|a| writeln!(output, "{}", a.id()))
            .map_err(|e| (EXIT_INTERNAL, e.to_string())),
        Command::Trouble { driver: false } => reference::solution("trouble")
            .expect("trouble is registered")
            .run_console(&mut input, &mut output)
            .map_err(|e| (EXIT_INTERNAL, e.to_string())),
        Command::Checkers => reference::solution("checkers")
            .expect("checkers is registered")
            .run_console(&mut input, &mut output)
            .map_err(|e| (EXIT_INTERNAL, e.to_string())),
        Command::TurkishDraughts => {
            run_driver::<reference::turkish_draughts::driver::Driver>(&mut input, &mut output)
        }
        Command::Trouble { driver: true } => {
            run_driver::<reference::trouble::driver::Driver>(&mut input, &mut output)
        }
        Command::Backgammon { driver: false, seed } => backgammon_seed(seed).and_then(|seed| {
            let mut dice = seed.map_or_else(GlibcRandom::default, GlibcRandom::new);
            console::run_stdin(&mut input, &mut output, &mut dice)
                .map(|_| ())
                .map_err(|e| (EXIT_INTERNAL, e.to_string()))
        }),
        Command::Backgammon { driver: true, .. } => run_driver::<driver::Driver>(&mut input, &mut output),
        Command::BackgammonAi { protocol: true } => {
            reference::backgammon_ai::protocol::run_protocol(&mut input, &mut output)
                .map_err(|e| (EXIT_INTERNAL, e.to_string()))
        }
        Command::BackgammonAi { protocol: false } => Err((
            EXIT_USAGE,
            "backgammon-ai has no console program; run `reference backgammon-ai --protocol` and type \
             protocol commands (new black, roll white 3 1, play 1/4 12/13, go, position, result, quit)"
                .to_owned(),
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("reference: {message}");
            ExitCode::from(code)
        }
    }
}

/// Runs a driver language on stdin/stdout: a rejected line is a usage error, a failed write internal.
fn run_driver<D: LineDriver>(
    input: &mut dyn io::BufRead,
    output: &mut dyn Write,
) -> Result<(), (u8, String)> {
    reference::driver::run::<D>(input, output).map_err(|e| match e {
        DriverError::Rejected(e) => (EXIT_USAGE, e.to_string()),
        DriverError::Io(e) => (EXIT_INTERNAL, e.to_string()),
    })
}

/// The seed of `--seed`, else of the environment variable the cases' preload library reads.
fn backgammon_seed(flag: Option<u32>) -> Result<Option<u32>, (u8, String)> {
    if flag.is_some() {
        return Ok(flag);
    }
    match std::env::var(scenario::SEED_VARIABLE) {
        Ok(value) => value.trim().parse::<u32>().map(Some).map_err(|_| {
            (EXIT_USAGE, format!("{} `{value}` is not 0 to 4294967295", scenario::SEED_VARIABLE))
        }),
        Err(_) => Ok(None),
    }
}
