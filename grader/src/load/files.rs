//! The TOML of `assignment.toml` and the case files as written: structs that reject unknown keys.

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct AssignmentFile {
    pub(super) id: Spanned<String>,
    pub(super) title: String,
    #[serde(default)]
    pub(super) handout: Option<String>,
    pub(super) submission: SubmissionFile,
    pub(super) builds: BTreeMap<String, BuildFile>,
    #[serde(default)]
    pub(super) run: RunFile,
    #[serde(default)]
    pub(super) limits: LimitsFile,
    #[serde(default)]
    pub(super) compare: CompareFile,
    #[serde(default)]
    pub(super) probe: Option<ProbeFile>,
    pub(super) categories: Vec<CategoryFile>,
    #[serde(default)]
    pub(super) late: Option<LateFile>,
    #[serde(default)]
    pub(super) similarity: Option<SimilarityFile>,
    #[serde(default)]
    pub(super) reference: Option<ReferenceFile>,
}

/// `[reference]`: the program whose output is a plain case's expected output (`grader bless`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ReferenceFile {
    /// A file or folder inside the assignment's folder, built by its language.
    pub(super) program: Spanned<String>,
}

/// `[similarity]`: what `grader similarity` must know of the assignment.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct SimilarityFile {
    /// The base files, relative to the assignment's folder.
    #[serde(default)]
    pub(super) base: Vec<Spanned<String>>,
    /// The assignment's own "look at this" line, where its independent solutions share more than
    /// most (an API the handout fixes): a similarity above 0, at most 1.
    pub(super) look_at: Option<Spanned<f64>>,
}

/// `[late]`: what a submission marked late by the class download costs.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct LateFile {
    /// Percent of the points earned, more than 0 and at most 100.
    pub(super) penalty: Spanned<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct ProbeFile {
    pub(super) title: String,
    pub(super) build: Spanned<String>,
    pub(super) stdin: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct SubmissionFile {
    pub(super) files: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct BuildFile {
    #[serde(default)]
    pub(super) commands: Vec<Vec<String>>,
    #[serde(default)]
    pub(super) run: Vec<String>,
    /// `language = "python3"` (or `"any"`): built and run as a judge does that language, instead of
    /// by `commands` and `run`.
    pub(super) language: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) limits: LimitsFile,
    #[serde(default)]
    pub(super) requires: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RunFile {
    #[serde(default = "yes")]
    pub(super) stops_at_end_of_input: bool,
}

impl Default for RunFile {
    fn default() -> Self {
        Self { stops_at_end_of_input: true }
    }
}

pub(super) fn yes() -> bool {
    true
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct LimitsFile {
    pub(super) wall_seconds: Option<Spanned<f64>>,
    pub(super) cpu_seconds: Option<Spanned<f64>>,
    pub(super) memory_mb: Option<Spanned<u64>>,
    pub(super) output_kb: Option<Spanned<u64>>,
    pub(super) processes: Option<Spanned<u64>>,
    pub(super) file_size_kb: Option<Spanned<u64>>,
    pub(super) disk_mb: Option<Spanned<u64>>,
    pub(super) open_files: Option<Spanned<u64>>,
    pub(super) address_space_limit: Option<bool>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct CompareFile {
    pub(super) normalize: Option<Vec<Normalization>>,
    pub(super) loose_lines: Option<Spanned<String>>,
    pub(super) unordered: Option<Spanned<String>>,
    pub(super) ignore_lines: Option<Spanned<String>>,
    pub(super) rewrite: Option<Vec<(Spanned<String>, String)>>,
    pub(super) partial: Option<Partial>,
    pub(super) hunk_cost: Option<Spanned<f64>>,
    pub(super) lenient: Option<BTreeMap<Normalization, Spanned<f64>>>,
    pub(super) lenient_rewrite: Option<Spanned<LenientRewriteFile>>,
}

/// `lenient-rewrite = { credit = 0.6, what = "...", rules = [["REGEX", "REPLACEMENT"], ...] }`: the
/// costly counterpart of `rewrite`, one more rung of the lenient ladder.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct LenientRewriteFile {
    pub(super) credit: Spanned<f64>,
    pub(super) what: Spanned<String>,
    pub(super) rules: Vec<(Spanned<String>, String)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct CategoryFile {
    pub(super) id: Spanned<String>,
    pub(super) title: String,
    pub(super) points: Spanned<f64>,
    #[serde(default)]
    pub(super) manual: bool,
    #[serde(default)]
    pub(super) bonus: Option<Spanned<bool>>,
    #[serde(default)]
    pub(super) build: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) kind: Option<CaseKind>,
    #[serde(default)]
    pub(super) compare: CompareFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct CaseFile {
    pub(super) title: String,
    #[serde(default)]
    pub(super) category: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) weight: Option<Spanned<f64>>,
    #[serde(default)]
    pub(super) visibility: Option<Visibility>,
    #[serde(default)]
    pub(super) disclosure: Option<Disclosure>,
    #[serde(default)]
    pub(super) withheld: Option<Spanned<bool>>,
    #[serde(default)]
    pub(super) kind: Option<CaseKind>,
    #[serde(default)]
    pub(super) build: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) compare: CompareFile,
    #[serde(default)]
    pub(super) limits: LimitsFile,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) scenario: Option<Spanned<toml::Table>>,
    /// `generate = "gen.py {seed} 100"`: the input is what this command of the assignment's
    /// `generators/` prints (`grader bless` writes it to the `.stdin` sidecar).
    #[serde(default)]
    pub(super) generate: Option<Spanned<String>>,
    /// Arguments the program gets on its command line in this case.
    #[serde(default)]
    pub(super) args: Vec<String>,
}
