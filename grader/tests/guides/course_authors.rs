//! The course authors guide (`docs/course-authors.md`) runs as written: a problem package made from
//! nothing (blessed, verified, a student graded, what a course adds), the example packages, an
//! assignment of our own format in Python, a case added to a copy of Trouble, `grader bless --check`
//! and a small audit; its console block (the audit of 500) parses.

use super::*;

#[test]
fn the_course_authors_guide_runs_as_written() {
    let ran = run("course-authors");
    let stdout = &ran.stdout;

    // 1. A problem package, start to finish.
    assert!(stdout.contains("sum: 0 expected outputs fresh, 8 written"), "{stdout}");
    let sample = std::fs::read_to_string(ran.path("sum/data/sample/1.ans")).unwrap();
    assert_eq!(sample, "3\n");
    assert!(stdout.contains("wrong_answer/int32.c  ok "), "{stdout}");
    assert!(stdout.contains("2 of 2 submissions as expected"), "{stdout}");
    assert!(stdout.contains("Score: 100.00 / 100.00"), "{stdout}");
    assert!(stdout.contains("sum  Lab 1: sums"), "{stdout}");
    assert!(stdout.contains("graded by hand  Readable code, comments"), "{stdout}");

    // 2. The example packages.
    assert!(stdout.contains("6 of 6 submissions as expected"), "{stdout}");
    assert!(stdout.contains("primes: 16 expected outputs fresh, 0 stale"), "{stdout}");

    // 3. Our own format in Python: bless writes the generated input and every expected output from
    // the reference, the student's own program passes both, the self-check runs the visible one.
    assert!(stdout.contains("totals: 0 expected outputs fresh, 3 written"), "{stdout}");
    let three = std::fs::read_to_string(ran.path("totals/sums/three.stdout")).unwrap();
    assert_eq!(three, "1\n3\n6\n");
    let many = std::fs::read_to_string(ran.path("totals/sums/many.stdin")).unwrap();
    assert_eq!(many.lines().count(), 100, "{many}");
    assert!(stdout.contains("2 of 2 cases passed"), "{stdout}");
    assert!(stdout.contains("Score: 10.00 / 10.00"), "{stdout}");
    assert!(stdout.contains("Visible cases: 2.50 / 2.50 points"), "the self-check: {stdout}");
    assert!(stdout.contains("totals  Lab 2: running totals"), "{stdout}");

    // 5. A case added to a copy of Trouble: only its sidecars written, the driver's answer as the
    // guide reads it, listed, passed by the correct fixture, then fresh.
    let blessed = stdout
        .lines()
        .find(|l| l.starts_with("trouble: ") && l.ends_with(" expected outputs fresh, 2 written"))
        .unwrap_or_else(|| panic!("bless wrote the new case's two sidecars: {stdout}"));
    let before: usize = blessed["trouble: ".len()..].split(' ').next().unwrap().parse().unwrap();
    let added =
        std::fs::read_to_string(ran.path("course/trouble/movePiece/blue-captures-red.stdout")).unwrap();
    assert!(added.contains("movePiece returned 1\n") && added.contains("gHome: 4 4 4 3\n"), "{added}");
    assert!(stdout.contains("movePiece/blue-captures-red"), "grader list shows it: {stdout}");
    assert!(stdout.contains("Selected cases: 14.00 / 14.00 points"), "every movePiece case passed: {stdout}");
    // Every grading and self-check of the guide passes every case it runs (`N of N cases passed`).
    let tallies: Vec<&str> = stdout.lines().filter(|l| l.contains(" cases passed")).collect();
    assert!(tallies.len() >= 5, "{stdout}");
    for tally in tallies {
        let words: Vec<&str> = tally.split(' ').collect();
        assert_eq!(words[0], words[2], "{tally}");
    }
    assert!(stdout.contains(&format!("trouble: {} expected outputs fresh, 0 stale", before + 2)), "{stdout}");

    // 7. The course's own Trouble cases are fresh.
    assert!(stdout.contains(&format!("trouble: {before} expected outputs fresh, 0 stale")), "{stdout}");

    // 8. The small audit: ten mutants graded, its three files written.
    assert!(stdout.contains(" mutants made, 10 graded: "), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ran.path("audit/audit.json")).unwrap()).unwrap();
    assert_eq!(json["totals"]["sampled"], 10, "{}", json["totals"]);
    assert_eq!(json["assignment"], "trouble");
    assert!(ran.path("audit/audit.html").is_file() && ran.path("audit/audit.txt").is_file());
}
