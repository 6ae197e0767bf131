//! The students guide (`docs/students.md`) runs as written.

use super::run;

#[test]
fn the_students_guide_runs_as_written() {
    let ran = run("students");
    let out = &ran.stdout;
    let has = |text: &str| {
        assert!(out.contains(text), "docs/students.md: no `{text}` in:\n{out}\nstderr:\n{}", ran.stderr)
    };

    // The instructor's pack: both assignments in one folder, nothing of a hidden case but placeholders.
    for made in
        ["pack/cases/trouble: 35 visible cases, 20 hidden ones withheld", "pack/cases/turkish-draughts:"]
    {
        assert!(ran.stderr.contains(made), "no `{made}` in:\n{}", ran.stderr);
    }
    let readme = std::fs::read_to_string(ran.path("pack/README.md")).unwrap();
    assert!(readme.contains("`trouble`") && readme.contains("`turkish-draughts`"), "{readme}");
    let placeholder =
        std::fs::read_to_string(ran.path("pack/cases/trouble/withheld/checkWin-1.toml")).unwrap();
    assert!(placeholder.contains("withheld = true") && placeholder.contains("category = \"checkWin\""));
    assert!(!ran.path("pack/cases/trouble/checkWin/only-the-finished-colour-wins.toml").exists());
    assert!(ran.path("pack/cases/trouble/README.md").exists());

    // The correct submission: every visible case, and what the self-check leaves out.
    has("Trouble on the course template (C) — . (visible cases only)");
    has("  checkWin           5.00 /   5.00        3/3 cases");
    has("35 of 35 cases passed");
    has("Visible cases: 51.88 / 51.88 points\nThis is not your grade: 20 hidden cases worth 28.12 points and 20 points graded by hand are graded only by your instructor.");

    // The buggy one: the first difference, the input, the diff, the command to run it again; exit 1.
    has("  checkWin           0.00 /   5.00        0/3 cases");
    has("FAIL checkWin/four-in-the-finish (0.00 / 1.67)  All four pieces in the finish line win\n     first difference at line 7 of the output (line 7 of the expected output):\n       expected: \"checkWin returned 1\"\n       actual:   \"checkWin returned 0\"\n                                    ^ differs from here\n     input: ../pack/cases/trouble/checkWin/four-in-the-finish.stdin\n     --- expected\n     +++ actual\n     @@ -4,6 +4,6 @@");
    has("     -checkWin returned 1\n     +checkWin returned 0\n");
    has("/trouble/checkWin/four-in-the-finish.stdout -\n");
    has("     reproduce: env -i ");
    has("Visible cases: 46.88 / 51.88 points");
    has("FAIL checkWin/four-in-the-finish (0.00 / 1.67)\nFAIL checkWin/start-of-game (0.00 / 1.67)\nFAIL checkWin/three-in-the-finish (0.00 / 1.67)\nVisible cases: 0.00 / 5.00\nexit status 1\n");

    // The statuses: a crash, a flood, a build error.
    has("CRSH compile/seed-minus-one (0.00 / 15.00)  Seed -1 exits at once after the seed prompt\n     crashed with SIGSEGV\n");
    has("     input: pack/cases/trouble/compile/seed-minus-one.stdin (1 line read by then; the last ones:)\n       1 | \"-1\"\n");
    has("This is not a grade: only the cases selected by --case ran.");
    has("FLOD compile/seed-minus-one (0.00 / 15.00)\n");
    has("BILD the `driver` build failed (26 cases not run): main.c:240:11: error: 'colour' undeclared (first use in this function)\nBILD the `game` build failed (9 cases not run): main.c:240:11: error: 'colour' undeclared (first use in this function)\nVisible cases: 0.00 / 51.88\nexit status 1\n");

    // Presentation errors keep a fraction, and say what was forgiven.
    has("PART printStatus/start-of-game (1.25 / 2.50)  Every piece at Home: the %6s names line up\n     presentation error, 50% of the case's points: matched only when ignoring whitespace runs\n");
    has("       expected: \"···Red:·H,H,H,H\"\n       actual:   \"····Red:·H,H,H,H\"\n                     ^ extra whitespace\n");
    has("PART playerTurn/seed-one (0.75 / 0.83)  Seed 1 is an ordinary seed: a two-player game from it\n     presentation error, 90% of the case's points: matched only when ignoring all whitespace (line breaks included): missing line break (8 places, first at expected line 2: \"---- Red's turn\")\n");

    // Turkish draughts: the conventions the probe found, and the one case they cost.
    has("What the driver found:\n    functions: the four defined\n    pieces: the characters w b W B and '-' for empty, players white as 'w', black as 'b'\n    orientation: white starts on rows 5-6\n    coordinates: 0-based\n    capture sequences: the final square\n    king captures: land on any vacant square beyond the piece taken\n");
    has("  conventions      3.75 /   5.00        3/4 cases");
    has("FAIL conventions/pieces (0.00 / 1.25)  Pieces are the handout's enum (white_man ... empty)");

    // Hidden cases as students see them: category, verdict and points only.
    has("FAIL checkWin/four-in-the-finish (0.00 / 1.67)\nFAIL checkWin/hidden-1 (0.00 / 1.67)\nFAIL checkWin/hidden-2 (0.00 / 1.67)\nFAIL checkWin/start-of-game (0.00 / 1.67)\nFAIL checkWin/hidden-3 (0.00 / 1.67)\nFAIL checkWin/three-in-the-finish (0.00 / 1.67)\nScore: 70.00 / 80.00\n");
    assert!(!out.contains("only-the-finished-colour-wins"), "a hidden case named to a student:\n{out}");
}
