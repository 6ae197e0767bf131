//! The class commands: `batch`, `merge`, `show`, `export` and `similarity`, and what they share (hand grades,
//! output folders, the class's errors as exit codes).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use super::{emit, render, Format, Selection, UsageError, EXIT_FAILED, EXIT_OK};
use crate::build::BuildCache;
use crate::grade::GradeOptions;
use crate::load;
use crate::report::Report;
use crate::run::Containment;
use crate::similarity::Settings;

/// The arguments of `grader batch`.
#[derive(Debug, Args)]
pub(super) struct BatchArgs {
    /// The class: a folder (or a .zip / .tar.gz of one) of submissions.
    root: PathBuf,
    /// Assignment id (see `grader list`).
    #[arg(long, short)]
    assignment: String,
    /// Where the outputs go.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    /// Programs run at once, like make's -j (default: the number of cores); one student more is
    /// graded at a time, each one's cases in parallel.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// Grade only a share of the class: hash:K/N or slice:K/N (merge the shares with `grader merge`).
    #[arg(long, value_name = "SHARE")]
    partition: Option<crate::batch::Partition>,
    /// Hand grades of `manual = true` categories: a CSV of id,category,points,comment.
    #[arg(long, value_name = "CSV")]
    manual: Option<PathBuf>,
    /// Re-grade every student, even those whose record is up to date.
    #[arg(long)]
    force: bool,
    /// Re-grade only this student (repeatable, or ids separated by commas); the class files keep
    /// the others as they are.
    #[arg(long, value_name = "ID", value_delimiter = ',', conflicts_with = "partition")]
    only: Vec<String>,
    /// Build cache folder (default: `$GRADER_CACHE_DIR`, else `/var/cache/grader` for root, else
    /// `~/.cache/grader`).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Then compare the class's submissions (as `grader similarity` does, with its defaults):
    /// similarity.csv and similarity.html in OUT, linked from the class page.
    #[arg(long, conflicts_with = "partition")]
    similarity: bool,
    /// With --similarity: code the course handed out besides the assignment's own base (a
    /// template, the course's `main()`), taken as no evidence; repeatable.
    #[arg(long, value_name = "FILE", requires = "similarity")]
    base: Vec<PathBuf>,
}

/// The arguments of `grader similarity`.
#[derive(Debug, Args)]
pub(super) struct SimilarityArgs {
    /// The class: a folder (or a .zip / .tar.gz of one) of submissions, or the output folder of a
    /// `grader batch` (whose batch.json names the class folder).
    class: PathBuf,
    /// Assignment id (see `grader list`): which files are taken, and its base code.
    #[arg(long, short)]
    assignment: String,
    /// Where similarity.csv and similarity.html go (a batch's output folder will do).
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    /// Tokens in a k-gram: no shared run shorter than this is found.
    #[arg(long, value_name = "N", default_value_t = Settings::default().kgram, value_parser = parse_count)]
    kgram: usize,
    /// k-grams in a winnowing window: every shared run of WINDOW + KGRAM - 1 tokens is found.
    #[arg(long, value_name = "N", default_value_t = Settings::default().window, value_parser = parse_count)]
    window: usize,
    /// Code held by more than this share of the class (and by more than 10 students) is common
    /// code, not evidence (0 to 1).
    #[arg(long, value_name = "SHARE", default_value_t = Settings::default().max_share, value_parser = parse_share)]
    max_share: f64,
    /// The "look at this" line: pairs whose similarity reaches it (0 to 1) are marked and shown side
    /// by side [default: the assignment's `[similarity] look-at`, else 0.12]
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    look_at: Option<f64>,
    /// Code the course handed out besides the assignment's own base (a template, the course's
    /// `main()`), taken as no evidence; repeatable.
    #[arg(long, value_name = "FILE")]
    base: Vec<PathBuf>,
}

/// Reads the `--base` files: C, Java or Python source the similarity analysis reads.
fn base_files(paths: &[PathBuf]) -> anyhow::Result<Vec<crate::build::SourceFile>> {
    let mut files = Vec::new();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if crate::similarity::tokens::Language::of(&name).is_none() {
            return Err(UsageError(format!(
                "--base {}: not C, Java or Python source (.c, .h, .java, .py): similarity reads only those",
                path.display()
            ))
            .into());
        }
        let content = std::fs::read(path)
            .map_err(|e| UsageError(format!("--base {}: cannot read it: {e}", path.display())))?;
        files.push(crate::build::SourceFile { name, content });
    }
    Ok(files)
}

