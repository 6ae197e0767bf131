//! The whole backgammon program: the board's exact layout, the dice of an unmodified program, the
//! prompts, invalid moves, hits and the bar, bearing off, and `0 0`.

use std::io::Write;
use std::process::{Command, Stdio};

use reference::backgammon::console::{
    run, run_stdin, write_board, Ending, FixedDice, Options, Prompt, Script, INVALID_MOVE,
};
use reference::backgammon::rules::{Board, Colour};
use reference::rng::GlibcRandom;

/// The start board of `shared/specs/backgammon.md`, `$` marking each line's end.
const START_BOARD: &str = "\
13 14 15 16 17 18    19 20 21 22 23 24 $
W  |  |  |  R  |     R  |  |  |  |  W  $
W  |  |  |  R  |     R  |  |  |  |  W  $
W  |  |  |  R  |     R  |  |  |  |  |  $
W  |  |  |  |  |     R  |  |  |  |  |  $
W  |  |  |  |  |     R  |  |  |  |  |  $
$
R  |  |  |  |  |     W  |  |  |  |  |  $
R  |  |  |  |  |     W  |  |  |  |  |  $
R  |  |  |  W  |     W  |  |  |  |  |  $
R  |  |  |  W  |     W  |  |  |  |  R  $
R  |  |  |  W  |     W  |  |  |  |  R  $
12 11 10 9  8  7     6  5  4  3  2  1  $
  Bar:  White-0  Red-0$
";

fn dollars(text: &str) -> String {
    text.replace('\n', "$\n")
}

fn board_text(board: &Board) -> String {
    let mut out = Vec::new();
    write_board(&mut out, board).unwrap();
    String::from_utf8(out).unwrap()
}

fn play(dice: &[(u8, u8)], start: Board, moves: &[&str]) -> (String, Ending, Board) {
    let mut out = Vec::new();
    let options = Options { start, ..Options::default() };
    let session = run(
        &mut Script::new(moves.iter().copied()),
        &mut FixedDice::new(dice.iter().copied()),
        &mut out,
        options,
    )
    .unwrap();
    (String::from_utf8(out).unwrap(), session.ending, session.board)
}

#[test]
fn the_start_board_is_printed_byte_for_byte() {
    assert_eq!(dollars(&board_text(&Board::start())), START_BOARD);
}

#[test]
fn at_most_five_checkers_are_drawn_on_a_point() {
    let mut board = Board::empty();
    board.set_count(Colour::White, 1, 9).unwrap();
    board.set_count(Colour::Red, 24, 15).unwrap();
    board.set_bar(Colour::White, 6).unwrap();
    let text = board_text(&board);
    let lines: Vec<&str> = text.lines().collect();
    for row in &lines[1..6] {
        assert_eq!(*row, "|  |  |  |  |  |     |  |  |  |  |  R  ", "top rows");
    }
    for row in &lines[7..12] {
        assert_eq!(*row, "|  |  |  |  |  |     |  |  |  |  |  W  ", "bottom rows");
    }
    assert_eq!(lines.len(), 14);
    assert_eq!(lines[13], "  Bar:  White-6  Red-0");
}

#[test]
fn stacks_grow_away_from_the_numbers() {
    let mut board = Board::empty();
    board.set_count(Colour::Red, 13, 2).unwrap();
    board.set_count(Colour::White, 12, 3).unwrap();
    let text = board_text(&board);
    let lines: Vec<&str> = text.lines().collect();
    // Top half: rows 1 and 2 under the labels; bottom half: the last three rows above the labels.
    assert!(lines[1].starts_with('R') && lines[2].starts_with('R') && lines[3].starts_with('|'));
    assert!(lines[8].starts_with('|') && lines[9].starts_with('W') && lines[11].starts_with('W'));
}

#[test]
fn an_unmodified_program_rolls_glibcs_default_sequence() {
    let mut input: &[u8] = b"24 22 13 8\n0 0\n";
    let mut out = Vec::new();
    let session = run_stdin(&mut input, &mut out, &mut GlibcRandom::default()).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with(&START_BOARD.replace('$', "")));
    // 2 5: 24 22 uses the 2, 13 8 the 5; then Red rolls 4 2 and quits.
    assert!(out.contains("Rolling dice:  2 5\nWhite's move:  13 14"));
    assert!(out.ends_with("  Bar:  White-0  Red-0\nRolling dice:  4 2\nRed's move:  "));
    assert_eq!(session.ending, Ending::Quit { mover: Colour::Red, turn: 2 });
    assert_eq!(session.consumed, ["24 22", "13 8", "0 0"]);
}

#[test]
fn a_seeded_program_rolls_srandoms_sequence() {
    let mut input: &[u8] = b"0 0\n";
    let mut out = Vec::new();
    let mut rng = GlibcRandom::new(12345);
    // random() with srandom(12345): 383100999, 858300821.
    let (a, b) = (383100999 % 6 + 1, 858300821 % 6 + 1);
    run_stdin(&mut input, &mut out, &mut rng).unwrap();
    assert!(String::from_utf8(out).unwrap().ends_with(&format!("Rolling dice:  {a} {b}\nWhite's move:  ")));
}

