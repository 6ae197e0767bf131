//! The audit as text, for a terminal or a file: the score, the scores per operator and category,
//! the survivors as diffs grouped by function, the cases, the costs.

use std::fmt::Write as _;

use super::report::{show_percent, AuditReport, CaseLine, Kill, MutantOutcome, MutantStatus, Totals};

/// Renders the report as text for a terminal or a file: the score, the scores per operator and
/// category, the survivors as diffs grouped by function, the cases, the costs.
pub fn render_text(report: &AuditReport) -> String {
    let clean = |text: &str| crate::report::escape::inert(text, &[]);
    let mut out = String::new();
    let t = &report.totals;
    let _ = writeln!(out, "Mutation audit of {} ({})", clean(&report.title), clean(&report.assignment));
    let _ = writeln!(
        out,
        "fixture {}; mutants: {}; seed {}; {} jobs; containment {}; {:.1} s",
        clean(&report.fixture),
        clean(&report.source),
        report.seed,
        report.jobs,
        report.containment,
        report.seconds
    );
    if !report.only.is_empty() {
        let _ = writeln!(out, "cases: only {}", clean(&report.only.join(", ")));
    }
    let _ = writeln!(
        out,
        "correct program: {:.2} / {:.2}{}",
        report.baseline.score,
        report.baseline.max_score,
        if report.baseline.not_full_marks.is_empty() {
            String::new()
        } else {
            format!(" (not full marks on {})", clean(&report.baseline.not_full_marks.join(", ")))
        }
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "Score: {}", score_words(t));
    let _ = writeln!(
        out,
        "{} mutants made, {} graded: {} killed, {} survived, {} equivalent, {} unobservable, {} did not build, \
         {} grader errors",
        t.generated, t.sampled, t.killed, t.survived, t.equivalent, t.unobservable, t.not_built, t.errors
    );
    if report.sanitize {
        let _ = writeln!(out, "{}", sanitize_note(report));
    }
    let unreached: std::collections::BTreeSet<String> = report.unreached.iter().cloned().collect();
    for note in plan_notes(report.left_out_by_case, &unreached) {
        let _ = writeln!(out, "{}", clean(&note));
    }
    if !report.audit_limits.is_empty() {
        let walls: Vec<u64> = report.audit_limits.iter().map(|l| l.wall_ms).collect();
        let _ = writeln!(
            out,
            "limits: {} cases ran the mutants under tighter wall-clock limits ({}-{} ms: {}x the correct \
             program's time, at least {} ms; --own-limits keeps the cases' own)",
            report.audit_limits.len(),
            walls.iter().min().unwrap_or(&0),
            walls.iter().max().unwrap_or(&0),
            super::run::AUDIT_WALL_FACTOR,
            super::run::AUDIT_WALL_FLOOR.as_millis()
        );
    }
    if report.regraded > 0 {
        let _ = writeln!(out, "{}", super::run::regraded_note(report.regraded));
    }

    let _ = writeln!(out, "\nBy operator:");
    for line in &report.operators {
        let _ = writeln!(out, "  {:<18} {}", line.operator.name(), totals_line(&line.totals));
    }

    let _ = writeln!(
        out,
        "\nBy category (kills: built mutants its cases kill; score: over the functions it grades):"
    );
    for c in &report.categories {
        let functions = if c.functions.is_empty() {
            "grades no known function".to_owned()
        } else {
            format!(
                "{}: {}",
                clean(&c.functions.join(", ")),
                c.totals.as_ref().map(totals_line).unwrap_or_default()
            )
        };
        let _ =
            writeln!(out, "  {:<16} {:>4} cases, kills {:>4}; {functions}", clean(&c.id), c.cases, c.kills);
    }

    let _ = writeln!(out, "\nFunctions no category is known to grade (their mutants are not checked for cost outside their category):");
    let unmapped = report.unmapped_functions();
    if unmapped.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for f in unmapped {
        let _ = writeln!(out, "  {}: {}", clean(&f.categories.function), clean(&f.categories.how));
    }

    let _ = writeln!(
        out,
        "\nSurvivors (defects no case notices, or mutants to mark in the README: equivalent, or unobservable):"
    );
    let survivors = report.by_function(MutantStatus::Survived);
    if survivors.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for (function, list) in survivors {
        let _ = writeln!(out, "  {} ({} survivors)", clean(function), list.len());
        for o in list {
            mutant_block(&mut out, o, "    ");
        }
    }
    for (status, heading) in [
        (MutantStatus::Equivalent, "Marked equivalent in the README"),
        (
            MutantStatus::Unobservable,
            "Marked unobservable in the README (no case may show them: undefined behaviour, or what the \
             handout leaves open)",
        ),
    ] {
        let marked = report.by_function(status);
        if marked.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{heading}:");
        for (function, list) in marked {
            for o in list {
                let _ = writeln!(
                    out,
                    "  {} {}:{} {}: {}",
                    o.mutant.id,
                    clean(&o.mutant.file),
                    o.mutant.line,
                    clean(function),
                    clean(o.reason.as_deref().unwrap_or(""))
                );
            }
        }
    }
    for (ids, what) in mark_notes(report) {
        let _ = writeln!(out, "\n{what}: {}", ids.join(", "));
    }
    if report.sanitize {
        let killed = killed_by_sanitizer(report);
        let _ = writeln!(out, "\nKilled by a sanitizer's report ({}):", killed.len());
        for (o, kill) in killed {
            let _ = writeln!(
                out,
                "  {} {}:{} {} in {}: {}",
                o.mutant.id,
                clean(&o.mutant.file),
                o.mutant.line,
                clean(&o.mutant.function),
                clean(&kill.case),
                clean(kill.sanitizer.as_deref().unwrap_or_default())
            );
        }
    }

    let _ = writeln!(out, "\nCases that kill no mutant:");
    list_cases(&mut out, &report.cases_killing_nothing());
    let _ = writeln!(out, "\nCases that kill only mutants other cases kill too:");
    list_cases(&mut out, &report.cases_killing_only_what_others_kill());

    let c = &report.cost;
    let _ = writeln!(
        out,
        "\nWhat a single defect costs (points lost per killed mutant, share of {:.2}):",
        report.baseline.max_score
    );
    for bin in &c.bins {
        let _ = writeln!(out, "  {:<9} {:>4}", bin.label, bin.mutants);
    }
    let show = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
    let _ = writeln!(out, "  median {}, mean {}, largest {}", show(c.median), show(c.mean), show(c.max));
    let _ = writeln!(out, "\nMutants losing more than a quarter of the total ({}):", c.over_a_quarter.len());
    for id in &c.over_a_quarter {
        if let Some(o) = report.mutant(id) {
            mutant_block(&mut out, o, "  ");
        }
    }
    let _ = writeln!(
        out,
        "\nMutants charged outside the categories of their function ({}; {} killed mutants in functions of no known category not checked):",
        c.outside_their_category.len(),
        c.killed_in_unmapped_functions
    );
    for id in &c.outside_their_category {
        if let Some(o) = report.mutant(id) {
            mutant_block(&mut out, o, "  ");
        }
    }
    out
}

