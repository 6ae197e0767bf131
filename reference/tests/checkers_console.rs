//! The whole checkers program: the start board byte for byte, the prompts, invalid moves, jumps,
//! crowning and kings seen through the printed boards, input read as `scanf` reads it, and the
//! `reference checkers` binary.

use std::io::Write;
use std::process::{Command, Stdio};

use reference::checkers::console::{run, run_stdin, Ending, Options, Script, Session, Tokens, INVALID_MOVE};
use reference::checkers::rules::Colour;

/// The start board of `shared/specs/checkers.md`, `$` marking each line's end.
const START_BOARD: &str = "   0   1   2   3   4   5   6   7 $
 |---|---|---|---|---|---|---|---|$
0|   | r |   | r |   | r |   | r |$
 |---|---|---|---|---|---|---|---|$
1| r |   | r |   | r |   | r |   |$
 |---|---|---|---|---|---|---|---|$
2|   | r |   | r |   | r |   | r |$
 |---|---|---|---|---|---|---|---|$
3|   |   |   |   |   |   |   |   |$
 |---|---|---|---|---|---|---|---|$
4|   |   |   |   |   |   |   |   |$
 |---|---|---|---|---|---|---|---|$
5| w |   | w |   | w |   | w |   |$
 |---|---|---|---|---|---|---|---|$
6|   | w |   | w |   | w |   | w |$
 |---|---|---|---|---|---|---|---|$
7| w |   | w |   | w |   | w |   |$
 |---|---|---|---|---|---|---|---|$
$
";

/// The header line that starts every printed board.
const HEADER: &str = "   0   1   2   3   4   5   6   7 \n";

fn start_board() -> String {
    START_BOARD.replace("$\n", "\n")
}

/// Runs the program on these lines, one move each.
fn play(lines: &[&str]) -> (String, Session) {
    let mut out = Vec::new();
    let session = run(&mut Script::new(lines.iter().copied()), &mut out, Options::default()).unwrap();
    (String::from_utf8(out).unwrap(), session)
}

/// Runs the program on standard input bytes, as the `reference checkers` command does.
fn play_stdin(stdin: &[u8]) -> (String, Session) {
    let mut input = stdin;
    let mut out = Vec::new();
    let session = run_stdin(&mut input, &mut out).unwrap();
    (String::from_utf8(out).unwrap(), session)
}

/// Every board printed, in order (the start board first), each as its 18 lines.
fn boards(out: &str) -> Vec<Vec<&str>> {
    out.match_indices(HEADER).map(|(i, _)| out[i..].lines().take(18).collect()).collect()
}

/// The line of row `y` of a printed board.
fn row<'a>(board: &[&'a str], y: usize) -> &'a str {
    board[2 + 2 * y]
}

/// The pieces of row `y` of a printed board, read from its text: a letter per column, `.` for empty.
fn cells(board: &[&str], y: usize) -> String {
    let line = row(board, y);
    assert!(line.starts_with(&format!("{y}|")) && line.ends_with('|'), "row {y}: {line:?}");
    line[2..line.len() - 1]
        .split('|')
        .map(|cell| {
            assert_eq!(cell.len(), 3, "row {y}: {line:?}");
            match cell.trim() {
                "" => '.',
                letter => letter.parse::<char>().unwrap(),
            }
        })
        .collect()
}

/// How many of a letter a printed board shows.
fn count(board: &[&str], letter: char) -> usize {
    (0..8).map(|y| cells(board, y).matches(letter).count()).sum()
}

#[test]
fn the_start_board_is_the_specs_picture_byte_for_byte_then_reds_prompt() {
    let (out, session) = play(&[]);
    assert_eq!(out, format!("{}RED's move:  ", start_board()));
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::Red, turn: 1 });
    assert_eq!(session.turns, 0);
    // The same through standard input.
    assert_eq!(play_stdin(b"").0, out);
}

#[test]
fn the_reference_binary_prints_what_run_stdin_prints_and_exits_0_at_end_of_input() {
    let stdin = b"1 2 0 3\n2 5 1 4\n9 9 9 9\n3 2 4 3\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_reference"))
        .arg("checkers")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{:?}: {}", output.status, String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    let (expected, session) = play_stdin(stdin);
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 4 });
    assert_eq!(expected.matches(INVALID_MOVE).count(), 1);
    assert!(expected.ends_with("WHITE's move:  "), "{expected}");
}

#[test]
fn a_valid_move_prints_an_empty_line_and_the_new_board_then_the_other_players_prompt() {
    let (out, session) = play(&["1 2 0 3"]);
    let after =
        start_board().replace("2|   | r |   | r |", "2|   |   |   | r |").replace("3|   |   |", "3| r |   |");
    assert_eq!(out, format!("{}RED's move:  \n{after}WHITE's move:  ", start_board()));
    let last = boards(&out).pop().unwrap();
    assert_eq!(cells(&last, 2), "...r.r.r");
    assert_eq!(cells(&last, 3), "r.......");
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 2 });
}

