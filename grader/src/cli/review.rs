//! `grader review`: the command that starts the hand-grading web app over a graded class.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use clap::Args;

use super::{UsageError, EXIT_OK};
use crate::review::{Class, ReviewOptions, Split};

/// The arguments of `grader review`.
#[derive(Debug, Args)]
pub(super) struct ReviewArgs {
    /// The class's output folder (of `batch` or `merge`).
    class: PathBuf,
    /// The port to listen on (0: any free one).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// The address to listen on: 127.0.0.1 (this machine only) unless told otherwise; 0.0.0.0 lets
    /// teaching assistants on other machines in, each with the token.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Split the class between these teaching assistants, in even shares in the class page's order
    /// (`--tas ann,bo`).
    #[arg(long, value_name = "NAMES", value_delimiter = ',', conflicts_with = "split")]
    tas: Vec<String>,
    /// Split the class as this TOML file says: `ann = ["s01..s20", "s33"]`, ids and ranges.
    #[arg(long, value_name = "FILE")]
    split: Option<PathBuf>,
}

/// `grader review`.
pub(super) fn review(cases: &Path, args: ReviewArgs) -> anyhow::Result<u8> {
    let ReviewArgs { class, port, host, tas, split } = args;
    let assignment = super::class::class_assignment(cases, &class)?;
    let ids: Vec<String> = crate::export::read_records(&class)
        .map_err(|e| UsageError(e.to_string()))?
        .into_iter()
        .map(|r| r.id)
        .collect();
    let split = match split {
        Some(path) => Split::read(&path, &ids).map_err(UsageError)?,
        None => Split::even(
            &tas.iter().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect::<Vec<_>>(),
            &ids,
        ),
    };
    let class = Class::open(&class, assignment, split);
    crate::review::serve(class, ReviewOptions { host, port }, |address| {
        // The one line a script waits for (as Jupyter prints its address), then how to stop.
        let mut out = std::io::stdout();
        let _ = writeln!(out, "{address}");
        let _ = out.flush();
        let mut err = anstream::stderr();
        if host.is_unspecified() {
            let _ = writeln!(
                err,
                "grader review: listening on every address of this machine: from another one, put this \
                 machine's name or address in place of {host}"
            );
        }
        let _ = writeln!(err, "grader review: open the address above; Ctrl-C stops");
    })
    .map_err(|e| anyhow::anyhow!("grader review: cannot serve on {host}:{port}: {e}"))?;
    Ok(EXIT_OK)
}
