//! One comparison under one set of normalisations: whether it matches, where it first diverges, the
//! bounded unified diff, and the partial credit (by prefix, by equal lines, or by distinct hunks).

use std::cell::OnceCell;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, DiffTag};

use super::lines::{shorten, Lines};
use super::{CompareSpec, Divergence, Extent, Normalization, Partial, PartialCredit, Reading, LOCAL_LINES};

/// Lines of unified diff kept in a report; the rest is cut with a note.
pub(super) const MAX_DIFF_LINES: usize = 80;
/// The diff gives up refining after this long; huge student outputs must never stall grading.
const DIFF_TIMEOUT: Duration = Duration::from_secs(1);
/// Output lines diffed beyond twice the expected ones; the rest count as one insertion.
const MAX_EXTRA_LINES: usize = 100;

/// One comparison under one set of normalisations.
pub(super) struct Attempt<'a> {
    pub(super) expected: Lines<'a>,
    pub(super) actual: Lines<'a>,
    pub(super) matched: bool,
    /// Each line as a number (see [`line_ids`]), the output's only as far as it is diffed.
    ids: OnceCell<(Vec<u32>, Vec<u32>)>,
    /// The line diff, computed once for the report's diff and the partial credit.
    ops: OnceCell<Vec<DiffOp>>,
}

impl<'a> Attempt<'a> {
    pub(super) fn new(
        expected: &'a str,
        actual: &'a str,
        reading: &Reading,
        spec: &CompareSpec,
        extent: Extent,
    ) -> Self {
        let expected = Lines::new(expected, reading, spec);
        let actual = Lines::new(actual, reading, spec);
        let matched = if reading.norms.contains(&Normalization::AllWhitespace) {
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
        Self { expected, actual, matched, ids: OnceCell::new(), ops: OnceCell::new() }
    }

    fn common_prefix(&self) -> usize {
        self.expected.normalized.iter().zip(&self.actual.normalized).take_while(|(e, a)| e == a).count()
    }

    pub(super) fn divergence(&self) -> Option<Divergence> {
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
    pub(super) fn diff(&self) -> String {
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
    pub(super) fn ops(&self) -> &[DiffOp] {
        self.ops.get_or_init(|| {
            let (expected, actual) = (&self.expected.normalized, &self.actual.normalized);
            let (expected_ids, actual_ids) = self.ids();
            let diffed = actual_ids.len();
            let mut ops = similar::capture_diff_slices_deadline(
                Algorithm::Patience,
                expected_ids,
                actual_ids,
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

    /// The lines as numbers, equal for equal lines, the output's as far as it is diffed.
    fn ids(&self) -> &(Vec<u32>, Vec<u32>) {
        self.ids.get_or_init(|| {
            let (expected, actual) = (&self.expected.normalized, &self.actual.normalized);
            let diffed = actual.len().min(expected.len().saturating_mul(2).saturating_add(MAX_EXTRA_LINES));
            line_ids(expected, &actual[..diffed])
        })
    }

    /// True when the two comparisons have the same shape: as many lines, equal at the same places.
    /// All a diff and a partial credit look at is which lines equal which, so both then come out the
    /// same (the normalisations of a lenient rung mostly change nothing a wrong game did).
    pub(super) fn same_shape(&self, other: &Attempt) -> bool {
        self.actual.normalized.len() == other.actual.normalized.len() && self.ids() == other.ids()
    }

    /// The fraction of the case this output earns under the spec's partial-credit rule.
    pub(super) fn partial_credit(&self, spec: &CompareSpec) -> (f64, Option<PartialCredit>) {
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
            Partial::EachLine => {
                let ops = self.ops();
                let equal: usize =
                    ops.iter().filter(|op| op.tag() == DiffTag::Equal).map(|op| op.old_range().len()).sum();
                let differing: usize = ops
                    .iter()
                    .filter(|op| op.tag() != DiffTag::Equal)
                    .map(|op| op.old_range().len().max(op.new_range().len()))
                    .sum();
                let fraction = (1.0 - spec.hunk_cost * differing as f64).max(0.0);
                (fraction, Some(stats(differing, equal)))
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

/// Each line as a number, equal numbers for equal lines: the diff then compares and hashes numbers,
/// not strings, many times over (the same operations, since equality is all it asks of a line).
pub(super) fn line_ids<'a>(expected: &'a [String], actual: &'a [String]) -> (Vec<u32>, Vec<u32>) {
    let mut ids: std::collections::HashMap<&'a str, u32> = std::collections::HashMap::new();
    let mut id_of = |line: &'a String| {
        let next = ids.len() as u32;
        *ids.entry(line.as_str()).or_insert(next)
    };
    let expected = expected.iter().map(&mut id_of).collect();
    let actual = actual.iter().map(&mut id_of).collect();
    (expected, actual)
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