#[test]
fn an_invalid_move_prints_the_message_and_prompts_the_same_player_without_a_board() {
    // From an empty square, then from white's piece, then a valid step.
    let (out, session) = play(&["1 3 2 4", "0 5 1 4", "1 2 0 3"]);
    let after_start = &out[start_board().len()..];
    let expected =
        format!("RED's move:  {INVALID_MOVE}\nRED's move:  {INVALID_MOVE}\nRED's move:  \n{HEADER}");
    assert!(after_start.starts_with(&expected), "{after_start}");
    assert_eq!(boards(&out).len(), 2, "the start board and the one after the valid move");
    assert_eq!(session.turns, 1);
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 2 });
    assert_eq!(session.consumed, ["1 3 2 4", "0 5 1 4", "1 2 0 3"]);
}

#[test]
fn a_jump_removes_the_jumped_piece_from_the_board() {
    // Red steps to (4, 3); white steps next to it, to (3, 4); red jumps it, landing on (2, 5).
    let (out, session) = play(&["3 2 4 3", "2 5 3 4", "4 3 2 5"]);
    let printed = boards(&out);
    assert_eq!(printed.len(), 4);
    let before = &printed[2];
    assert_eq!(row(before, 3), "3|   |   |   |   | r |   |   |   |");
    assert_eq!(row(before, 4), "4|   |   |   | w |   |   |   |   |");
    assert_eq!(row(before, 5), "5| w |   |   |   | w |   | w |   |");
    let after = &printed[3];
    assert_eq!(row(after, 2), "2|   | r |   |   |   | r |   | r |");
    assert_eq!(row(after, 3), "3|   |   |   |   |   |   |   |   |");
    assert_eq!(row(after, 4), "4|   |   |   |   |   |   |   |   |", "the jumped white man is gone");
    assert_eq!(row(after, 5), "5| w |   | r |   | w |   | w |   |");
    assert_eq!((count(after, 'r'), count(after, 'w')), (12, 11));
    assert!(out.ends_with("WHITE's move:  "), "a jump ends the turn");
    assert_eq!(session.turns, 3);
}

#[test]
fn a_man_cannot_step_backwards() {
    // Red to (0, 3), white to (1, 4); red's man tries back to (1, 2), white's back to (0, 5).
    let (out, session) = play(&["1 2 0 3", "0 5 1 4", "0 3 1 2", "2 1 1 2", "1 4 0 5", "1 4 2 3"]);
    let refusals = format!("RED's move:  {INVALID_MOVE}\nRED's move:  \n");
    assert!(out.contains(&refusals), "{out}");
    let refusals = format!("WHITE's move:  {INVALID_MOVE}\nWHITE's move:  \n");
    assert!(out.contains(&refusals), "{out}");
    assert_eq!(out.matches(INVALID_MOVE).count(), 2);
    assert_eq!(session.turns, 4);
    let last = boards(&out).pop().unwrap();
    assert_eq!(cells(&last, 2), ".r.r.r.r", "red's man stepped forward from (2, 1) to (1, 2)");
    assert_eq!(cells(&last, 3), "r.w.....");
    assert_eq!(cells(&last, 5), "..w.w.w.", "white's man did not go back to (0, 5)");
}

/// A game, every move valid, in which a white man is crowned and its king moves backwards, then a
/// red man is crowned and its king moves backwards:
///
/// - move 8, `3 2 1 0`: a white man jumps (2, 1) and lands on row 0;
/// - move 10, `1 0 2 1`: white's king steps backwards (toward larger y);
/// - move 12, `2 1 4 3`: white's king jumps (3, 2) backwards (red jumps it on move 13);
/// - move 17, `2 5 4 7`: a red man jumps (3, 6) and lands on row 7;
/// - move 19, `4 7 3 6`: red's king steps backwards (toward smaller y).
const KINGS_GAME: [&str; 19] = [
    "1 2 0 3", "0 5 1 4", "3 2 2 3", "1 4 3 2", "0 1 1 2", "2 5 1 4", "1 0 0 1", "3 2 1 0", "0 3 2 5",
    "1 0 2 1", "4 1 3 2", "2 1 4 3", "5 2 3 4", "3 6 1 4", "3 4 2 5", "4 7 3 6", "2 5 4 7", "1 4 0 3",
    "4 7 3 6",
];

