//! The function-level driver language of `cases/backgammon/README.md`, as the Rust reference answers
//! it.

use reference::backgammon::driver::{changes, globals, unexpected_return, Driver};
use reference::backgammon::rules::{Board, Colour};
use reference::driver::{DriverError, LineDriver};

fn script(lines: &[&str]) -> String {
    reference::driver::run_script::<Driver, _>(lines).unwrap()
}

fn rejection(lines: &[&str]) -> String {
    reference::driver::run_script::<Driver, _>(lines).unwrap_err().to_string()
}

/// The output of the last command of a script (after its echo).
fn last(lines: &[&str]) -> String {
    let out = script(lines);
    let echo = format!("> {}\n", lines.last().unwrap());
    out[out.rfind(&echo).unwrap() + echo.len()..].to_owned()
}

const START_DUMP: &str = "\
the_board_white: 0 0 0 0 0 5 0 3 0 0 0 0 5 0 0 0 0 0 0 0 0 0 0 2
the_board_red: 2 0 0 0 0 0 0 0 0 0 0 5 0 0 0 0 3 0 5 0 0 0 0 0
the_bar_white: 0
the_bar_red: 0
num_white: 15
num_red: 15
";

#[test]
fn start_then_dump_shows_the_start_position() {
    assert_eq!(script(&["start", "dump"]), format!("> start\n> dump\n{START_DUMP}"));
}

#[test]
fn clear_empties_everything() {
    let out = last(&["start", "clear", "dump"]);
    let zeros = vec!["0"; 24].join(" ");
    assert_eq!(
        out,
        format!(
            "the_board_white: {zeros}\nthe_board_red: {zeros}\nthe_bar_white: 0\nthe_bar_red: 0\n\
             num_white: 0\nnum_red: 0\n"
        )
    );
}

#[test]
fn set_and_bar_add_their_change_to_num() {
    let out =
        last(&["start", "set white 6 2", "set red 3 4", "bar white 1", "bar red 2", "bar red 1", "dump"]);
    assert!(out.starts_with("the_board_white: 0 0 0 0 0 2 0 3"), "{out}");
    assert!(out.contains("the_board_red: 2 0 4 0"), "{out}");
    assert!(out.ends_with("the_bar_white: 1\nthe_bar_red: 1\nnum_white: 13\nnum_red: 20\n"), "{out}");
}

#[test]
fn print_calls_print_board() {
    let out = last(&["start", "print"]);
    assert!(out.starts_with("13 14 15 16 17 18    19 20 21 22 23 24 \nW  |  |  |  R  |     R  "));
    assert!(out.ends_with("12 11 10 9  8  7     6  5  4  3  2  1  \n  Bar:  White-0  Red-0\n"));
    let barred = last(&["clear", "bar red 3", "set white 1 7", "print"]);
    assert!(barred.contains("\n|  |  |  |  |  |     |  |  |  |  |  W  \n"));
    assert!(barred.ends_with("  Bar:  White-0  Red-3\n"));
}