/// What the sample left out or put last: mutants of functions only categories outside `--case`
/// grade, and the functions nothing reaches.
pub(super) fn plan_notes(
    left_out_by_case: usize,
    unreached: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if left_out_by_case > 0 {
        notes.push(format!(
            "--case: {left_out_by_case} mutants left out, of functions that only other categories grade"
        ));
    }
    if !unreached.is_empty() {
        let names: Vec<&str> = unreached.iter().map(String::as_str).collect();
        notes.push(format!(
            "sampled last (no entry point, graded function or initial value reaches them): {}",
            names.join(", ")
        ));
    }
    notes
}

/// The three scores in words, each saying what it is over: `7 killed / 8 built = 87.5%; 100.0%
/// without the 1 equivalent (the 0 unobservable counted as survivors); 100.0% without the
/// equivalent and the 0 unobservable (the score the cases are held to)`.
pub(super) fn score_words(t: &Totals) -> String {
    format!(
        "{} killed / {} built = {}; {} without the {} equivalent (the {} unobservable counted as survivors); \
         {} without the equivalent and the {} unobservable (the score the cases are held to)",
        t.killed,
        t.built,
        show_percent(t.score),
        show_percent(t.score_without_equivalent),
        t.equivalent,
        t.unobservable,
        show_percent(t.score_without_equivalent_or_unobservable),
        t.unobservable
    )
}

