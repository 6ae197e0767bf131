//! Normalised lines: an output split into lines, rewritten and normalised, each remembering the line
//! it came from, so that reports quote and number the lines as printed.

use std::borrow::Cow;

use super::{CompareSpec, LinePattern, Normalization, Reading};

/// Characters of one reported line kept in a report: a flood without line breaks must not fill it.
pub(super) const MAX_LINE_CHARS: usize = 400;

/// Output split into normalised lines, remembering which original line each came from.
pub(super) struct Lines<'a> {
    /// The output's lines as printed.
    pub(super) raw: Vec<&'a str>,
    /// The lines compared, after rewrites and normalisations; ignored and dropped lines left out.
    pub(super) normalized: Vec<String>,
    /// For each compared line, the index of the printed line it came from.
    pub(super) origin: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str, reading: &Reading, spec: &CompareSpec) -> Self {
        let raw = printed_lines(text);
        let mut normalized = Vec::with_capacity(raw.len());
        let mut origin = Vec::with_capacity(raw.len());
        for (i, line) in raw.iter().enumerate() {
            if let Some(line) = read_line(line, reading, spec) {
                normalized.push(line);
                origin.push(i);
            }
        }
        let mut lines = Self { raw, normalized, origin };
        if let Some(pattern) = &spec.unordered {
            lines.sort_unordered_runs(pattern);
        }
        lines
    }

    /// How many lines [`Lines::new`] would compare, without building them: what an output that
    /// matches byte for byte needs (most outputs). Sorting runs changes no count, and without
    /// rewrites a line is blank after the normalisations exactly when it is blank as printed.
    pub(super) fn count(text: &str, reading: &Reading, spec: &CompareSpec) -> usize {
        let rewrites = !spec.rewrite.is_empty() || (reading.rewrite && spec.lenient_rewrite.is_some());
        if rewrites {
            return Lines::new(text, reading, spec).normalized.len();
        }
        let drops_blank = reading.norms.contains(&Normalization::BlankLines);
        printed_lines(text)
            .into_iter()
            .filter(|line| !spec.ignore_lines.as_ref().is_some_and(|p| p.matches(line)))
            .filter(|line| !(drops_blank && line.trim().is_empty()))
            .count()
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

    pub(super) fn joined(&self) -> String {
        let mut s = String::new();
        for line in &self.normalized {
            s.push_str(line);
            s.push('\n');
        }
        s
    }

    /// The original text of normalised line `i`, shortened for reports.
    pub(super) fn raw_line(&self, i: usize) -> Option<String> {
        self.origin.get(i).map(|&o| shorten(self.raw[o]))
    }

    /// The 1-based original line number of normalised line `i` (one past the end when there is none).
    pub(super) fn line_number(&self, i: usize) -> usize {
        self.origin.get(i).map_or(self.raw.len() + 1, |&o| o + 1)
    }
}

/// The lines of an output as printed: split at line breaks, a final line break ending the last line.
fn printed_lines(text: &str) -> Vec<&str> {
    let mut raw: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        raw.pop();
    }
    raw
}

/// One printed line as compared under a reading: `None` when it is left out (ignored, or blank under
/// `blank-lines`). Ignored lines are chosen as printed; then come the free rewrites, the costly ones
/// when the reading applies them, and the normalisations.
pub(super) fn read_line(line: &str, reading: &Reading, spec: &CompareSpec) -> Option<String> {
    if spec.ignore_lines.as_ref().is_some_and(|p| p.matches(line)) {
        return None;
    }
    let mut line = Cow::Borrowed(line);
    let costly = spec.lenient_rewrite.as_ref().filter(|_| reading.rewrite).map(|r| &r.rules[..]);
    for (pattern, replacement) in spec.rewrite.iter().chain(costly.unwrap_or_default()) {
        if let Cow::Owned(changed) = pattern.0.replace_all(&line, replacement.as_str()) {
            line = Cow::Owned(changed);
        }
    }
    let is_loose = spec.loose_lines.as_ref().is_some_and(|p| p.matches(&line));
    let line = normalize_line(&line, &reading.norms, is_loose);
    if reading.norms.contains(&Normalization::BlankLines) && line.trim().is_empty() {
        return None;
    }
    Some(line)
}

/// A line under the normalisations; a `loose` one also has its whitespace runs collapsed.
fn normalize_line(line: &str, norms: &[Normalization], loose: bool) -> String {
    // One allocation per line where one will do: every line of every output passes through here.
    let s = if norms.contains(&Normalization::AllWhitespace) {
        line.chars().filter(|c| !c.is_whitespace()).collect()
    } else if loose || norms.contains(&Normalization::WhitespaceRuns) {
        let mut joined = String::with_capacity(line.len());
        for word in line.split_whitespace() {
            if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(word);
        }
        joined
    } else if norms.contains(&Normalization::TrailingWhitespace) {
        line.trim_end().to_owned()
    } else {
        line.to_owned()
    };
    if norms.contains(&Normalization::Case) {
        return s.to_lowercase();
    }
    s
}

/// Cuts a line for a report at a character boundary.
pub(super) fn shorten(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.to_owned(),
        Some((end, _)) => format!("{}… ({} more bytes)", &line[..end], line.len() - end),
    }
}