fn parse_count(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| format!("`{text}` is not a count from 1 to 1000"))
}

fn parse_share(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or_else(|| format!("`{text}` is not a share from 0 to 1"))
}

/// The arguments of `grader merge`.
#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The partial outputs.
    #[arg(required = true)]
    folders: Vec<PathBuf>,
    /// Assignment id.
    #[arg(long, short)]
    assignment: String,
    /// Where the merged outputs go.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    /// Hand grades, as for `batch`.
    #[arg(long, value_name = "CSV")]
    manual: Option<PathBuf>,
}

/// The arguments of `grader show`.
#[derive(Debug, Args)]
pub(super) struct ShowArgs {
    /// The batch's output folder.
    class: PathBuf,
    /// The student's id (as in `gradebook.csv`).
    id: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Render only what the student may see (as `grade --student-view`).
    #[arg(long)]
    student_view: bool,
    /// How much the text format says.
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Also the passing cases, whole compiler logs and reproduce commands (text format).
    #[arg(long, short)]
    verbose: bool,
}

/// The arguments of `grader export`.
#[derive(Debug, Args)]
pub(super) struct ExportArgs {
    /// The batch's (or merge's) output folder.
    class: PathBuf,
    /// The platform.
    #[arg(long, value_enum)]
    to: crate::export::Platform,
    /// Where the files go (default: the class folder).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Canvas: the assignment's gradebook column as Canvas's own export names it
    /// (`Backgammon project (123456)`), so that the import fills it (default: a new column
    /// `Grader`).
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
    /// Moodle: the grades' last change as `YYYY-MM-DD HH:MM` (default: now, UTC); a grade changed
    /// in Moodle after it is not overwritten.
    #[arg(long, value_name = "TIME")]
    modified: Option<String>,
}

/// `grader batch`.
pub(super) fn batch(
    cases: &Path,
    args: BatchArgs,
    level: Containment,
    accept_readable_cases: bool,
) -> anyhow::Result<u8> {
    let BatchArgs {
        root,
        assignment,
        out,
        jobs,
        partition,
        manual,
        force,
        only,
        cache_dir,
        similarity,
        base,
    } = args;
    out_folder(&out)?;
    let cache = BuildCache::new(cache_dir.unwrap_or_else(BuildCache::default_dir));
    let mut assignment = super::settled_assignment(cases, &assignment, &cache, level)?;
    if similarity {
        // Refused before the class is graded, not after.
        assignment.similarity_base.files()?;
        assignment.similarity_base.add(base_files(&base)?);
    }
    if !root.exists() {
        return Err(UsageError(format!("no class at {}", root.display())).into());
    }
    let manual = read_manual(manual.as_deref(), &assignment)?;
    let cores = crate::run::cores();
    let options = crate::batch::BatchOptions {
        out,
        jobs: jobs.unwrap_or(cores).max(1),
        partition,
        manual,
        force,
        only,
        // Installed only now that the batch is about to start: a mistake above exits at once.
        stop: crate::batch::StopFlag::on_signals().context("cannot install the signal handlers")?,
        caps: crate::roster::ArchiveCaps::default(),
        grade: GradeOptions {
            visible_only: false,
            cache,
            containment: level,
            only: Vec::new(),
            accept_readable_cases,
            dice_seed: None,
        },
        similarity: similarity.then(|| Settings {
            look_at: assignment.similarity_look_at.unwrap_or(Settings::default().look_at),
            ..Settings::default()
        }),
    };
    // Refused before any student is graded, not once per student.
    if !options.grade.accept_readable_cases {
        let cases: Vec<&load::Case> = assignment.cases.iter().filter(|c| !c.withheld).collect();
        crate::grade::check_cases_unreadable(&cases, options.grade.containment)?;
    }
    let outcome = crate::batch::run_batch(&assignment, &root, &options).map_err(batch_error)?;
    let statuses: Vec<String> = outcome.statuses.iter().map(|(s, n)| format!("{n} {s}")).collect();
    let share = partition.map(|p| format!(" (share {p} of {})", outcome.roster)).unwrap_or_default();
    let mut err = anstream::stderr();
    if let Some(signal) = outcome.interrupted {
        writeln!(
            err,
            "stopped by {}: {} of {} students graded; re-run the same command to resume. \
                 Partial outputs in {}",
            crate::batch::signal_name(signal),
            outcome.in_class_files,
            outcome.selected,
            options.out.display()
        )?;
        hand_grades_line(&options.out, outcome.hand_grades)?;
        return Ok(crate::batch::exit_code_of(signal));
    }
    let warned = match outcome.warnings.len() {
        0 => String::new(),
        n => format!("; {n} with several submissions (warnings above, and in summary.md)"),
    };
    if options.only.is_empty() {
        writeln!(
            err,
            "{} {}{share}: {} graded now, {} up to date; by status: {}{warned}. Outputs in {}",
            outcome.selected,
            if outcome.selected == 1 { "student" } else { "students" },
            outcome.graded,
            outcome.reused,
            statuses.join(", "),
            options.out.display()
        )?;
    } else {
        writeln!(
            err,
            "{} of {} students graded again (--only); the class files hold {}, by status: {}{warned}. Outputs in {}",
            outcome.graded,
            outcome.roster,
            outcome.in_class_files,
            statuses.join(", "),
            options.out.display()
        )?;
    }
    hand_grades_line(&options.out, outcome.hand_grades)?;
    if options.similarity.is_some() {
        if let Some(summary) = crate::similarity::report::Summary::read(&options.out) {
            let names: Vec<String> =
                summary.flagged.iter().map(|id| crate::report::escape::inert(id, &[])).collect();
            let who = if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) };
            writeln!(
                err,
                "similarity: {} at or above the \"look at this\" line, among {} students{who} ({} share some \
                 code beyond the base code); side by side in {}",
                pairs(summary.above_line),
                summary.students_above_line,
                pairs(summary.pairs),
                options.out.join(crate::similarity::report::HTML_FILE).display()
            )?;
        }
    }
    Ok(EXIT_OK)
}

