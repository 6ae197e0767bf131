//! Report stage: the one serialisable result of a grading, and its renderers.

pub(crate) mod escape;
mod gradescope;
mod junit;
mod markdown;
mod text;

use serde::{Deserialize, Serialize};

pub use gradescope::{
    render_gradescope, render_gradescope_failure, render_gradescope_with, GradescopeOptions, HiddenVisibility,
};
pub use junit::render_junit;
pub use markdown::{render_github_annotations, render_markdown};
pub use text::{plain_first_difference, render_text, TextOptions, Verbosity};

use crate::compare::{Divergence, Forgiven, Normalization, PartialCredit};
use crate::load::{CaseKind, Disclosure, Visibility};
use crate::run::{Containment, Limit};

/// Everything a grading found: the single source of every output format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The grader's version.
    pub grader_version: String,
    /// Assignment id.
    pub assignment: String,
    /// Assignment title.
    pub title: String,
    /// The submission as given on the command line.
    pub submission: String,
    /// The files taken from it and graded, by name (a stray `main_old.c` shows here, not only in the
    /// linker's errors). Reports written before this field have none.
    #[serde(default)]
    pub submission_files: Vec<String>,
    /// What the class download said about the submission (`grader batch`): a file taken under the
    /// name it was handed in as, an online text left out, other submissions under the same id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub submission_notes: Vec<String>,
    /// Only the cases students see were run (a self-check).
    pub visible_only: bool,
    /// Only the cases whose ids match these patterns were run (`--case`); empty: all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    /// The cases folder, as given (`grader-pack/cases`) or found: input files are named from it, and
    /// the commands that run a case again pass it.
    #[serde(default)]
    pub cases_root: String,
    /// How the compilers and programs were contained.
    pub containment: Containment,
    /// The programs ran as the grader's own user: at `rlimits-only` a grader that is not root
    /// cannot give each run a user of its own, so its programs could reach all it can.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub programs_ran_as_grader: bool,
    /// `grade --seed N`: interactive cases rolled other dice, seeded from N and each case's own seed
    /// (none: each case's seed alone, so that every grading plays the same games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_seed: Option<u64>,
    /// Points earned over the automated categories, bonus categories included (so it may exceed
    /// `max_score`).
    pub score: f64,
    /// Points available over the automated categories that were graded, bonus categories left out.
    pub max_score: f64,
    /// Cases that were not run (a self-check runs only the visible ones), with their points.
    pub hidden: Option<HiddenCases>,
    /// Categories graded by hand, with their points.
    pub pending: Vec<PendingCategory>,
    /// Points a class's gradebook takes off this submission for lateness (`[late] penalty`), set where
    /// a class's report is shown (`grader show`); zero otherwise.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub late_points: f64,
    /// One entry per build recipe used.
    pub builds: Vec<BuildReport>,
    /// What the assignment's probe found, when it has one.
    pub probe: Option<ProbeReport>,
    /// Automated categories in rubric order.
    pub categories: Vec<CategoryReport>,
    /// Every case run (or not run), in case order.
    pub cases: Vec<CaseReport>,
    /// For a problem package: its time limit and the judge's verdict on the whole submission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<PackageReport>,
}

impl Report {
    /// The total as a class's gradebook has it, and the points it is out of: the automated points,
    /// the hand grades given (a category still pending counts 0, its points in the maximum) and the
    /// late penalty taken off. `None` when no hand grade is given and nothing is taken off.
    pub fn total_with_hand_grades(&self) -> Option<(f64, f64)> {
        let given: f64 = self.pending.iter().filter_map(|p| p.given.as_ref()).map(|g| g.points).sum();
        if self.pending.iter().all(|p| p.given.is_none()) && self.late_points == 0.0 {
            return None;
        }
        let of: f64 = self.pending.iter().map(|p| p.points).sum();
        Some((
            crate::points::round(self.score + given - self.late_points),
            crate::points::round(self.max_score + of),
        ))
    }

    /// `; 8.60 off for lateness` when the gradebook takes points off, else nothing.
    pub fn late_phrase(&self) -> String {
        if self.late_points > 0.0 {
            format!("; {:.2} off for lateness", self.late_points)
        } else {
            String::new()
        }
    }

