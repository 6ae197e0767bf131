//! Report stage: the one serialisable result of a grading, and its renderers.

mod gradescope;
mod junit;
mod markdown;
mod text;

use serde::{Deserialize, Serialize};

pub use gradescope::{render_gradescope, render_gradescope_failure};
pub use junit::render_junit;
pub use markdown::{render_github_annotations, render_markdown};
pub use text::render_text;

use crate::compare::{Divergence, Forgiven, Normalization, PartialCredit};
use crate::load::{CaseKind, Visibility};
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
    /// Only the cases students see were run (a self-check).
    pub visible_only: bool,
    /// How the compilers and programs were contained.
    pub containment: Containment,
    /// Points earned over the automated categories.
    pub score: f64,
    /// Points available over the automated categories that were graded.
    pub max_score: f64,
    /// Cases that were not run (a self-check runs only the visible ones), with their points.
    pub hidden: Option<HiddenCases>,
    /// Categories graded by hand, with their points.
    pub pending: Vec<PendingCategory>,
    /// One entry per build recipe used.
    pub builds: Vec<BuildReport>,
    /// What the assignment's probe found, when it has one.
    pub probe: Option<ProbeReport>,
    /// Automated categories in rubric order.
    pub categories: Vec<CategoryReport>,
    /// Every case run (or not run), in case order.
    pub cases: Vec<CaseReport>,
}

impl Report {
    /// Every case earned all its points.
    pub fn all_passed(&self) -> bool {
        self.cases.iter().all(|c| c.status == CaseStatus::Passed && c.score >= c.max_score)
    }
}

/// The cases a self-check leaves out: how many, and what they are worth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HiddenCases {
    /// Number of cases not run.
    pub cases: usize,
    /// Their automated points.
    pub points: f64,
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
    /// Points available.
    pub max_score: f64,
    /// Cases passed (some perhaps only after a lenient normalisation, at a cost).
    pub passed: usize,
    /// Cases run for this category.
    pub cases: usize,
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
}

/// The JSON form of a report (pretty-printed, newline-terminated).
pub fn render_json(report: &Report) -> String {
    let mut json = serde_json::to_string_pretty(report).expect("a report always serialises");
    json.push('\n');
    json
}
