//! Compare stage: normalises expected and actual output, finds the first divergence, diffs, credits.
//!
//! The scoring model, in order: free normalisations (a match costs nothing); then the lenient ladder,
//! tried over the whole output (a *presentation error*: a match once all whitespace, line breaks
//! included, or letter case is ignored, or once the rubric's costly rewrite has reduced both outputs
//! to what the case grades, keeps the rubric's fraction, and the differences it forgave are named);
//! then partial credit (by prefix, by equal lines, or by the number of separate places where the
//! output departs from the transcript), under whichever rung of the ladder credits most.
//!
//! This file holds the public types and [`compare`], which walks that model; `lines` splits an output
//! into normalised lines, `attempt` compares them under one set of normalisations (divergence, diff,
//! partial credit), and `forgiven` names what a presentation error forgave.

mod attempt;
mod forgiven;
mod lines;
#[cfg(test)]
mod tests;
mod tokens;

pub use tokens::TokenRules;

use serde::{Deserialize, Serialize};

use attempt::Attempt;
use forgiven::forgiven;
use lines::Lines;

/// What one separate difference costs under `partial = "hunks"` unless the rubric says otherwise.
pub const DEFAULT_HUNK_COST: f64 = 0.25;
/// Lines a local slip may span (one differing place) under `partial = "hunks"`.
pub const LOCAL_LINES: usize = 3;
/// Partial credit below this fraction of a case is not paid: a program that prints the template's
/// two prompts and then nothing shares a few lines with any transcript, and earns nothing for them.
pub const MIN_PARTIAL_CREDIT: f64 = 0.1;

/// One way of making trivial differences disappear before comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalization {
    /// Spaces, tabs and carriage returns at the end of a line do not count.
    TrailingWhitespace,
    /// Runs of whitespace count as one space; leading and trailing whitespace do not count.
    WhitespaceRuns,
    /// No whitespace counts at all, line breaks included (`a:\nb` equals `a: b`); diffs still compare
    /// (and show) lines.
    AllWhitespace,
    /// Empty (or whitespace-only) lines do not count.
    BlankLines,
    /// Upper and lower case are the same.
    Case,
}

impl Normalization {
    /// Words for reports: "whitespace runs".
    pub fn describe(self) -> &'static str {
        match self {
            Normalization::TrailingWhitespace => "trailing whitespace",
            Normalization::WhitespaceRuns => "whitespace runs",
            Normalization::AllWhitespace => "all whitespace (line breaks included)",
            Normalization::BlankLines => "blank lines",
            Normalization::Case => "letter case",
        }
    }

    /// Words for a list of them: "all whitespace (line breaks included) and letter case".
    pub fn describe_all(norms: &[Normalization]) -> String {
        norms.iter().map(|n| n.describe()).collect::<Vec<_>>().join(" and ")
    }
}

/// Credit for a case whose output does not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partial {
    /// All or nothing.
    #[default]
    None,
    /// The fraction of lines the diff finds equal, over the longer of the two outputs.
    Lines,
    /// The fraction of expected lines matched before the first divergence.
    Prefix,
    /// Each distinct place where the output departs from the transcript (a diff hunk; the same wrong
    /// lines repeated count once) costs `hunk-cost`, and what remains is scaled by the fraction of
    /// equal lines: a local slip in a long game costs a bounded share, a game that derails (new
    /// differences in every later turn) costs it all.
    Hunks,
    /// Each line the output has that the transcript lacks, or lacks that it has, costs `hunk-cost`:
    /// a list of findings (style violations, one per line) against an empty transcript costs in
    /// proportion to how many there are.
    EachLine,
}

/// A regular expression selecting lines, compared by its text.
#[derive(Debug, Clone)]
pub struct LinePattern(pub regex::Regex);

impl LinePattern {
    fn matches(&self, line: &str) -> bool {
        self.0.is_match(line)
    }
}

impl PartialEq for LinePattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

