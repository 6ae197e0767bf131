//! The audit as one self-contained HTML page (inline style and SVG, no script, no external resource),
//! in the style of the class page: the score, the survivors as diffs and the cases worth adding (the
//! equivalent mutants folded away), the costs, then the tables. Long paths and lines wrap (a phone).

use std::fmt::Write as _;

use super::report::{show_percent, AuditReport, MutantOutcome, MutantStatus, Totals};

/// The page's style: the class page's, with diffs.
const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}h3{font-size:1.05rem;margin-bottom:.25rem}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.note{display:block;color:#555;font-size:.85em}
pre.diff{background:#f7f7f7;border:1px solid #ddd;padding:.4rem .6rem;margin:.25rem 0 .75rem;white-space:pre-wrap;overflow-wrap:anywhere}
code,td{overflow-wrap:anywhere}
summary{cursor:pointer;font-weight:600;margin:.75rem 0 .25rem}
.del{color:#a11}.add{color:#176117}
.bar-track{fill:#e4e4e4}.bar-fill{fill:#4a78b5}
.score{font-size:1.2rem}
";

/// Width of a bar, in SVG user units.
const BAR: f64 = 160.0;

/// Renders the report as one HTML page. Every piece of text is escaped.
pub fn render_html(report: &AuditReport) -> String {
    let title = format!("{} ({}): mutation audit of the cases", report.title, report.assignment);
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(&title));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    // What asks for work first: the defects no case notices and the cases worth adding or dropping;
    // the tables after.
    summary(&mut out, report);
    survivors(&mut out, report);
    cases(&mut out, report);
    costs(&mut out, report);
    operators(&mut out, report);
    categories(&mut out, report);
    functions(&mut out, report);
    out.push_str("</body>\n</html>\n");
    out
}

fn summary(out: &mut String, report: &AuditReport) {
    let t = &report.totals;
    let _ = writeln!(
        out,
        "<p class=\"score\">Mutation score: <strong>{}</strong> ({} killed of {} built); {} without the {} \
         marked equivalent (the {} unobservable counted as survivors); <strong>{}</strong> without the \
         equivalent and the {} unobservable (the score the cases are held to).</p>",
        escape(&show_percent(t.score)),
        t.killed,
        t.built,
        escape(&show_percent(t.score_without_equivalent)),
        t.equivalent,
        t.unobservable,
        escape(&show_percent(t.score_without_equivalent_or_unobservable)),
        t.unobservable
    );
    let mut facts = vec![
        format!("Fixture {}", report.fixture),
        format!("mutants {}", report.source),
        format!(
            "{} made, {} graded: {} killed, {} survived, {} equivalent, {} unobservable, {} did not build, {} \
             grader errors",
            t.generated, t.sampled, t.killed, t.survived, t.equivalent, t.unobservable, t.not_built, t.errors
        ),
        format!(
            "seed {}, {} jobs, containment {}, {:.1} s",
            report.seed, report.jobs, report.containment, report.seconds
        ),
        format!("the correct program scores {:.2} / {:.2}", report.baseline.score, report.baseline.max_score),
    ];
    if !report.only.is_empty() {
        facts.push(format!("only the cases {}", report.only.join(", ")));
    }
    let unreached: std::collections::BTreeSet<String> = report.unreached.iter().cloned().collect();
    facts.extend(super::text::plan_notes(report.left_out_by_case, &unreached));
    if !report.audit_limits.is_empty() {
        facts.push(format!(
            "{} cases ran the mutants under tighter wall-clock limits ({}x the correct program's time, at least {} ms)",
            report.audit_limits.len(),
            super::run::AUDIT_WALL_FACTOR,
            super::run::AUDIT_WALL_FLOOR.as_millis()
        ));
    }
    if report.regraded > 0 {
        facts.push(super::run::regraded_note(report.regraded));
    }
    if report.sanitize {
        facts.push(super::text::sanitize_note(report));
    }
    let _ = writeln!(out, "<p>{}.</p>", escape(&facts.join("; ")));
}

fn totals_cells(out: &mut String, t: &Totals) {
    let _ = write!(
        out,
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td>{}</td>",
        t.built,
        t.killed,
        t.survived,
        t.equivalent,
        t.unobservable,
        t.not_built,
        escape(&show_percent(t.score)),
        escape(&show_percent(t.score_without_equivalent)),
        escape(&show_percent(t.score_without_equivalent_or_unobservable)),
        bar(t.score_without_equivalent_or_unobservable.unwrap_or(0.0) / 100.0)
    );
}

const TOTALS_HEAD: &str =
    "<th class=\"num\">Built</th><th class=\"num\">Killed</th><th class=\"num\">Survived</th>\
    <th class=\"num\">Equivalent</th><th class=\"num\">Unobservable</th><th class=\"num\">Not built</th>\
    <th class=\"num\">Score</th><th class=\"num\">Without equivalents</th>\
    <th class=\"num\">Without unobservable too</th><th>Bar</th>";

fn bar(fraction: f64) -> String {
    let fill = BAR * fraction.clamp(0.0, 1.0);
    format!(
        "<svg width=\"{BAR}\" height=\"10\" viewBox=\"0 0 {BAR} 10\" aria-hidden=\"true\">\
         <rect class=\"bar-track\" width=\"{BAR}\" height=\"10\"></rect>\
         <rect class=\"bar-fill\" width=\"{fill:.1}\" height=\"10\"></rect></svg>"
    )
}

fn operators(out: &mut String, report: &AuditReport) {
    out.push_str("<section>\n<h2>By operator</h2>\n");
    let _ = writeln!(out, "<table>\n<thead><tr><th>Operator</th>{TOTALS_HEAD}</tr></thead>\n<tbody>");
    for line in &report.operators {
        let _ = write!(out, "<tr><td>{}</td>", escape(line.operator.name()));
        totals_cells(out, &line.totals);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn categories(out: &mut String, report: &AuditReport) {
    out.push_str("<section>\n<h2>By category</h2>\n");
    out.push_str(
        "<p>Kills: the built mutants some case of the category kills. The score is over the mutants of the \
         functions the category grades.</p>\n",
    );
    let _ = writeln!(
        out,
        "<table>\n<thead><tr><th>Category</th><th class=\"num\">Cases</th><th class=\"num\">Kills</th>\
         <th>Functions</th>{TOTALS_HEAD}</tr></thead>\n<tbody>"
    );
    for c in &report.categories {
        let _ = write!(
            out,
            "<tr><td>{}<span class=\"note\">{}</span></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>",
            escape(&c.id),
            escape(&c.title),
            c.cases,
            c.kills,
            if c.functions.is_empty() { "none known".to_owned() } else { escape(&c.functions.join(", ")) }
        );
        match &c.totals {
            Some(t) => totals_cells(out, t),
            None => out.push_str("<td colspan=\"10\"></td>"),
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn diff(out: &mut String, text: &str) {
    out.push_str("<pre class=\"diff\">");
    for line in text.lines() {
        let class = if line.starts_with('-') { "del" } else { "add" };
        let _ = writeln!(out, "<span class=\"{class}\">{}</span>", escape(line));
    }
    out.push_str("</pre>\n");
}

fn mutant_heading(out: &mut String, o: &MutantOutcome) {
    let m = &o.mutant;
    let mut words = format!("{} {}:{} in {} ({})", m.id, m.file, m.line, m.function, m.operator.name());
    if o.status == MutantStatus::Killed {
        let charged: Vec<String> =
            o.charged.iter().map(|c| format!("{} {:.2}", c.category, c.points)).collect();
        words.push_str(&format!(
            ": loses {:.2} ({:.1}%): {}",
            o.points_lost,
            o.percent_lost,
            charged.join(", ")
        ));
        if !o.outside.is_empty() {
            words.push_str(&format!("; outside its function's categories: {}", o.outside.join(", ")));
        }
    }
    if let (MutantStatus::Equivalent | MutantStatus::Unobservable, Some(reason)) = (o.status, &o.reason) {
        words.push_str(&format!(": {reason}"));
    }
    let _ = writeln!(out, "<p><code>{}</code></p>", escape(&words));
}

fn survivors(out: &mut String, report: &AuditReport) {
    out.push_str("<section>\n<h2>Survivors</h2>\n");
    out.push_str(
        "<p>Defects no case notices, or mutants to mark in the cases README: equivalent ones in its \
         <code>audit-equivalent</code> block, those that differ only through undefined behaviour or in what \
         the handout leaves open in its <code>audit-unobservable</code> block (the id and a one-line reason).</p>\n",
    );
    let groups = report.by_function(MutantStatus::Survived);
    if groups.is_empty() {
        out.push_str("<p>None.</p>\n");
    }
    for (function, list) in groups {
        let _ = writeln!(out, "<h3>{} ({} survivors)</h3>", escape(function), list.len());
        for o in list {
            mutant_heading(out, o);
            diff(out, &o.mutant.diff);
        }
    }
    // Settled already: folded away, one click to read, each kind under its own heading.
    for (status, heading, what) in [
        (MutantStatus::Equivalent, "Marked equivalent", ""),
        (
            MutantStatus::Unobservable,
            "Marked unobservable",
            "No case may show them: they differ only through undefined behaviour or in what the handout \
             leaves open.",
        ),
    ] {
        let marked: Vec<&MutantOutcome> =
            report.by_function(status).into_iter().flat_map(|(_, list)| list).collect();
        if marked.is_empty() {
            continue;
        }
        let _ = writeln!(out, "<details>\n<summary>{heading} ({})</summary>", marked.len());
        if !what.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", escape(what));
        }
        for o in marked {
            mutant_heading(out, o);
        }
        out.push_str("</details>\n");
    }
    if report.sanitize {
        let killed = super::text::killed_by_sanitizer(report);
        let _ =
            writeln!(out, "<details>\n<summary>Killed by a sanitizer's report ({})</summary>", killed.len());
        for (o, kill) in killed {
            let line = format!(
                "{} {}:{} in {}: {}: {}",
                o.mutant.id,
                o.mutant.file,
                o.mutant.line,
                o.mutant.function,
                kill.case,
                kill.sanitizer.as_deref().unwrap_or_default()
            );
            let _ = writeln!(out, "<p><code>{}</code></p>", escape(&line));
            diff(out, &o.mutant.diff);
        }
        out.push_str("</details>\n");
    }
    for (ids, what) in super::text::mark_notes(report) {
        let _ = writeln!(out, "<p>{}: {}.</p>", escape(what), escape(&ids.join(", ")));
    }
    out.push_str("</section>\n");
}

fn cases(out: &mut String, report: &AuditReport) {
    out.push_str("<section>\n<h2>Cases</h2>\n");
    for (list, what) in [
        (report.cases_killing_nothing(), "Cases that kill no mutant"),
        (report.cases_killing_only_what_others_kill(), "Cases that kill only mutants other cases kill too"),
    ] {
        let ids: Vec<&str> = list.iter().map(|c| c.id.as_str()).collect();
        let _ = writeln!(
            out,
            "<p>{} ({}): {}.</p>",
            escape(what),
            ids.len(),
            if ids.is_empty() { "none".to_owned() } else { escape(&ids.join(", ")) }
        );
    }
    let most = report.cases.iter().map(|c| c.kills).max().unwrap_or(0).max(1);
    out.push_str(
        "<table>\n<thead><tr><th>Case</th><th>Category</th><th class=\"num\">Kills</th>\
         <th class=\"num\">Only it kills</th><th>Bar</th></tr></thead>\n<tbody>\n",
    );
    for c in &report.cases {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&c.id),
            escape(&c.category),
            c.kills,
            c.only_it_kills,
            bar(c.kills as f64 / most as f64)
        );
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

fn costs(out: &mut String, report: &AuditReport) {
    let c = &report.cost;
    out.push_str("<section>\n<h2>What a single defect costs</h2>\n");
    let show = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
    let _ = writeln!(
        out,
        "<p>Points lost per killed mutant, as a share of {:.2}: median {}, mean {}, largest {}.</p>",
        report.baseline.max_score,
        escape(&show(c.median)),
        escape(&show(c.mean)),
        escape(&show(c.max))
    );
    let most = c.bins.iter().map(|b| b.mutants).max().unwrap_or(0).max(1);
    out.push_str("<table>\n<thead><tr><th>Share lost</th><th class=\"num\">Mutants</th><th>Bar</th></tr></thead>\n<tbody>\n");
    for bin in &c.bins {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&bin.label),
            bin.mutants,
            bar(bin.mutants as f64 / most as f64)
        );
    }
    out.push_str("</tbody>\n</table>\n");
    let _ = writeln!(out, "<h3>Losing more than a quarter of the total ({})</h3>", c.over_a_quarter.len());
    for o in c.over_a_quarter.iter().filter_map(|id| report.mutant(id)) {
        mutant_heading(out, o);
        diff(out, &o.mutant.diff);
    }
    let _ = writeln!(
        out,
        "<h3>Charged outside the categories of their function ({})</h3>\n<p>{} killed mutants in functions \
         no category is known to grade are not checked.</p>",
        c.outside_their_category.len(),
        c.killed_in_unmapped_functions
    );
    for o in c.outside_their_category.iter().filter_map(|id| report.mutant(id)) {
        mutant_heading(out, o);
        diff(out, &o.mutant.diff);
    }
    out.push_str("</section>\n");
}

fn functions(out: &mut String, report: &AuditReport) {
    out.push_str("<section>\n<h2>Functions and their categories</h2>\n");
    let _ = writeln!(
        out,
        "<table>\n<thead><tr><th>Function</th><th>Categories</th><th>How known</th>{TOTALS_HEAD}</tr></thead>\n<tbody>"
    );
    for f in &report.functions {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td>",
            escape(&f.categories.function),
            if f.categories.categories.is_empty() {
                "none known".to_owned()
            } else {
                escape(&f.categories.categories.join(", "))
            },
            escape(&f.categories.how)
        );
        totals_cells(out, &f.totals);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// Escapes text for HTML element content and quoted attribute values (`& < > " '`), with control
/// characters written visibly (a source file's bytes are the student's).
fn escape(text: &str) -> String {
    crate::gradebook::escape_html(&crate::report::escape::inert(text, &['\t', '\n']))
}
