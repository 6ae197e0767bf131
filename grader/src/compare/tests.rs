//! Tests of the compare stage, read as its specification: normalisations, the lenient ladder, partial
//! credit, the diff and the first divergence.

use super::attempt::MAX_DIFF_LINES;
use super::lines::MAX_LINE_CHARS;
use super::*;

fn spec(normalize: &[Normalization]) -> CompareSpec {
    CompareSpec { normalize: normalize.to_vec(), ..CompareSpec::default() }
}

fn pattern(p: &str) -> Option<LinePattern> {
    Some(LinePattern(regex::Regex::new(p).unwrap()))
}

#[test]
fn identical_output_matches_with_full_credit() {
    let c = compare(b"a\nb\n", b"a\nb\n", &spec(&[]), Extent::Whole);
    assert!(c.matched);
    assert_eq!(c.credit, 1.0);
    assert_eq!(c.divergence, None);
}

#[test]
fn identical_bytes_count_the_expected_lines_as_any_match_does() {
    // Identical outputs skip the comparison; the lines they count are the normalised ones.
    let text = b"a\n\n  \nb\n";
    let equal = spec(&[Normalization::BlankLines]);
    let identical = compare(text, text, &equal, Extent::Whole);
    let alike = compare(text, b"a\nb\n", &equal, Extent::Whole);
    assert!(identical.matched && alike.matched);
    assert_eq!(identical.expected_lines, 2);
    assert_eq!(identical, alike);
    let plain = compare(text, text, &spec(&[]), Extent::Whole);
    assert_eq!(plain.expected_lines, 4);
}

#[test]
fn lines_are_counted_without_being_built_exactly_as_building_them_counts() {
    use super::lines::Lines;
    let texts = [
        "",
        "\n",
        "a",
        "a\n",
        "a\n\n  \nb\n",
        " \t\r\n\u{a0}\nx\n",
        "A to B\n c to d \n\nnote\n",
        "a\r\nb\r\n\r\n",
    ];
    let mut specs = vec![spec(&[]), spec(&[Normalization::BlankLines])];
    for norm in
        [Normalization::WhitespaceRuns, Normalization::AllWhitespace, Normalization::TrailingWhitespace]
    {
        specs.push(spec(&[norm, Normalization::BlankLines, Normalization::Case]));
    }
    let blank = [Normalization::BlankLines];
    specs.push(CompareSpec { ignore_lines: pattern("^note"), ..spec(&blank) });
    specs.push(CompareSpec { unordered: pattern(r"^\s*\S+ to \S+\s*$"), ..spec(&blank) });
    // A rewrite may blank a line: then the count builds the lines.
    let rewrite = vec![(pattern("^x$").unwrap(), String::new())];
    specs.push(CompareSpec { rewrite, ..spec(&blank) });
    for spec in &specs {
        for rewrite in [false, true] {
            let reading = Reading { norms: spec.normalize.clone(), rewrite };
            for text in texts {
                let built = Lines::new(text, &reading, spec).normalized.len();
                assert_eq!(Lines::count(text, &reading, spec), built, "{text:?} under {spec:?}");
            }
        }
    }
}

#[test]
fn exact_comparison_sees_trailing_spaces() {
    let c = compare(b"a\nb\n", b"a \nb\n", &spec(&[]), Extent::Whole);
    assert!(!c.matched);
    assert_eq!(c.credit, 0.0);
    let d = c.divergence.unwrap();
    assert_eq!((d.line, d.expected.as_deref(), d.actual.as_deref()), (1, Some("a"), Some("a ")));
}

#[test]
fn whitespace_runs_forgive_indentation_and_spacing() {
    let c =
        compare(b"   Red: H,H\n", b"Red:   H,H   \n", &spec(&[Normalization::WhitespaceRuns]), Extent::Whole);
    assert!(c.matched);
}

