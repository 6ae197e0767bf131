//! The function-level driver language of `cases/trouble/README.md`, as the Rust reference answers it.

use reference::driver::{DriverError, LineDriver};
use reference::trouble::driver::Driver;

fn script(lines: &[&str]) -> String {
    reference::driver::run_script::<Driver, _>(lines).unwrap()
}

fn rejection(lines: &[&str]) -> String {
    reference::driver::run_script::<Driver, _>(lines).unwrap_err().to_string()
}

const START_DUMP: &str = "\
gPieces: -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
gHome: 4 4 4 4
gRing: -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
gFinish[0]: -1 -1 -1 -1
gFinish[1]: -1 -1 -1 -1
gFinish[2]: -1 -1 -1 -1
gFinish[3]: -1 -1 -1 -1
";

#[test]
fn clear_then_dump_shows_the_start_of_the_game() {
    assert_eq!(script(&["clear", "dump"]), format!("> clear\n> dump\n{START_DUMP}"));
}

#[test]
fn scramble_then_dump_shows_the_junk_exactly() {
    let expected = "\
> scramble
> dump
gPieces: 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105
gHome: 7 7 7 7
gRing: 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77
gFinish[0]: 60 61 62 63
gFinish[1]: 64 65 66 67
gFinish[2]: 68 69 70 71
gFinish[3]: 72 73 74 75
";
    assert_eq!(script(&["scramble", "dump"]), expected);
}

#[test]
fn init_resets_a_scrambled_or_played_board() {
    let out = script(&["scramble", "init", "dump"]);
    assert_eq!(out, format!("> scramble\n> init\n> dump\n{START_DUMP}"));
    let out = script(&["clear", "place 3 G2", "init", "dump"]);
    assert!(out.ends_with(START_DUMP));
}

#[test]
fn place_keeps_all_four_arrays_consistent() {
    let out = script(&["clear", "place 0 R5", "place 5 GF2", "place 9 B7", "place 9 H", "dump"]);
    let expected = "\
gPieces: 4 -1 -1 -1 -1 111 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
gHome: 3 3 4 4
gRing: -1 -1 -1 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1
gFinish[0]: -1 -1 -1 -1
gFinish[1]: -1 5 -1 -1
gFinish[2]: -1 -1 -1 -1
gFinish[3]: -1 -1 -1 -1
";
    assert!(out.ends_with(expected), "{out}");
}

#[test]
fn status_prints_the_colour_names_in_six_columns() {
    let out = script(&["clear", "place 0 R1", "place 2 RF3", "place 3 Y3", "place 5 G4", "status"]);
    assert!(
        out.ends_with("> status\n   Red: R1,H,RF3,Y3\n Green: H,G4,H,H\nYellow: H,H,H,H\n  Blue: H,H,H,H\n")
    );
}

#[test]
fn moves_prints_the_moves_then_the_count() {
    let out = script(&["clear", "place 0 R5", "moves 0 6", "moves 2 6", "moves 2 1"]);
    assert!(out.ends_with(
        "> moves 0 6\nR5 to G4\nprintMoves returned 1\n\
         > moves 2 6\nH to Y5\nprintMoves returned 1\n\
         > moves 2 1\nprintMoves returned 0\n"
    ));
}

#[test]
fn move_returns_1_and_moves_or_returns_0_and_changes_nothing() {
    let out = script(&[
        "clear",
        "place 0 R4",
        "place 1 RF2",
        "dump",
        "move 0 RF2 3",
        "move 0 R4 2",
        "move 0 G1 1",
        "dump",
    ]);
    assert!(out.contains("> move 0 RF2 3\nmovePiece returned 0\n"), "overshoot: {out}");
    assert!(out.contains("> move 0 R4 2\nmovePiece returned 0\n"), "own piece on RF2: {out}");
    assert!(out.contains("> move 0 G1 1\nmovePiece returned 0\n"), "no piece there: {out}");
    let dumps: Vec<&str> = out.split("> dump\n").skip(1).collect();
    assert_eq!(
        dumps[0].split("> move").next().unwrap(),
        dumps[1],
        "an illegal move leaves the globals unchanged"
    );

    let out = script(&["clear", "place 8 R5", "move 0 H 6", "dump"]);
    assert!(out.contains("> move 0 H 6\nmovePiece returned 1\n"));
    assert!(out.contains("gPieces: 4 -1 -1 -1 -1 -1 -1 -1 -1 -1"), "{out}");
    assert!(out.contains("gHome: 3 4 4 4"), "the captured piece went home: {out}");

    let out = script(&["clear", "place 0 RF1", "move 0 RF1 2", "dump"]);
    assert!(out.contains("movePiece returned 1\n"));
    assert!(out.contains("gFinish[0]: -1 -1 0 -1\n"), "{out}");
}

