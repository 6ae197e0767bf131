//! Compare stage: normalises expected and actual output, finds the first divergence, diffs, credits.
//!
//! The scoring model, in order: free normalisations (a match costs nothing); then the lenient ladder,
//! tried over the whole output (a *presentation error*: a match once all whitespace, line breaks
//! included, or letter case is ignored keeps the rubric's fraction, and the differences it forgave are
//! named); then partial credit (by prefix, by equal lines, or by the number of separate places where
//! the output departs from the transcript), under whichever rung of the ladder credits most.

use std::cell::OnceCell;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, DiffTag};

/// Lines of unified diff kept in a report; the rest is cut with a note.
const MAX_DIFF_LINES: usize = 80;
/// Characters of one reported line kept in a report: a flood without line breaks must not fill it.
const MAX_LINE_CHARS: usize = 400;
/// The diff gives up refining after this long; huge student outputs must never stall grading.
const DIFF_TIMEOUT: Duration = Duration::from_secs(1);
/// Output lines diffed beyond twice the expected ones; the rest count as one insertion.
const MAX_EXTRA_LINES: usize = 100;
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
    /// Share of the case one separate difference costs under [`Partial::Hunks`].
    pub hunk_cost: f64,
    /// Tried in turn (highest credit first, cumulatively) when the output does not match: a match then
    /// keeps this fraction of the case's points.
    pub lenient: Vec<(Normalization, f64)>,
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

/// One kind of difference a lenient normalisation forgave: what, how often, and where first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forgiven {
    /// `missing line break`, `extra line break`, `missing space`, `extra space`, `letter case`.
    pub what: String,
    /// How many places.
    pub count: usize,
    /// 1-based line of the expected transcript where it first happened.
    pub expected_line: usize,
    /// That expected line as written.
    pub expected: String,
}

impl Forgiven {
    /// `missing line break (12 places, first at expected line 34: "---- Red's turn")`.
    pub fn describe(&self) -> String {
        let s = if self.count == 1 { "" } else { "s" };
        format!(
            "{} ({} place{s}, first at expected line {}: {:?})",
            self.what, self.count, self.expected_line, self.expected
        )
    }

    /// [`Forgiven::describe`] without the expected line: `missing line break (12 places, first at
    /// expected line 34)`, for cases whose expected output students do not see.
    pub fn describe_unquoted(&self) -> String {
        let s = if self.count == 1 { "" } else { "s" };
        format!("{} ({} place{s}, first at expected line {})", self.what, self.count, self.expected_line)
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
}

/// Output split into normalised lines, remembering which original line each came from.
struct Lines<'a> {
    raw: Vec<&'a str>,
    normalized: Vec<String>,
    origin: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, norms: &[Normalization], spec: &CompareSpec) -> Self {
        let mut raw: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') || text.is_empty() {
            raw.pop();
        }
        let mut normalized = Vec::with_capacity(raw.len());
        let mut origin = Vec::with_capacity(raw.len());
        let mut loose_norms = norms.to_vec();
        loose_norms.push(Normalization::WhitespaceRuns);
        for (i, line) in raw.iter().enumerate() {
            if spec.ignore_lines.as_ref().is_some_and(|p| p.matches(line)) {
                continue;
            }
            let mut line = std::borrow::Cow::Borrowed(*line);
            for (pattern, replacement) in &spec.rewrite {
                if let std::borrow::Cow::Owned(changed) = pattern.0.replace_all(&line, replacement.as_str()) {
                    line = std::borrow::Cow::Owned(changed);
                }
            }
            let is_loose = spec.loose_lines.as_ref().is_some_and(|p| p.matches(&line));
            let line = normalize_line(&line, if is_loose { &loose_norms } else { norms });
            if norms.contains(&Normalization::BlankLines) && line.trim().is_empty() {
                continue;
            }
            normalized.push(line);
            origin.push(i);
        }
        let mut lines = Self { raw, normalized, origin };
        if let Some(pattern) = &spec.unordered {
            lines.sort_unordered_runs(pattern);
        }
        lines
    }

    /// Sorts each run of consecutive lines matching the pattern, so that runs compare as multisets.
    fn sort_unordered_runs(&mut self, pattern: &LinePattern) {
        let n = self.normalized.len();
        let mut start = 0;
        while start < n {
            if !pattern.matches(self.raw[self.origin[start]]) {
                start += 1;
                continue;
            }
            let mut end = start + 1;
            while end < n && pattern.matches(self.raw[self.origin[end]]) {
                end += 1;
            }
            let mut run: Vec<(String, usize)> = self.normalized[start..end]
                .iter()
                .cloned()
                .zip(self.origin[start..end].iter().copied())
                .collect();
            run.sort();
            for (k, (line, origin)) in run.into_iter().enumerate() {
                self.normalized[start + k] = line;
                self.origin[start + k] = origin;
            }
            start = end;
        }
    }

    fn joined(&self) -> String {
        let mut s = String::new();
        for line in &self.normalized {
            s.push_str(line);
            s.push('\n');
        }
        s
    }

    /// The original text of normalised line `i`, shortened for reports.
    fn raw_line(&self, i: usize) -> Option<String> {
        self.origin.get(i).map(|&o| shorten(self.raw[o]))
    }

    /// The 1-based original line number of normalised line `i` (one past the end when there is none).
    fn line_number(&self, i: usize) -> usize {
        self.origin.get(i).map_or(self.raw.len() + 1, |&o| o + 1)
    }
}