#[test]
fn blank_lines_are_forgiven_and_line_numbers_still_point_at_the_original() {
    let c = compare(b"a\n\nb\nc\n", b"a\nb\n\n\nx\n", &spec(&[Normalization::BlankLines]), Extent::Whole);
    let d = c.divergence.unwrap();
    assert_eq!((d.line, d.expected_line), (5, 4));
    assert_eq!((d.expected.as_deref(), d.actual.as_deref()), (Some("c"), Some("x")));
}

#[test]
fn output_that_stops_early_diverges_one_past_its_end() {
    let c = compare(b"a\nb\n", b"a\n", &spec(&[]), Extent::Whole);
    let d = c.divergence.unwrap();
    assert_eq!((d.line, d.expected.as_deref(), d.actual), (2, Some("b"), None));
}

#[test]
fn a_lenient_match_costs_what_the_ladder_says_and_names_the_normalisation() {
    let mut s = spec(&[Normalization::WhitespaceRuns]);
    s.lenient = vec![(Normalization::Case, 0.5), (Normalization::AllWhitespace, 0.9)];
    let c = compare(b"Move: H\n", b"Move:H\n", &s, Extent::Whole);
    assert!(c.matched);
    assert_eq!(c.credit, 0.9);
    assert_eq!(c.leniency, vec![Normalization::AllWhitespace]);
    assert!(c.divergence.is_some(), "the report still shows what differed");

    let c = compare(b"Move: H\n", b"move:H\n", &s, Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 0.5));
    assert_eq!(c.leniency, vec![Normalization::AllWhitespace, Normalization::Case]);
}

#[test]
fn a_missing_line_break_is_a_presentation_error_not_a_wrong_output() {
    let mut s = spec(&[Normalization::WhitespaceRuns, Normalization::BlankLines]);
    s.lenient = vec![(Normalization::AllWhitespace, 0.9)];
    let expected = b"Enter position: \n---- Red's turn\nRed: H\nEnter position: \n---- Red's turn\n";
    let actual = b"Enter position: ---- Red's turn\nRed: H\nEnter position: ---- Red's turn\n";
    let c = compare(expected, actual, &s, Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 0.9));
    assert_eq!(
        c.forgiven,
        [Forgiven {
            what: "missing line break".into(),
            count: 2,
            unit: Unit::Place,
            expected_line: 2,
            expected: "---- Red's turn".into()
        }]
    );
    assert_eq!(
        c.forgiven[0].describe(),
        "missing line break (2 places, first at expected line 2: \"---- Red's turn\")"
    );
}

#[test]
fn forgiven_spaces_and_case_are_told_apart() {
    let mut s = spec(&[Normalization::TrailingWhitespace]);
    s.lenient = vec![(Normalization::AllWhitespace, 0.9), (Normalization::Case, 0.5)];
    let c = compare(b"a b\nInvalid move\nc d\n", b"ab\nInvalid Move\nc  d\n", &s, Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 0.5));
    let what: Vec<(&str, usize, usize)> =
        c.forgiven.iter().map(|f| (f.what.as_str(), f.count, f.expected_line)).collect();
    assert_eq!(what, [("missing space", 1, 1), ("letter case", 1, 2), ("extra space", 1, 3)]);
}

#[test]
fn unordered_runs_compare_as_multisets_and_only_within_a_run() {
    let mut s = spec(&[]);
    s.unordered = pattern(r"^\S+ to \S+$");
    let expected = b"You rolled 6.\nH to R5\nR1 to R7\nG2 to G8\nEnter\n";
    let c = compare(expected, b"You rolled 6.\nG2 to G8\nR1 to R7\nH to R5\nEnter\n", &s, Extent::Whole);
    assert!(c.matched);
    // The same lines split across another line are two runs, not one.
    let c = compare(expected, b"You rolled 6.\nH to R5\nEnter\nR1 to R7\nG2 to G8\n", &s, Extent::Whole);
    assert!(!c.matched);
    // A missing move is still missing.
    let c = compare(expected, b"You rolled 6.\nG2 to G8\nH to R5\nEnter\n", &s, Extent::Whole);
    assert!(!c.matched);
    let d = c.divergence.unwrap();
    assert_eq!(d.expected.as_deref(), Some("R1 to R7"));
}