#[test]
fn win_reports_a_full_finish_line() {
    let out = script(&[
        "clear",
        "place 12 BF1",
        "place 13 BF2",
        "place 14 BF3",
        "win 3",
        "place 15 BF4",
        "win 3",
        "win 0",
    ]);
    assert!(out.contains("> win 3\ncheckWin returned 0\n"));
    assert!(out.ends_with("> win 3\ncheckWin returned 1\n> win 0\ncheckWin returned 0\n"));
}

#[test]
fn comments_and_empty_lines_print_nothing_and_echo_joins_tokens_with_one_space() {
    let out = script(&["# a comment", "", "   ", "clear", "  moves\t 0   6  "]);
    assert_eq!(out, "> clear\n> moves 0 6\nH to R5\nprintMoves returned 1\n");
}

#[test]
fn rejections_name_the_command_number_and_text() {
    let cases: &[(&[&str], &str)] = &[
        (&["clear", "jump 0 R1"], "command 2 (`jump 0 R1`): unknown command `jump`"),
        (&["clear", "moves 0"], "command 2 (`moves 0`): usage: moves PLAYER ROLL"),
        (&["clear", "dump extra"], "command 2 (`dump extra`): usage: dump"),
        (&["clear", "moves 4 6"], "player `4` is not a number 0..3"),
        (&["clear", "moves -1 6"], "player `-1` is not a number 0..3"),
        (&["clear", "moves 0 0"], "roll `0` is not a number 1..6"),
        (&["clear", "moves 0 7"], "roll `7` is not a number 1..6"),
        (&["clear", "move 0 R1 x"], "roll `x` is not a number 1..6"),
        (&["clear", "place 16 R1"], "piece `16` is not a number 0..15"),
        (&["clear", "place 0 R9"], "`R9` is not a location"),
        (&["clear", "move 0 Q 1"], "`Q` is not a location"),
        (&["clear", "place 0 R1", "place 4 R1"], "command 3 (`place 4 R1`): R1 is already held by piece 0"),
        (&["clear", "place 0 GF1"], "cannot be in the Finish Line GF1"),
        (&["scramble", "status"], "scramble's junk"),
        (&["scramble", "moves 0 6"], "scramble's junk"),
        (&["scramble", "move 0 H 6"], "scramble's junk"),
        (&["scramble", "win 0"], "scramble's junk"),
        (&["scramble", "place 0 R1"], "scramble's junk"),
        (&["dump"], "command 1 (`dump`): the globals are not set yet"),
        (&["status"], "not set yet"),
    ];
    for (lines, expected) in cases {
        let message = rejection(lines);
        assert!(message.contains(expected), "{lines:?}: {message}");
    }
}

#[test]
fn execute_returns_the_output_of_one_line() {
    let mut driver = Driver::new();
    assert_eq!(driver.execute("clear").unwrap(), "> clear\n");
    assert_eq!(driver.execute("win 0").unwrap(), "> win 0\ncheckWin returned 0\n");
    assert!(driver.board().is_some());
    assert!(driver.execute("bogus").is_err());
}

#[test]
fn run_streams_the_output_and_stops_at_a_rejected_line() {
    let mut input: &[u8] = b"clear\r\nwin 1\nplace 0 XX\ndump\n";
    let mut out = Vec::new();
    let err = reference::driver::run::<Driver>(&mut input, &mut out).unwrap_err();
    assert!(matches!(err, DriverError::Rejected(_)));
    assert!(err.to_string().starts_with("command 3 (`place 0 XX`)"), "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), "> clear\n> win 1\ncheckWin returned 0\n");
}