/// `1 pair`, `3 pairs`.
fn pairs(n: usize) -> String {
    format!("{n} pair{}", if n == 1 { "" } else { "s" })
}

/// `grader similarity`.
pub(super) fn similarity(cases: &Path, args: SimilarityArgs) -> anyhow::Result<u8> {
    let SimilarityArgs { class, assignment, out, kgram, window, max_share, look_at, base } = args;
    out_folder(&out)?;
    let mut assignment = super::load_assignment(cases, &assignment)?;
    assignment.similarity_base.files()?;
    assignment.similarity_base.add(base_files(&base)?);
    let root = class_root(&class, &assignment.id)?;
    crate::batch::refuse_out_inside(&root, &out).map_err(batch_error)?;
    let settings = Settings {
        kgram,
        window,
        max_share,
        look_at: look_at.or(assignment.similarity_look_at).unwrap_or(Settings::default().look_at),
        ..Settings::default()
    };
    let entries =
        crate::roster::discover(&root, &assignment.submission_files, crate::roster::ArchiveCaps::default())
            .map_err(|e| batch_error(e.into()))?;
    let submissions = crate::similarity::submissions_of(entries);
    let outcome =
        crate::similarity::write(&assignment, &submissions, &settings, &out).map_err(batch_error)?;
    let summary = &outcome.summary;
    let groups = match outcome.clusters {
        0 => String::new(),
        1 => ", 1 group of more than two".to_owned(),
        n => format!(", {n} groups of more than two"),
    };
    let files: Vec<String> = outcome.files.iter().map(|f| f.display().to_string()).collect();
    writeln!(
        anstream::stderr(),
        "{} students, {} compared: {} code, {} at or above the \"look at this\" line (similarity {:.0}%), \
         among {} students{groups}. Outputs: {}",
        outcome.students,
        outcome.compared,
        if summary.pairs == 1 {
            "1 pair shares".to_owned()
        } else {
            format!("{} pairs share", summary.pairs)
        },
        summary.above_line,
        settings.look_at * 100.0,
        summary.students_above_line,
        files.join(", ")
    )?;
    if out.join(crate::gradebook::BATCH_FILE).is_file() {
        writeln!(
            anstream::stderr(),
            "the class page links to it from the next `grader batch` into {}",
            out.display()
        )?;
    }
    Ok(EXIT_OK)
}