/// How a case's output is compared: free normalisations, partial credit, and a ladder of costly ones.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareSpec {
    /// Applied always, at no cost.
    pub normalize: Vec<Normalization>,
    /// Lines matching this pattern (in either output) also have their whitespace runs collapsed, at no
    /// cost: drawings whose spacing the handout lost, while messages stay exact.
    pub loose_lines: Option<LinePattern>,
    /// Consecutive lines matching this pattern form a run compared as a multiset: lists whose order
    /// the handout leaves open.
    pub unordered: Option<LinePattern>,
    /// Lines matching this pattern (in either output) are left out of the comparison: a category that
    /// grades what happens, not a drawing another category grades.
    pub ignore_lines: Option<LinePattern>,
    /// Rewrites applied to every line of both outputs, in order, at no cost (`regex` replacement
    /// syntax): a category that grades that a message comes, not its wording another case grades.
    pub rewrite: Vec<(LinePattern, String)>,
    /// Credit for a mismatch.
    pub partial: Partial,
    /// Share of the case one separate difference costs under [`Partial::Hunks`], one line under
    /// [`Partial::EachLine`].
    pub hunk_cost: f64,
    /// Tried in turn (highest credit first, cumulatively) when the output does not match: a match then
    /// keeps this fraction of the case's points.
    pub lenient: Vec<(Normalization, f64)>,
    /// One more rung of that ladder: rewrites that reduce both outputs to what the case grades (a board
    /// drawn with labels and borders to its rows of symbols), at a cost.
    pub lenient_rewrite: Option<LenientRewrite>,
    /// A problem package's default output validator: the output is accepted or not token by token,
    /// and everything above is left aside (a line diff still shows where it departs).
    pub tokens: Option<TokenRules>,
}

/// A costly rewrite: a presentation error the rubric names. Its rules are applied to every line of
/// both outputs, in order, after the free `rewrite` and before the normalisations (so a line rewritten
/// to nothing disappears under `blank-lines`); a match then keeps `credit` of the case's points.
#[derive(Debug, Clone, PartialEq)]
pub struct LenientRewrite {
    /// The fraction of the case's points a match after the rewrite keeps, 0..=1.
    pub credit: f64,
    /// What it forgives, in the rubric's words: "the board's labels, headers, spacing and borders".
    pub what: String,
    /// `(pattern, replacement)` in `regex` replacement syntax, as in [`CompareSpec::rewrite`].
    pub rules: Vec<(LinePattern, String)>,
}

impl Default for CompareSpec {
    fn default() -> Self {
        Self {
            normalize: Vec::new(),
            loose_lines: None,
            unordered: None,
            ignore_lines: None,
            rewrite: Vec::new(),
            partial: Partial::None,
            hunk_cost: DEFAULT_HUNK_COST,
            lenient: Vec::new(),
            lenient_rewrite: None,
            tokens: None,
        }
    }
}

/// Whether the program's output must end where the transcript ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// The whole output is compared.
    Whole,
    /// The program was stopped after its input ran out: output past the transcript is not its fault.
    MayContinue,
}

/// Where the output first differs from the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// 1-based line of the program's output (one past its end when the output stopped early).
    pub line: usize,
    /// 1-based line of the expected transcript.
    pub expected_line: usize,
    /// The expected line as written, or `None` when the transcript had already ended.
    pub expected: Option<String>,
    /// The program's line as printed, or `None` when its output had already ended.
    pub actual: Option<String>,
}

/// One kind of difference a lenient rung forgave: what, how often, and where first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forgiven {
    /// `missing line break`, `extra line break`, `missing space`, `extra space`, `letter case`, or the
    /// rubric's words for its costly rewrite ([`LenientRewrite::what`]).
    pub what: String,
    /// How many places (or lines, for a rewrite).
    pub count: usize,
    /// What `count` counts; reports of earlier versions, which have no such field, counted places.
    #[serde(default, skip_serializing_if = "Unit::is_place")]
    pub unit: Unit,
    /// 1-based line of the expected transcript where it first happened.
    pub expected_line: usize,
    /// That expected line as written.
    pub expected: String,
}

impl Forgiven {
    /// `missing line break (12 places, first at expected line 34: "---- Red's turn")`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}, first at expected line {}: {:?})",
            self.what,
            self.amount(),
            self.expected_line,
            self.expected
        )
    }

    /// [`Forgiven::describe`] without the expected line: `missing line break (12 places, first at
    /// expected line 34)`, for cases whose expected output students do not see.
    pub fn describe_unquoted(&self) -> String {
        format!("{} ({}, first at expected line {})", self.what, self.amount(), self.expected_line)
    }

    /// `12 places`, `1 line`.
    fn amount(&self) -> String {
        let word = match self.unit {
            Unit::Place => "place",
            Unit::Line => "line",
        };
        let s = if self.count == 1 { "" } else { "s" };
        format!("{} {word}{s}", self.count)
    }
}

