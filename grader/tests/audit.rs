//! `grader audit` on a tiny assignment whose answers are known by hand: one function, `twice`, whose
//! eight mutants (four arithmetic operators, three constants, one constant return) the cases kill
//! or miss as worked out below; equivalent and unobservable mutants marked in its README; another
//! tool's mutants; sanitizer builds that kill a write out of bounds; and an audit that leaves
//! nothing behind. Also how Trouble's functions map to its categories.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use grader::audit::marks::{function_categories, Marks};
use grader::audit::mutate::{functions_of, mutate_file, Operator};
use grader::audit::report::MutantStatus;
use grader::audit::{audit, AuditOptions, AuditReport};
use grader::build::BuildCache;
use grader::grade::GradeOptions;

/// The function under audit: every mutant of it is listed in the test below.
const TWICE: &str = "int twice(int x) {\n    return x * 2;\n}\n";

/// The assignment's own main (its `{assignment}/main.c`), so that the submission is `twice` alone.
const MAIN: &str = "#include <stdio.h>\nint twice(int x);\nint main(void) {\n    int x;\n    \
    if (scanf(\"%d\", &x) != 1) {\n        printf(\"no number\\n\");\n        return 0;\n    }\n    \
    printf(\"%d\\n\", twice(x));\n    return 0;\n}\n";