#[test]
fn check_prints_the_return_value_of_each_function() {
    let cases: &[(&[&str], &str)] = &[
        (&["start", "check check_move white 24 23 1"], "check_move returned 1\n"),
        (&["start", "check check_move white 24 22 1"], "check_move returned 2\n"),
        (&["start", "check check_move red 1 3 2"], "check_move returned 1\n"),
        (&["start", "check check_move red 0 3 3"], "check_move returned 2\n"),
        (&["start", "check check_move white 6 0 6"], "check_move returned 2\n"),
        (&["start", "check check_basic_move white 13 9 4"], "check_basic_move returned 1\n"),
        (&["start", "check check_basic_move white 24 19 5"], "check_basic_move returned 2\n"),
        (&["start", "check check_basic_move white 24 25 1"], "check_basic_move returned 2\n"),
        (&["start", "check check_basic_move red 12 10 2"], "check_basic_move returned 2\n"),
        (
            &["start", "set red 1 1", "bar red 1", "check check_entry_move red 0 3 3"],
            "check_entry_move returned 1\n",
        ),
        (
            &["start", "set red 1 1", "bar red 1", "check check_entry_move red 0 6 6"],
            "check_entry_move returned 2\n",
        ),
        (
            &["start", "set white 24 1", "bar white 1", "check check_entry_move white 0 21 4"],
            "check_entry_move returned 1\n",
        ),
        (
            &["start", "set white 24 1", "bar white 1", "check check_entry_move white 0 21 3"],
            "check_entry_move returned 2\n",
        ),
        (
            &["start", "set white 24 1", "bar white 1", "check check_move white 13 11 2"],
            "check_move returned 2\n",
        ),
        (
            &["clear", "set white 3 2", "set white 5 1", "check check_bear_off_move white 3 0 5"],
            "check_bear_off_move returned 1\n",
        ),
        (
            &["clear", "set white 3 2", "set white 5 1", "check check_bear_off_move white 5 0 4"],
            "check_bear_off_move returned 2\n",
        ),
        (
            &["clear", "set white 3 2", "set white 7 1", "check check_bear_off_move white 3 0 3"],
            "check_bear_off_move returned 2\n",
        ),
        (
            &["clear", "set red 22 1", "check check_bear_off_move red 22 0 3"],
            "check_bear_off_move returned 1\n",
        ),
        (&["start", "check check_die white 10 7 3"], "check_die returned 1\n"),
        (&["start", "check check_die red 10 7 3"], "check_die returned 2\n"),
        (&["start", "check check_die white 10 8 3"], "check_die returned 2\n"),
    ];
    for (lines, expected) in cases {
        assert_eq!(last(lines), *expected, "{lines:?}");
    }
}

#[test]
fn a_check_changes_nothing_and_the_globals_stay_as_they_were() {
    let out = script(&["start", "set red 19 4", "set red 20 1", "check check_move white 24 20 4", "dump"]);
    assert!(out.contains("> check check_move white 24 20 4\ncheck_move returned 1\n> dump\n"), "{out}");
    assert!(out.contains("the_bar_red: 0\n"), "a hit is only checked, not made: {out}");
    let out = script(&["start", "set red 19 4", "set red 20 1", "effects check_move white 24 20 4", "dump"]);
    assert!(out.contains("> effects check_move white 24 20 4\n> dump\n"), "{out}");
    assert!(out.contains("the_bar_red: 0\n"), "{out}");
}

#[test]
fn effects_of_a_correct_function_print_nothing_after_the_echo() {
    let lines = [
        "start",
        "set red 19 4",
        "set red 20 1",
        "effects check_move white 24 20 4",
        "effects check_basic_move white 24 20 4",
        "effects check_die white 24 20 4",
        "effects check_move white 24 22 1",
        "set red 1 1",
        "bar red 1",
        "effects check_entry_move red 0 5 5",
        "effects check_move red 0 6 6",
        "clear",
        "set white 3 2",
        "effects check_bear_off_move white 3 0 5",
        "effects check_bear_off_move white 3 0 2",
    ];
    let echoes: String = lines.iter().map(|l| format!("> {l}\n")).collect();
    assert_eq!(script(&lines), echoes);
    // The same query through check prints the return value only.
    assert_eq!(last(&["start", "effects check_move white 24 23 1"]), "");
    assert_eq!(last(&["start", "check check_move white 24 23 1"]), "check_move returned 1\n");
}