#[test]
fn partial_credit_by_prefix_and_by_lines() {
    let mut s = spec(&[]);
    s.partial = Partial::Prefix;
    let c = compare(b"1\n2\n3\n4\n", b"1\n2\nX\n4\n", &s, Extent::Whole);
    assert_eq!(c.credit, 0.5);
    s.partial = Partial::Lines;
    let c = compare(b"1\n2\n3\n4\n", b"1\n2\nX\n4\n", &s, Extent::Whole);
    assert_eq!(c.credit, 0.75);
}

fn game(turns: usize, slip_at: Option<usize>, derail_at: Option<usize>) -> String {
    let mut s = String::new();
    for t in 0..turns {
        let board = if derail_at.is_some_and(|d| t >= d) { t * 7 + 1 } else { t * 7 };
        s.push_str(&format!("Rolling dice: {t}\n| | W {board} |\n| | R |\n"));
        if slip_at == Some(t) {
            s.push_str("Invalid Move!\n");
        } else {
            s.push_str("Invalid move\n");
        }
    }
    s
}

#[test]
fn hunks_charge_a_local_slip_a_bounded_share_and_a_derailed_game_everything() {
    let mut s = spec(&[]);
    s.partial = Partial::Hunks;
    let expected = game(100, None, None);
    let slip = compare(expected.as_bytes(), game(100, Some(3), None).as_bytes(), &s, Extent::Whole);
    assert_eq!(slip.partial.as_ref().unwrap().differences, 1);
    assert!((slip.credit - 0.75 * 399.0 / 400.0).abs() < 1e-9, "{}", slip.credit);

    // The same wrong line in every turn is one difference, not a hundred.
    let every_turn = expected.replace("Invalid move\n", "Invalid Move!\n");
    let repeated = compare(expected.as_bytes(), every_turn.as_bytes(), &s, Extent::Whole);
    assert_eq!(repeated.partial.as_ref().unwrap().differences, 1);
    assert!((repeated.credit - 0.75 * 0.75).abs() < 1e-9, "{}", repeated.credit);

    // The same slip early or late costs the same: no prefix rule.
    let late = compare(expected.as_bytes(), game(100, Some(97), None).as_bytes(), &s, Extent::Whole);
    assert_eq!(late.credit, slip.credit);

    // Derailed at turn 10: every later board differs, though most lines still match.
    let derailed = compare(expected.as_bytes(), game(100, None, Some(10)).as_bytes(), &s, Extent::Whole);
    assert_eq!(derailed.credit, 0.0);
    s.partial = Partial::Lines;
    let lines = compare(expected.as_bytes(), game(100, None, Some(10)).as_bytes(), &s, Extent::Whole);
    assert!(lines.credit > 0.7, "matched lines over-credit a derailed game: {}", lines.credit);

    // Output that stops in the middle lost the rest of the game: a long block is not a slip.
    s.partial = Partial::Hunks;
    let most: String = expected.lines().take(360).flat_map(|l| [l, "\n"]).collect();
    let stopped = compare(expected.as_bytes(), most.as_bytes(), &s, Extent::Whole);
    assert_eq!(stopped.credit, 0.0);
    // A slip of three lines is still one difference; of four, two.
    let three = expected.replacen("| | R |\nInvalid move\nRolling dice: 5\n", "x\ny\nz\n", 1);
    let c = compare(expected.as_bytes(), three.as_bytes(), &s, Extent::Whole);
    assert_eq!(c.partial.as_ref().unwrap().differences, 1);
    let four = expected.replacen("| | R |\nInvalid move\nRolling dice: 5\n| | W 35 |\n", "x\ny\nz\nw\n", 1);
    let c = compare(expected.as_bytes(), four.as_bytes(), &s, Extent::Whole);
    assert_eq!(c.partial.as_ref().unwrap().differences, 2);
}

