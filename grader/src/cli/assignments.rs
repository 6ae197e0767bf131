//! The commands over the assignments themselves: `bless` (their expected outputs) and `list`.

use std::io::Write;

use super::*;

fn selected_ids(cases: &Path, assignment: Option<&str>) -> anyhow::Result<Vec<String>> {
    Ok(match assignment {
        Some(id) => vec![id.to_owned()],
        None => load::assignment_ids(cases)?,
    })
}

pub(super) fn bless(
    cases: &Path,
    assignment: Option<&str>,
    check: bool,
    cache: &BuildCache,
    containment: Containment,
) -> anyhow::Result<u8> {
    let mut out = anstream::stdout();
    let mut stale_total = 0;
    for name in selected_ids(cases, assignment)? {
        let assignment = load_assignment(cases, &name)?;
        let id = &assignment.id;
        let outcome = crate::bless::bless_all(&assignment, check, cache, containment)?;
        for path in &outcome.stale {
            let verb = if check { "stale" } else { "wrote" };
            writeln!(out, "{verb} {}", path.display())?;
        }
        writeln!(
            out,
            "{id}: {} expected outputs fresh, {} {}",
            outcome.fresh,
            outcome.stale.len(),
            if check { "stale" } else { "written" }
        )?;
        stale_total += outcome.stale.len();
    }
    if check && stale_total > 0 {
        writeln!(out, "run `grader bless` to regenerate them")?;
        return Ok(EXIT_FAILED);
    }
    Ok(EXIT_OK)
}

pub(super) fn list(cases: &Path, assignment: Option<&str>) -> anyhow::Result<u8> {
    let mut out = anstream::stdout();
    for name in selected_ids(cases, assignment)? {
        let a = load_assignment(cases, &name)?;
        let handout = a.handout.as_deref().map(|h| format!(" (handout {h})")).unwrap_or_default();
        writeln!(out, "{}  {}{handout}", a.id, a.title)?;
        for c in &a.categories {
            let n = a.cases.iter().filter(|k| k.category == c.id).count();
            let mut how = match (c.manual, n) {
                (true, _) => "graded by hand".to_owned(),
                (false, 1) => "1 case".to_owned(),
                (false, n) => format!("{n} cases"),
            };
            if c.bonus {
                how.push_str(", bonus (not in the max)");
            }
            // A package's points shared over its cases are no round numbers: two decimals, as reports.
            let points =
                if c.points.fract() == 0.0 { c.points.to_string() } else { format!("{:.2}", c.points) };
            writeln!(out, "  {:<18} {points:>5} points  {how}  {}", c.id, c.title)?;
        }
        for case in &a.cases {
            let vis = match case.visibility {
                load::Visibility::Visible => "visible",
                load::Visibility::Hidden => "hidden",
            };
            let kind = match case.kind {
                load::CaseKind::Transcript => "transcript",
                load::CaseKind::Unit => "unit",
                load::CaseKind::Interactive => "interactive",
            };
            writeln!(out, "    {:<48} {kind:<10} {vis:<7} {}", case.id, case.title)?;
        }
    }
    Ok(EXIT_OK)
}
