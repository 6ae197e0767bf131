//! `similarity.html`: the pairs ranked, the groups of more than two, and a side-by-side view of each
//! pair above the "look at this" line, its shared regions highlighted in the same colour on both
//! sides and each linked to its match. One self-contained file: an inline style, no script, and a
//! Content-Security-Policy that lets nothing load. Every byte a student wrote (ids, names, file
//! names, source) is escaped, and its control characters and bidirectional overrides are shown as
//! escapes rather than obeyed.
//!
//! The page states evidence, never a verdict: what is shared, how much, and where.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{place, regions_in_order};
use crate::build::SourceFile;
use crate::gradebook::{escape_html, page_head};
use crate::report::escape::{inert, BLOCK_LINE, ONE_LINE};
use crate::similarity::{Analysis, Region, Student, Submission};

/// The page's style.
const STYLE: &str = include_str!("similarity.css");

/// Pairs listed in the table at most (`similarity.csv` has them all).
pub const MAX_ROWS: usize = 500;
/// Pairs shown side by side at most: each view holds both submissions.
pub const MAX_VIEWS: usize = 100;
/// Lines of code the side-by-side views hold at most, all together: a page of many long Java
/// projects would otherwise weigh tens of megabytes.
pub const MAX_VIEW_LINES: usize = 100_000;
/// Lines of one file shown side by side at most: a generated file of a million lines would make the
/// page unreadable, and no handwritten one comes near.
const MAX_LINES: usize = 5000;
/// Colours of the highlighted regions, cycled.
const COLOURS: usize = 6;

/// Renders `similarity.html` for `analysis` of `submissions` (the same order as the analysis's
/// students); `title` names the assignment, `base` the base files left out.
pub fn render(analysis: &Analysis, submissions: &[Submission], title: &str, base: &[String]) -> String {
    let page_title = format!("{title}: code shared between submissions");
    let mut out = String::new();
    page_head(&mut out, &page_title, STYLE, None);
    let _ = writeln!(out, "<header>\n<h1>{}</h1>", text(&page_title));
    intro(&mut out, analysis, base);
    out.push_str(
        "<nav><a href=\"#pairs\">Pairs</a><a href=\"#groups\">Groups</a><a href=\"#students\">Students</a>\
         <a href=\"#views\">Side by side</a></nav>\n</header>\n<main>\n",
    );
    let views = viewed(analysis, submissions);
    pairs_table(&mut out, analysis, &views);
    groups(&mut out, analysis);
    students(&mut out, analysis);
    let _ = writeln!(out, "<section id=\"views\">\n<h2>Side by side</h2>");
    if views.is_empty() {
        out.push_str("<p>No pair shares a region.</p>\n");
    } else if analysis.pairs.iter().all(|p| !p.look) {
        let _ = writeln!(
            out,
            "<p>No pair reaches the line; the {} most similar are shown for comparison.</p>",
            views.len()
        );
    } else if views.len() < analysis.pairs.iter().filter(|p| p.look).count() {
        let _ = writeln!(
            out,
            "<p>The {} most similar pairs above the line are shown (one page holds at most {MAX_VIEWS} pairs and \
             {MAX_VIEW_LINES} lines of code); <code>similarity.csv</code> lists every pair and where its longest \
             shared run is.</p>",
            views.len()
        );
    }
    for &rank in &views {
        view(&mut out, analysis, submissions, rank);
    }
    out.push_str("</section>\n</main>\n</body>\n</html>\n");
    out
}