#[test]
fn partial_credit_is_taken_under_the_rung_that_credits_most() {
    let mut s = spec(&[]);
    s.partial = Partial::Hunks;
    s.lenient = vec![(Normalization::Case, 0.5)];
    // Letter case differs on every line and one line is wrong: under the case rung, one hunk.
    let expected: String = (0..40).map(|i| format!("Line {i}\n")).collect();
    let mut actual: String = (0..40).map(|i| format!("LINE {i}\n")).collect();
    actual = actual.replace("LINE 20\n", "LINE twenty\n");
    let c = compare(expected.as_bytes(), actual.as_bytes(), &s, Extent::Whole);
    assert!(!c.matched);
    assert_eq!(c.leniency, [Normalization::Case]);
    assert!((c.credit - 0.5 * 0.75 * 39.0 / 40.0).abs() < 1e-9, "{}", c.credit);
}

#[test]
fn a_program_that_continues_past_its_input_matches_a_complete_transcript() {
    let s = spec(&[Normalization::TrailingWhitespace]);
    let c = compare(
        b"board\nEnter move: ",
        b"board\nEnter move: Enter move: Enter move: ",
        &s,
        Extent::MayContinue,
    );
    assert!(c.matched);
    let c = compare(b"board\nEnter move: ", b"board\nEnter move: ", &s, Extent::Whole);
    assert!(c.matched);
    let c = compare(b"board\nEnter move: \nnext\n", b"board\nEnter move: Enter", &s, Extent::MayContinue);
    assert!(!c.matched);
}

#[test]
fn the_diff_is_unified_and_bounded_in_lines_and_bytes() {
    let expected: String = (0..500).map(|i| format!("{i}\n")).collect();
    let actual: String = (0..500).map(|i| format!("x{i}\n")).collect();
    let c = compare(expected.as_bytes(), actual.as_bytes(), &spec(&[]), Extent::Whole);
    let diff = c.diff.unwrap();
    assert!(diff.starts_with("--- expected\n+++ actual\n"));
    assert_eq!(diff.lines().count(), MAX_DIFF_LINES + 1);
    assert!(diff.ends_with("more diff lines)\n"));

    let flood = "y".repeat(1 << 20);
    let c = compare(b"a\n", flood.as_bytes(), &spec(&[]), Extent::Whole);
    assert!(c.diff.unwrap().len() < 4 * MAX_LINE_CHARS);
    assert!(c.divergence.unwrap().actual.unwrap().len() < 2 * MAX_LINE_CHARS);
}

#[test]
fn ignored_lines_are_left_out_of_both_sides_and_of_the_line_numbers_only() {
    let mut s = spec(&[Normalization::BlankLines]);
    s.ignore_lines = pattern(r"^\s*\d\|");
    let expected = b"board\n0| r |\n1|   |\nRED's move:  \n0| r |\nWHITE's move:  ";
    // Another drawing, or none at all: the same flow.
    assert!(compare(expected, b"board\n0|r|\nRED's move:  \nWHITE's move:  ", &s, Extent::Whole).matched);
    let c = compare(expected, b"board\n0| r |\nRED's move:  \n0| r |\nRED's move:  ", &s, Extent::Whole);
    assert!(!c.matched);
    let divergence = c.divergence.unwrap();
    assert_eq!((divergence.line, divergence.expected_line), (5, 6), "numbered as printed");
    assert_eq!(divergence.actual.as_deref(), Some("RED's move:  "));
}

#[test]
fn rewrites_make_messages_equal_whatever_their_wording() {
    let mut s = spec(&[]);
    s.rewrite = vec![(pattern(r"(?i)^(.*'s move:\s*)\S.*$").unwrap(), "${1}(a message)".to_owned())];
    let expected = b"RED's move:  INVALID MOVE.  TRY AGAIN!!\nRED's move:  \n";
    assert!(compare(expected, b"RED's move:  Invalid move!\nRED's move:  \n", &s, Extent::Whole).matched);
    let c = compare(expected, b"RED's move:  \nWHITE's move:  \n", &s, Extent::Whole);
    assert!(!c.matched, "a refusal is still a refusal");
    assert_eq!(c.divergence.unwrap().expected.as_deref(), Some("RED's move:  INVALID MOVE.  TRY AGAIN!!"));
}

