//! Compare stage: normalises expected and actual output, finds the first divergence, diffs, credits.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use similar::{Algorithm, ChangeTag, TextDiff};

/// Lines of unified diff kept in a report; the rest is cut with a note.
const MAX_DIFF_LINES: usize = 80;
/// The diff gives up refining after this long; huge student outputs must never stall grading.
const DIFF_TIMEOUT: Duration = Duration::from_secs(1);

/// One way of making trivial differences disappear before comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalization {
    /// Spaces, tabs and carriage returns at the end of a line do not count.
    TrailingWhitespace,
    /// Runs of whitespace count as one space; leading and trailing whitespace do not count.
    WhitespaceRuns,
    /// No whitespace inside a line counts at all (`a:b` equals `a: b`).
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
            Normalization::AllWhitespace => "all whitespace",
            Normalization::BlankLines => "blank lines",
            Normalization::Case => "letter case",
        }
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
}

/// A regular expression selecting lines, compared by its text.
#[derive(Debug, Clone)]
pub struct LinePattern(pub regex::Regex);

impl PartialEq for LinePattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

/// How a case's output is compared: free normalisations, partial credit, and a ladder of costly ones.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompareSpec {
    /// Applied always, at no cost.
    pub normalize: Vec<Normalization>,
    /// Lines matching this pattern (in either output) also have their whitespace runs collapsed, at no
    /// cost: drawings whose spacing the handout lost, while messages stay exact.
    pub loose_lines: Option<LinePattern>,
    /// Credit for a mismatch.
    pub partial: Partial,
    /// Tried in turn (highest credit first, cumulatively) when the output does not match: a match then
    /// keeps this fraction of the case's points.
    pub lenient: Vec<(Normalization, f64)>,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// The outcome of comparing one output with its transcript.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Output and transcript are equal, possibly after lenient normalisations.
    pub matched: bool,
    /// The fraction of the case's points earned, 0..=1.
    pub credit: f64,
    /// The costly normalisations that were needed for the match (empty for a plain match).
    pub leniency: Vec<Normalization>,
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
    fn new(text: &'a str, norms: &[Normalization], loose: Option<&LinePattern>) -> Self {
        let mut raw: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') || text.is_empty() {
            raw.pop();
        }
        let mut normalized = Vec::with_capacity(raw.len());
        let mut origin = Vec::with_capacity(raw.len());
        let mut loose_norms = norms.to_vec();
        loose_norms.push(Normalization::WhitespaceRuns);
        for (i, line) in raw.iter().enumerate() {
            let is_loose = loose.is_some_and(|p| p.0.is_match(line));
            let line = normalize_line(line, if is_loose { &loose_norms } else { norms });
            if norms.contains(&Normalization::BlankLines) && line.trim().is_empty() {
                continue;
            }
            normalized.push(line);
            origin.push(i);
        }
        Self { raw, normalized, origin }
    }

    fn joined(&self) -> String {
        let mut s = String::new();
        for line in &self.normalized {
            s.push_str(line);
            s.push('\n');
        }
        s
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

/// Compares a program's output with the expected transcript.
pub fn compare(expected: &[u8], actual: &[u8], spec: &CompareSpec, extent: Extent) -> Comparison {
    let expected = String::from_utf8_lossy(expected);
    let actual = String::from_utf8_lossy(actual);
    let loose = spec.loose_lines.as_ref();
    let base = Attempt::new(&expected, &actual, &spec.normalize, loose, extent);
    let (divergence, diff) = if base.matched { (None, None) } else { (base.divergence(), Some(base.diff())) };
    let expected_lines = base.expected.normalized.len();
    if base.matched {
        return Comparison {
            matched: true,
            credit: 1.0,
            leniency: Vec::new(),
            divergence,
            diff,
            expected_lines,
        };
    }

    let mut ladder = spec.lenient.clone();
    ladder.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut norms = spec.normalize.clone();
    let mut leniency = Vec::new();
    let mut credit = 1.0_f64;
    for (norm, cost_credit) in ladder {
        if norms.contains(&norm) {
            continue;
        }
        norms.push(norm);
        leniency.push(norm);
        credit = credit.min(cost_credit);
        if Attempt::new(&expected, &actual, &norms, loose, extent).matched {
            return Comparison { matched: true, credit, leniency, divergence, diff, expected_lines };
        }
    }

    let credit = match spec.partial {
        Partial::None => 0.0,
        Partial::Lines => base.equal_lines_fraction(),
        Partial::Prefix => base.prefix_fraction(),
    };
    Comparison { matched: false, credit, leniency: Vec::new(), divergence, diff, expected_lines }
}

/// One comparison under one set of normalisations.
struct Attempt<'a> {
    expected: Lines<'a>,
    actual: Lines<'a>,
    matched: bool,
}