/// What a [`Forgiven`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// Places in the text: a line break, a space, a letter.
    #[default]
    Place,
    /// Whole lines, each changed by a rewrite.
    Line,
}

impl Unit {
    fn is_place(&self) -> bool {
        *self == Unit::Place
    }
}

/// How partial credit was reached for an output that does not match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialCredit {
    /// The partial-credit rule applied.
    pub rule: Partial,
    /// Distinct places where the output departs from the transcript (diff hunks, repeats counted once).
    pub differences: usize,
    /// Lines equal in both.
    pub equal_lines: usize,
    /// Lines of the expected transcript.
    pub expected_lines: usize,
    /// Lines of the output.
    pub actual_lines: usize,
}

/// The outcome of comparing one output with its transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Output and transcript are equal, possibly after lenient normalisations.
    pub matched: bool,
    /// The fraction of the case's points earned, 0..=1.
    pub credit: f64,
    /// The costly normalisations behind the credit (for a match, or for the partial credit).
    pub leniency: Vec<Normalization>,
    /// The costly rewrite behind the credit, if any, in the rubric's words ([`LenientRewrite::what`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lenient_rewrite: Option<String>,
    /// For a lenient match: what exactly was forgiven.
    pub forgiven: Vec<Forgiven>,
    /// For a mismatch: how the partial credit was reached.
    pub partial: Option<PartialCredit>,
    /// The first difference under the free normalisations.
    pub divergence: Option<Divergence>,
    /// A bounded unified diff under the free normalisations.
    pub diff: Option<String>,
    /// Lines of the expected transcript under the free normalisations.
    pub expected_lines: usize,
    /// Why a validator rejected the output, in its words (the default validator's first differing
    /// token, a custom validator's `judgemessage.txt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validator_message: Option<String>,
}

impl Comparison {
    /// The comparison a validator program made: its verdict and words, no lines compared here.
    pub fn judged(matched: bool, credit: f64, message: Option<String>) -> Comparison {
        Comparison {
            matched,
            credit,
            leniency: Vec::new(),
            lenient_rewrite: None,
            forgiven: Vec::new(),
            partial: None,
            divergence: None,
            diff: None,
            expected_lines: 0,
            validator_message: message,
        }
    }

    /// Whether a costly rung is behind the credit: a presentation error, or partial credit under one.
    pub fn is_lenient(&self) -> bool {
        !self.leniency.is_empty() || self.lenient_rewrite.is_some()
    }
}

/// How an attempt reads both outputs: its normalisations, and whether the costly rewrite applies.
#[derive(Debug, Clone)]
struct Reading {
    norms: Vec<Normalization>,
    rewrite: bool,
}

/// One step of the lenient ladder: a costly normalisation, or the costly rewrite.
#[derive(Debug, Clone, Copy)]
enum Step {
    Normalize(Normalization),
    Rewrite,
}