#[test]
fn a_man_reaching_the_far_row_is_shown_as_a_capital_and_can_then_move_backwards() {
    let (out, session) = play(&KINGS_GAME);
    assert_eq!(out.matches(INVALID_MOVE).count(), 0, "every move of the game is valid");
    assert_eq!(session.turns, 19);
    let printed = boards(&out);
    assert_eq!(printed.len(), 20);
    let after = |n: usize| &printed[n];
    // White crowned on (1, 0).
    assert_eq!(row(after(8), 0), "0|   | W |   | r |   | r |   | r |");
    assert_eq!(cells(after(8), 1), "r...r.r.", "the jumped red man is gone");
    assert_eq!((count(after(7), 'W'), count(after(8), 'W')), (0, 1));
    // White's king steps backwards to (2, 1), then jumps backwards over (3, 2) to (4, 3).
    assert_eq!(cells(after(10), 0), "...r.r.r");
    assert_eq!(cells(after(10), 1), "r.W.r.r.");
    assert_eq!(cells(after(11), 2), ".r.r.r.r");
    assert_eq!(cells(after(12), 1), "r.....r.");
    assert_eq!(cells(after(12), 2), ".r...r.r");
    assert_eq!(cells(after(12), 3), "....W...");
    // Red crowned on (4, 7).
    assert_eq!(row(after(17), 7), "7| w |   | w |   | R |   | w |   |");
    assert_eq!(cells(after(17), 6), ".w...w.w");
    assert_eq!((count(after(16), 'R'), count(after(17), 'R')), (0, 1));
    // Red's king steps backwards to (3, 6).
    assert_eq!(cells(after(19), 6), ".w.R.w.w");
    assert_eq!(cells(after(19), 7), "w.w...w.");
    assert_eq!(count(after(19), 'R') + count(after(19), 'W'), 1, "white's king was jumped on move 13");
}

#[test]
fn a_king_jumps_backwards_over_an_opponents_piece() {
    let (out, session) = play(&KINGS_GAME[..12]);
    assert_eq!(out.matches(INVALID_MOVE).count(), 0);
    assert_eq!(session.turns, 12);
    let printed = boards(&out);
    let (before, after) = (&printed[11], &printed[12]);
    assert_eq!(row(before, 1), "1| r |   | W |   |   |   | r |   |");
    assert_eq!(row(before, 2), "2|   | r |   | r |   | r |   | r |");
    assert_eq!(row(after, 1), "1| r |   |   |   |   |   | r |   |");
    assert_eq!(row(after, 2), "2|   | r |   |   |   | r |   | r |", "the jumped red man is gone");
    assert_eq!(row(after, 3), "3|   |   |   |   | W |   |   |   |");
    assert_eq!(count(after, 'r'), 9);
}

#[test]
fn a_man_cannot_jump_backwards() {
    // White's man jumps to (3, 2); red steps to (4, 3), behind it; white's man tries to jump it
    // backwards to (5, 4), is refused, and steps elsewhere.
    let (out, session) = play(&["1 2 0 3", "0 5 1 4", "3 2 2 3", "1 4 3 2", "5 2 4 3", "3 2 5 4", "6 5 7 4"]);
    assert!(out.contains(&format!("WHITE's move:  {INVALID_MOVE}\nWHITE's move:  \n")), "{out}");
    assert_eq!(out.matches(INVALID_MOVE).count(), 1);
    assert_eq!(session.turns, 6);
    let last = boards(&out).pop().unwrap();
    assert_eq!(cells(&last, 2), "...w...r");
    assert_eq!(cells(&last, 3), "r...r...", "red's man on (4, 3) was not jumped");
    assert_eq!(cells(&last, 4), ".......w");
}

#[test]
fn a_line_that_is_not_four_ints_ends_the_session() {
    for text in ["1 2 0", "1 2 0 3 4", "a b c d", "1 2 0 x", "", "1.5 2 0 3"] {
        let (out, session) = play(&["1 2 0 3", text, "0 5 1 4"]);
        let ending = Ending::NotAMove { mover: Colour::White, turn: 2, text: text.to_owned() };
        assert_eq!(session.ending, ending, "{text:?}");
        assert_eq!(session.turns, 1, "{text:?}");
        assert!(out.ends_with("|\n\nWHITE's move:  "), "{text:?}: nothing after the prompt\n{out}");
        assert!(!out.contains(INVALID_MOVE), "{text:?}");
    }
    // Read from standard input, the four tokens of a move need not be numbers either.
    let (_, session) = play_stdin(b"1 2 0 3\n0 5 one 4\n1 2 1 3\n");
    let ending = Ending::NotAMove { mover: Colour::White, turn: 2, text: "0 5 one 4".to_owned() };
    assert_eq!(session.ending, ending);
}

#[test]
fn the_tokens_of_a_move_may_span_lines_and_a_line_may_hold_two_moves() {
    let stdin = b"1 2\n0\n\n  3 0 5 1 4\n\t2 1 1 2\n";
    let (out, session) = play_stdin(stdin);
    assert_eq!(session.consumed, ["1 2 0 3", "0 5 1 4", "2 1 1 2"]);
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 4 });
    assert_eq!(out, play(&["1 2 0 3", "0 5 1 4", "2 1 1 2"]).0, "the same game as one move a line");
    // The Tokens source reads four tokens per prompt, wherever the lines break.
    let mut tokens = Tokens::new(&stdin[..]);
    let mut direct = Vec::new();
    let session = run(&mut tokens, &mut direct, Options::default()).unwrap();
    assert_eq!(String::from_utf8(direct).unwrap(), out);
    assert_eq!(session.consumed.len(), 3);
}

#[test]
fn input_that_ends_inside_a_move_ends_the_session_at_that_prompt() {
    let (out, session) = play_stdin(b"1 2 0 3\n0 5 1\n");
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 2 });
    assert_eq!(session.consumed, ["1 2 0 3"]);
    assert!(out.ends_with("|\n\nWHITE's move:  "), "{out}");
}