/// What the page is, in words that state evidence.
fn intro(out: &mut String, analysis: &Analysis, base: &[String]) {
    let s = &analysis.settings;
    let compared = analysis.students.iter().filter(|st| st.tokens > 0).count();
    let above = analysis.pairs.iter().filter(|p| p.look).count();
    let _ = writeln!(
        out,
        "<p>Each pair below shares runs of code. Submissions are compared as token sequences from a parse of \
         their C and Java files, so renaming, comments, indentation and layout make no difference. A high \
         similarity is a reason to read the two submissions side by side, not a finding: code from the \
         lecture or a library, a part of the assignment done together where that was allowed, and short \
         programs written to one specification can all look alike.</p>"
    );
    let base_words = if base.is_empty() {
        "The assignment names no base code.".to_owned()
    } else {
        let names: Vec<String> = base.iter().map(|b| format!("<code>{}</code>", text(b))).collect();
        format!(
            "Base code is left out: every run of {} tokens found in {} ({} distinct runs).",
            s.kgram,
            names.join(", "),
            analysis.base_kgrams
        )
    };
    let _ = writeln!(
        out,
        "<p class=\"numbers\">{compared} of {} submissions compared; {} pairs share at least one run of {} \
         tokens or more; <strong>{above} at or above the \u{201c}look at this\u{201d} line</strong> (a \
         similarity of {}: that share of the two submissions' own code lies in runs found in both). {base_words} \
         Code that more than {} students share is common code and left out too ({}). Similarity counts both \
         submissions; each one's share found in the other is beside it.</p>",
        analysis.students.len(),
        analysis.pairs.len(),
        s.kgram,
        percent(s.look_at),
        analysis.most_students,
        match analysis.common_fingerprints {
            0 => "none in this class".to_owned(),
            1 => "1 fingerprint".to_owned(),
            n => format!("{n} fingerprints"),
        },
    );
}

/// The pairs shown side by side, by rank (0-based): those above the line, else the most similar few;
/// at most [`MAX_VIEWS`], and no more than [`MAX_VIEW_LINES`] lines of code in all.
fn viewed(analysis: &Analysis, submissions: &[Submission]) -> BTreeSet<usize> {
    let mut candidates: Vec<usize> =
        analysis.pairs.iter().enumerate().filter(|(_, p)| p.look).map(|(i, _)| i).take(MAX_VIEWS).collect();
    if candidates.is_empty() {
        candidates = (0..analysis.pairs.len().min(crate::similarity::FULL_REGIONS_BELOW_LINE)).collect();
    }
    let mut lines = 0;
    let mut views = BTreeSet::new();
    for rank in candidates {
        let pair = &analysis.pairs[rank];
        let shown = |student: usize, side: fn(&Region) -> usize| -> usize {
            let files: BTreeSet<usize> = pair.regions.iter().map(side).collect();
            files
                .iter()
                .filter_map(|&f| analysis.students[student].files.get(f))
                .filter_map(|name| submissions[student].files.iter().find(|s| s.name == *name))
                .map(|s| s.content.split(|&b| b == b'\n').count().min(MAX_LINES))
                .sum()
        };
        lines += shown(pair.a, |r| r.a_file) + shown(pair.b, |r| r.b_file);
        if lines > MAX_VIEW_LINES && !views.is_empty() {
            break;
        }
        views.insert(rank);
    }
    views
}