#[test]
fn loose_lines_forgive_spacing_only_where_the_pattern_matches() {
    let mut s = spec(&[Normalization::TrailingWhitespace]);
    s.loose_lines = pattern(r"^\s*(\d|[WR|]\s)");
    let board = b"13 14    15\nW  |  R\nRolling dice:  2 5\n";
    let c = compare(board, b"13 14 15\nW | R\nRolling dice:  2 5\n", &s, Extent::Whole);
    assert!(c.matched);
    let c = compare(board, b"13 14 15\nW | R\nRolling dice: 2 5\n", &s, Extent::Whole);
    assert!(!c.matched, "a message's spacing still counts");
}

#[test]
fn the_diff_shows_lines_as_printed_even_when_whitespace_is_free() {
    let s = spec(&[Normalization::AllWhitespace, Normalization::BlankLines]);
    let c = compare(b"W  |  R\n\nBar:  White-0\n", b"W  |  W\nBar:  White-0\n", &s, Extent::Whole);
    assert_eq!(
        c.diff.unwrap(),
        "--- expected\n+++ actual\n@@ -1,3 +1,2 @@\n-W  |  R\n+W  |  W\n Bar:  White-0\n"
    );
}

#[test]
fn invalid_utf8_is_compared_not_rejected() {
    let c = compare(b"a\n", b"\xff\xfe\n", &spec(&[]), Extent::Whole);
    assert!(!c.matched);
    assert_eq!(c.divergence.unwrap().actual.as_deref(), Some("\u{fffd}\u{fffd}"));
}

/// A rung that reduces a board drawn with labels, a header and spaced cells to its rows of symbols.
fn board_layout(credit: f64) -> LenientRewrite {
    let rule = |p: &str, r: &str| (pattern(p).unwrap(), r.to_owned());
    LenientRewrite {
        credit,
        what: "the board's labels and spacing".to_owned(),
        rules: vec![rule(r"[ |]", ""), rule(r"^[0-9]{4}$", ""), rule(r"^[0-9]+[:.]?([-wb]{4})$", "$1")],
    }
}

fn board_spec() -> CompareSpec {
    let mut s = spec(&[Normalization::TrailingWhitespace, Normalization::BlankLines]);
    s.lenient_rewrite = Some(board_layout(0.6));
    s
}

const BOARD: &[u8] = b"> display\n-b-b\n----\nw-w-\n";

#[test]
fn a_match_after_the_costly_rewrite_keeps_exactly_its_credit_and_names_the_lines_it_changed() {
    let c = compare(
        BOARD,
        b"> display\n  0 1 2 3\n0 - b - b\n1 - - - -\n2 w - w -\n",
        &board_spec(),
        Extent::Whole,
    );
    assert!(c.matched);
    assert_eq!(c.credit, 0.6);
    assert_eq!(c.leniency, []);
    assert_eq!(c.lenient_rewrite.as_deref(), Some("the board's labels and spacing"));
    assert!(c.is_lenient());
    // The header and the three rows; the echoed command, equal in both, is not counted.
    assert_eq!(
        c.forgiven,
        [Forgiven {
            what: "the board's labels and spacing".into(),
            count: 4,
            unit: Unit::Line,
            expected_line: 2,
            expected: "-b-b".into()
        }]
    );
    assert_eq!(
        c.forgiven[0].describe(),
        "the board's labels and spacing (4 lines, first at expected line 2: \"-b-b\")"
    );
    assert_eq!(
        c.forgiven[0].describe_unquoted(),
        "the board's labels and spacing (4 lines, first at expected line 2)"
    );
    // The report still shows what differed, as printed.
    assert_eq!(c.divergence.unwrap().actual.as_deref(), Some("  0 1 2 3"));

    // Only the row that needed it counts, and the first place is where it mattered.
    let c = compare(BOARD, b"> display\n-b-b\n----\n2: w-w-\n", &board_spec(), Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 0.6));
    let f = &c.forgiven[0];
    assert_eq!((f.count, f.expected_line, f.expected.as_str()), (1, 4, "w-w-"));
}

