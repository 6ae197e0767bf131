//! Expansion of Trouble cases' `[scenario]` tables: explicit inputs, the policy form, unit commands.

use reference::trouble::console::{self, Ending, ILLEGAL_MOVE, MOVE_PROMPT};
use reference::{solution, Expansion, ScenarioError};

/// Which of the solution's expansions a test calls.
#[derive(Clone, Copy)]
enum CaseKind {
    Transcript,
    Unit,
}

fn expand(kind: CaseKind, scenario: &str) -> Result<Expansion, ScenarioError> {
    let table: toml::Table = toml::from_str(scenario).unwrap();
    let solution = solution("trouble").unwrap();
    match kind {
        CaseKind::Transcript => solution.expand_transcript(&table),
        CaseKind::Unit => solution.expand_unit(&table),
    }
}

fn transcript(scenario: &str) -> Expansion {
    expand(CaseKind::Transcript, scenario).unwrap()
}

fn transcript_error(scenario: &str) -> String {
    expand(CaseKind::Transcript, scenario).unwrap_err().to_string()
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// Feeds the expansion's stdin to the reference console: a correct program prints the stdout.
fn replay(expansion: &Expansion) -> console::Session {
    let mut input = expansion.stdin.as_slice();
    let mut out = Vec::new();
    let session = console::run_stdin(&mut input, &mut out).unwrap();
    assert_eq!(text(&out), text(&expansion.stdout), "replaying the stdin");
    session
}

const APPENDIX: &str = r#"inputs = ["1234", "2", "H", "R5", "G3", "G4", "H", "R5", "R6", "H", "Y5", "Y1", "Y6",
    "B1", "B4", "B7", "R1", "G2", "H", "Y5", "H", "Q"]"#;

#[test]
fn explicit_inputs_are_typed_in_order_one_per_line() {
    let e = transcript(APPENDIX);
    assert_eq!(
        text(&e.stdin),
        "1234\n2\nH\nR5\nG3\nG4\nH\nR5\nR6\nH\nY5\nY1\nY6\nB1\nB4\nB7\nR1\nG2\nH\nY5\nH\nQ\n"
    );
    let stdout = text(&e.stdout);
    assert!(
        stdout.starts_with("Enter a random seed: Enter the number of players (2, 3, 4): \n---- Red's turn\n")
    );
    // Q at the last prompt ends the program without a word.
    assert!(stdout.ends_with("G7 to Y1\nR5 to R6\nEnter position of piece to move: "));
    assert!(e.env.is_empty());
    assert!(matches!(replay(&e).ending, Ending::Quit { turn: 27, .. }));
}