fn normalize_line(line: &str, norms: &[Normalization]) -> String {
    let mut s = line.to_owned();
    if norms.contains(&Normalization::AllWhitespace) {
        s.retain(|c| !c.is_whitespace());
    } else if norms.contains(&Normalization::WhitespaceRuns) {
        s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    } else if norms.contains(&Normalization::TrailingWhitespace) {
        s.truncate(s.trim_end().len());
    }
    if norms.contains(&Normalization::Case) {
        s = s.to_lowercase();
    }
    s
}

/// Cuts a line for a report at a character boundary.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.to_owned(),
        Some((end, _)) => format!("{}… ({} more bytes)", &line[..end], line.len() - end),
    }
}

/// Compares a program's output with the expected transcript.
pub fn compare(expected: &[u8], actual: &[u8], spec: &CompareSpec, extent: Extent) -> Comparison {
    let exact = |expected_lines| Comparison {
        matched: true,
        credit: 1.0,
        leniency: Vec::new(),
        forgiven: Vec::new(),
        partial: None,
        divergence: None,
        diff: None,
        expected_lines,
    };
    let expected_bytes = expected;
    let expected = String::from_utf8_lossy(expected);
    if expected_bytes == actual {
        // Identical bytes match under every normalisation: most outputs, compared without one.
        let lines = Lines::new(&expected, &spec.normalize, spec);
        return exact(lines.normalized.len());
    }
    let actual = String::from_utf8_lossy(actual);
    let base = Attempt::new(&expected, &actual, &spec.normalize, spec, extent);
    let expected_lines = base.expected.normalized.len();
    if base.matched {
        return exact(expected_lines);
    }
    let divergence = base.divergence();
    let diff = Some(base.diff());

    // The ladder, highest credit first; each rung keeps the normalisations of the rungs above it.
    let mut ladder = spec.lenient.clone();
    ladder.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut rungs: Vec<Rung> = Vec::new();
    let mut norms = spec.normalize.clone();
    let mut leniency = Vec::new();
    let mut credit = 1.0_f64;
    for (norm, rung_credit) in ladder {
        if norms.contains(&norm) {
            continue;
        }
        norms.push(norm);
        leniency.push(norm);
        credit = credit.min(rung_credit);
        let attempt = Attempt::new(&expected, &actual, &norms, spec, extent);
        if attempt.matched {
            let forgiven = forgiven(&base, &leniency);
            return Comparison {
                matched: true,
                credit,
                leniency,
                forgiven,
                partial: None,
                divergence,
                diff,
                expected_lines,
            };
        }
        rungs.push(Rung { leniency: leniency.clone(), credit, attempt });
    }

    // No rung matches: partial credit under whichever reading of the output credits most.
    let mut best = (base.partial_credit(spec), Vec::new());
    for rung in &rungs {
        let (fraction, how) = rung.attempt.partial_credit(spec);
        if rung.credit * fraction > best.0 .0 + 1e-12 {
            best = ((rung.credit * fraction, how), rung.leniency.clone());
        }
    }
    let ((credit, partial), leniency) = best;
    let credit = if credit < MIN_PARTIAL_CREDIT { 0.0 } else { credit };
    Comparison {
        matched: false,
        credit,
        leniency: if credit > 0.0 { leniency } else { Vec::new() },
        forgiven: Vec::new(),
        partial,
        divergence,
        diff,
        expected_lines,
    }
}