    /// Points of the categories graded by hand that have no grade yet.
    pub fn hand_points_pending(&self) -> f64 {
        self.pending.iter().filter(|p| p.given.is_none()).map(|p| p.points).sum()
    }

    /// Every case earned all its points, bonus cases aside: leaving out an optional part is no
    /// failure (a self-check of a complete submission passes in a course's CI).
    pub fn all_passed(&self) -> bool {
        self.cases.iter().filter(|c| !self.is_bonus(&c.category)).all(CaseReport::full_marks)
    }

    /// The category is a bonus (extra credit) one.
    pub fn is_bonus(&self, category: &str) -> bool {
        self.categories.iter().any(|c| c.id == category && c.bonus)
    }

    /// Bonus points earned and available over the bonus categories graded: `(earned, available)`;
    /// both 0 without any.
    pub fn bonus_points(&self) -> (f64, f64) {
        let bonus = self.categories.iter().filter(|c| c.bonus);
        let (earned, available) = bonus.fold((0.0, 0.0), |(e, a), c| (e + c.score, a + c.max_score));
        (crate::points::round(earned), crate::points::round(available))
    }

    /// The words after a total that has bonus points in it: `including 3.00 of 5.00 bonus points`;
    /// `None` when no bonus category was graded.
    pub fn bonus_phrase(&self) -> Option<String> {
        let has_bonus = self.categories.iter().any(|c| c.bonus);
        let (earned, available) = self.bonus_points();
        has_bonus.then(|| crate::points::bonus_phrase(earned, available))
    }
}

impl CaseReport {
    /// The case passed with every point (not a presentation error or partial credit).
    pub fn full_marks(&self) -> bool {
        self.status == CaseStatus::Passed && self.score >= self.max_score
    }
}

/// The cases a self-check leaves out: how many, and what they are worth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HiddenCases {
    /// Number of cases not run (bonus ones included).
    pub cases: usize,
    /// Their automated points, bonus categories left out: what the maximum still lacks.
    pub points: f64,
    /// The points of those in bonus categories.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bonus_points: f64,
}

impl HiddenCases {
    /// `3 hidden cases worth 7.50 points`, with `(and 2.50 bonus points)` when some are bonus cases.
    pub fn describe(&self) -> String {
        let s = if self.cases == 1 { "" } else { "s" };
        let mut words = format!("{} hidden case{s} worth {:.2} points", self.cases, self.points);
        if self.bonus_points > 0.0 {
            words.push_str(&format!(" (and {:.2} bonus points)", self.bonus_points));
        }
        words
    }
}

fn is_zero(points: &f64) -> bool {
    *points == 0.0
}

/// A category graded by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCategory {
    /// Category id.
    pub id: String,
    /// What it grades.
    pub title: String,
    /// Its points.
    pub points: f64,
    /// The grade given by hand, where a class's report is shown with its hand grades (`grader
    /// show`); none while it is pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<HandGrade>,
}

/// A grade given by hand in a category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandGrade {
    /// The points given.
    pub points: f64,
    /// The grader's comment, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// What an assignment's probe found: worth no points, shown first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    /// What the probe finds, in words.
    pub title: String,
    /// The lines it printed, without the echoes of its commands; empty when it failed.
    pub lines: Vec<String>,
    /// Why there are no lines: the build failed, or the run ended badly.
    pub failure: Option<String>,
}

/// How one build recipe went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildReport {
    /// Recipe name.
    pub recipe: String,
    /// `ok` or `error`.
    pub status: BuildStatus,
    /// Reused from the cache.
    pub cached: bool,
    /// Compiler messages.
    pub log: String,
    /// Seconds spent building.
    pub seconds: f64,
    /// What the messages point to when they say more than where to fix: names the assignment's own
    /// code uses that the submission does not define (a submission of another assignment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl BuildReport {
    /// The hint to show: the one stored, or (a report saved before builds carried one) the one its log
    /// gives.
    pub fn hint_to_show(&self, assignment: &str) -> Option<String> {
        self.hint.clone().or_else(|| BuildReport::hint_of(&self.log, assignment))
    }

    /// The hint of a build of `assignment` with this log: `None` unless the linker names functions or
    /// variables the submission lacks.
    pub fn hint_of(log: &str, assignment: &str) -> Option<String> {
        let missing = undefined_names(log);
        let s = if missing.len() == 1 { "" } else { "s" };
        (!missing.is_empty()).then(|| {
            format!(
                "{} name{s} the assignment's code uses {} not defined by the submission ({}): is it a \
                 submission of `{assignment}`? (`grader list` names the assignments)",
                missing.len(),
                if missing.len() == 1 { "is" } else { "are" },
                missing.join(", "),
            )
        })
    }
}