/// Compares a program's output with the expected transcript.
pub fn compare(expected: &[u8], actual: &[u8], spec: &CompareSpec, extent: Extent) -> Comparison {
    let exact = |expected_lines| Comparison {
        matched: true,
        credit: 1.0,
        leniency: Vec::new(),
        lenient_rewrite: None,
        forgiven: Vec::new(),
        partial: None,
        divergence: None,
        diff: None,
        expected_lines,
        validator_message: None,
    };
    if let Some(rules) = &spec.tokens {
        return compare_tokens(expected, actual, rules, extent, exact);
    }
    let free = Reading { norms: spec.normalize.clone(), rewrite: false };
    let expected_bytes = expected;
    let expected = String::from_utf8_lossy(expected);
    if expected_bytes == actual {
        // Identical bytes match under every normalisation: most outputs, compared without one.
        return exact(Lines::count(&expected, &free, spec));
    }
    let actual = String::from_utf8_lossy(actual);
    let base = Attempt::new(&expected, &actual, &free, spec, extent);
    let expected_lines = base.expected.normalized.len();
    if base.matched {
        return exact(expected_lines);
    }
    let divergence = base.divergence();
    let diff = Some(base.diff());

    // The ladder, highest credit first (a normalisation before the rewrite at the same credit); each
    // rung keeps what the rungs above it forgave, and costs the least credit among them.
    let mut ladder: Vec<(Step, f64)> =
        spec.lenient.iter().map(|&(norm, c)| (Step::Normalize(norm), c)).collect();
    ladder.extend(spec.lenient_rewrite.as_ref().map(|r| (Step::Rewrite, r.credit)));
    ladder.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut rungs: Vec<Rung> = Vec::new();
    let mut reading = free.clone();
    let mut leniency = Vec::new();
    let mut credit = 1.0_f64;
    for (step, rung_credit) in ladder {
        match step {
            Step::Normalize(norm) if reading.norms.contains(&norm) => continue,
            Step::Normalize(norm) => {
                reading.norms.push(norm);
                leniency.push(norm);
            }
            Step::Rewrite => reading.rewrite = true,
        }
        credit = credit.min(rung_credit);
        let attempt = Attempt::new(&expected, &actual, &reading, spec, extent);
        if attempt.matched {
            let texts = (expected.as_ref(), actual.as_ref());
            let forgiven = forgiven(texts, &base, &reading, &leniency, spec, extent);
            return Comparison {
                matched: true,
                credit,
                leniency,
                lenient_rewrite: rewrite_words(spec, reading.rewrite),
                forgiven,
                partial: None,
                divergence,
                diff,
                expected_lines,
                validator_message: None,
            };
        }
        rungs.push(Rung { leniency: leniency.clone(), rewrite: reading.rewrite, credit, attempt });
    }

    // No rung matches: partial credit under whichever reading of the output credits most.
    let mut best = (base.partial_credit(spec), Vec::new(), false);
    let mut credited = vec![&base];
    for rung in &rungs {
        // A fraction is at most 1, so a rung whose own credit cannot beat the best so far is not
        // diffed: the diffs are most of what a mismatch costs.
        if spec.hunk_cost >= 0.0 && rung.credit <= best.0 .0 + 1e-12 {
            continue;
        }
        // Nor one of the same shape as a reading already credited: its fraction would be that one's,
        // under a credit no higher (the ladder goes down), so it cannot beat the best either.
        if credited.iter().any(|attempt| attempt.same_shape(&rung.attempt)) {
            continue;
        }
        credited.push(&rung.attempt);
        let (fraction, how) = rung.attempt.partial_credit(spec);
        if rung.credit * fraction > best.0 .0 + 1e-12 {
            best = ((rung.credit * fraction, how), rung.leniency.clone(), rung.rewrite);
        }
    }
    let ((credit, partial), leniency, rewrite) = best;
    let credit = if credit < MIN_PARTIAL_CREDIT { 0.0 } else { credit };
    Comparison {
        matched: false,
        credit,
        leniency: if credit > 0.0 { leniency } else { Vec::new() },
        lenient_rewrite: rewrite_words(spec, rewrite && credit > 0.0),
        forgiven: Vec::new(),
        partial,
        divergence,
        diff,
        expected_lines,
        validator_message: None,
    }
}

/// The default validator's verdict, with a line diff (whitespace runs, blank lines and, unless the
/// rules count it, letter case ignored) to show where the output departs.
fn compare_tokens(
    expected: &[u8],
    actual: &[u8],
    rules: &TokenRules,
    extent: Extent,
    exact: impl Fn(usize) -> Comparison,
) -> Comparison {
    let mut norms = vec![Normalization::WhitespaceRuns, Normalization::BlankLines];
    if !rules.case_sensitive {
        norms.push(Normalization::Case);
    }
    let reading = Reading { norms, rewrite: false };
    let spec = CompareSpec::default();
    let expected_text = String::from_utf8_lossy(expected);
    let Some((divergence, message)) = tokens::judge(expected, actual, rules) else {
        return exact(Lines::count(&expected_text, &reading, &spec));
    };
    let actual_text = String::from_utf8_lossy(actual);
    let attempt = Attempt::new(&expected_text, &actual_text, &reading, &spec, extent);
    Comparison {
        matched: false,
        credit: 0.0,
        leniency: Vec::new(),
        lenient_rewrite: None,
        forgiven: Vec::new(),
        partial: None,
        divergence: Some(divergence),
        diff: Some(attempt.diff()),
        expected_lines: attempt.expected.normalized.len(),
        validator_message: Some(message),
    }
}

/// The rubric's words for its costly rewrite, when a rung that applies it is behind the credit.
fn rewrite_words(spec: &CompareSpec, applied: bool) -> Option<String> {
    spec.lenient_rewrite.as_ref().filter(|_| applied).map(|r| r.what.clone())
}

/// One rung of the lenient ladder that did not give a match.
struct Rung<'a> {
    leniency: Vec<Normalization>,
    rewrite: bool,
    credit: f64,
    attempt: Attempt<'a>,
}
