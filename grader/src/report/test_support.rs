//! Reports built by hand for the renderers' tests.

use super::*;

/// A visible transcript case worth 5 points, run in 1.5 s, with nothing else to say.
pub(crate) fn case(id: &str, category: &str, status: CaseStatus, score: f64) -> CaseReport {
    CaseReport {
        id: id.to_owned(),
        title: format!("title of {id}"),
        category: category.to_owned(),
        visibility: Visibility::Visible,
        disclosure: Disclosure::Diff,
        kind: CaseKind::Transcript,
        status,
        signal: None,
        limit: None,
        score,
        max_score: 5.0,
        leniency: Vec::new(),
        lenient_rewrite: None,
        forgiven: Vec::new(),
        partial: None,
        note: None,
        time_ms: Some(1500),
        cpu_ms: Some(10),
        peak_memory_kb: Some(1024),
        divergence: None,
        diff: None,
        stderr: None,
        input: None,
        reproduce: None,
        games: Vec::new(),
        game_ends: Vec::new(),
        verdict: None,
    }
}

/// The lines of `markdown` outside its fenced code blocks (indented or not), checking on the way
/// that every fence is closed by a fence of the same length and that nothing inside closes it early.
pub(crate) fn outside_fences(markdown: &str) -> Vec<&str> {
    let mut open: Option<&str> = None;
    let mut outside = Vec::new();
    for line in markdown.lines().map(|l| l.trim_start_matches(' ')) {
        let fence = &line[..line.len() - line.trim_start_matches('`').len()];
        match open {
            None if fence.len() >= 3 => open = Some(fence),
            None => outside.push(line),
            Some(f) if line == f => open = None,
            Some(f) => assert!(fence.len() < f.len(), "{line:?} inside a block fenced by {f:?}"),
        }
    }
    assert_eq!(open, None, "a fence is left open");
    outside
}

/// What a hostile student puts in their source, their output and their folder's name: a screen
/// clear, a window title ended by BEL, a carriage return that would overwrite the line, a C1 CSI,
/// an HTML tag, a backtick fence and a table cell's end.
pub(crate) const HOSTILE: &str = "\x1b[2J\x1b]0;pwned\x07\r<img src=x onerror=alert(1)> ``` | \u{9b}31m";

/// [`HOSTILE`] everywhere a student's text reaches a report: the submission's path, a build's
/// warnings (with a tab-indented source line) and another build's errors, the probe's lines, a
/// failing case's note, first difference, diff, standard error, game and reproducing command.
pub(crate) fn hostile_report() -> Report {
    let mut failing = case("moves/hostile", "moves", CaseStatus::Failed, 2.0);
    failing.note = Some(format!("exited with status 3; {HOSTILE}"));
    failing.divergence = Some(Divergence {
        line: 2,
        expected_line: 2,
        expected: Some("Red moves".to_owned()),
        actual: Some(HOSTILE.to_owned()),
    });
    failing.diff = Some(format!("@@ -2 +2 @@\n-Red moves\n+{HOSTILE}\n+\tindented\n"));
    failing.stderr = Some(format!("{HOSTILE}\nsecond line"));
    failing.games = vec![GameProblem {
        game: 1,
        problem: format!("an illegal move {HOSTILE}"),
        exchange: vec!["> move 3".to_owned(), format!("< {HOSTILE}")],
        sent: vec!["move 3".to_owned()],
        stderr: Some(format!("{HOSTILE}\nat game 1")),
        graded_by: None,
    }];
    failing.reproduce = Some(format!("cd 'students/{HOSTILE}' && ./prog"));
    let mut not_built = case("board/not-built", "board", CaseStatus::BuildError, 0.0);
    not_built.note = Some("the `driver` build failed".to_owned());
    let build = |recipe: &str, status, log: String| BuildReport {
        recipe: recipe.to_owned(),
        status,
        cached: false,
        log,
        seconds: 0.1,
        hint: None,
    };
    Report {
        submission: format!("students/{HOSTILE}"),
        score: 2.0,
        max_score: 10.0,
        late_points: 0.0,
        builds: vec![
            build(
                "game",
                BuildStatus::Ok,
                format!("main.c:3:5: warning: unused {HOSTILE}\n    3 |\tputs(\"{HOSTILE}\");\n"),
            ),
            build("driver", BuildStatus::Error, format!("main.c:9:1: error: expected ';' {HOSTILE}\n")),
        ],
        probe: Some(ProbeReport {
            title: "How the board is indexed".to_owned(),
            lines: vec![HOSTILE.to_owned()],
            failure: None,
        }),
        categories: vec![
            CategoryReport {
                id: "moves".to_owned(),
                title: "Moves".to_owned(),
                score: 2.0,
                max_score: 5.0,
                passed: 0,
                cases: 1,
                bonus: false,
            },
            CategoryReport {
                id: "board".to_owned(),
                title: "Board".to_owned(),
                score: 0.0,
                max_score: 5.0,
                passed: 0,
                cases: 1,
                bonus: false,
            },
        ],
        cases: vec![failing, not_built],
        ..bonus_report()
    }
}

/// A grading of a 5-point rubric with a 5-point bonus category `cube`: `play/win` passed, and of
/// the two cube cases (2.50 points each) one passed and one failed: 7.50 / 5.00.
pub(crate) fn bonus_report() -> Report {
    let cube = |id: &str, status, score| CaseReport { max_score: 2.5, ..case(id, "cube", status, score) };
    let category = |id: &str, score, max_score, passed, cases, bonus| CategoryReport {
        id: id.to_owned(),
        title: format!("title of {id}"),
        score,
        max_score,
        passed,
        cases,
        bonus,
    };
    Report {
        package: None,
        grader_version: "0.1.0".into(),
        assignment: "demo".into(),
        title: "Demo".into(),
        submission: "students/ada".into(),
        submission_files: vec!["main.c".into()],
        submission_notes: Vec::new(),
        visible_only: false,
        only: Vec::new(),
        cases_root: "cases".into(),
        containment: Containment::Full,
        programs_ran_as_grader: false,
        dice_seed: None,
        score: 7.5,
        max_score: 5.0,
        hidden: None,
        pending: Vec::new(),
        late_points: 0.0,
        builds: Vec::new(),
        probe: None,
        categories: vec![category("play", 5.0, 5.0, 1, 1, false), category("cube", 2.5, 5.0, 1, 2, true)],
        cases: vec![
            case("play/win", "play", CaseStatus::Passed, 5.0),
            cube("cube/double", CaseStatus::Passed, 2.5),
            cube("cube/take", CaseStatus::Failed, 0.0),
        ],
    }
}
