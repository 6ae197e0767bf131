//! `reference`: runs a reference program on standard input and output, as a correct submission would.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
}

fn main() -> ExitCode {
    main_impl(Cli::parse())
}

fn main_impl(cli: Cli) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let (mut input, mut output) = (stdin.lock(), stdout.lock());
    let result: Result<(), (u8, String)> = match cli.command {
        Command::List => reference::assignments()
            .iter()
            .try_for_each(|a| writeln!(output, "{}", a.id()))
            .map_err(|e| (EXIT_INTERNAL, e.to_string())),
        Command::Trouble { driver: false } => reference::assignment("trouble")
            .expect("trouble is registered")
            .run_console(&mut input, &mut output)
            .map_err(|e| (EXIT_INTERNAL, e.to_string())),
        Command::Trouble { driver: true } => reference::trouble::driver::run(&mut input, &mut output)
            .map_err(|e| match e {
                reference::trouble::driver::DriverError::Rejected(e) => (EXIT_USAGE, e.to_string()),
                reference::trouble::driver::DriverError::Io(e) => (EXIT_INTERNAL, e.to_string()),
            }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("reference: {message}");
            ExitCode::from(code)
        }
    }
}