fn pairs_table(out: &mut String, analysis: &Analysis, views: &BTreeSet<usize>) {
    let _ = writeln!(out, "<section id=\"pairs\">\n<h2>Pairs, the most similar first</h2>");
    if analysis.pairs.is_empty() {
        out.push_str(
            "<p>No two submissions share a run of code beyond the base and common code.</p>\n</section>\n",
        );
        return;
    }
    out.push_str(
        "<div class=\"table-wrap\"><table class=\"pairs\">\n<thead><tr><th class=\"num\">#</th><th>Submission A</th>\
         <th>Submission B</th><th class=\"num\">Similarity</th><th class=\"num\">A's code found in B</th>\
         <th class=\"num\">B's code found in A</th><th class=\"num\">Longest shared run</th><th>In A</th><th>In B</th>\
         <th>View</th>\
         </tr></thead>\n<tbody>\n",
    );
    let line = format!(
        "<tr class=\"line\"><td colspan=\"10\">\u{201c}Look at this\u{201d} line: similarity {}. Below it, the \
         pairs share less.</td></tr>",
        percent(analysis.settings.look_at)
    );
    let mut line_drawn = false;
    for (rank, pair) in analysis.pairs.iter().enumerate().take(MAX_ROWS) {
        if !pair.look && !line_drawn {
            line_drawn = true;
            out.push_str(&line);
            out.push('\n');
        }
        let (a, b) = (&analysis.students[pair.a], &analysis.students[pair.b]);
        let longest = pair.longest();
        let view = if views.contains(&rank) {
            format!("<a class=\"view\" href=\"#pair-{}\">side by side</a>", rank + 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} tokens</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if pair.look { "above" } else { "below" },
            rank + 1,
            who(a),
            who(b),
            percent(pair.similarity),
            percent(pair.a_fraction),
            percent(pair.b_fraction),
            longest.map_or(0, |r| r.tokens),
            longest.map_or_else(String::new, |r| code(&place(&a.files[r.a_file], r.a_lines))),
            longest.map_or_else(String::new, |r| code(&place(&b.files[r.b_file], r.b_lines))),
            view,
        );
    }
    if !line_drawn && analysis.pairs.len() <= MAX_ROWS {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("</tbody></table></div>\n");
    if analysis.pairs.len() > MAX_ROWS {
        let _ = writeln!(
            out,
            "<p>{} more pairs share less; <code>similarity.csv</code> lists them all.</p>",
            analysis.pairs.len() - MAX_ROWS
        );
    }
    out.push_str("</section>\n");
}

/// Groups of more than two students joined by pairs above the line.
fn groups(out: &mut String, analysis: &Analysis) {
    let _ = writeln!(out, "<section id=\"groups\">\n<h2>Groups of more than two</h2>");
    if analysis.clusters.is_empty() {
        out.push_str("<p>No three or more submissions are joined by pairs above the line.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<p>Submissions joined by pairs above the line, directly or through another member: a shared source, \
         or code passed along. Each pair inside a group is listed with its similarity.</p>\n<ul class=\"groups\">\n",
    );
    for members in &analysis.clusters {
        let names: Vec<String> = members.iter().map(|&i| who(&analysis.students[i])).collect();
        let inside: Vec<String> = analysis
            .pairs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.look && members.contains(&p.a) && members.contains(&p.b))
            .map(|(rank, p)| {
                format!(
                    "<a href=\"#pair-{}\">{} and {}</a> {}",
                    rank + 1,
                    text(&analysis.students[p.a].id),
                    text(&analysis.students[p.b].id),
                    percent(p.similarity)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<li><strong>{} submissions</strong>: {}<br><span class=\"inside\">{}</span></li>",
            members.len(),
            names.join(", "),
            inside.join("; ")
        );
    }
    out.push_str("</ul>\n</section>\n");
}

/// Students any of whose files were not compared, and why.
fn students(out: &mut String, analysis: &Analysis) {
    let _ = writeln!(out, "<section id=\"students\">\n<h2>Students</h2>");
    let noted: Vec<&Student> = analysis.students.iter().filter(|s| s.note.is_some()).collect();
    let tokens: Vec<usize> = analysis.students.iter().map(|s| s.own_tokens()).filter(|&n| n > 0).collect();
    if !tokens.is_empty() {
        let mut sorted = tokens.clone();
        sorted.sort_unstable();
        let _ = writeln!(
            out,
            "<p>Own code per submission (tokens, base code left out): median {}, from {} to {}.</p>",
            sorted[sorted.len() / 2],
            sorted[0],
            sorted[sorted.len() - 1]
        );
    }
    if noted.is_empty() {
        out.push_str("<p>Every submission was compared whole.</p>\n</section>\n");
        return;
    }
    out.push_str("<ul>\n");
    for student in noted {
        let _ =
            writeln!(out, "<li>{}: {}</li>", who(student), text(student.note.as_deref().unwrap_or_default()));
    }
    out.push_str("</ul>\n</section>\n");
}

/// One pair side by side.
fn view(out: &mut String, analysis: &Analysis, submissions: &[Submission], rank: usize) {
    let pair = &analysis.pairs[rank];
    let (a, b) = (&analysis.students[pair.a], &analysis.students[pair.b]);
    let id = rank + 1;
    let _ = writeln!(
        out,
        "<section class=\"pair\" id=\"pair-{id}\">\n<h3>{id}. {} and {}: similarity {}</h3>",
        who(a),
        who(b),
        percent(pair.similarity)
    );
    let _ = writeln!(
        out,
        "<p>{} of {}'s own code ({} tokens) lies in runs also found in {}'s, and {} of {}'s in runs also found \
         in {}'s: {} shared regions, the longest {} tokens. Each region has the same colour and number on both \
         sides; click a highlighted line to go to its match.</p>",
        percent(pair.a_fraction),
        text(&a.id),
        a.own_tokens(),
        text(&b.id),
        percent(pair.b_fraction),
        text(&b.id),
        text(&a.id),
        pair.regions.len(),
        pair.longest().map_or(0, |r| r.tokens)
    );
    out.push_str("<div class=\"sides\">\n");
    let numbered = regions_in_order(pair);
    side(out, id, 'a', a, &submissions[pair.a].files, &numbered);
    side(out, id, 'b', b, &submissions[pair.b].files, &numbered);
    out.push_str("</div>\n</section>\n");
}

/// One side of a pair's view: each compared file with its lines, the shared regions highlighted.
fn side(
    out: &mut String,
    id: usize,
    which: char,
    student: &Student,
    files: &[SourceFile],
    numbered: &[&Region],
) {
    let other = if which == 'a' { 'b' } else { 'a' };
    let _ = writeln!(out, "<div class=\"side\">\n<h4>{}</h4>", who(student));
    let side_of = |r: &Region| if which == 'a' { r.a_file } else { r.b_file };
    let shared: BTreeSet<usize> = numbered.iter().map(|r| side_of(r)).collect();
    let unshared: Vec<String> = (0..student.files.len())
        .filter(|i| !shared.contains(i))
        .map(|i| format!("<code>{}</code>", text(&student.files[i])))
        .collect();
    if !unshared.is_empty() {
        let _ = writeln!(out, "<p class=\"unshared\">No shared region in {}.</p>", unshared.join(", "));
    }
    for (index, name) in student.files.iter().enumerate().filter(|(i, _)| shared.contains(i)) {
        let Some(file) = files.iter().find(|f| f.name == *name) else { continue };
        // Each line's region: the first region (in the numbering) that covers it.
        let mut region_of: BTreeMap<u32, usize> = BTreeMap::new();
        let mut starts: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (n, region) in numbered.iter().enumerate() {
            let (in_file, (first, last)) =
                if which == 'a' { (region.a_file, region.a_lines) } else { (region.b_file, region.b_lines) };
            if in_file != index {
                continue;
            }
            starts.entry(first).or_default().push(n + 1);
            for line in first..=last {
                region_of.entry(line).or_insert(n + 1);
            }
        }
        let _ = writeln!(out, "<h5>{}</h5>\n<pre class=\"code\">", text(&file.name));
        let source = String::from_utf8_lossy(&file.content);
        let total = source.lines().count();
        for (i, line) in source.lines().enumerate().take(MAX_LINES) {
            let number = i as u32 + 1;
            for n in starts.get(&number).into_iter().flatten() {
                let _ = write!(out, "<span class=\"anchor\" id=\"p{id}-{which}-r{n}\"></span>");
            }
            let shown = escape_html(&inert(line, BLOCK_LINE));
            match region_of.get(&number) {
                Some(&n) => {
                    // A block: it ends its line, no line break after it.
                    let _ = write!(
                        out,
                        "<a class=\"r r{}\" href=\"#p{id}-{other}-r{n}\" title=\"region {n}\"><span class=\"n\">{number}</span>\
                         <span class=\"tag\">{n}</span>{shown}</a>",
                        n % COLOURS
                    );
                }
                None => {
                    let _ =
                        writeln!(out, "<span class=\"n\">{number}</span><span class=\"tag\"></span>{shown}");
                }
            }
        }
        if total > MAX_LINES {
            let _ = writeln!(
                out,
                "<span class=\"n\"></span><span class=\"tag\"></span>({} more lines not shown)",
                total - MAX_LINES
            );
        }
        out.push_str("</pre>\n");
    }
    out.push_str("</div>\n");
}

/// A student as the page names them: the id, and the name in brackets where known.
fn who(student: &Student) -> String {
    match &student.name {
        Some(name) => format!("<span class=\"who\">{}</span> ({})", text(&student.id), text(name)),
        None => format!("<span class=\"who\">{}</span>", text(&student.id)),
    }
}

/// One-line text a student may control, escaped for HTML with its controls made visible.
fn text(value: &str) -> String {
    escape_html(&inert(value, ONE_LINE))
}

fn code(value: &str) -> String {
    format!("<code>{}</code>", text(value))
}

fn percent(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}
