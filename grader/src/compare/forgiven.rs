//! The presentation-error walk: what a lenient match forgave (line breaks, spaces, letter case), named
//! by walking both outputs character by character.

use super::attempt::Attempt;
use super::{Forgiven, Normalization};

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
pub(super) fn forgiven(base: &Attempt, leniency: &[Normalization]) -> Vec<Forgiven> {
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