impl<'a> Attempt<'a> {
    fn new(
        expected: &'a str,
        actual: &'a str,
        norms: &[Normalization],
        loose: Option<&LinePattern>,
        extent: Extent,
    ) -> Self {
        let expected = Lines::new(expected, norms, loose);
        let actual = Lines::new(actual, norms, loose);
        let matched = match extent {
            Extent::Whole => expected.normalized == actual.normalized,
            // The last expected line is often a prompt the program printed again and again on the
            // same line after its input ran out, so the texts are compared, not the lines.
            Extent::MayContinue => {
                let e = expected.joined();
                actual.joined().starts_with(e.strip_suffix('\n').unwrap_or(&e))
            }
        };
        Self { expected, actual, matched }
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
        let raw_line = |lines: &Lines<'a>| lines.origin.get(i).map(|&o| lines.raw[o].to_owned());
        let line_number = |lines: &Lines<'a>| lines.origin.get(i).map_or(lines.raw.len() + 1, |&o| o + 1);
        Some(Divergence {
            line: line_number(a),
            expected_line: line_number(e),
            expected: raw_line(e),
            actual: raw_line(a),
        })
    }

    fn diff(&self) -> String {
        let (e, a) = (self.expected.joined(), self.actual.joined());
        let diff =
            TextDiff::configure().algorithm(Algorithm::Patience).timeout(DIFF_TIMEOUT).diff_lines(&e, &a);
        let text = diff.unified_diff().context_radius(3).header("expected", "actual").to_string();
        let total = text.lines().count();
        if total <= MAX_DIFF_LINES {
            return text;
        }
        let mut cut: String = text.lines().take(MAX_DIFF_LINES).flat_map(|l| [l, "\n"]).collect();
        cut.push_str(&format!("... ({} more diff lines)\n", total - MAX_DIFF_LINES));
        cut
    }

    fn equal_lines_fraction(&self) -> f64 {
        let longest = self.expected.normalized.len().max(self.actual.normalized.len());
        if longest == 0 {
            return 1.0;
        }
        let (e, a) = (self.expected.joined(), self.actual.joined());
        let diff =
            TextDiff::configure().algorithm(Algorithm::Patience).timeout(DIFF_TIMEOUT).diff_lines(&e, &a);
        let equal = diff.iter_all_changes().filter(|c| c.tag() == ChangeTag::Equal).count();
        equal as f64 / longest as f64
    }

    fn prefix_fraction(&self) -> f64 {
        match self.expected.normalized.len() {
            0 => 0.0,
            n => self.common_prefix() as f64 / n as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(normalize: &[Normalization]) -> CompareSpec {
        CompareSpec { normalize: normalize.to_vec(), ..CompareSpec::default() }
    }

    #[test]
    fn identical_output_matches_with_full_credit() {
        let c = compare(b"a\nb\n", b"a\nb\n", &spec(&[]), Extent::Whole);
        assert!(c.matched);
        assert_eq!(c.credit, 1.0);
        assert_eq!(c.divergence, None);
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
    fn partial_credit_by_prefix_and_by_lines() {
        let mut s = spec(&[]);
        s.partial = Partial::Prefix;
        let c = compare(b"1\n2\n3\n4\n", b"1\n2\nX\n4\n", &s, Extent::Whole);
        assert_eq!(c.credit, 0.5);
        s.partial = Partial::Lines;
        let c = compare(b"1\n2\n3\n4\n", b"1\n2\nX\n4\n", &s, Extent::Whole);
        assert_eq!(c.credit, 0.75);
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
    fn the_diff_is_unified_and_bounded() {
        let expected: String = (0..500).map(|i| format!("{i}\n")).collect();
        let actual: String = (0..500).map(|i| format!("x{i}\n")).collect();
        let c = compare(expected.as_bytes(), actual.as_bytes(), &spec(&[]), Extent::Whole);
        let diff = c.diff.unwrap();
        assert!(diff.starts_with("--- expected\n+++ actual\n"));
        assert_eq!(diff.lines().count(), MAX_DIFF_LINES + 1);
        assert!(diff.ends_with("more diff lines)\n"));
    }

    #[test]
    fn loose_lines_forgive_spacing_only_where_the_pattern_matches() {
        let mut s = spec(&[Normalization::TrailingWhitespace]);
        s.loose_lines = Some(LinePattern(regex::Regex::new(r"^\s*(\d|[WR|]\s)").unwrap()));
        let board = b"13 14    15\nW  |  R\nRolling dice:  2 5\n";
        let c = compare(board, b"13 14 15\nW | R\nRolling dice:  2 5\n", &s, Extent::Whole);
        assert!(c.matched);
        let c = compare(board, b"13 14 15\nW | R\nRolling dice: 2 5\n", &s, Extent::Whole);
        assert!(!c.matched, "a message's spacing still counts");
    }

    #[test]
    fn invalid_utf8_is_compared_not_rejected() {
        let c = compare(b"a\n", b"\xff\xfe\n", &spec(&[]), Extent::Whole);
        assert!(!c.matched);
        assert_eq!(c.divergence.unwrap().actual.as_deref(), Some("\u{fffd}\u{fffd}"));
    }
}
