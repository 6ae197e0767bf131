//! The outputs of a similarity analysis: `similarity.csv` (every pair that shares a region, the most
//! similar first) and `similarity.html` (see [`html`]), and the few numbers of it the class page shows.

pub mod html;

use std::path::Path;

use super::{Analysis, Pair, Region};
use crate::gradebook::{from_spreadsheet_text, spreadsheet_text};

/// The file of every pair.
pub const CSV_FILE: &str = "similarity.csv";
/// The page for people.
pub const HTML_FILE: &str = "similarity.html";

/// The columns of `similarity.csv`.
const HEADER: [&str; 13] = [
    "rank",
    "a",
    "a_name",
    "b",
    "b_name",
    "similarity",
    "a_shared",
    "b_shared",
    "shared_tokens",
    "longest_run_tokens",
    "longest_run_a",
    "longest_run_b",
    "look",
];

/// `similarity.csv`: one row per pair that shares a region, from the most similar: both students'
/// ids and names, the similarity (both ways at once), the share of each one's own code found in the
/// other's (`a_shared`, `b_shared`, from 0 to 1), the tokens shared, the longest shared run (tokens,
/// and where it is on each side: `main.c:12-40`), and `look` (`yes` at or above the "look at this"
/// line). Ids and names go through the gradebook's formula guard.
pub fn to_csv(analysis: &Analysis) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(HEADER).expect("writing to memory");
    for (rank, pair) in analysis.pairs.iter().enumerate() {
        let (a, b) = (&analysis.students[pair.a], &analysis.students[pair.b]);
        let longest = pair.longest();
        let row = [
            (rank + 1).to_string(),
            spreadsheet_text(&a.id),
            spreadsheet_text(a.name.as_deref().unwrap_or_default()),
            spreadsheet_text(&b.id),
            spreadsheet_text(b.name.as_deref().unwrap_or_default()),
            format!("{:.3}", pair.similarity),
            format!("{:.3}", pair.a_fraction),
            format!("{:.3}", pair.b_fraction),
            pair.shared_tokens.to_string(),
            longest.map_or(0, |r| r.tokens).to_string(),
            longest.map_or_else(String::new, |r| spreadsheet_text(&place(&a.files[r.a_file], r.a_lines))),
            longest.map_or_else(String::new, |r| spreadsheet_text(&place(&b.files[r.b_file], r.b_lines))),
            if pair.look { "yes" } else { "no" }.to_owned(),
        ];
        writer.write_record(&row).expect("writing to memory");
    }
    String::from_utf8(writer.into_inner().expect("writing to memory")).expect("CSV of UTF-8 text")
}

/// `main.c:12-40` (or `main.c:12` for one line).
pub fn place(file: &str, (first, last): (u32, u32)) -> String {
    if first == last {
        format!("{file}:{first}")
    } else {
        format!("{file}:{first}-{last}")
    }
}

/// What the class page says of a similarity analysis written beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Pairs that share a region.
    pub pairs: usize,
    /// Of them, pairs at or above the "look at this" line.
    pub above_line: usize,
    /// Students in those pairs.
    pub students_above_line: usize,
    /// Their ids: the class page flags their rows.
    pub flagged: std::collections::BTreeSet<String>,
}

impl Summary {
    /// The summary of an analysis.
    pub fn of(analysis: &Analysis) -> Summary {
        let above: Vec<&Pair> = analysis.pairs.iter().filter(|p| p.look).collect();
        let flagged: std::collections::BTreeSet<String> = above
            .iter()
            .flat_map(|p| [p.a, p.b])
            .filter_map(|i| analysis.students.get(i))
            .map(|s| s.id.clone())
            .collect();
        Summary {
            pairs: analysis.pairs.len(),
            above_line: above.len(),
            students_above_line: flagged.len(),
            flagged,
        }
    }

    /// The summary of the `similarity.csv` in `folder`, when there is one beside a `similarity.html`
    /// and it reads as ours.
    pub fn read(folder: &Path) -> Option<Summary> {
        if !folder.join(HTML_FILE).is_file() {
            return None;
        }
        let mut reader = csv::Reader::from_path(folder.join(CSV_FILE)).ok()?;
        if reader.headers().ok()?.iter().ne(HEADER) {
            return None;
        }
        let (mut pairs, mut above_line) = (0, 0);
        let mut students = std::collections::BTreeSet::new();
        for row in reader.records() {
            let row = row.ok()?;
            pairs += 1;
            if row.get(12) == Some("yes") {
                above_line += 1;
                students.insert(from_spreadsheet_text(row.get(1)?).to_owned());
                students.insert(from_spreadsheet_text(row.get(3)?).to_owned());
            }
        }
        Some(Summary { pairs, above_line, students_above_line: students.len(), flagged: students })
    }
}

/// The regions of a pair in the order of the first student's files and lines: how the side-by-side
/// view numbers them.
pub fn regions_in_order(pair: &Pair) -> Vec<&Region> {
    let mut regions: Vec<&Region> = pair.regions.iter().collect();
    regions.sort_by_key(|r| (r.a_file, r.a_lines));
    regions
}