#[test]
fn effects_asks_only_what_check_may_ask() {
    let cases: &[(&[&str], &str)] = &[
        (&["start", "effects check_move white 0 0 1"], "ends at 0 0"),
        (&["start", "effects check_entry_move white 0 21 4"], "no checker on the bar"),
        (&["start", "effects check_die white 3 0 3"], "check_die on 3 0"),
        (&["start", "set white 3 1", "effects check_move white 13 12 1"], "16 checkers"),
        (&["start", "effects check_move white 24 23"], "usage: effects FUNCTION COLOUR FROM TO DIE"),
        (&["start", "effects check_moves white 24 23 1"], "unknown function `check_moves`"),
        (&["start", "effects check_move white 24 23 9"], "die `9` is not a number 1..6"),
        (&["effects check_move white 24 23 1"], "the globals are not set yet"),
    ];
    for (lines, expected) in cases {
        let message = rejection(lines);
        assert!(message.contains(expected), "{lines:?}: {message}");
    }
}

#[test]
fn a_return_value_other_than_valid_or_invalid_is_reported_by_effects() {
    assert_eq!(
        unexpected_return("check_move", 0).as_deref(),
        Some("check_move returned 0, neither VALID_MOVE nor INVALID_MOVE")
    );
    assert_eq!(
        unexpected_return("check_die", -1).as_deref(),
        Some("check_die returned -1, neither VALID_MOVE nor INVALID_MOVE")
    );
    assert_eq!(unexpected_return("check_move", 1), None);
    assert_eq!(unexpected_return("check_move", 2), None);
}

#[test]
fn changes_are_listed_in_dump_order_with_c_names() {
    let before = Board::start();
    let mut after = before;
    after.play(Colour::White, reference::backgammon::rules::Move::new(24, 20), 4).unwrap();
    after.set_count(Colour::Red, 1, 0).unwrap();
    after.set_bar(Colour::Red, 1).unwrap();
    assert_eq!(
        changes("check_move", &before, &after),
        [
            "check_move changed the_board_white[20] from 0 to 1",
            "check_move changed the_board_white[24] from 2 to 1",
            "check_move changed the_board_red[1] from 2 to 0",
            "check_move changed the_bar_red from 0 to 1",
            "check_move changed num_red from 15 to 14",
        ]
    );
    assert!(changes("check_die", &before, &before).is_empty());
    let names: Vec<String> = globals(&before).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names.len(), 52);
    assert_eq!(names[0], "the_board_white[1]");
    assert_eq!(names[24], "the_board_red[1]");
    assert_eq!(names[48..], ["the_bar_white", "the_bar_red", "num_white", "num_red"]);
}

#[test]
fn bounds_answers_any_int() {
    let out = script(&["bounds 0", "bounds 1", "bounds 24", "bounds 25", "bounds -3"]);
    assert_eq!(
        out,
        "> bounds 0\ncheck_board_bounds returned 2\n> bounds 1\ncheck_board_bounds returned 1\n\
         > bounds 24\ncheck_board_bounds returned 1\n> bounds 25\ncheck_board_bounds returned 2\n\
         > bounds -3\ncheck_board_bounds returned 2\n"
    );
}

#[test]
fn blank_lines_and_comments_print_nothing_and_echoes_single_space_the_tokens() {
    let out = script(&["", "   ", "# a comment", "#no space", "  start  ", "check   check_die\twhite 3 1 2"]);
    assert_eq!(out, "> start\n> check check_die white 3 1 2\ncheck_die returned 1\n");
}

#[test]
fn malformed_commands_are_rejected_with_their_number_and_text() {
    let cases: &[(&[&str], &str)] = &[
        (&["start", "fly"], "command 2 (`fly`): unknown command `fly`"),
        (&["start", "dump 1"], "usage: dump"),
        (&["start", "set white 25 1"], "point `25` is not a number 1..24"),
        (&["start", "set white 3 -1"], "count `-1` is not a number 0..15"),
        (&["start", "set blue 3 1"], "colour `blue` is not white or red"),
        (&["start", "set White 3 1"], "colour `White` is not white or red"),
        (&["start", "bar red x"], "count `x` is not a number 0..15"),
        (&["start", "check check_moves white 24 23 1"], "unknown function `check_moves`"),
        (&["start", "check check_move white 24 23 0"], "die `0` is not a number 1..6"),
        (&["start", "check check_move white 24 23 7"], "die `7` is not a number 1..6"),
        (&["start", "check check_move white 24 23"], "usage: check FUNCTION COLOUR FROM TO DIE"),
        (&["start", "check check_move white 2000000 23 1"], "FROM `2000000` is not a number"),
        (&["bounds x"], "N `x` is not a number"),
    ];
    for (lines, expected) in cases {
        let message = rejection(lines);
        assert!(message.contains(expected), "{lines:?}: {message}");
    }
}