/// One rung of the lenient ladder that did not give a match.
struct Rung<'a> {
    leniency: Vec<Normalization>,
    credit: f64,
    attempt: Attempt<'a>,
}

/// One comparison under one set of normalisations.
struct Attempt<'a> {
    expected: Lines<'a>,
    actual: Lines<'a>,
    matched: bool,
    /// The line diff, computed once for the report's diff and the partial credit.
    ops: OnceCell<Vec<DiffOp>>,
}

impl<'a> Attempt<'a> {
    fn new(
        expected: &'a str,
        actual: &'a str,
        norms: &[Normalization],
        spec: &CompareSpec,
        extent: Extent,
    ) -> Self {
        let expected = Lines::new(expected, norms, spec);
        let actual = Lines::new(actual, norms, spec);
        let matched = if norms.contains(&Normalization::AllWhitespace) {
            // Line breaks are whitespace too: a header run onto the previous line still matches.
            let squeeze = |lines: &Lines| -> String { lines.normalized.concat() };
            let (e, a) = (squeeze(&expected), squeeze(&actual));
            match extent {
                Extent::Whole => e == a,
                Extent::MayContinue => a.starts_with(&e),
            }
        } else {
            match extent {
                Extent::Whole => expected.normalized == actual.normalized,
                // The last expected line is often a prompt the program printed again and again on the
                // same line after its input ran out, so the texts are compared, not the lines.
                Extent::MayContinue => {
                    let e = expected.joined();
                    actual.joined().starts_with(e.strip_suffix('\n').unwrap_or(&e))
                }
            }
        };
        Self { expected, actual, matched, ops: OnceCell::new() }
    }

    fn common_prefix(&self) -> usize {
        self.expected.normalized.iter().zip(&self.actual.normalized).take_while(|(e, a)| e == a).count()
    }

    fn divergence(&self) -> Option<Divergence> {
        let i = self.common_prefix();
        let (e, a) = (&self.expected, &self.actual);
        if i == e.normalized.len() && i == a.normalized.len() {
            return None;
        }
        Some(Divergence {
            line: a.line_number(i),
            expected_line: e.line_number(i),
            expected: e.raw_line(i),
            actual: a.raw_line(i),
        })
    }

    /// A unified diff of the normalised lines that shows the lines as printed (a diff under
    /// "all whitespace ignored" still reads like the program's output), numbered as printed.
    fn diff(&self) -> String {
        let (e, a) = (&self.expected, &self.actual);
        let raw = |lines: &Lines, i: usize| shorten(lines.raw[lines.origin[i]]);
        let mut out = vec!["--- expected".to_owned(), "+++ actual".to_owned()];
        for group in similar::group_diff_ops(self.ops().to_vec(), 3) {
            let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
            let old = first.old_range().start..last.old_range().end;
            let new = first.new_range().start..last.new_range().end;
            // Hunk headers count the lines as printed, blank ones included.
            let span = |lines: &Lines, r: std::ops::Range<usize>| match r.len() {
                0 => (lines.line_number(r.start), 0),
                _ => (lines.line_number(r.start), lines.origin[r.end - 1] - lines.origin[r.start] + 1),
            };
            let ((old_start, old_len), (new_start, new_len)) = (span(e, old), span(a, new));
            out.push(format!("@@ -{old_start},{old_len} +{new_start},{new_len} @@"));
            for op in &group {
                match op.tag() {
                    DiffTag::Equal => out.extend(op.old_range().map(|i| format!(" {}", raw(e, i)))),
                    DiffTag::Delete => out.extend(op.old_range().map(|i| format!("-{}", raw(e, i)))),
                    DiffTag::Insert => out.extend(op.new_range().map(|j| format!("+{}", raw(a, j)))),
                    DiffTag::Replace => {
                        out.extend(op.old_range().map(|i| format!("-{}", raw(e, i))));
                        out.extend(op.new_range().map(|j| format!("+{}", raw(a, j))));
                    }
                }
            }
        }
        let total = out.len();
        let mut text: String = out.iter().take(MAX_DIFF_LINES).flat_map(|l| [l.as_str(), "\n"]).collect();
        if total > MAX_DIFF_LINES {
            text.push_str(&format!("... ({} more diff lines)\n", total - MAX_DIFF_LINES));
        }
        text
    }