/// The class folder `similarity` reads: `class` itself, or the folder a batch's output names.
fn class_root(class: &Path, assignment: &str) -> anyhow::Result<PathBuf> {
    if !class.exists() {
        return Err(UsageError(format!("no class at {}", class.display())).into());
    }
    let info_path = class.join(crate::gradebook::BATCH_FILE);
    if !info_path.is_file() {
        return Ok(class.to_owned());
    }
    let info: crate::batch::BatchInfo =
        std::fs::read(&info_path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).ok_or_else(
            || UsageError(format!("{} is not a batch's output (batch.json does not read)", class.display())),
        )?;
    if info.assignment != assignment {
        return Err(UsageError(format!(
            "{} is a grading of `{}`, not `{assignment}`",
            class.display(),
            info.assignment
        ))
        .into());
    }
    match info.root {
        Some(root) if root.exists() => Ok(root),
        Some(root) => Err(UsageError(format!(
            "{} was graded from {}, which is gone: give the class folder itself",
            class.display(),
            root.display()
        ))
        .into()),
        None => Err(UsageError(format!(
            "{} does not say which class folder it graded (an older grader, or a merge of shares from several \
             folders): give the class folder itself",
            class.display()
        ))
        .into()),
    }
}

/// `grader merge`.
pub(super) fn merge(cases: &Path, args: MergeArgs) -> anyhow::Result<u8> {
    let MergeArgs { folders, assignment, out, manual } = args;
    out_folder(&out)?;
    let assignment = super::load_assignment(cases, &assignment)?;
    let manual = read_manual(manual.as_deref(), &assignment)?;
    let outcome = crate::batch::merge(&assignment, &folders, &out, &manual).map_err(batch_error)?;
    let mut err = anstream::stderr();
    writeln!(err, "{} students merged into {}", outcome.students, out.display())?;
    hand_grades_line(&out, outcome.hand_grades)?;
    if !outcome.missing_partitions.is_empty() {
        writeln!(err, "missing partitions: {}", outcome.missing_partitions.join(", "))?;
    }
    if !outcome.missing.is_empty() {
        writeln!(
            err,
            "{} students of the class were graded by none of them: {}",
            outcome.missing.len(),
            shown(&outcome.missing.join(", "))
        )?;
        return Ok(EXIT_FAILED);
    }
    Ok(EXIT_OK)
}

/// `grader show`.
pub(super) fn show(cases: &Path, args: ShowArgs) -> anyhow::Result<u8> {
    let ShowArgs { class, id, format, student_view, quiet, verbose } = args;
    let mut parsed = class_report(&class, &id)?;
    // With the hand grades the class keeps, as the gradebook and the export have them.
    let assignment = class_assignment(cases, &class)?;
    let hand = crate::gradebook::ManualGrades::stored(&class, &assignment)
        .map_err(|e| batch_error(crate::batch::BatchError::Manual(e)))?;
    for category in &mut parsed.pending {
        category.given = hand.get(&id, &category.id).map(|grade| crate::report::HandGrade {
            points: grade.points,
            comment: hand.shown_comment(&category.id, grade),
        });
    }
    // And the late penalty, computed as the gradebook computes it (on the total with those grades).
    if let Some(mut record) =
        crate::export::read_records(&class).map_err(batch_error)?.into_iter().find(|r| r.id == id)
    {
        record.apply_manual(&hand);
        parsed.late_points = record.penalty();
    }
    let verbosity = Selection { case_patterns: Vec::new(), quiet, verbose, seed: None }.verbosity();
    emit(&render(&parsed, format, student_view, verbosity), None)?;
    Ok(EXIT_OK)
}