/// Writes `cases/tiny/` (two categories: `twice` with the case `two`, worth 10; `other` with
/// `two-again` and `no-input`, 5 each) and the fixture `correct/twice.c`; returns (cases, fixture).
fn tiny(root: &Path, readme: Option<&str>) -> (PathBuf, PathBuf) {
    let cases = root.join("cases");
    let dir = cases.join("tiny");
    std::fs::create_dir_all(dir.join("twice")).unwrap();
    std::fs::create_dir_all(dir.join("other")).unwrap();
    std::fs::write(
        dir.join("assignment.toml"),
        r#"id = "tiny"
title = "Twice"

[submission]
files = ["*.c"]

[builds.program]
commands = [["gcc", "-o", "{out}", "{assignment}/main.c", "{glob:*.c}"]]
run = ["{out}"]

[limits]
wall-seconds = 10
cpu-seconds = 5

[[categories]]
id = "twice"
title = "Doubles its number"
points = 10

[[categories]]
id = "other"
title = "The rest"
points = 10
"#,
    )
    .unwrap();
    std::fs::write(dir.join("main.c"), MAIN).unwrap();
    for (case, stdin, stdout) in [
        ("twice/two", "2\n", "4\n"),
        ("other/two-again", "2\n", "4\n"),
        ("other/no-input", "x\n", "no number\n"),
    ] {
        std::fs::write(dir.join(format!("{case}.toml")), format!("title = \"{case}\"\n")).unwrap();
        std::fs::write(dir.join(format!("{case}.stdin")), stdin).unwrap();
        std::fs::write(dir.join(format!("{case}.stdout")), stdout).unwrap();
    }
    if let Some(readme) = readme {
        std::fs::write(dir.join("README.md"), readme).unwrap();
    }
    let fixture = root.join("correct");
    std::fs::create_dir_all(&fixture).unwrap();
    std::fs::write(fixture.join("twice.c"), TWICE).unwrap();
    // A root grader's compilers run as another user, who must reach the assignment's main.c.
    for folder in [root, &cases, &dir] {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (cases, fixture)
}

fn options(fixture: &Path, cache: &Path) -> AuditOptions {
    AuditOptions {
        fixture: fixture.to_owned(),
        mutants: None,
        seed: 1,
        jobs: 2,
        grade: GradeOptions::new(BuildCache::new(cache)),
        mutant_files: None,
        own_limits: false,
        sanitize: false,
        quiet: true,
    }
}

fn tiny_audit(readme: Option<&str>) -> AuditReport {
    let root = tempfile::tempdir().unwrap();
    let (cases, fixture) = tiny(root.path(), readme);
    let assignment = grader::load::load_assignment(&cases, "tiny").unwrap();
    audit(&assignment, &options(&fixture, &root.path().join("cache"))).unwrap()
}

/// The id of `twice`'s mutant `x * 2` to `x + 2`, the one no case notices (2 + 2 = 2 * 2).
fn plus_id() -> String {
    let made = mutate_file("twice.c", TWICE.as_bytes());
    let plus = made.mutants.iter().find(|m| m.operator == Operator::Arithmetic && m.replacement == "+");
    plus.unwrap().id.clone()
}

#[test]
fn an_audit_counts_what_each_case_kills_and_what_each_defect_costs() {
    let report = tiny_audit(None);
    let t = &report.totals;
    // `x * 2` to + - / %, 2 to 3, 1 and 0, `return 0`: on 2, only `x + 2` still prints 4.
    assert_eq!((t.generated, t.sampled, t.built, t.not_built), (8, 8, 8, 0));
    assert_eq!((t.killed, t.survived, t.equivalent, t.errors), (7, 1, 0, 0));
    assert_eq!((t.score, t.score_without_equivalent), (Some(87.5), Some(87.5)));
    assert_eq!((t.unobservable, t.score_without_equivalent_or_unobservable), (0, Some(87.5)));
    let survivors = report.by_function(MutantStatus::Survived);
    assert_eq!(survivors.len(), 1);
    assert_eq!(survivors[0].0, "twice");
    assert_eq!(survivors[0].1[0].mutant.id, plus_id());
    assert_eq!(survivors[0].1[0].mutant.diff, "-    return x * 2;\n+    return x + 2;\n");

    let ops: Vec<(Operator, usize, usize)> =
        report.operators.iter().map(|o| (o.operator, o.totals.built, o.totals.killed)).collect();
    assert_eq!(
        ops,
        [(Operator::Arithmetic, 4, 3), (Operator::Constant, 3, 3), (Operator::ReturnConstant, 1, 1)]
    );

    // The cases: `two` and `two-again` kill the same seven; `no-input` never calls twice.
    let kills: Vec<(&str, usize, usize)> =
        report.cases.iter().map(|c| (c.id.as_str(), c.kills, c.only_it_kills)).collect();
    assert_eq!(kills, [("other/no-input", 0, 0), ("other/two-again", 7, 0), ("twice/two", 7, 0)]);
    let ids = |cases: Vec<&grader::audit::report::CaseLine>| {
        cases.into_iter().map(|c| c.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(ids(report.cases_killing_nothing()), ["other/no-input"]);
    assert_eq!(ids(report.cases_killing_only_what_others_kill()), ["other/two-again", "twice/two"]);

    // Categories: `twice` grades the function of its name; `other` names none.
    let twice = &report.categories[0];
    assert_eq!(
        (twice.id.as_str(), twice.kills, twice.functions.clone()),
        ("twice", 7, vec!["twice".to_owned()])
    );
    assert_eq!(twice.totals.as_ref().unwrap().score, Some(87.5));
    let other = &report.categories[1];
    assert_eq!((other.kills, other.functions.len(), other.totals.is_none()), (7, 0, true));
    assert_eq!(report.functions[0].categories.how, "the category's id is its name");

    // Each killed mutant loses all of `twice` (10) and `two-again`'s half of `other` (5): 15 of 20.
    let killed: Vec<_> = report.mutants.iter().filter(|m| m.status == MutantStatus::Killed).collect();
    assert!(killed.iter().all(|m| m.points_lost == 15.0 && m.percent_lost == 75.0), "{killed:#?}");
    let charged: Vec<(&str, f64)> =
        killed[0].charged.iter().map(|c| (c.category.as_str(), c.points)).collect();
    assert_eq!(charged, [("twice", 10.0), ("other", 5.0)]);
    assert!(killed.iter().all(|m| m.outside == ["other"]));
    let cost = &report.cost;
    let bins: Vec<usize> = cost.bins.iter().map(|b| b.mutants).collect();
    assert_eq!(bins, [0, 0, 0, 0, 0, 0, 7]);
    assert_eq!((cost.median, cost.mean, cost.max), (Some(15.0), Some(15.0), Some(15.0)));
    assert_eq!((cost.over_a_quarter.len(), cost.outside_their_category.len()), (7, 7));
    assert_eq!(cost.killed_in_unmapped_functions, 0);

    // The mutants ran under the audit's limits: the floor, well under the cases' 10 s.
    assert_eq!(report.audit_limits.len(), 3);
    assert!(report
        .audit_limits
        .iter()
        .all(|l| l.wall_ms == 1000 && l.cpu_seconds == 1 && l.own_wall_ms == 10_000));

    // Every format says it; the page escapes what the source holds.
    let text = grader::audit::render_text(&report);
    assert!(text.contains("Score: 7 killed / 8 built = 87.5%"), "{text}");
    assert!(text.contains("+    return x + 2;"), "{text}");
    let json: AuditReport = serde_json::from_str(&grader::audit::render_json(&report)).unwrap();
    assert_eq!(json.totals, report.totals);
    let mut hostile = report.clone();
    hostile.mutants[0].mutant.diff = "-if (a < b) </pre><script>alert(1)</script>\n".to_owned();
    hostile.cost.over_a_quarter = vec![hostile.mutants[0].mutant.id.clone()];
    let html = grader::audit::render_html(&hostile);
    assert!(html.contains("&lt;/pre&gt;&lt;script&gt;"), "{html}");
    // What asks for work leads: the survivors and the cases before the tables.
    let at = |heading: &str| html.find(&format!("<h2>{heading}</h2>")).unwrap_or_else(|| panic!("{heading}"));
    assert!(
        at("Survivors") < at("Cases")
            && at("Cases") < at("By operator")
            && at("By operator") < at("By category")
    );
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
}

#[test]
fn a_survivor_marked_equivalent_in_the_readme_is_counted_apart() {
    let readme = format!(
        "# Tiny\n\n## Audit\n\n```audit-equivalent\n# id, then why\n{} 2 + 2 and 2 * 2 agree, and it is the only input\nror-00000000 a mark no mutant has\n```\n",
        plus_id()
    );
    let report = tiny_audit(Some(&readme));
    let t = &report.totals;
    assert_eq!((t.built, t.killed, t.survived, t.equivalent), (8, 7, 0, 1));
    assert_eq!((t.score, t.score_without_equivalent), (Some(87.5), Some(100.0)));
    assert_eq!((t.unobservable, t.score_without_equivalent_or_unobservable), (0, Some(100.0)));
    let marked = report.mutant(&plus_id()).unwrap();
    assert_eq!(marked.status, MutantStatus::Equivalent);
    assert_eq!(marked.reason.as_deref(), Some("2 + 2 and 2 * 2 agree, and it is the only input"));
    assert_eq!(report.equivalent_not_seen, ["ror-00000000"]);
    assert!(report.equivalent_but_killed.is_empty());
    // Settled: folded away on the page.
    let html = grader::audit::render_html(&report);
    assert!(html.contains("<details>\n<summary>Marked equivalent (1)</summary>"), "{html}");

    // A whole function marked (code no case reaches): its survivors are equivalent, and its killed
    // mutants say the mark is wrong.
    let report = tiny_audit(Some("```audit-equivalent\ntwice() never called\nnothing() gone\n```\n"));
    assert_eq!((report.totals.equivalent, report.totals.survived), (1, 0));
    assert_eq!(report.equivalent_but_killed.len(), 7);
    assert_eq!(report.equivalent_not_seen, ["nothing()"]);
}

#[test]
fn a_survivor_marked_unobservable_is_counted_apart_from_equivalents_and_scored_on_its_own() {
    let readme = format!(
        "# Tiny\n\n```audit-equivalent\nror-00000000 a stale equivalent mark\n```\n\n\
         ```audit-unobservable\n# id, then why no case may show it\n{} 2 + 2 and 2 * 2 agree: the handout fixes no \
         other input\nror-11111111 a stale unobservable mark\n```\n",
        plus_id()
    );
    let report = tiny_audit(Some(&readme));
    let t = &report.totals;
    assert_eq!((t.built, t.killed, t.survived, t.equivalent, t.unobservable), (8, 7, 0, 0, 1));
    // Over all built; without the equivalent (the unobservable one a survivor); without both.
    assert_eq!(
        (t.score, t.score_without_equivalent, t.score_without_equivalent_or_unobservable),
        (Some(87.5), Some(87.5), Some(100.0))
    );
    let marked = report.mutant(&plus_id()).unwrap();
    assert_eq!(marked.status, MutantStatus::Unobservable);
    assert_eq!(marked.reason.as_deref(), Some("2 + 2 and 2 * 2 agree: the handout fixes no other input"));
    assert!(report.by_function(MutantStatus::Equivalent).is_empty());
    assert_eq!(report.equivalent_not_seen, ["ror-00000000"]);
    assert_eq!(report.unobservable_not_seen, ["ror-11111111"]);
    assert!(report.unobservable_but_killed.is_empty() && report.unobservable_killed_by_sanitizer.is_empty());
    // The twice category's line counts it the same way.
    let twice = report.categories[0].totals.as_ref().unwrap();
    assert_eq!((twice.unobservable, twice.score_without_equivalent), (1, Some(87.5)));

    // Every format says each number for what it is.
    let text = grader::audit::render_text(&report);
    assert!(
        text.contains(
            "Score: 7 killed / 8 built = 87.5%; 87.5% without the 0 equivalent (the 1 unobservable counted as \
             survivors); 100.0% without the equivalent and the 1 unobservable (the score the cases are held to)"
        ),
        "{text}"
    );
    assert!(text.contains("0 equivalent, 1 unobservable, 0 did not build"), "{text}");
    assert!(text.contains("Marked unobservable in the README"), "{text}");
    assert!(!text.contains("Marked equivalent in the README"), "{text}");
    let json: AuditReport = serde_json::from_str(&grader::audit::render_json(&report)).unwrap();
    assert_eq!(json.totals, report.totals);
    assert_eq!(json.mutant(&plus_id()).unwrap().status, MutantStatus::Unobservable);
    // On the page, folded under a heading of its own, apart from the equivalents.
    let html = grader::audit::render_html(&report);
    assert!(html.contains("<details>\n<summary>Marked unobservable (1)</summary>"), "{html}");
    assert!(!html.contains("<summary>Marked equivalent"), "{html}");
    assert!(html.contains("<th class=\"num\">Unobservable</th>"), "{html}");

    // A whole function marked unobservable: what a case kills is a wrong mark, listed apart.
    let report = tiny_audit(Some("```audit-unobservable\ntwice() only past the handout's inputs\n```\n"));
    assert_eq!((report.totals.unobservable, report.totals.equivalent), (1, 0));
    assert_eq!(report.unobservable_but_killed.len(), 7);
    assert!(report.equivalent_but_killed.is_empty());
    assert!(grader::audit::render_text(&report)
        .contains("Marked unobservable but killed with no sanitizer's report"));
}

#[test]
fn a_malformed_unobservable_mark_is_an_error_naming_the_readme_and_its_line() {
    let root = tempfile::tempdir().unwrap();
    let cases_with = |readme: &str| tiny(root.path(), Some(readme)).0;
    let fixture = root.path().join("correct");
    let list = |cases: &Path| {
        let (cases, fixture) = (cases.to_str().unwrap(), fixture.to_str().unwrap());
        let out = grader_command(
            &["--cases", cases, "audit", "-a", "tiny", "--fixture", fixture, "--list"],
            root.path(),
        );
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stderr) = list(&cases_with("# Tiny\n\n```audit-unobservable\nror-3fa2c1d0\n```\n"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("README.md:4: ror-3fa2c1d0 needs a reason: why no case may show it"), "{stderr}");
    let (code, stderr) = list(&cases_with("```audit-unobservable\nwrites past the end\n```\n"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("README.md:2: `writes` is not a mutant id"), "{stderr}");
    // One mutant is one kind or the other.
    let (code, stderr) = list(&cases_with(
        "```audit-equivalent\nror-3fa2c1d0 agrees\n```\n\n```audit-unobservable\nror-3fa2c1d0 undefined\n```\n",
    ));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "README.md:6: ror-3fa2c1d0 is marked in both `audit-equivalent` and `audit-unobservable`"
        ),
        "{stderr}"
    );
    let (code, stderr) = list(&cases_with("text\n\n```audit-unobservable\nror-3fa2c1d0 undefined\n"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("README.md:3: the `audit-unobservable` block is never closed"), "{stderr}");
    // A well-formed one is read.
    let (code, stderr) = list(&cases_with("```audit-unobservable\nror-3fa2c1d0 undefined behaviour\n```\n"));
    assert_eq!(code, Some(0), "{stderr}");
}

/// The fixture of the sanitizer test: `twice` stores its number in an array, and a destructor
/// clears the array once the output is out (flushed first: a sanitizer ends the program without
/// flushing). A mutant that writes one cell past the end changes no output without sanitizers.
const STORES: &str = "#include <stdio.h>\nstatic int seen[4];\nint twice(int x) {\n    for (int i = 0; i < 4; i++) {\n        \
    seen[i] = x;\n    }\n    return x * 2;\n}\n__attribute__((destructor)) static void tidy(void) {\n    \
    fflush(stdout);\n    for (int i = 0; i < 4; i++) {\n        seen[i] = 0;\n    }\n}\n";

#[test]
fn with_sanitize_a_write_out_of_bounds_that_no_output_shows_is_killed() {
    let root = tempfile::tempdir().unwrap();
    // `tidy` writes after the output: marked unobservable, as a README would.
    let (cases, fixture) = tiny(
        root.path(),
        Some("```audit-unobservable\ntidy() writes after the output; a write past the end is undefined behaviour\n```\n"),
    );
    // Programs that never stop at end of input: a run that ends badly after the whole transcript
    // still passes, so only the sanitizer's report can tell the destructor's write.
    let toml = cases.join("tiny/assignment.toml");
    let with_run = std::fs::read_to_string(&toml).unwrap() + "\n[run]\nstops-at-end-of-input = false\n";
    std::fs::write(&toml, with_run).unwrap();
    std::fs::write(fixture.join("twice.c"), STORES).unwrap();
    let mutants = root.path().join("mutants");
    std::fs::create_dir_all(&mutants).unwrap();
    // One cell past the end: in twice (before the output) and in tidy (after it).
    let in_twice = STORES.replacen("i < 4", "i <= 4", 1);
    let in_tidy = STORES.rsplit_once("i < 4").map(|(a, b)| format!("{a}i <= 4{b}")).unwrap();
    std::fs::write(mutants.join("twice.mutant.0.c"), in_twice).unwrap();
    std::fs::write(mutants.join("twice.mutant.1.c"), in_tidy).unwrap();
    let assignment = grader::load::load_assignment(&cases, "tiny").unwrap();
    let mut options = options(&fixture, &root.path().join("cache"));
    options.mutant_files = Some(mutants);
    let function_of = |report: &AuditReport, status| {
        report
            .mutants
            .iter()
            .filter(|m| m.status == status)
            .map(|m| m.mutant.function.clone())
            .collect::<Vec<_>>()
    };

    // Without sanitizers no output shows either write.
    let plain = audit(&assignment, &options).unwrap();
    assert_eq!(function_of(&plain, MutantStatus::Survived), ["twice"], "{:?}", plain.mutants);
    assert_eq!(function_of(&plain, MutantStatus::Unobservable), ["tidy"], "{:?}", plain.mutants);
    assert!(!plain.sanitize && plain.totals.killed_by_sanitizer == 0);

    // With them, the sanitizer's report kills both.
    options.sanitize = true;
    let report = audit(&assignment, &options).unwrap();
    assert!(report.sanitize);
    assert_eq!(report.baseline.score, report.baseline.max_score, "the correct program runs sanitizer-clean");
    let t = &report.totals;
    assert_eq!((t.built, t.killed, t.killed_by_sanitizer, t.survived, t.unobservable), (2, 2, 2, 0, 0));
    for m in &report.mutants {
        let line = m.killed_by[0].sanitizer.as_deref().unwrap_or_else(|| panic!("{m:?}"));
        assert!(line.contains("out of bounds") || line.contains("AddressSanitizer"), "{line}");
    }
    // tidy's write: the output matches and the case passes as the correct program's does; only
    // the sanitizer tells. Its mark was right: listed as killed by the sanitizer, not as wrong.
    let tidy = report.mutants.iter().find(|m| m.mutant.function == "tidy").unwrap();
    assert_eq!(tidy.killed_by.len(), 3, "every case's run writes there");
    assert!(tidy.killed_by.iter().all(|k| k.status == grader::report::CaseStatus::Passed && k.points == 0.0));
    assert_eq!(tidy.points_lost, 0.0);
    assert_eq!(report.unobservable_killed_by_sanitizer, std::slice::from_ref(&tidy.mutant.id));
    assert!(report.unobservable_but_killed.is_empty());
    let text = grader::audit::render_text(&report);
    assert!(text.contains("Killed by a sanitizer's report (2):"), "{text}");
    assert!(
        text.contains(
            "2 of the 2 killed mutants were killed by a sanitizer's report; 1 marked unobservable are"
        ),
        "{text}"
    );
    let html = grader::audit::render_html(&report);
    assert!(html.contains("<summary>Killed by a sanitizer's report (2)</summary>"), "{html}");

    // A correct program that is not sanitizer-clean stops the audit, saying where.
    std::fs::write(fixture.join("twice.c"), STORES.replacen("i < 4", "i <= 4", 1)).unwrap();
    options.mutant_files = None;
    let err = audit(&assignment, &options).unwrap_err().to_string();
    assert!(err.contains("is not sanitizer-clean: in case other/two-again"), "{err}");
}

/// Runs the grader binary.
fn grader_command(args: &[&str], tmpdir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(args)
        .env("TMPDIR", tmpdir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the grader runs")
}

#[test]
fn a_malformed_mark_is_an_error_naming_the_readme_and_its_line() {
    let root = tempfile::tempdir().unwrap();
    let (cases, fixture) = tiny(root.path(), Some("# Tiny\n\n```audit-equivalent\nror-3fa2c1d0\n```\n"));
    let out = grader_command(
        &["--cases", cases.to_str().unwrap(), "audit", "-a", "tiny", "--fixture", fixture.to_str().unwrap()],
        root.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("README.md:4: ror-3fa2c1d0 needs a reason"), "{stderr}");

    let (cases, _) = tiny(root.path(), Some("```audit-functions\ntwice: twice nowhere\n```\n"));
    let out =
        grader_command(&["--cases", cases.to_str().unwrap(), "audit", "-a", "tiny", "--list"], root.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("README.md:2: no category `nowhere` in the rubric"), "{stderr}");
}

#[test]
fn another_tools_mutants_are_graded_and_those_that_do_not_build_dropped() {
    let root = tempfile::tempdir().unwrap();
    let (cases, fixture) = tiny(root.path(), None);
    let mutants = root.path().join("mutants");
    std::fs::create_dir_all(&mutants).unwrap();
    std::fs::write(mutants.join("twice.mutant.0.c"), TWICE.replace("x * 2", "x * 3")).unwrap();
    std::fs::write(mutants.join("twice.mutant.1.c"), TWICE.replace("x * 2", "x << 1")).unwrap();
    std::fs::write(mutants.join("twice.mutant.2.c"), TWICE.replace("x * 2;", "x *;")).unwrap();
    let assignment = grader::load::load_assignment(&cases, "tiny").unwrap();
    let mut options = options(&fixture, &root.path().join("cache"));
    options.mutant_files = Some(mutants.clone());
    let report = audit(&assignment, &options).unwrap();
    let t = &report.totals;
    assert_eq!((t.generated, t.built, t.not_built, t.killed, t.survived), (3, 2, 1, 1, 1));
    assert!(report
        .mutants
        .iter()
        .all(|m| m.mutant.operator == Operator::External && m.mutant.function == "twice"));
    let not_built = report.mutants.iter().find(|m| m.status == MutantStatus::NotBuilt).unwrap();
    assert!(not_built.reason.as_deref().unwrap().starts_with("program: "), "{not_built:?}");
    assert_eq!(report.source, mutants.display().to_string());

    // A file of another name is refused, naming it.
    std::fs::write(mutants.join("notes.txt"), "").unwrap();
    let err = audit(&assignment, &options).unwrap_err().to_string();
    assert!(err.contains("notes.txt: not a mutant file"), "{err}");
}

/// Processes whose program is under `dir`, or whose working folder is.
fn processes_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        for link in ["exe", "cwd"] {
            if std::fs::read_link(entry.path().join(link)).is_ok_and(|p| p.starts_with(dir)) {
                found.push(format!("{} {link}", entry.file_name().to_string_lossy()));
            }
        }
    }
    found
}

#[test]
fn an_audit_leaves_nothing_behind_but_its_outputs_and_the_build_cache() {
    let root = tempfile::tempdir().unwrap();
    let (cases, fixture) = tiny(root.path(), None);
    let tmpdir = root.path().join("tmp");
    let cache = root.path().join("cache");
    let out_dir = root.path().join("out");
    std::fs::create_dir_all(&tmpdir).unwrap();
    std::fs::set_permissions(&tmpdir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let out = grader_command(
        &[
            "--cases",
            cases.to_str().unwrap(),
            "audit",
            "-a",
            "tiny",
            "--fixture",
            fixture.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--jobs",
            "2",
        ],
        &tmpdir,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Score: 7 killed / 8 built = 87.5%"), "{stdout}");
    let json: AuditReport =
        serde_json::from_slice(&std::fs::read(out_dir.join("audit.json")).unwrap()).unwrap();
    assert_eq!(json.totals.killed, 7);
    let html = std::fs::read_to_string(out_dir.join("audit.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert_eq!(std::fs::read_to_string(out_dir.join("audit.txt")).unwrap(), stdout);

    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(processes_under(root.path()), Vec::<String>::new());
    let left: Vec<PathBuf> =
        walkdir::WalkDir::new(&tmpdir).min_depth(1).into_iter().flatten().map(|e| e.into_path()).collect();
    assert_eq!(left, Vec::<PathBuf>::new(), "left in TMPDIR");
    let building: Vec<PathBuf> = walkdir::WalkDir::new(&cache)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".building"))
        .map(|e| e.into_path())
        .collect();
    assert_eq!(building, Vec::<PathBuf>::new(), "unfinished builds in the cache");
    // The fixture is as it was.
    assert_eq!(std::fs::read_to_string(fixture.join("twice.c")).unwrap(), TWICE);
}

#[test]
fn trouble_functions_map_to_the_categories_that_name_them_and_helpers_to_their_callers() {
    let assignment = common::assignment("trouble");
    let source = std::fs::read(common::repo().join("fixtures/trouble/correct/main.c")).unwrap();
    let functions = functions_of("main.c", &source);
    let map = function_categories(assignment, &functions, &Marks::default());
    let of = |name: &str| map.iter().find(|f| f.function == name).unwrap_or_else(|| panic!("{name}"));
    assert_eq!(of("movePiece").categories, ["movePiece"]);
    assert_eq!(of("printStatus").categories, ["printStatus"]);
    // A helper of movePiece and printMoves is graded where they are; main is named by nothing.
    let target = of("targetLocation");
    assert_eq!(target.categories, ["printMoves", "movePiece"]);
    assert!(target.how.starts_with("called only from"), "{}", target.how);
    assert!(of("main").categories.is_empty());
    // The README can say what the cases do not.
    let marks =
        Marks { functions: [("main".to_owned(), vec!["compile".to_owned()])].into(), ..Marks::default() };
    let map = function_categories(assignment, &functions, &marks);
    assert_eq!(map.iter().find(|f| f.function == "main").unwrap().categories, ["compile"]);
}

#[test]
fn an_audit_of_some_cases_samples_only_the_functions_their_categories_grade_or_none_places() {
    let assignment = common::assignment("trouble");
    let cache = tempfile::tempdir().unwrap();
    let mut options = options(&common::repo().join("fixtures/trouble/correct"), cache.path());
    options.mutants = Some(120);
    let all = grader::audit::plan(assignment, &options, &Marks::default()).unwrap();
    assert_eq!(all.left_out_by_case, 0);
    options.grade.only = vec![glob::Pattern::new("movePiece/*").unwrap()];
    let plan = grader::audit::plan(assignment, &options, &Marks::default()).unwrap();
    let functions: std::collections::BTreeSet<&str> =
        plan.mutants.iter().map(|m| m.function.as_str()).collect();
    assert_eq!(plan.mutants.len(), 120);
    // movePiece, and its helper targetLocation (graded by movePiece and printMoves).
    assert!(functions.contains("movePiece") && functions.contains("targetLocation"), "{functions:?}");
    // Not the functions only other categories grade.
    for other in ["printStatus", "printMoves", "initializeBoard", "checkWin"] {
        assert!(!functions.contains(other), "{other} in {functions:?}");
    }
    // main, which no category places, is kept: its mutants may cost in any category.
    assert!(functions.contains("main"), "{functions:?}");
    assert!(plan.left_out_by_case > 0 && plan.left_out_by_case < plan.generated);
}

#[test]
fn troubles_pieceat_which_nothing_calls_gets_no_share_of_the_sample() {
    let assignment = common::assignment("trouble");
    let cache = tempfile::tempdir().unwrap();
    let mut options = options(&common::repo().join("fixtures/trouble/correct"), cache.path());
    options.mutants = Some(500);
    let plan = grader::audit::plan(assignment, &options, &Marks::default()).unwrap();
    assert_eq!(plan.unreached.iter().collect::<Vec<_>>(), ["pieceAt"]);
    assert!(plan.mutants.iter().all(|m| m.function != "pieceAt"));
    assert_eq!(plan.mutants.len(), 500);
}

#[test]
fn turkish_draughts_sample_games_which_only_the_unrun_main_calls_get_no_share_of_the_sample() {
    let assignment = common::assignment("turkish-draughts");
    let cache = tempfile::tempdir().unwrap();
    let mut options = options(&common::repo().join("fixtures/turkish-draughts/correct"), cache.path());
    options.mutants = Some(200);
    // Without the README, main is an entry point and reaches the sample games.
    let plan = grader::audit::plan(assignment, &options, &Marks::default()).unwrap();
    assert!(plan.unreached.is_empty(), "{:?}", plan.unreached);
    // The README marks main() (driver.c renames it): what only it calls is left out too.
    let plan = grader::audit::plan(assignment, &options, &Marks::read(assignment).unwrap()).unwrap();
    let unreached: Vec<&str> = plan.unreached.iter().map(String::as_str).collect();
    assert_eq!(unreached, ["main", "play_and_show", "sample_game_1", "sample_game_2", "show_end"]);
    assert!(plan.mutants.iter().all(|m| !plan.unreached.contains(&m.function)));
    // The functions the driver calls are reached though nothing in the fixture calls them.
    assert!(plan.mutants.iter().any(|m| m.function == "move"));
}

#[test]
fn every_equivalent_and_unobservable_mark_in_the_cases_readmes_names_a_mutant_of_the_correct_fixture() {
    for id in ["trouble", "backgammon", "checkers", "turkish-draughts", "backgammon-ai"] {
        let assignment = common::assignment(id);
        let marks = Marks::read(assignment).unwrap_or_else(|e| panic!("{id}: {e}"));
        let fixture = common::repo().join("fixtures").join(id).join("correct");
        let submission = grader::build::Submission::collect(&fixture, &assignment.submission_files).unwrap();
        let made: Vec<_> = submission.files.iter().map(|f| mutate_file(&f.name, &f.content)).collect();
        let ids: Vec<&str> = made.iter().flat_map(|m| &m.mutants).map(|m| m.id.as_str()).collect();
        // A mark names a function by its name or, in Java, with its class (`Interactive.run`).
        let functions: Vec<&str> =
            made.iter().flat_map(|m| &m.functions).flat_map(|f| [f.bare_name(), f.name.as_str()]).collect();
        for marked in marks.equivalent.keys() {
            assert!(
                ids.contains(&marked.as_str()),
                "cases/{id}/README.md marks {marked}, which the fixture no longer has"
            );
        }
        for marked in marks.equivalent_functions.keys() {
            assert!(
                functions.contains(&marked.as_str()),
                "cases/{id}/README.md marks {marked}(), which the fixture lacks"
            );
        }
        for marked in marks.unobservable.keys() {
            assert!(
                ids.contains(&marked.as_str()),
                "cases/{id}/README.md marks {marked} unobservable, which the fixture no longer has"
            );
        }
        for marked in marks.unobservable_functions.keys() {
            assert!(
                functions.contains(&marked.as_str()),
                "cases/{id}/README.md marks {marked}() unobservable, which the fixture lacks"
            );
        }
    }
}

#[test]
fn a_case_that_waits_past_the_audits_limit_runs_again_under_its_own_and_a_loop_does_not_need_to() {
    let root = tempfile::tempdir().unwrap();
    let (cases, fixture) = tiny(root.path(), None);
    let mutants = root.path().join("mutants");
    std::fs::create_dir_all(&mutants).unwrap();
    // Sleeps 1.5 s, past the audit's 1 s and well within the cases' own 10 s, then answers right: as
    // a busy machine would make it wait. Graded under the cases' own limits, it is no defect.
    let sleeper = TWICE.replace("    return x * 2;", "    usleep(1500000);\n    return x * 2;");
    std::fs::write(mutants.join("twice.mutant.0.c"), format!("#include <unistd.h>\n{sleeper}")).unwrap();
    // Spins for ever: killed at the audit's limit.
    let spinner = TWICE.replace("    return x * 2;", "    for (;;) {\n    }\n    return x * 2;");
    std::fs::write(mutants.join("twice.mutant.1.c"), spinner).unwrap();
    let assignment = grader::load::load_assignment(&cases, "tiny").unwrap();
    let mut options = options(&fixture, &root.path().join("cache"));
    options.mutant_files = Some(mutants);
    let report = audit(&assignment, &options).unwrap();
    let status_of =
        |text: &str| report.mutants.iter().find(|m| m.mutant.replacement.contains(text)).map(|m| m.status);
    assert_eq!(status_of("usleep"), Some(MutantStatus::Survived), "{:?}", report.mutants);
    assert_eq!(status_of("for (;;)"), Some(MutantStatus::Killed), "{:?}", report.mutants);
    // The sleeper at least was graded twice (the spinner too, if the machine starved it).
    assert!(report.regraded >= 1, "{}", report.regraded);
    assert!(grader::audit::render_text(&report)
        .contains("graded again: a case timed out under the tighter limit"));
}