/// What `--sanitize` did, in a line.
pub(super) fn sanitize_note(report: &AuditReport) -> String {
    format!(
        "sanitizers (--sanitize: {}): {} of the {} killed mutants were killed by a sanitizer's report; {} marked \
         unobservable are killed in this build",
        super::sanitize::FLAGS.join(" "),
        report.totals.killed_by_sanitizer,
        report.totals.killed,
        report.unobservable_killed_by_sanitizer.len()
    )
}

/// The killed mutants a sanitizer's report killed, each with the first case whose run had one.
pub(super) fn killed_by_sanitizer(report: &AuditReport) -> Vec<(&MutantOutcome, &Kill)> {
    report
        .mutants
        .iter()
        .filter(|o| o.status == MutantStatus::Killed)
        .filter_map(|o| Some((o, o.killed_by.iter().find(|k| k.sanitizer.is_some())?)))
        .collect()
}

/// The README's marks that this audit contradicts or did not meet: `(ids, what)`, the empty ones left out.
pub(super) fn mark_notes(report: &AuditReport) -> Vec<(Vec<String>, &'static str)> {
    let by_sanitizer =
        |id: &String| report.mutant(id).is_some_and(|o| o.killed_by.iter().any(|k| k.sanitizer.is_some()));
    let (sanitized, wrong): (Vec<String>, Vec<String>) =
        report.equivalent_but_killed.iter().cloned().partition(by_sanitizer);
    [
        (wrong, "Marked equivalent but killed (wrong marks)"),
        (sanitized, "Marked equivalent but a sanitizer reports undefined behaviour (mark them unobservable)"),
        (
            report.equivalent_not_seen.clone(),
            "Marked equivalent but not among these mutants (stale, or not sampled)",
        ),
        (
            report.unobservable_but_killed.clone(),
            "Marked unobservable but killed with no sanitizer's report (wrong marks)",
        ),
        (
            report.unobservable_killed_by_sanitizer.clone(),
            "Marked unobservable and killed in the sanitizer build (--sanitize: the marks are right)",
        ),
        (
            report.unobservable_not_seen.clone(),
            "Marked unobservable but not among these mutants (stale, or not sampled)",
        ),
    ]
    .into_iter()
    .filter(|(ids, _)| !ids.is_empty())
    .collect()
}

fn totals_line(t: &Totals) -> String {
    format!(
        "{:>4} built, {:>4} killed, {:>3} survived, {:>3} equivalent, {:>3} unobservable, {:>3} not built: {} \
         ({} without equivalents; {} without unobservable too)",
        t.built,
        t.killed,
        t.survived,
        t.equivalent,
        t.unobservable,
        t.not_built,
        show_percent(t.score),
        show_percent(t.score_without_equivalent),
        show_percent(t.score_without_equivalent_or_unobservable)
    )
}

fn list_cases(out: &mut String, cases: &[&CaseLine]) {
    if cases.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for c in cases {
        let _ = writeln!(out, "  {} ({} kills)", crate::report::escape::inert(&c.id, &[]), c.kills);
    }
}

/// A mutant as a few lines: where, what, what it cost, and its diff.
fn mutant_block(out: &mut String, o: &MutantOutcome, indent: &str) {
    let clean = |text: &str| crate::report::escape::inert(text, &[]);
    let m = &o.mutant;
    let mut what = format!(
        "{indent}{} {}:{} in {} ({})",
        m.id,
        clean(&m.file),
        m.line,
        clean(&m.function),
        m.operator.name()
    );
    if o.status == MutantStatus::Killed {
        let charged: Vec<String> =
            o.charged.iter().map(|c| format!("{} {:.2}", clean(&c.category), c.points)).collect();
        let _ = write!(what, ": loses {:.2} ({:.1}%): {}", o.points_lost, o.percent_lost, charged.join(", "));
        if !o.outside.is_empty() {
            let _ = write!(what, "; outside its function's categories: {}", clean(&o.outside.join(", ")));
        }
        if let Some(kill) = o.killed_by.iter().find(|k| k.sanitizer.is_some()) {
            let line = kill.sanitizer.as_deref().unwrap_or_default();
            let _ = write!(what, "; sanitizer in {}: {}", clean(&kill.case), clean(line));
        }
    }
    let _ = writeln!(out, "{what}");
    for line in m.diff.lines() {
        let _ = writeln!(out, "{indent}  {}", crate::report::escape::inert(line, &['\t']));
    }
}