    /// The line diff's operations, under a deadline. Output lines far beyond the expected ones (a
    /// flood) are one trailing insertion, not diffed: they cannot match anything, and a diff of
    /// thousands of repeated lines would cost seconds.
    fn ops(&self) -> &[DiffOp] {
        self.ops.get_or_init(|| {
            let (expected, actual) = (&self.expected.normalized, &self.actual.normalized);
            let diffed = actual.len().min(expected.len().saturating_mul(2).saturating_add(MAX_EXTRA_LINES));
            let mut ops = similar::capture_diff_slices_deadline(
                Algorithm::Patience,
                expected,
                &actual[..diffed],
                Some(Instant::now() + DIFF_TIMEOUT),
            );
            if diffed < actual.len() {
                ops.push(DiffOp::Insert {
                    old_index: expected.len(),
                    new_index: diffed,
                    new_len: actual.len() - diffed,
                });
            }
            ops
        })
    }

    /// The fraction of the case this output earns under the spec's partial-credit rule.
    fn partial_credit(&self, spec: &CompareSpec) -> (f64, Option<PartialCredit>) {
        let (expected_lines, actual_lines) = (self.expected.normalized.len(), self.actual.normalized.len());
        let longest = expected_lines.max(actual_lines);
        let stats = |differences, equal_lines| PartialCredit {
            rule: spec.partial,
            differences,
            equal_lines,
            expected_lines,
            actual_lines,
        };
        match spec.partial {
            Partial::None => (0.0, None),
            Partial::Prefix => {
                let prefix = self.common_prefix();
                let fraction = if expected_lines == 0 { 0.0 } else { prefix as f64 / expected_lines as f64 };
                (fraction, Some(stats(usize::from(prefix < longest), prefix)))
            }
            Partial::Lines | Partial::Hunks => {
                let ops = self.ops();
                let equal: usize =
                    ops.iter().filter(|op| op.tag() == DiffTag::Equal).map(|op| op.old_range().len()).sum();
                let hunks = distinct_hunks(ops, &self.expected.normalized, &self.actual.normalized);
                let equal_fraction = if longest == 0 { 1.0 } else { equal as f64 / longest as f64 };
                let fraction = match spec.partial {
                    Partial::Lines => equal_fraction,
                    _ => (1.0 - spec.hunk_cost * hunks as f64).max(0.0) * equal_fraction,
                };
                (fraction, Some(stats(hunks, equal)))
            }
        }
    }
}

/// Distinct differences: maximal runs of operations that are not `Equal` (hunks), where hunks that
/// replace the same lines by the same lines count once, and a hunk longer than [`LOCAL_LINES`] counts
/// once per started [`LOCAL_LINES`]. A cosmetic slip repeated every turn (the same wrong line each
/// time) is one difference; a derailed game differs anew in every turn, or in one long block, as
/// does output that stops in the middle.
fn distinct_hunks(ops: &[DiffOp], expected: &[String], actual: &[String]) -> usize {
    let mut seen: HashSet<(&[String], &[String])> = HashSet::new();
    let mut i = 0;
    while i < ops.len() {
        if ops[i].tag() == DiffTag::Equal {
            i += 1;
            continue;
        }
        let (old_start, new_start) = (ops[i].old_range().start, ops[i].new_range().start);
        let (mut old_end, mut new_end) = (old_start, new_start);
        while i < ops.len() && ops[i].tag() != DiffTag::Equal {
            old_end = ops[i].old_range().end;
            new_end = ops[i].new_range().end;
            i += 1;
        }
        seen.insert((&expected[old_start..old_end], &actual[new_start..new_end]));
    }
    seen.iter().map(|(old, new)| old.len().max(new.len()).div_ceil(LOCAL_LINES)).sum()
}

/// One token of text for the presentation walk: the whitespace before a character, the character
/// (`None` at the end), and the normalised line it is on.
struct Token<'t> {
    gap: &'t str,
    ch: Option<char>,
    line: usize,
}

fn tokens(joined: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut line = 0;
    let mut gap_start = 0;
    for (i, c) in joined.char_indices() {
        if c.is_whitespace() {
            continue;
        }
        let gap = &joined[gap_start..i];
        line += gap.matches('\n').count();
        out.push(Token { gap, ch: Some(c), line });
        gap_start = i + c.len_utf8();
    }
    out.push(Token { gap: &joined[gap_start..], ch: None, line });
    out
}

