//! The handout's "APPENDIX: Sample Run", reproduced by the reference console from its typed inputs.

use reference::trouble::console::{self, Ending, Options, PromptKind, Script, MOVE_PROMPT};

/// What the user types in the sample run, in order (the run stops at a prompt with no input).
const INPUTS: [&str; 21] = [
    "1234", "2", "H", "R5", "G3", "G4", "H", "R5", "R6", "H", "Y5", "Y1", "Y6", "B1", "B4", "B7", "R1", "G2",
    "H", "Y5", "H",
];

/// The sample run as typeset in the handout, without its commentary boxes.
const SAMPLE_RUN: &str = include_str!("data/trouble-appendix.txt");

/// Forgives only what typesetting loses: spaces at the ends of lines, runs of spaces, blank lines.
fn normalise(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect()
}

fn run(options: Options) -> (String, console::Session) {
    let mut out = Vec::new();
    let session = console::run(&mut Script::new(INPUTS), &mut out, options).unwrap();
    (String::from_utf8(out).unwrap(), session)
}

#[test]
fn the_terminal_view_matches_the_sample_run_line_for_line() {
    let (view, session) = run(Options { echo_input: true, turn_limit: None });
    let expected = normalise(SAMPLE_RUN);
    let got = normalise(&view);
    for (i, (e, g)) in expected.iter().zip(&got).enumerate() {
        assert_eq!(g, e, "line {} of the normalised sample run", i + 1);
    }
    assert_eq!(got.len(), expected.len(), "{view}");
    // The run stops where the handout's does: at a move prompt of Red's turn with nothing typed.
    assert_eq!(session.consumed, INPUTS);
    assert_eq!(
        session.ending,
        Ending::InputEnded { at: PromptKind::Move, turn: Some(SAMPLE_RUN.matches("---- ").count() as u64) }
    );
}

#[test]
fn the_sample_run_data_is_the_handouts_own_text() {
    // Guards the data file against being regenerated from the reference: a few lines as typeset.
    let lines = normalise(SAMPLE_RUN);
    assert_eq!(lines[0], "Enter a random seed: 1234");
    assert_eq!(lines[1], "Enter the number of players (2, 3, 4): 2");
    assert!(lines.contains(&"R1 to RF1".to_owned()));
    assert!(lines.contains(&"RF1 to RF2".to_owned()));
    assert_eq!(lines.last().unwrap(), MOVE_PROMPT.trim_end());
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("You rolled ") && l.ends_with('.') && l.len() == 13).count(),
        32
    );
}

#[test]
fn without_a_terminal_the_input_is_not_echoed_and_output_continues_on_the_prompt_line() {
    let (stdout, _) = run(Options::default());
    assert!(stdout.starts_with(
        "Enter a random seed: Enter the number of players (2, 3, 4): \n---- Red's turn\n   Red: H,H,H,H\n"
    ));
    assert!(stdout.contains(
        "H to R5\nEnter position of piece to move: You rolled 6, so you get to roll again.\n   Red: R5,H,H,H\n"
    ));
    assert!(stdout.contains("R5 to G3\nEnter position of piece to move: \n---- Yellow's turn\n"));
    assert!(stdout.ends_with("R5 to R6\nEnter position of piece to move: "));
}

#[test]
fn the_sample_run_rolls_are_the_seed_1234_rolls_of_the_template_die() {
    let (stdout, _) = run(Options::default());
    let rolls: Vec<u8> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("You rolled ")?.strip_suffix('.')?.parse().ok())
        .collect();
    let mut rng = reference::rng::TroubleRng::new();
    rng.seed(1234);
    let expected: Vec<u8> = (0..rolls.len()).map(|_| rng.roll()).collect();
    assert_eq!(rolls.len(), 32);
    assert_eq!(rolls, expected);
}