#[test]
fn a_wrong_board_in_another_layout_earns_nothing_or_its_partial_share_under_the_rung() {
    let wrong = b"> display\n0 - b - b\n1 - - - -\n2 w - - w\n";
    let c = compare(BOARD, wrong, &board_spec(), Extent::Whole);
    assert_eq!((c.matched, c.credit), (false, 0.0));
    assert_eq!((c.leniency.len(), c.lenient_rewrite.as_deref(), c.forgiven.len()), (0, None, 0));
    assert_eq!(c.divergence.unwrap().actual.as_deref(), Some("0 - b - b"), "shown as printed");

    // Under `partial = "lines"`, 3 of 4 lines are equal once rewritten: 0.6 of 3/4, better than the
    // one equal line without the rewrite.
    let mut s = board_spec();
    s.partial = Partial::Lines;
    let c = compare(BOARD, wrong, &s, Extent::Whole);
    assert!(!c.matched);
    assert!((c.credit - 0.6 * 0.75).abs() < 1e-12, "{}", c.credit);
    assert_eq!(c.lenient_rewrite.as_deref(), Some("the board's labels and spacing"));
    assert_eq!(c.partial.as_ref().map(|p| (p.equal_lines, p.expected_lines)), Some((3, 4)));

    // A right layout with a wrong row keeps its partial credit without the rung, and names none.
    let c = compare(BOARD, b"> display\n-b-b\n----\nw--w\n", &s, Extent::Whole);
    assert!((c.credit - 0.75).abs() < 1e-12, "{}", c.credit);
    assert_eq!((c.leniency.len(), c.lenient_rewrite.as_deref()), (0, None));
}

#[test]
fn the_free_normalisations_still_cost_nothing_beside_a_rewrite_rung() {
    let c = compare(BOARD, b"> display\n\n-b-b  \n----\nw-w-\n\n", &board_spec(), Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 1.0));
    assert!(!c.is_lenient() && c.forgiven.is_empty());
    // Free rewrites apply before the costly ones, and cost nothing either.
    let mut s = board_spec();
    s.rewrite = vec![(pattern("^> show$").unwrap(), "> display".to_owned())];
    let c = compare(BOARD, b"> show\n-b-b\n----\nw-w-\n", &s, Extent::Whole);
    assert_eq!((c.matched, c.credit, c.lenient_rewrite), (true, 1.0, None));
}

#[test]
fn the_rewrite_rung_takes_its_place_in_the_ladder_by_credit() {
    let mut s = board_spec();
    s.lenient = vec![(Normalization::AllWhitespace, 0.9), (Normalization::Case, 0.5)];
    // Needs only all-whitespace: the rung above the rewrite.
    let c = compare(BOARD, b"> display\n-b-b----\nw-w-\n", &s, Extent::Whole);
    assert_eq!((c.matched, c.credit, c.lenient_rewrite.as_deref()), (true, 0.9, None));
    // Needs the rewrite: it keeps the whitespace rung above it, and costs its own credit.
    let c = compare(BOARD, b"> display\n0 -b-b\n1 ----\n2 w-w-\n", &s, Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 0.6));
    assert_eq!(c.leniency, [Normalization::AllWhitespace]);
    assert_eq!(c.lenient_rewrite.as_deref(), Some("the board's labels and spacing"));
    // Needs the rewrite and letter case: the lowest rung, and both are named; the letter is found in
    // the rewritten lines.
    let c = compare(BOARD, b"> Display\n0 -b-b\n1 ----\n2 w-w-\n", &s, Extent::Whole);
    assert_eq!((c.matched, c.credit), (true, 0.5));
    let what: Vec<(&str, usize, Unit)> =
        c.forgiven.iter().map(|f| (f.what.as_str(), f.count, f.unit)).collect();
    assert_eq!(what, [("letter case", 1, Unit::Place), ("the board's labels and spacing", 3, Unit::Line)]);
    // A rewrite rung above the normalisations is tried first.
    s.lenient_rewrite = Some(board_layout(0.95));
    let c = compare(BOARD, b"> display\n0 -b-b\n1 ----\n2 w-w-\n", &s, Extent::Whole);
    assert_eq!((c.credit, c.leniency.len()), (0.95, 0));
}