/// Names what a lenient match forgave, by walking both outputs (under the free normalisations)
/// character by character: the whitespace between characters and their letter case.
fn forgiven(base: &Attempt, leniency: &[Normalization]) -> Vec<Forgiven> {
    let whitespace = leniency.contains(&Normalization::AllWhitespace);
    let case = leniency.contains(&Normalization::Case);
    let (e_joined, a_joined) = (base.expected.joined(), base.actual.joined());
    let e_tokens = tokens(&e_joined);
    let a_tokens = tokens(&a_joined);
    let mut found: Vec<Forgiven> = Vec::new();
    let mut note = |what: &str, line: usize| {
        if let Some(f) = found.iter_mut().find(|f| f.what == what) {
            f.count += 1;
        } else {
            found.push(Forgiven {
                what: what.to_owned(),
                count: 1,
                expected_line: base.expected.line_number(line),
                expected: base.expected.raw_line(line).unwrap_or_default(),
            });
        }
    };
    for (e, a) in e_tokens.iter().zip(&a_tokens) {
        if e.ch.is_none() {
            break; // what follows the transcript's end is not compared
        }
        if whitespace && e.gap != a.gap {
            let (e_breaks, a_breaks) = (e.gap.matches('\n').count(), a.gap.matches('\n').count());
            let what = match e_breaks.cmp(&a_breaks) {
                std::cmp::Ordering::Greater => "missing line break",
                std::cmp::Ordering::Less => "extra line break",
                std::cmp::Ordering::Equal if e.gap.len() > a.gap.len() => "missing space",
                std::cmp::Ordering::Equal if e.gap.len() < a.gap.len() => "extra space",
                std::cmp::Ordering::Equal => "different spacing",
            };
            note(what, e.line);
        }
        if case && e.ch != a.ch {
            note("letter case", e.line);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(normalize: &[Normalization]) -> CompareSpec {
        CompareSpec { normalize: normalize.to_vec(), ..CompareSpec::default() }
    }

    fn pattern(p: &str) -> Option<LinePattern> {
        Some(LinePattern(regex::Regex::new(p).unwrap()))
    }

    #[test]
    fn identical_output_matches_with_full_credit() {
        let c = compare(b"a\nb\n", b"a\nb\n", &spec(&[]), Extent::Whole);
        assert!(c.matched);
        assert_eq!(c.credit, 1.0);
        assert_eq!(c.divergence, None);
    }

    #[test]
    fn identical_bytes_count_the_expected_lines_as_any_match_does() {
        // Identical outputs skip the comparison; the lines they count are the normalised ones.
        let text = b"a\n\n  \nb\n";
        let equal = spec(&[Normalization::BlankLines]);
        let identical = compare(text, text, &equal, Extent::Whole);
        let alike = compare(text, b"a\nb\n", &equal, Extent::Whole);
        assert!(identical.matched && alike.matched);
        assert_eq!(identical.expected_lines, 2);
        assert_eq!(identical, alike);
        let plain = compare(text, text, &spec(&[]), Extent::Whole);
        assert_eq!(plain.expected_lines, 4);
    }

    #[test]
    fn exact_comparison_sees_trailing_spaces() {
        let c = compare(b"a\nb\n", b"a \nb\n", &spec(&[]), Extent::Whole);
        assert!(!c.matched);
        assert_eq!(c.credit, 0.0);
        let d = c.divergence.unwrap();
        assert_eq!((d.line, d.expected.as_deref(), d.actual.as_deref()), (1, Some("a"), Some("a ")));
    }

    #[test]
    fn whitespace_runs_forgive_indentation_and_spacing() {
        let c = compare(
            b"   Red: H,H\n",
            b"Red:   H,H   \n",
            &spec(&[Normalization::WhitespaceRuns]),
            Extent::Whole,
        );
        assert!(c.matched);
    }

    #[test]
    fn blank_lines_are_forgiven_and_line_numbers_still_point_at_the_original() {
        let c = compare(b"a\n\nb\nc\n", b"a\nb\n\n\nx\n", &spec(&[Normalization::BlankLines]), Extent::Whole);
        let d = c.divergence.unwrap();
        assert_eq!((d.line, d.expected_line), (5, 4));
        assert_eq!((d.expected.as_deref(), d.actual.as_deref()), (Some("c"), Some("x")));
    }

    #[test]
    fn output_that_stops_early_diverges_one_past_its_end() {
        let c = compare(b"a\nb\n", b"a\n", &spec(&[]), Extent::Whole);
        let d = c.divergence.unwrap();
        assert_eq!((d.line, d.expected.as_deref(), d.actual), (2, Some("b"), None));
    }

    #[test]
    fn a_lenient_match_costs_what_the_ladder_says_and_names_the_normalisation() {
        let mut s = spec(&[Normalization::WhitespaceRuns]);
        s.lenient = vec![(Normalization::Case, 0.5), (Normalization::AllWhitespace, 0.9)];
        let c = compare(b"Move: H\n", b"Move:H\n", &s, Extent::Whole);
        assert!(c.matched);
        assert_eq!(c.credit, 0.9);
        assert_eq!(c.leniency, vec![Normalization::AllWhitespace]);
        assert!(c.divergence.is_some(), "the report still shows what differed");

        let c = compare(b"Move: H\n", b"move:H\n", &s, Extent::Whole);
        assert_eq!((c.matched, c.credit), (true, 0.5));
        assert_eq!(c.leniency, vec![Normalization::AllWhitespace, Normalization::Case]);
    }

    #[test]
    fn a_missing_line_break_is_a_presentation_error_not_a_wrong_output() {
        let mut s = spec(&[Normalization::WhitespaceRuns, Normalization::BlankLines]);
        s.lenient = vec![(Normalization::AllWhitespace, 0.9)];
        let expected = b"Enter position: \n---- Red's turn\nRed: H\nEnter position: \n---- Red's turn\n";
        let actual = b"Enter position: ---- Red's turn\nRed: H\nEnter position: ---- Red's turn\n";
        let c = compare(expected, actual, &s, Extent::Whole);
        assert_eq!((c.matched, c.credit), (true, 0.9));
        assert_eq!(
            c.forgiven,
            [Forgiven {
                what: "missing line break".into(),
                count: 2,
                expected_line: 2,
                expected: "---- Red's turn".into()
            }]
        );
        assert_eq!(
            c.forgiven[0].describe(),
            "missing line break (2 places, first at expected line 2: \"---- Red's turn\")"
        );
    }

    #[test]
    fn forgiven_spaces_and_case_are_told_apart() {
        let mut s = spec(&[Normalization::TrailingWhitespace]);
        s.lenient = vec![(Normalization::AllWhitespace, 0.9), (Normalization::Case, 0.5)];
        let c = compare(b"a b\nInvalid move\nc d\n", b"ab\nInvalid Move\nc  d\n", &s, Extent::Whole);
        assert_eq!((c.matched, c.credit), (true, 0.5));
        let what: Vec<(&str, usize, usize)> =
            c.forgiven.iter().map(|f| (f.what.as_str(), f.count, f.expected_line)).collect();
        assert_eq!(what, [("missing space", 1, 1), ("letter case", 1, 2), ("extra space", 1, 3)]);
    }

    #[test]
    fn unordered_runs_compare_as_multisets_and_only_within_a_run() {
        let mut s = spec(&[]);
        s.unordered = pattern(r"^\S+ to \S+$");
        let expected = b"You rolled 6.\nH to R5\nR1 to R7\nG2 to G8\nEnter\n";
        let c = compare(expected, b"You rolled 6.\nG2 to G8\nR1 to R7\nH to R5\nEnter\n", &s, Extent::Whole);
        assert!(c.matched);
        // The same lines split across another line are two runs, not one.
        let c = compare(expected, b"You rolled 6.\nH to R5\nEnter\nR1 to R7\nG2 to G8\n", &s, Extent::Whole);
        assert!(!c.matched);
        // A missing move is still missing.
        let c = compare(expected, b"You rolled 6.\nG2 to G8\nH to R5\nEnter\n", &s, Extent::Whole);
        assert!(!c.matched);
        let d = c.divergence.unwrap();
        assert_eq!(d.expected.as_deref(), Some("R1 to R7"));
    }

    #[test]
    fn partial_credit_by_prefix_and_by_lines() {
        let mut s = spec(&[]);
        s.partial = Partial::Prefix;
        let c = compare(b"1\n2\n3\n4\n", b"1\n2\nX\n4\n", &s, Extent::Whole);
        assert_eq!(c.credit, 0.5);
        s.partial = Partial::Lines;
        let c = compare(b"1\n2\n3\n4\n", b"1\n2\nX\n4\n", &s, Extent::Whole);
        assert_eq!(c.credit, 0.75);
    }

    fn game(turns: usize, slip_at: Option<usize>, derail_at: Option<usize>) -> String {
        let mut s = String::new();
        for t in 0..turns {
            let board = if derail_at.is_some_and(|d| t >= d) { t * 7 + 1 } else { t * 7 };
            s.push_str(&format!("Rolling dice: {t}\n| | W {board} |\n| | R |\n"));
            if slip_at == Some(t) {
                s.push_str("Invalid Move!\n");
            } else {
                s.push_str("Invalid move\n");
            }
        }
        s
    }

    #[test]
    fn hunks_charge_a_local_slip_a_bounded_share_and_a_derailed_game_everything() {
        let mut s = spec(&[]);
        s.partial = Partial::Hunks;
        let expected = game(100, None, None);
        let slip = compare(expected.as_bytes(), game(100, Some(3), None).as_bytes(), &s, Extent::Whole);
        assert_eq!(slip.partial.as_ref().unwrap().differences, 1);
        assert!((slip.credit - 0.75 * 399.0 / 400.0).abs() < 1e-9, "{}", slip.credit);

        // The same wrong line in every turn is one difference, not a hundred.
        let every_turn = expected.replace("Invalid move\n", "Invalid Move!\n");
        let repeated = compare(expected.as_bytes(), every_turn.as_bytes(), &s, Extent::Whole);
        assert_eq!(repeated.partial.as_ref().unwrap().differences, 1);
        assert!((repeated.credit - 0.75 * 0.75).abs() < 1e-9, "{}", repeated.credit);

        // The same slip early or late costs the same: no prefix rule.
        let late = compare(expected.as_bytes(), game(100, Some(97), None).as_bytes(), &s, Extent::Whole);
        assert_eq!(late.credit, slip.credit);

        // Derailed at turn 10: every later board differs, though most lines still match.
        let derailed = compare(expected.as_bytes(), game(100, None, Some(10)).as_bytes(), &s, Extent::Whole);
        assert_eq!(derailed.credit, 0.0);
        s.partial = Partial::Lines;
        let lines = compare(expected.as_bytes(), game(100, None, Some(10)).as_bytes(), &s, Extent::Whole);
        assert!(lines.credit > 0.7, "matched lines over-credit a derailed game: {}", lines.credit);

        // Output that stops in the middle lost the rest of the game: a long block is not a slip.
        s.partial = Partial::Hunks;
        let most: String = expected.lines().take(360).flat_map(|l| [l, "\n"]).collect();
        let stopped = compare(expected.as_bytes(), most.as_bytes(), &s, Extent::Whole);
        assert_eq!(stopped.credit, 0.0);
        // A slip of three lines is still one difference; of four, two.
        let three = expected.replacen("| | R |\nInvalid move\nRolling dice: 5\n", "x\ny\nz\n", 1);
        let c = compare(expected.as_bytes(), three.as_bytes(), &s, Extent::Whole);
        assert_eq!(c.partial.as_ref().unwrap().differences, 1);
        let four =
            expected.replacen("| | R |\nInvalid move\nRolling dice: 5\n| | W 35 |\n", "x\ny\nz\nw\n", 1);
        let c = compare(expected.as_bytes(), four.as_bytes(), &s, Extent::Whole);
        assert_eq!(c.partial.as_ref().unwrap().differences, 2);
    }

    #[test]
    fn partial_credit_is_taken_under_the_rung_that_credits_most() {
        let mut s = spec(&[]);
        s.partial = Partial::Hunks;
        s.lenient = vec![(Normalization::Case, 0.5)];
        // Letter case differs on every line and one line is wrong: under the case rung, one hunk.
        let expected: String = (0..40).map(|i| format!("Line {i}\n")).collect();
        let mut actual: String = (0..40).map(|i| format!("LINE {i}\n")).collect();
        actual = actual.replace("LINE 20\n", "LINE twenty\n");
        let c = compare(expected.as_bytes(), actual.as_bytes(), &s, Extent::Whole);
        assert!(!c.matched);
        assert_eq!(c.leniency, [Normalization::Case]);
        assert!((c.credit - 0.5 * 0.75 * 39.0 / 40.0).abs() < 1e-9, "{}", c.credit);
    }

    #[test]
    fn a_program_that_continues_past_its_input_matches_a_complete_transcript() {
        let s = spec(&[Normalization::TrailingWhitespace]);
        let c = compare(
            b"board\nEnter move: ",
            b"board\nEnter move: Enter move: Enter move: ",
            &s,
            Extent::MayContinue,
        );
        assert!(c.matched);
        let c = compare(b"board\nEnter move: ", b"board\nEnter move: ", &s, Extent::Whole);
        assert!(c.matched);
        let c = compare(b"board\nEnter move: \nnext\n", b"board\nEnter move: Enter", &s, Extent::MayContinue);
        assert!(!c.matched);
    }

    #[test]
    fn the_diff_is_unified_and_bounded_in_lines_and_bytes() {
        let expected: String = (0..500).map(|i| format!("{i}\n")).collect();
        let actual: String = (0..500).map(|i| format!("x{i}\n")).collect();
        let c = compare(expected.as_bytes(), actual.as_bytes(), &spec(&[]), Extent::Whole);
        let diff = c.diff.unwrap();
        assert!(diff.starts_with("--- expected\n+++ actual\n"));
        assert_eq!(diff.lines().count(), MAX_DIFF_LINES + 1);
        assert!(diff.ends_with("more diff lines)\n"));

        let flood = "y".repeat(1 << 20);
        let c = compare(b"a\n", flood.as_bytes(), &spec(&[]), Extent::Whole);
        assert!(c.diff.unwrap().len() < 4 * MAX_LINE_CHARS);
        assert!(c.divergence.unwrap().actual.unwrap().len() < 2 * MAX_LINE_CHARS);
    }

    #[test]
    fn ignored_lines_are_left_out_of_both_sides_and_of_the_line_numbers_only() {
        let mut s = spec(&[Normalization::BlankLines]);
        s.ignore_lines = pattern(r"^\s*\d\|");
        let expected = b"board\n0| r |\n1|   |\nRED's move:  \n0| r |\nWHITE's move:  ";
        // Another drawing, or none at all: the same flow.
        assert!(compare(expected, b"board\n0|r|\nRED's move:  \nWHITE's move:  ", &s, Extent::Whole).matched);
        let c = compare(expected, b"board\n0| r |\nRED's move:  \n0| r |\nRED's move:  ", &s, Extent::Whole);
        assert!(!c.matched);
        let divergence = c.divergence.unwrap();
        assert_eq!((divergence.line, divergence.expected_line), (5, 6), "numbered as printed");
        assert_eq!(divergence.actual.as_deref(), Some("RED's move:  "));
    }

    #[test]
    fn rewrites_make_messages_equal_whatever_their_wording() {
        let mut s = spec(&[]);
        s.rewrite = vec![(pattern(r"(?i)^(.*'s move:\s*)\S.*$").unwrap(), "${1}(a message)".to_owned())];
        let expected = b"RED's move:  INVALID MOVE.  TRY AGAIN!!\nRED's move:  \n";
        assert!(compare(expected, b"RED's move:  Invalid move!\nRED's move:  \n", &s, Extent::Whole).matched);
        let c = compare(expected, b"RED's move:  \nWHITE's move:  \n", &s, Extent::Whole);
        assert!(!c.matched, "a refusal is still a refusal");
        assert_eq!(
            c.divergence.unwrap().expected.as_deref(),
            Some("RED's move:  INVALID MOVE.  TRY AGAIN!!")
        );
    }

    #[test]
    fn loose_lines_forgive_spacing_only_where_the_pattern_matches() {
        let mut s = spec(&[Normalization::TrailingWhitespace]);
        s.loose_lines = pattern(r"^\s*(\d|[WR|]\s)");
        let board = b"13 14    15\nW  |  R\nRolling dice:  2 5\n";
        let c = compare(board, b"13 14 15\nW | R\nRolling dice:  2 5\n", &s, Extent::Whole);
        assert!(c.matched);
        let c = compare(board, b"13 14 15\nW | R\nRolling dice: 2 5\n", &s, Extent::Whole);
        assert!(!c.matched, "a message's spacing still counts");
    }

    #[test]
    fn the_diff_shows_lines_as_printed_even_when_whitespace_is_free() {
        let s = spec(&[Normalization::AllWhitespace, Normalization::BlankLines]);
        let c = compare(b"W  |  R\n\nBar:  White-0\n", b"W  |  W\nBar:  White-0\n", &s, Extent::Whole);
        assert_eq!(
            c.diff.unwrap(),
            "--- expected\n+++ actual\n@@ -1,3 +1,2 @@\n-W  |  R\n+W  |  W\n Bar:  White-0\n"
        );
    }

    #[test]
    fn invalid_utf8_is_compared_not_rejected() {
        let c = compare(b"a\n", b"\xff\xfe\n", &spec(&[]), Extent::Whole);
        assert!(!c.matched);
        assert_eq!(c.divergence.unwrap().actual.as_deref(), Some("\u{fffd}\u{fffd}"));
    }
}
