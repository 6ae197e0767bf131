//! The contributors guide (`docs/contributors.md`) runs as written: the assignments listed, the
//! correct Trouble submission graded, every committed expected output fresh; its console blocks
//! (`cargo test`, `cargo bench`, `grader bless --assignment checkers`) are shown, not run, and their
//! grader command lines parse.

use super::*;

#[test]
fn the_contributors_guide_runs_as_written() {
    let ran = run("contributors");
    let stdout = &ran.stdout;
    for id in ["trouble", "backgammon", "checkers", "turkish-draughts", "backgammon-ai"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("{id}  "))),
            "grader list shows {id}: {stdout}"
        );
    }
    assert!(stdout.contains("Score: 80.00 / 80.00 automated; 20 more points graded by hand"), "{stdout}");
    let fresh: Vec<&str> = stdout.lines().filter(|l| l.contains(" expected outputs fresh, ")).collect();
    assert_eq!(fresh.len(), 5, "grader bless --check names every assignment: {stdout}");
    assert!(fresh.iter().all(|l| l.ends_with(", 0 stale")), "{fresh:?}");
}