/// The assignment a class folder was graded for (its `batch.json` names it), whose rubric reads the
/// hand grades kept there: the folder it was graded from, else the id under the cases folder.
pub(super) fn class_assignment(cases: &Path, class: &Path) -> anyhow::Result<load::Assignment> {
    let info: crate::batch::BatchInfo = std::fs::read(class.join(crate::gradebook::BATCH_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| {
            UsageError(format!("{} is not a batch's output (no readable batch.json)", class.display()))
        })?;
    Ok(match info.assignment_dir.as_deref().filter(|d| load::is_assignment_folder(d)) {
        Some(dir) => load::load_folder(dir)?,
        None => super::load_assignment(cases, &info.assignment)?,
    })
}

/// `grader export`.
pub(super) fn export(cases: &Path, args: ExportArgs) -> anyhow::Result<u8> {
    let ExportArgs { class, to, out, column, modified } = args;
    let assignment = class_assignment(cases, &class)?;
    if let Some(out) = &out {
        out_folder(out)?;
    }
    if let Some(time) = &modified {
        if chrono::NaiveDateTime::parse_from_str(time, "%Y-%m-%d %H:%M").is_err() {
            return Err(UsageError(format!("--modified `{time}` is not YYYY-MM-DD HH:MM")).into());
        }
    }
    let options = crate::export::ExportOptions {
        platform: to,
        out: out.unwrap_or_else(|| class.clone()),
        column,
        modified,
    };
    let outcome = crate::export::export(&class, &assignment, &options).map_err(batch_error)?;
    let mut err = anstream::stderr();
    let files: Vec<String> = outcome.files.iter().map(|f| f.display().to_string()).collect();
    writeln!(err, "{} students exported: {}", outcome.students, files.join(", "))?;
    if !outcome.pending.is_empty() {
        writeln!(
            err,
            "{} of them have hand grades pending, exported without those points: {}",
            outcome.pending.len(),
            shown(&outcome.pending.join(", "))
        )?;
    }
    for (id, why) in &outcome.left_out {
        writeln!(err, "left out: {}: {}", shown(id), shown(why))?;
    }
    Ok(if outcome.left_out.is_empty() { EXIT_OK } else { EXIT_FAILED })
}

/// Students' ids (folder names of the class) as a terminal is shown them: escape sequences visible,
/// never run.
fn shown(ids: &str) -> String {
    crate::report::escape::inert(ids, crate::report::escape::ONE_LINE)
}

/// A batch's failure as the command line reports it: a wrong output folder or partial outputs that do
/// not belong together are the caller's mistake (exit 2); an unwritable disk is not.
fn batch_error(e: crate::batch::BatchError) -> anyhow::Error {
    use crate::batch::BatchError;
    match e {
        BatchError::OtherAssignment { .. }
        | BatchError::Merge(_)
        | BatchError::Roster(_)
        | BatchError::OutInsideClass { .. }
        | BatchError::UnknownStudents { .. }
        | BatchError::Manual(_) => UsageError(e.to_string()).into(),
        BatchError::Load(e) => e.into(),
        BatchError::Write { .. } => e.into(),
    }
}

/// Refuses an output folder that is a file: the system's "File exists" would not say which.
fn out_folder(out: &Path) -> anyhow::Result<()> {
    if out.exists() && !out.is_dir() {
        return Err(
            UsageError(format!("--out {} is a file: the outputs go in a folder", out.display())).into()
        );
    }
    Ok(())
}

/// The report of the student `id` in a batch's output folder `class`; an id the class does not have
/// is a usage error naming the nearest ones.
fn class_report(class: &Path, id: &str) -> anyhow::Result<Report> {
    let records = crate::export::read_records(class).map_err(batch_error)?;
    if !records.iter().any(|r| r.id == id) {
        let mut near: Vec<(usize, &str)> =
            records.iter().map(|r| (strsim::levenshtein(&r.id, id), r.id.as_str())).collect();
        near.sort();
        let near: Vec<&str> = near.iter().take(3).map(|(_, id)| *id).collect();
        return Err(UsageError(format!(
            "no student `{id}` in {} (nearest: {})",
            class.display(),
            near.join(", ")
        ))
        .into());
    }
    let path = class
        .join(crate::gradebook::STUDENTS_DIR)
        .join(crate::batch::student_dir_name(id))
        .join(crate::gradebook::REPORT_FILE);
    let text = std::fs::read_to_string(&path).map_err(|_| {
        UsageError(format!(
            "{id} has no report in {} (nothing was graded: see gradebook.csv)",
            class.display()
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        UsageError(format!("{}:{}: not a report of this grader ({e})", path.display(), e.line())).into()
    })
}

/// Says on stderr which hand grades the class's outputs hold, so that none is dropped without a word.
fn hand_grades_line(out: &Path, hand: crate::batch::HandGradesKept) -> anyhow::Result<()> {
    if hand.kept + hand.given > 0 {
        writeln!(
            anstream::stderr(),
            "hand grades: {} given now, {} kept from earlier runs; all in {}",
            hand.given,
            hand.kept,
            out.join(crate::gradebook::HAND_GRADES_FILE).display()
        )?;
    }
    Ok(())
}

/// The hand grades of `--manual`, or none.
fn read_manual(
    path: Option<&Path>,
    assignment: &load::Assignment,
) -> anyhow::Result<crate::gradebook::ManualGrades> {
    match path {
        Some(path) => crate::gradebook::ManualGrades::read(path, assignment)
            .map_err(|e| UsageError(e.to_string()).into()),
        None => Ok(crate::gradebook::ManualGrades::default()),
    }
}
