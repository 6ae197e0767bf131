//! `grader audit` on the command line: its arguments, and the function `cli` calls with them.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{AuditError, AuditOptions};
use crate::build::BuildCache;
use crate::cli::{UsageError, EXIT_OK};
use crate::grade::GradeOptions;
use crate::load;
use crate::run::Containment;

/// The files an audit writes in `--out`.
pub const TEXT_FILE: &str = "audit.txt";
/// The JSON report.
pub const JSON_FILE: &str = "audit.json";
/// The page.
pub const HTML_FILE: &str = "audit.html";

/// Arguments of `grader audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Assignment id (see `grader list`).
    #[arg(long, short)]
    assignment: String,
    /// The correct submission to make mutants of (default: `fixtures/<ID>/correct` beside the cases folder).
    #[arg(long, value_name = "DIR")]
    fixture: Option<PathBuf>,
    /// Grade a sample of N mutants, spread evenly over functions and operators (default: all).
    #[arg(long, value_name = "N")]
    mutants: Option<usize>,
    /// The sample's seed: the same seed samples the same mutants.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Programs run at once (default: the number of cores); one mutant more is graded at a time.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// Write audit.txt, audit.json and audit.html here (the text also goes to standard output).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only the cases whose id matches this pattern (`movePiece/*`: audit one category); repeatable.
    #[arg(long = "case", id = "case", value_name = "PATTERN", value_parser = parse_case_pattern)]
    case_patterns: Vec<glob::Pattern>,
    /// Grade another tool's mutants instead of making them: files named `<name>.mutant.<n>.<ext>`
    /// (universalmutator's), each a whole mutated copy of the fixture's `<name>.<ext>`.
    #[arg(long, value_name = "DIR")]
    mutant_files: Option<PathBuf>,
    /// Grade the mutants under the cases' own limits (default: at most 10 times the correct program's
    /// time on each case, at least 1 s, so that mutants that loop cost seconds, not minutes).
    #[arg(long)]
    own_limits: bool,
    /// Build the correct program and the mutants with AddressSanitizer and UndefinedBehaviorSanitizer
    /// (C: gcc, cc or clang recipes): a sanitizer's report in any case's run kills a mutant, even when
    /// its output matches. The correct program must run sanitizer-clean.
    #[arg(long)]
    sanitize: bool,
    /// List the mutants (after sampling) and grade nothing.
    #[arg(long)]
    list: bool,
    /// Build cache folder (default: as for `grade`).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// No progress on standard error.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_case_pattern(text: &str) -> Result<glob::Pattern, String> {
    glob::Pattern::new(text).map_err(|e| format!("`{text}` is not a case pattern: {e}"))
}

/// Runs `grader audit` with the cases under `cases`, containing programs at `containment`.
pub fn run(
    cases: &Path,
    args: AuditArgs,
    containment: Containment,
    accept_readable_cases: bool,
) -> anyhow::Result<u8> {
    let assignment = load::load(cases, &args.assignment)?;
    let _ = assignment.write_warnings(&mut anstream::stderr());
    // The README's marks first: a malformed one fails before anything is built (`--list` too).
    let marks = super::marks::Marks::read(&assignment)?;
    if let Some(out) = &args.out {
        if out.exists() && !out.is_dir() {
            return Err(
                UsageError(format!("--out {} is a file: the outputs go in a folder", out.display())).into()
            );
        }
    }
    let fixture = match args.fixture {
        Some(path) => path,
        None => {
            let beside = match cases.parent() {
                Some(parent) if cases.file_name().is_some() => parent.to_owned(),
                _ => cases.join(".."),
            };
            beside.join("fixtures").join(&assignment.id).join("correct")
        }
    };
    if !fixture.exists() {
        return Err(UsageError(format!(
            "no correct submission at {} to make mutants of: pass --fixture DIR",
            fixture.display()
        ))
        .into());
    }
    if !args.case_patterns.is_empty()
        && !assignment
            .cases
            .iter()
            .any(|c| !c.withheld && args.case_patterns.iter().any(|p| p.matches(&c.id)))
    {
        let patterns: Vec<&str> = args.case_patterns.iter().map(|p| p.as_str()).collect();
        return Err(UsageError(format!(
            "no case of `{}` matches {} (`grader list -a {}` names them)",
            assignment.id,
            patterns.join(", "),
            assignment.id
        ))
        .into());
    }
    if args.mutants == Some(0) {
        return Err(UsageError("--mutants 0 grades nothing".to_owned()).into());
    }
    let cores = crate::run::cores();
    let options = AuditOptions {
        fixture,
        mutants: args.mutants,
        seed: args.seed,
        jobs: args.jobs.unwrap_or(cores).max(1),
        grade: GradeOptions {
            visible_only: false,
            cache: BuildCache::new(args.cache_dir.unwrap_or_else(BuildCache::default_dir)),
            containment,
            only: args.case_patterns,
            accept_readable_cases,
            dice_seed: None,
        },
        mutant_files: args.mutant_files,
        own_limits: args.own_limits,
        sanitize: args.sanitize,
        quiet: args.quiet,
    };
    if args.list {
        let plan = super::plan(&assignment, &options, &marks).map_err(usage)?;
        let mut out = anstream::stdout();
        for m in &plan.mutants {
            writeln!(
                out,
                "{} {}:{}:{} {} {}: {} -> {}",
                m.id,
                inert(&m.file),
                m.line,
                m.column,
                inert(&m.function),
                m.operator.name(),
                inert(&m.original),
                inert(&m.replacement)
            )?;
        }
        writeln!(out, "{} of {} mutants ({})", plan.mutants.len(), plan.generated, plan.source)?;
        for note in super::text::plan_notes(plan.left_out_by_case, &plan.unreached) {
            writeln!(out, "{}", inert(&note))?;
        }
        return Ok(EXIT_OK);
    }
    let report = super::audit(&assignment, &options).map_err(usage)?;
    let text = super::render_text(&report);
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        crate::batch::write_atomic(&dir.join(TEXT_FILE), text.as_bytes())?;
        crate::batch::write_atomic(&dir.join(JSON_FILE), super::render_json(&report).as_bytes())?;
        crate::batch::write_atomic(&dir.join(HTML_FILE), super::render_html(&report).as_bytes())?;
    }
    let mut stdout = anstream::stdout();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    if let Some(dir) = &args.out {
        writeln!(
            anstream::stderr(),
            "audit written to {}/{{{TEXT_FILE},{JSON_FILE},{HTML_FILE}}}",
            dir.display()
        )?;
    }
    Ok(EXIT_OK)
}

fn inert(text: &str) -> String {
    crate::report::escape::inert(text, &[])
}

/// An audit's failure as the command line reports it: what the caller can fix (a fixture without
/// sources, a mutant file's name, a fixture that does not build) exits 2; the rest keeps its kind.
fn usage(e: AuditError) -> anyhow::Error {
    match e {
        AuditError::NoSources { .. }
        | AuditError::MutantFileName { .. }
        | AuditError::BaselineNotBuilt { .. }
        | AuditError::Sanitize(_)
        | AuditError::BaselineNotClean { .. } => UsageError(e.to_string()).into(),
        AuditError::Fixture(e) => e.into(),
        AuditError::Marks(e) => e.into(),
        AuditError::Baseline(e) => e.into(),
        AuditError::MutantFiles { .. } => e.into(),
    }
}