/// The names of a linker's `undefined reference to `NAME'` lines, once each, in order.
pub(crate) fn undefined_names(log: &str) -> Vec<&str> {
    let mut missing: Vec<&str> = Vec::new();
    for line in log.lines() {
        let name = line
            .split_once("undefined reference to `")
            .and_then(|(_, rest)| rest.split_once('\''))
            .map(|(name, _)| name);
        if let Some(name) = name.filter(|name| !missing.contains(name)) {
            missing.push(name);
        }
    }
    missing
}

/// Whether a build produced an executable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildStatus {
    /// It did.
    Ok,
    /// The compiler rejected the submission.
    Error,
}

/// The score of one automated category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryReport {
    /// Category id.
    pub id: String,
    /// What it grades.
    pub title: String,
    /// Points earned.
    pub score: f64,
    /// Points available (a bonus category's too, though the report's `max_score` leaves them out).
    pub max_score: f64,
    /// Cases passed (some perhaps only after a lenient normalisation, at a cost).
    pub passed: usize,
    /// Cases run for this category.
    pub cases: usize,
    /// An optional part (extra credit): its score adds to the report's `score`, its points not to
    /// `max_score`, and its failures do not fail a self-check.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bonus: bool,
}

/// What happened to one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    /// The output matched (perhaps only after a lenient normalisation, which `leniency` names).
    Passed,
    /// The program ended normally but its output or exit status was wrong.
    Failed,
    /// Killed at the wall-clock or CPU limit (`limit` says which).
    Timeout,
    /// Killed by a signal of its own making (segmentation fault, abort, ...; `signal` says which).
    Crashed,
    /// Stopped for printing far more than expected.
    OutputLimit,
    /// Killed at the memory, process or file-size limit (`limit` says which).
    LimitExceeded,
    /// The submission did not build, so the case could not run.
    BuildError,
    /// The grader itself failed to run the case; `note` says why. Never a student's fault.
    Error,
}

impl CaseStatus {
    /// The status of a run stopped at `limit`.
    pub fn of_limit(limit: Limit) -> CaseStatus {
        match limit {
            Limit::Wall | Limit::Cpu => CaseStatus::Timeout,
            Limit::Output => CaseStatus::OutputLimit,
            Limit::Memory | Limit::Processes | Limit::Disk => CaseStatus::LimitExceeded,
        }
    }
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// Case id (its path under the assignment folder).
    pub id: String,
    /// What it checks.
    pub title: String,
    /// Category id.
    pub category: String,
    /// Whether students see it.
    pub visibility: Visibility,
    /// How much of a failure students see.
    #[serde(default)]
    pub disclosure: Disclosure,
    /// Whole program or function-level.
    pub kind: CaseKind,
    /// What happened.
    pub status: CaseStatus,
    /// For a crash: the signal's name (`SIGSEGV`).
    pub signal: Option<String>,
    /// For a run stopped at a limit: which one.
    pub limit: Option<Limit>,
    /// Points earned.
    pub score: f64,
    /// Points available.
    pub max_score: f64,
    /// Costly normalisations behind the score (a presentation error, or partial credit under them).
    pub leniency: Vec<Normalization>,
    /// The rubric's costly rewrite behind the score, in its words (`lenient-rewrite`'s `what`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lenient_rewrite: Option<String>,
    /// For a presentation error: each kind of difference forgiven, how often, and where first.
    pub forgiven: Vec<Forgiven>,
    /// For a mismatch: how the partial credit was reached.
    pub partial: Option<PartialCredit>,
    /// One line of explanation (exit status, signal, limit, what was forgiven).
    pub note: Option<String>,
    /// Wall-clock milliseconds of the run.
    pub time_ms: Option<u64>,
    /// CPU milliseconds of the run.
    pub cpu_ms: Option<u64>,
    /// Peak resident memory in KiB.
    pub peak_memory_kb: Option<u64>,
    /// The first difference from the expected transcript.
    pub divergence: Option<Divergence>,
    /// A bounded unified diff (expected against actual).
    pub diff: Option<String>,
    /// The start of what the program wrote on standard error.
    pub stderr: Option<String>,
    /// For a failure: the case's input file and the lines of it read before the first difference.
    #[serde(default)]
    pub input: Option<InputContext>,
    /// For a failure: a shell command that runs the same program on the same input outside the
    /// sandbox and diffs its output with the expected one (paths of the machine that graded).
    #[serde(default)]
    pub reproduce: Option<String>,
    /// For an interactive case: the games that went wrong, each with its reason and last exchanges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<GameProblem>,
    /// For an interactive case: how every game ended (one program start each), those that went right
    /// too, so that no game is left out of a report silently.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub game_ends: Vec<GameEnd>,
    /// For a test case of a problem package: the judge's verdict, as the format names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<JudgeVerdict>,
}

