//! The operators guide (`docs/operators.md`) runs as written.

use super::run;

#[test]
fn the_operators_guide_runs_as_written() {
    let ran = run("operators");
    let out = &ran.stdout;
    let err = &ran.stderr;
    let has =
        |text: &str| assert!(out.contains(text), "docs/operators.md: no `{text}` in:\n{out}\nstderr:\n{err}");
    let said = |text: &str| assert!(err.contains(text), "docs/operators.md: no `{text}` on stderr:\n{err}");
    let read = |rel: &str| std::fs::read_to_string(ran.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));

    // `grader doctor` names a level first, and says who the programs run as.
    let level =
        out.lines().next().and_then(|l| l.strip_prefix("containment: ")).unwrap_or_else(|| panic!("{out}"));
    assert!(["full", "namespaces-without-cgroups", "rlimits-only"].contains(&level), "{level}");
    has("\nrun users: ");

    // The student pack: placeholders for the hidden cases, none of them named, and it self-checks.
    said("grader-pack/cases/trouble: 35 visible cases, 20 hidden ones withheld (a placeholder each in withheld/)");
    said("its README.md without: What each defect costs (from gradings with the hidden cases)");
    has("no hidden case named in the pack\nVisible cases: 51.88 / 51.88\n");
    assert!(read("grader-pack/cases/trouble/withheld/checkWin-1.toml").contains("withheld = true"));
    assert!(read("grader-pack/README.md").contains("grader check -a trouble"));

    // The Gradescope bundle, and a trial run of its two scripts in a folder laid out like /autograder.
    said("autograder.zip: 176 entries, ");
    said("; 55 cases, 20 hidden (keep it private); setup.sh installs gcc, libc6-dev");
    assert!(ran.path("trial/bin/grader").exists());
    let results: serde_json::Value = serde_json::from_str(&read("trial/results/results.json")).unwrap();
    let tests = results["tests"].as_array().unwrap();
    // Where the machine contains programs well enough to grade hidden cases (the guide's machines).
    if !tests.is_empty() {
        assert_eq!(results["score"], 70.0, "{results}");
        assert_eq!(tests.len(), 55);
        let hidden: Vec<_> =
            tests.iter().filter(|t| t["name"].as_str().unwrap().contains("/hidden-")).collect();
        assert_eq!(hidden.len(), 20);
        assert!(hidden.iter().all(|t| t["visibility"] == "after_due_date"), "{results}");
        assert!(tests.iter().any(|t| t["name"] == "checkWin/hidden-1"));
        assert!(!results.to_string().contains("only-the-finished-colour-wins"));
    }

    // The students' self-check workflow's steps: the reports, and the status that fails the job.
    has("PART printStatus/handout-example (1.25 / 2.50)\nPART printStatus/start-of-game (1.25 / 2.50)\nScore: 49.38 / 51.88\nthe job ends with status 1\n");
    assert!(read("summary.md").starts_with("## Trouble on the course template (C): 49.38 / 51.88 points\n"));
    assert!(read("junit.xml").contains("tests=\"35\" skipped=\"0\" failures=\"2\""));
    assert!(ran.path("report.json").exists());

    // The Slurm job scripts without Slurm: two shares and the merge make one batch's class files.
    said("4 students merged into out/class");
    has("the merged class files are the one batch's\n");
    let gradebook = read("out/class/gradebook.csv");
    assert_eq!(gradebook.lines().count(), 5, "{gradebook}");
    for row in ["10001,,80.00,100.00", "10002,,70.00,100.00", "10003,,75.00,100.00", "10004,,0.00,100.00"] {
        assert!(gradebook.contains(row), "{gradebook}");
    }
}