#[test]
fn the_globals_must_be_set_before_they_are_used() {
    for command in ["dump", "print", "set white 1 1", "bar red 1", "check check_move white 24 23 1"] {
        let message = rejection(&[command]);
        assert!(
            message.starts_with(&format!("command 1 (`{command}`): the globals are not set yet")),
            "{message}"
        );
    }
    // check_board_bounds reads no global.
    assert_eq!(script(&["bounds 3"]), "> bounds 3\ncheck_board_bounds returned 1\n");
}

#[test]
fn queries_the_handout_leaves_open_are_rejected() {
    let cases: &[(&[&str], &str)] = &[
        (&["start", "check check_move white 0 0 1"], "ends at 0 0"),
        (&["start", "check check_basic_move white 0 21 4"], "not a basic move"),
        (&["start", "check check_basic_move white 6 0 6"], "not a basic move"),
        (
            &["start", "set white 24 1", "bar white 1", "check check_basic_move white 13 11 2"],
            "has a checker on the bar",
        ),
        (&["start", "check check_entry_move white 24 21 3"], "not an entry move"),
        (&["start", "check check_entry_move white 0 21 4"], "no checker on the bar"),
        (&["start", "check check_bear_off_move white 6 5 1"], "not a bearing off move"),
        (&["clear", "set white 3 1", "bar white 1", "check check_bear_off_move white 3 0 3"], "on the bar"),
        (&["start", "check check_die white 0 21 4"], "check_die on 0 21"),
        (&["start", "check check_die white 3 0 3"], "check_die on 3 0"),
        (&["start", "check check_die white 26 25 1"], "check_die on 26 25"),
        (&["start", "set red 24 1", "check check_move white 13 12 1"], "both colours"),
        (&["start", "set red 24 1", "print"], "both colours"),
        (&["start", "set white 3 1", "check check_move white 13 12 1"], "16 checkers"),
    ];
    for (lines, expected) in cases {
        let message = rejection(lines);
        assert!(message.contains(expected), "{lines:?}: {message}");
        let number = lines.len();
        assert!(message.starts_with(&format!("command {number} (`")), "{message}");
    }
    // check_die reads no board, so a mixed point does not make it open.
    assert_eq!(last(&["start", "set red 24 1", "check check_die white 13 12 1"]), "check_die returned 1\n");
}

#[test]
fn execute_returns_the_output_of_one_line() {
    let mut driver = Driver::new();
    assert!(driver.board().is_none());
    assert_eq!(driver.execute("start").unwrap(), "> start\n");
    assert_eq!(driver.board(), Some(&Board::start()));
    assert_eq!(driver.execute("bounds 7").unwrap(), "> bounds 7\ncheck_board_bounds returned 1\n");
    assert!(driver.execute("bogus").is_err());
}

#[test]
fn run_streams_the_output_and_stops_at_a_rejected_line() {
    let mut input: &[u8] = b"start\r\nbounds 0\nset white 0 1\ndump\n";
    let mut out = Vec::new();
    let err = reference::driver::run::<Driver>(&mut input, &mut out).unwrap_err();
    assert!(matches!(err, DriverError::Rejected(_)));
    assert!(err.to_string().starts_with("command 3 (`set white 0 1`)"), "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), "> start\n> bounds 0\ncheck_board_bounds returned 2\n");
}
