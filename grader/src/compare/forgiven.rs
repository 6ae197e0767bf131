//! What a lenient match forgave: the presentation-error walk (line breaks, spaces, letter case, named
//! by walking both outputs character by character), and the lines the costly rewrite made equal.

use similar::DiffTag;

use super::attempt::Attempt;
use super::lines::{read_line, Lines};
use super::{CompareSpec, Extent, Forgiven, Normalization, Reading, Unit};

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

/// Names what a lenient match under `reading` forgave: the places the costly normalisations in
/// `leniency` forgave, then the lines the costly rewrite changed. `base` is the comparison under the
/// free normalisations alone.
pub(super) fn forgiven(
    (expected, actual): (&str, &str),
    base: &Attempt,
    reading: &Reading,
    leniency: &[Normalization],
    spec: &CompareSpec,
    extent: Extent,
) -> Vec<Forgiven> {
    let mut found = Vec::new();
    if !leniency.is_empty() {
        // Spaces and letter case are walked in the outputs as the rewrite left them.
        let free = Reading { norms: spec.normalize.clone(), rewrite: reading.rewrite };
        let as_rewritten = reading.rewrite.then(|| Attempt::new(expected, actual, &free, spec, extent));
        found = walk(as_rewritten.as_ref().unwrap_or(base), leniency);
    }
    if let Some(rewrite) = spec.lenient_rewrite.as_ref().filter(|_| reading.rewrite) {
        // The lines it changed where the outputs differ even under the other rungs used.
        let others = Reading { rewrite: false, ..reading.clone() };
        let without = (!leniency.is_empty()).then(|| Attempt::new(expected, actual, &others, spec, extent));
        found.extend(rewritten(without.as_ref().unwrap_or(base), reading, spec, extent, &rewrite.what));
    }
    found
}

/// Names what costly normalisations forgave, by walking both outputs (under the free normalisations,
/// and the rewrite where it applied) character by character: the whitespace between characters and
/// their letter case.
fn walk(base: &Attempt, leniency: &[Normalization]) -> Vec<Forgiven> {
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
                unit: Unit::Place,
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

/// Names what the costly rewrite forgave: the lines it changes (in either output) among those that
/// still differ without it (the hunks of the diff of `without`, the outputs read as the matching
/// `reading` reads them but for the rewrite), and the first expected line where that happened. `None`
/// when it changed none of them.
fn rewritten(
    without: &Attempt,
    reading: &Reading,
    spec: &CompareSpec,
    extent: Extent,
    what: &str,
) -> Option<Forgiven> {
    let changed = |lines: &Lines, i: usize| {
        read_line(lines.raw[lines.origin[i]], reading, spec).as_ref() != Some(&lines.normalized[i])
    };
    let expected_len = without.expected.normalized.len();
    let mut count = 0;
    let mut first: Option<usize> = None;
    for op in without.ops() {
        let (old, new) = (op.old_range(), op.new_range());
        if op.tag() == DiffTag::Equal || (extent == Extent::MayContinue && old.start >= expected_len) {
            continue; // equal lines, or output past the transcript's end, which is not compared
        }
        let on_expected: Vec<usize> = old.clone().filter(|&i| changed(&without.expected, i)).collect();
        let on_actual: Vec<usize> = new.clone().filter(|&j| changed(&without.actual, j)).collect();
        count += on_expected.len() + on_actual.len();
        if first.is_none() {
            // A changed line of the output stands for the expected line across from it in the hunk.
            let across = |j: usize| old.start + (j - new.start).min(old.len().saturating_sub(1));
            first =
                on_expected.first().copied().into_iter().chain(on_actual.first().map(|&j| across(j))).min();
        }
    }
    let first = first?;
    Some(Forgiven {
        what: what.to_owned(),
        count,
        unit: Unit::Line,
        expected_line: without.expected.line_number(first),
        expected: without.expected.raw_line(first).unwrap_or_default(),
    })
}