/// What a report of a problem package's grading adds: the limit every run had, and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackageReport {
    /// CPU seconds each run may use.
    pub time_limit_seconds: f64,
    /// Where the time limit comes from: `problem.yaml`, `.timelimit`, or the grader's default.
    pub time_limit_source: String,
    /// The submission's verdict: accepted when every case that ran is, else the worst case verdict
    /// (JE, CE, RTE, TLE, WA, in that order, as the format's default grader says).
    pub verdict: JudgeVerdict,
}

impl PackageReport {
    /// The worst of the cases' verdicts (AC when all are, or none ran).
    pub fn verdict_of(cases: &[CaseReport]) -> JudgeVerdict {
        let rank = |v: JudgeVerdict| match v {
            JudgeVerdict::JE => 0,
            JudgeVerdict::CE => 1,
            JudgeVerdict::RTE => 2,
            JudgeVerdict::TLE => 3,
            JudgeVerdict::WA => 4,
            JudgeVerdict::AC => 5,
        };
        cases.iter().filter_map(|c| c.verdict).min_by_key(|v| rank(*v)).unwrap_or(JudgeVerdict::AC)
    }
}

/// A judge's verdict on one test case, in the problem package format's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum JudgeVerdict {
    /// Accepted.
    AC,
    /// Wrong answer.
    WA,
    /// Time limit exceeded.
    TLE,
    /// Run-time error: a crash, a non-zero exit status, or a memory or output limit.
    RTE,
    /// The submission did not compile.
    CE,
    /// The grader could not judge (never the submission's fault).
    JE,
}

impl JudgeVerdict {
    /// The verdict of a case's status; `exit_code` is the program's own status when it exited.
    pub fn of(status: CaseStatus, exit_code: Option<i32>) -> JudgeVerdict {
        match status {
            CaseStatus::Passed => JudgeVerdict::AC,
            CaseStatus::Failed if exit_code.is_some_and(|c| c != 0) => JudgeVerdict::RTE,
            CaseStatus::Failed => JudgeVerdict::WA,
            CaseStatus::Timeout => JudgeVerdict::TLE,
            CaseStatus::Crashed | CaseStatus::OutputLimit | CaseStatus::LimitExceeded => JudgeVerdict::RTE,
            CaseStatus::BuildError => JudgeVerdict::CE,
            CaseStatus::Error => JudgeVerdict::JE,
        }
    }
}

impl std::fmt::Display for JudgeVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// How one game (one program start) of an interactive case ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameEnd {
    /// 1-based game number.
    pub game: usize,
    /// Whether it went right, went wrong, or went wrong in a way another case grades.
    pub status: GameStatus,
    /// How, in words: `ended at \`quit\`: 1 game played to the end (0 won by the AI)`, or the problem.
    pub how: String,
}

/// How a game of an interactive case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameStatus {
    /// Every answer this case judges was right, to the end.
    Finished,
    /// It went wrong in what this case grades (or the program stopped answering).
    Failed,
    /// It went wrong in what another case grades, and is left out of this one's score.
    LeftOut,
}