#[test]
fn an_illegal_location_prints_the_message_and_the_prompt_again() {
    let e = transcript(r#"inputs = ["1234", "2", "R5", "B3", "H", "Q"]"#);
    assert!(text(&e.stdout).contains(
        "H to R5\nEnter position of piece to move: Illegal move, try again.\n\
         Enter position of piece to move: Illegal move, try again.\n\
         Enter position of piece to move: You rolled 6, so you get to roll again.\n"
    ));
}

#[test]
fn invalid_player_counts_are_asked_again() {
    let e = transcript(r#"inputs = ["1234", "5", "1", "3", "Q"]"#);
    assert_eq!(text(&e.stdout).matches("Enter the number of players").count(), 3);
    // Three players: Red, Green, then Yellow rolls the first 6 of seed 1234.
    assert!(text(&e.stdout).contains("\n---- Green's turn\n"));
    assert!(text(&e.stdout).ends_with("---- Yellow's turn\n   Red: H,H,H,H\n Green: H,H,H,H\nYellow: H,H,H,H\n  Blue: H,H,H,H\nYou rolled 6.\nH to Y5\nEnter position of piece to move: "));
}

#[test]
fn seed_minus_one_exits_at_once() {
    let e = transcript(r#"inputs = ["-1"]"#);
    assert_eq!(text(&e.stdout), "Enter a random seed: ");
    assert_eq!(text(&e.stdin), "-1\n");
    assert_eq!(transcript("seed = -1"), e);
    let err = transcript_error("seed = -1\nplayers = 2\npolicy = { seed = 1 }");
    assert!(err.contains("seed -1 exits at once"), "{err}");
}

#[test]
fn seed_0_is_rejected_in_both_forms() {
    let expected = "seed 0 leaves the generator at 0: every roll is 1 and no piece can ever leave Home";
    assert_eq!(transcript_error(r#"inputs = ["0", "2", "Q"]"#), expected);
    assert_eq!(transcript_error("seed = 0\nplayers = 2\npolicy = { seed = 1 }"), expected);
}

#[test]
fn inputs_that_run_out_before_the_end_are_rejected() {
    let err = transcript_error(r#"inputs = ["1234", "2", "H", "R5"]"#);
    assert!(
        err.starts_with("inputs end at the prompt `Enter position of piece to move: ` of turn 5"),
        "{err}"
    );
    let err = transcript_error(r#"inputs = ["1234"]"#);
    assert_eq!(err, "inputs end at the prompt `Enter the number of players (2, 3, 4): `");
    let err = transcript_error("inputs = []");
    assert_eq!(err, "inputs end at the prompt `Enter a random seed: `");
}

#[test]
fn inputs_left_after_the_end_are_rejected() {
    let err = transcript_error(r#"inputs = ["1234", "2", "H", "Q", "R5", "G3"]"#);
    assert!(err.starts_with("2 input(s) remain after the program ended (Q typed on turn 3 (Red)"), "{err}");
    assert!(err.ends_with("`R5`, `G3`"), "{err}");
    let err = transcript_error(r#"inputs = ["-1", "2"]"#);
    assert!(err.contains("remain after the program ended (seed -1 exits at once)"), "{err}");
}

#[test]
fn inputs_a_correct_program_could_not_read_are_rejected() {
    for (inputs, expected) in [
        (r#"["abc", "2", "Q"]"#, "`abc` at the seed prompt is not an int"),
        (r#"["1234", "two", "Q"]"#, "`two` at the players prompt is not an int"),
        (r#"["1234", "2", "ZZ", "Q"]"#, "`ZZ` at the move prompt of turn 3 is neither a location"),
        (r#"["1234", "2", "H R5", "Q"]"#, "is not one token"),
        (r#"["1234", "2", "", "Q"]"#, "is not one token"),
        (r#"["99999999999", "2", "Q"]"#, "is not an int"),
    ] {
        let err = transcript_error(&format!("inputs = {inputs}"));
        assert!(err.contains(expected), "{inputs}: {err}");
    }
}

#[test]
fn unknown_or_conflicting_keys_are_rejected() {
    let err = transcript_error(
        r#"inputs = ["-1"]
input = ["2"]"#,
    );
    assert!(err.contains("unknown field `input`"), "{err}");
    let err = transcript_error("seed = 5\nplayers = 2\npolicy = { seed = 1, ilegal-every = 3 }");
    assert!(err.contains("unknown field `ilegal-every`"), "{err}");
    let err = transcript_error(
        r#"inputs = ["-1"]
seed = 5"#,
    );
    assert!(err.contains("either `inputs` or `seed`"), "{err}");
    let err = transcript_error("players = 2");
    assert!(err.contains("needs `inputs = [...]` or `seed = N`"), "{err}");
    let err = transcript_error(
        r#"inputs = ["-1"]
players = 2"#,
    );
    assert!(err.contains("go with `seed`"), "{err}");
    let err = transcript_error("seed = 5\nplayers = 2");
    assert!(err.contains("`policy` is missing"), "{err}");
    let err = transcript_error("seed = 5\npolicy = { seed = 1 }");
    assert!(err.contains("`players` is missing"), "{err}");
    let err = transcript_error("seed = 5\nplayers = 2\npolicy = { seed = 1, illegal-every = 0 }");
    assert!(err.contains("at least 1"), "{err}");
    let err = transcript_error("seed = 5000000000\nplayers = 2\npolicy = { seed = 1 }");
    assert!(err.contains("does not fit a C int"), "{err}");
    let err = transcript_error(r#"inputs = "1234""#);
    assert!(err.starts_with("scenario: "), "{err}");
}

#[test]
fn player_lists_type_invalid_counts_before_the_valid_last_one() {
    let e = transcript("seed = 1234\nplayers = [5, 1, 3]\npolicy = { seed = 7, quit-after-turns = 3 }");
    assert!(text(&e.stdin).starts_with("1234\n5\n1\n3\n"));
    assert_eq!(text(&e.stdout).matches("Enter the number of players (2, 3, 4): ").count(), 3);
    for (players, expected) in [
        ("[3, 5]", "the last number typed must be 2, 3 or 4, not 5"),
        ("[5, 2, 3]", "has a valid number before the last"),
        ("[]", "empty list"),
        ("1", "not 1"),
        (r#""3""#, "is not an int"),
    ] {
        let err = transcript_error(&format!("seed = 1234\nplayers = {players}\npolicy = {{ seed = 7 }}"));
        assert!(err.contains(expected), "{players}: {err}");
    }
}

#[test]
fn a_policy_game_without_a_quit_ends_with_the_winning_move() {
    for policy_seed in [1, 2, 3] {
        let e = transcript(&format!("seed = 1234\nplayers = 2\npolicy = {{ seed = {policy_seed} }}"));
        let session = replay(&e);
        let Ending::Won { player, turn } = session.ending else {
            panic!("{:?}", session.ending);
        };
        assert!(session.board.has_won(player));
        assert_eq!(session.turns, turn);
        // The last token is the winning move, and nothing was typed after it.
        let last = session.consumed.last().unwrap();
        assert!(last.parse::<reference::trouble::rules::Location>().is_ok(), "{last}");
        assert!(text(&e.stdin).ends_with(&format!("\n{last}\n")));
        assert!(text(&e.stdout).ends_with(MOVE_PROMPT));
        assert!(!text(&e.stdout).contains(ILLEGAL_MOVE));
    }
}

#[test]
fn quit_after_turns_types_q_at_the_first_prompt_after_the_limit() {
    let e = transcript("seed = 99\nplayers = 4\npolicy = { seed = 5, quit-after-turns = 12 }");
    let session = replay(&e);
    let Ending::Quit { turn, .. } = session.ending else {
        panic!("{:?}", session.ending);
    };
    assert!(turn > 12);
    assert!(text(&e.stdin).ends_with("\nQ\n"));
    assert_eq!(text(&e.stdin).matches('Q').count(), 1);
    // No prompt between the limit and the quit: the turns after 12 before the quit had no move.
    let after_limit: Vec<&str> = text(&e.stdout).split("---- ").skip(13).collect();
    assert_eq!(after_limit.len() as u64, turn - 12);
    for turn_text in &after_limit[..after_limit.len() - 1] {
        assert!(!turn_text.contains(MOVE_PROMPT), "{turn_text}");
    }
    assert!(after_limit.last().unwrap().ends_with(MOVE_PROMPT));
}

#[test]
fn illegal_every_types_a_wrong_location_first_then_a_legal_one() {
    let e = transcript(
        "seed = 2024\nplayers = 3\npolicy = { seed = 11, illegal-every = 3, quit-after-turns = 60 }",
    );
    let stdout = text(&e.stdout);
    let illegal = stdout.matches(ILLEGAL_MOVE).count();
    let prompts = stdout.matches(MOVE_PROMPT).count();
    assert!(illegal > 0);
    // Every third decision has one extra prompt; the final Q is a decision of its own.
    let decisions = prompts - illegal;
    assert_eq!(illegal, (decisions - 1) / 3, "{prompts} prompts");
    // Each mistake is followed by the prompt and then a legal move: never two mistakes in a row.
    assert!(!stdout.contains(&format!("{ILLEGAL_MOVE}\n{MOVE_PROMPT}{ILLEGAL_MOVE}")));
    assert!(matches!(replay(&e).ending, Ending::Quit { .. }));
}

#[test]
fn policy_expansions_are_reproducible_and_depend_on_the_policy_seed() {
    let scenario =
        |s: u64| format!("seed = 77\nplayers = 2\npolicy = {{ seed = {s}, quit-after-turns = 40 }}");
    assert_eq!(transcript(&scenario(1)), transcript(&scenario(1)));
    let differ = (2..6).any(|s| transcript(&scenario(s)).stdin != transcript(&scenario(1)).stdin);
    assert!(differ);
}

#[test]
fn many_policy_games_replay_to_the_same_transcript() {
    for seed in [1, -5, 31337, i32::MAX as i64, i32::MIN as i64] {
        for players in 2..=4 {
            let scenario = format!(
                "seed = {seed}\nplayers = {players}\npolicy = {{ seed = 3, illegal-every = 5, quit-after-turns = 200 }}"
            );
            match expand(CaseKind::Transcript, &scenario) {
                Ok(e) => {
                    replay(&e);
                }
                Err(e) => assert!(e.to_string().contains("within 5000 turns"), "{scenario}: {e}"),
            }
        }
    }
}

#[test]
fn unit_commands_are_the_stdin_and_the_driver_output_the_stdout() {
    let e = expand(CaseKind::Unit, r#"commands = ["clear", "place 0 R5", "moves 0 6", "dump"]"#).unwrap();
    assert_eq!(text(&e.stdin), "clear\nplace 0 R5\nmoves 0 6\ndump\n");
    assert!(text(&e.stdout).starts_with(
        "> clear\n> place 0 R5\n> moves 0 6\nR5 to G4\nprintMoves returned 1\n> dump\ngPieces: 4 -1"
    ));
    assert!(e.env.is_empty());
}

#[test]
fn unit_scenarios_reject_bad_commands_and_unknown_keys() {
    let err = expand(CaseKind::Unit, r#"commands = ["clear", "fly 0"]"#).unwrap_err().to_string();
    assert!(err.starts_with("command 2 (`fly 0`): unknown command"), "{err}");
    let err = expand(
        CaseKind::Unit,
        r#"commands = ["clear"]
seed = 1"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown field `seed`"), "{err}");
    let err = expand(CaseKind::Unit, "commands = []").unwrap_err().to_string();
    assert!(err.contains("empty"), "{err}");
    let err = expand(CaseKind::Unit, r#"commands = ["clear\ndump"]"#).unwrap_err().to_string();
    assert!(err.contains("line break"), "{err}");
    let err = expand(CaseKind::Transcript, r#"commands = ["clear"]"#).unwrap_err().to_string();
    assert!(err.contains("unknown field `commands`"), "{err}");
}