#[test]
fn the_same_die_cannot_be_used_twice() {
    let (out, ending, board) = play(&[(4, 1), (3, 5)], Board::start(), &["24 23", "23 22", "13 9", "0 0"]);
    assert!(out.contains(&format!("White's move:  {INVALID_MOVE}\nWhite's move:  13 14")));
    assert_eq!(ending, Ending::Quit { mover: Colour::Red, turn: 2 });
    assert_eq!((board.count(Colour::White, 23), board.count(Colour::White, 22)), (1, 0));
}

#[test]
fn wrong_direction_and_out_of_range_moves_are_invalid() {
    let moves = ["13 14", "24 25", "25 24", "-1 3", "1 2", "8 7", "0 0"];
    let (out, _, board) = play(&[(1, 2)], Board::start(), &moves);
    assert_eq!(out.matches(INVALID_MOVE).count(), 5);
    assert_eq!(board.count(Colour::White, 7), 1);
}

#[test]
fn a_hit_sends_the_checker_to_the_bar_and_it_must_enter_first() {
    let mut start = Board::empty();
    start.set_count(Colour::White, 24, 2).unwrap();
    start.set_count(Colour::Red, 20, 1).unwrap();
    start.set_count(Colour::Red, 10, 2).unwrap();
    start.set_count(Colour::White, 2, 2).unwrap();
    // White hits on 20; Red must enter: 10 12 is refused, 0 2 is blocked (two white checkers), 0 3 enters.
    let moves = ["24 20", "24 23", "10 12", "0 2", "0 3", "10 12", "0 0"];
    let (out, ending, board) = play(&[(4, 1), (2, 3), (6, 6)], start, &moves);
    assert!(out.contains("  Bar:  White-0  Red-1\nWhite's move:  "));
    let red_turn = &out[out.find("Rolling dice:  2 3").unwrap()..];
    assert!(red_turn.starts_with(&format!(
        "Rolling dice:  2 3\nRed's move:  {INVALID_MOVE}\nRed's move:  {INVALID_MOVE}\nRed's move:  13 14"
    )));
    assert_eq!(ending, Ending::Quit { mover: Colour::White, turn: 3 });
    assert_eq!(
        (board.bar(Colour::Red), board.count(Colour::Red, 3), board.count(Colour::Red, 12)),
        (0, 1, 1)
    );
}

#[test]
fn bearing_off_takes_a_checker_off_and_is_refused_until_all_are_home() {
    let mut start = Board::empty();
    start.set_count(Colour::White, 8, 1).unwrap();
    start.set_count(Colour::White, 3, 2).unwrap();
    start.set_count(Colour::Red, 24, 1).unwrap();
    // 3 0 is refused while a checker is on 8; 8 3 brings it home; then 3 0 with the 6 (larger die).
    let moves = ["3 0", "8 3", "3 0", "0 0"];
    let (out, _, board) = play(&[(5, 6)], start, &moves);
    assert_eq!(out.matches(INVALID_MOVE).count(), 1);
    assert_eq!((board.count(Colour::White, 3), board.num(Colour::White)), (2, 2));
}

#[test]
fn zero_zero_at_the_second_prompt_also_ends_the_program() {
    let (out, ending, _) = play(&[(6, 5)], Board::start(), &["24 18", "0 0", "13 8"]);
    assert_eq!(ending, Ending::Quit { mover: Colour::White, turn: 1 });
    assert!(out.ends_with("  Bar:  White-0  Red-0\nWhite's move:  "));
}

/// Records what each prompt showed.
struct Recorder(Vec<(u64, Colour, Vec<u8>, bool)>, Script);

impl reference::console::InputSource<Prompt<'_>> for Recorder {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        self.0.push((prompt.turn, prompt.mover, prompt.remaining.to_vec(), prompt.retry));
        self.1.next_input(prompt)
    }
}

#[test]
fn the_input_source_sees_the_turn_the_mover_and_the_remaining_dice() {
    let mut recorder = Recorder(Vec::new(), Script::new(["24 18", "1 1", "13 8", "1 4", "0 0"]));
    let mut out = Vec::new();
    run(&mut recorder, &mut FixedDice::new([(6, 5), (3, 3)]), &mut out, Options::default()).unwrap();
    use Colour::*;
    assert_eq!(
        recorder.0,
        [
            (1, White, vec![6, 5], false),
            (1, White, vec![5], false),
            (1, White, vec![5], true),
            (2, Red, vec![3, 3], false),
            (2, Red, vec![3], false),
        ]
    );
}

#[test]
fn the_reference_binary_reads_the_seed_from_the_flag_or_the_preload_variable() {
    let run_binary = |args: &[&str], env: Option<&str>| -> String {
        let mut command = Command::new(env!("CARGO_BIN_EXE_reference"));
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).env_remove("BACKGAMMON_SEED");
        if let Some(seed) = env {
            command.env("BACKGAMMON_SEED", seed);
        }
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(b"0 0\n").unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        let text = String::from_utf8(output.stdout).unwrap();
        text.lines().find(|l| l.starts_with("Rolling dice:")).unwrap().to_owned()
    };
    assert_eq!(run_binary(&["backgammon"], None), "Rolling dice:  2 5");
    let seeded = format!("Rolling dice:  {} {}", 383100999 % 6 + 1, 858300821 % 6 + 1);
    assert_eq!(run_binary(&["backgammon", "--seed", "12345"], None), seeded);
    assert_eq!(run_binary(&["backgammon"], Some("12345")), seeded);
    assert_eq!(run_binary(&["backgammon", "--seed", "1"], Some("12345")), "Rolling dice:  2 5");
}