#[test]
fn a_rewrite_that_changes_both_outputs_alike_forgives_nothing_there() {
    // The rules also drop the echoed command's space, in both outputs: that is no difference.
    let c = compare(BOARD, b"> display\n-b-b\n----\n2 w-w-\n", &board_spec(), Extent::Whole);
    assert_eq!(c.forgiven.iter().map(|f| f.count).collect::<Vec<_>>(), [1]);
}

#[test]
fn each_line_of_findings_costs_its_share_and_no_more_than_the_case() {
    let mut s = spec(&[]);
    s.partial = Partial::EachLine;
    s.hunk_cost = 0.2;
    let findings = "A.java:3: javadoc\nA.java:9: javadoc\nB.java:1: javadoc\n";
    let c = compare(b"", findings.as_bytes(), &s, Extent::Whole);
    assert!(!c.matched);
    assert!((c.credit - 0.4).abs() < 1e-9, "{}", c.credit);
    assert_eq!(c.partial.as_ref().map(|p| p.differences), Some(3));
    let many: String = (1..=9).map(|n| format!("A.java:{n}: tab\n")).collect();
    assert_eq!(compare(b"", many.as_bytes(), &s, Extent::Whole).credit, 0.0);
    assert!(compare(b"", b"", &s, Extent::Whole).matched);
}

#[test]
fn diffing_lines_as_numbers_gives_the_operations_diffing_the_lines_gives() {
    use similar::{capture_diff_slices, Algorithm};
    let mut rng = fastrand::Rng::with_seed(28);
    let words = ["a", "b", "c", "Red's turn", "", "roll 3", "d"];
    for _ in 0..300 {
        let text = |rng: &mut fastrand::Rng| -> Vec<String> {
            let n = rng.usize(..40);
            (0..n).map(|_| words[rng.usize(..words.len())].to_owned()).collect()
        };
        let (expected, actual) = (text(&mut rng), text(&mut rng));
        let (e, a) = super::attempt::line_ids(&expected, &actual);
        assert_eq!(
            capture_diff_slices(Algorithm::Patience, &e, &a),
            capture_diff_slices(Algorithm::Patience, &expected, &actual),
            "{expected:?} {actual:?}"
        );
    }
}

#[test]
fn readings_of_the_same_shape_earn_the_same_partial_credit() {
    // What lets the ladder skip a rung's diff: the same lines equal at the same places.
    use super::attempt::Attempt;
    let expected = "Red moves 3\nBoard:\n. . x\nBlue moves 2\n";
    let derailed = "Red moves 3\nBoard:\n. x .\nBlue moves 5\nextra\n";
    let plain = Reading { norms: Vec::new(), rewrite: false };
    let lenient = Reading { norms: vec![Normalization::AllWhitespace, Normalization::Case], rewrite: false };
    for partial in [Partial::Lines, Partial::Prefix, Partial::EachLine, Partial::Hunks] {
        let spec = CompareSpec { partial, ..CompareSpec::default() };
        let strict = Attempt::new(expected, derailed, &plain, &spec, Extent::Whole);
        let forgiving = Attempt::new(expected, derailed, &lenient, &spec, Extent::Whole);
        assert!(strict.same_shape(&forgiving));
        assert_eq!(strict.partial_credit(&spec), forgiving.partial_credit(&spec));
    }
    // Where a reading makes lines equal, the shape (and the credit) is another.
    let shouting = "Red moves 3\nBoard:\n. x .\nBLUE MOVES 2\n";
    let spec = CompareSpec { partial: Partial::Lines, ..CompareSpec::default() };
    let strict = Attempt::new(expected, shouting, &plain, &spec, Extent::Whole);
    let forgiving = Attempt::new(expected, shouting, &lenient, &spec, Extent::Whole);
    assert!(!strict.same_shape(&forgiving));
    assert!(forgiving.partial_credit(&spec).0 > strict.partial_credit(&spec).0);
}