/// A game of an interactive case that went wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameProblem {
    /// 1-based game number.
    pub game: usize,
    /// What went wrong (and how the program ended, when it did not end well).
    pub problem: String,
    /// The last lines exchanged before it: `> command`, `< answer`.
    pub exchange: Vec<String>,
    /// Every line the grader sent in that game, in order: fed to the program again, they replay it
    /// (the case's `reproduce` command does so for its first such game).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sent: Vec<String>,
    /// The first lines the program wrote on stderr in that game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// For a game left out of this case's score: the category that grades what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded_by: Option<String>,
}

/// Where a failing case's input comes from, and what of it the program had been given when its output
/// first differed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputContext {
    /// The `.stdin` file, relative to the report's cases folder (`trouble/game/capture.stdin`).
    pub path: String,
    /// Input lines read before the first difference (by a correct program), when known.
    pub consumed: Option<usize>,
    /// The last of those lines, with their 1-based line numbers in the input file.
    pub last: Vec<(usize, String)>,
}

/// The title of a hidden case as students see it; its id becomes `<category>/hidden-<n>`, numbered
/// in case order within its category.
pub const HIDDEN_CASE_TITLE: &str = "hidden case";

impl Report {
    /// The report students may read: hidden cases keep only their category, verdict and points
    /// (their ids and titles say what they test), and visible cases show what their `disclosure` allows.
    /// Every student-facing format renders this view, never the full report.
    pub fn student_view(&self) -> Report {
        let mut view = self.clone();
        // A folder of the grading machine means nothing to a student; a student pack keeps its cases
        // in `cases/`.
        if std::path::Path::new(&view.cases_root).is_absolute() {
            view.cases_root = "cases".to_owned();
        }
        let mut hidden: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for case in &mut view.cases {
            let level = match case.visibility {
                Visibility::Hidden => {
                    let n = hidden.entry(case.category.clone()).or_insert(0);
                    *n += 1;
                    case.id = format!("{}/hidden-{n}", case.category);
                    case.title = HIDDEN_CASE_TITLE.to_owned();
                    Disclosure::Verdict
                }
                Visibility::Visible => case.disclosure,
            };
            case.disclosure = level;
            match level {
                Disclosure::Diff => {}
                Disclosure::Output => {
                    // The diff and the forgiven differences quote expected lines.
                    case.diff = None;
                    if let Some(note) = &mut case.note {
                        for forgiven in &case.forgiven {
                            *note = note.replace(&forgiven.describe(), &forgiven.describe_unquoted());
                        }
                    }
                    case.forgiven.clear();
                    if let Some(d) = &mut case.divergence {
                        d.expected = None;
                    }
                    case.reproduce = None;
                }
                Disclosure::Verdict => {
                    case.note = None;
                    case.divergence = None;
                    case.diff = None;
                    case.forgiven.clear();
                    case.partial = None;
                    case.stderr = None;
                    case.input = None;
                    case.reproduce = None;
                    case.games.clear();
                    case.game_ends.clear();
                }
            }
        }
        view
    }
}

/// `text` cut to at most `max` bytes on a character boundary, with a marker saying how much was cut.
pub(crate) fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let marker = |cut: usize| format!("\n[... cut: {cut} more bytes; the JSON report has them]");
    // Room for the longest marker, so that text and marker together stay within `max`.
    let mut end = max.saturating_sub(marker(text.len()).len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{}", &text[..end], marker(text.len() - end))
}

/// A Markdown fenced code block holding `text`, with a fence longer than any run of backticks in it
/// (so that nothing inside can close it) and control characters but tabs and line feeds written
/// visibly.
pub fn markdown_fence(text: &str) -> String {
    let text = &escape::inert(text, escape::BLOCK);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// The JSON form of a report (pretty-printed, newline-terminated), with no control character left
/// raw even inside strings: it may be printed on a terminal.
pub fn render_json(report: &Report) -> String {
    let json = serde_json::to_string_pretty(report).expect("a report always serialises");
    let mut json = escape::json(&json);
    json.push('\n');
    json
}

/// Reports built by hand for the renderers' tests.
#[cfg(test)]
pub(crate) mod test_support;

#[cfg(test)]
mod tests;
