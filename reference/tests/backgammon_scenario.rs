//! Expansion of backgammon cases' `[scenario]` tables: explicit inputs, the policy form, seeds and
//! their environment, unit commands.

use std::collections::BTreeMap;
use std::io::Write;

use reference::backgammon::console::{
    self, parse_move, prompt_text, write_board, Dice, FixedDice, Options, Prompt, Script, INVALID_MOVE,
};
use reference::backgammon::rules::{Board, Colour, IllegalMove, Move};
use reference::rng::GlibcRandom;
use reference::{solution, Expansion, ScenarioError};

/// Which of the solution's expansions a test calls.
#[derive(Clone, Copy)]
enum CaseKind {
    Transcript,
    Unit,
}

fn expand(kind: CaseKind, scenario: &str) -> Result<Expansion, ScenarioError> {
    let table: toml::Table = toml::from_str(scenario).unwrap();
    let solution = solution("backgammon").unwrap();
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

fn seed_of(e: &Expansion) -> Option<u32> {
    e.env.get("BACKGAMMON_SEED").map(|s| s.parse().unwrap())
}

/// Feeds the expansion's stdin to the reference console with the expansion's dice: a correct program
/// prints the stdout.
fn replay(e: &Expansion) -> console::Session {
    let mut input = e.stdin.as_slice();
    let mut out = Vec::new();
    let mut dice = seed_of(e).map_or_else(GlibcRandom::default, GlibcRandom::new);
    let session = console::run_stdin(&mut input, &mut out, &mut dice).unwrap();
    assert_eq!(text(&out), text(&e.stdout), "replaying the stdin");
    session
}

/// Another correct program: where a first move is valid with both dice it uses the *last* one in
/// roll order (the handout leaves the choice open). Otherwise the same program.
fn other_choice_program(start: Board, dice: &mut dyn Dice, lines: &[&str]) -> String {
    let mut out = Vec::new();
    let mut board = start;
    write_board(&mut out, &board).unwrap();
    let mut lines = lines.iter();
    let mut mover = Colour::White;
    while let (Some(a), Some(b)) = (dice.roll_die(), dice.roll_die()) {
        writeln!(out, "Rolling dice:  {a} {b}").unwrap();
        let mut remaining = vec![a, b];
        while !remaining.is_empty() {
            out.write_all(prompt_text(mover).as_bytes()).unwrap();
            let Some(mv) = lines.next().map(|line| parse_move(line).unwrap()) else {
                return String::from_utf8(out).unwrap();
            };
            if mv == Move::QUIT {
                return String::from_utf8(out).unwrap();
            }
            match remaining.iter().rposition(|&d| board.check(mover, mv, d).is_ok()) {
                Some(i) => {
                    board.play(mover, mv, remaining.remove(i)).unwrap();
                    write_board(&mut out, &board).unwrap();
                }
                None => writeln!(out, "{INVALID_MOVE}").unwrap(),
            }
        }
        mover = mover.opponent();
    }
    String::from_utf8(out).unwrap()
}

fn stdin_lines(e: &Expansion) -> Vec<&str> {
    text(&e.stdin).lines().collect()
}

#[test]
fn explicit_inputs_are_typed_in_order_one_per_line() {
    let e = transcript(r#"inputs = ["24 22", "13 8", "1 5", "12 14", "0 0"]"#);
    assert_eq!(text(&e.stdin), "24 22\n13 8\n1 5\n12 14\n0 0\n");
    let stdout = text(&e.stdout);
    assert!(stdout.starts_with("13 14 15 16 17 18    19 20 21 22 23 24 \n"));
    // Unseeded: glibc's default dice, 2 5 then 4 2; 0 0 ends the program without a word.
    assert!(stdout.contains("Rolling dice:  2 5\nWhite's move:  13 14"));
    assert!(stdout.ends_with("  Bar:  White-0  Red-0\nRolling dice:  6 2\nWhite's move:  "), "{stdout}");
    assert!(e.env.is_empty());
    replay(&e);
}

#[test]
fn a_seed_sets_the_preload_variable_and_the_dice() {
    let e = transcript("seed = 12345\ninputs = [\"0 0\"]");
    assert_eq!(e.env, BTreeMap::from([("BACKGAMMON_SEED".to_owned(), "12345".to_owned())]));
    let roll = format!("Rolling dice:  {} {}\n", 383100999 % 6 + 1, 858300821 % 6 + 1);
    assert!(text(&e.stdout).ends_with(&format!("{roll}White's move:  ")));
    // srandom takes an unsigned int: the whole range is accepted; 0 rolls as 1 does.
    let top = transcript("seed = 4294967295\ninputs = [\"0 0\"]");
    assert_eq!(top.env["BACKGAMMON_SEED"], "4294967295");
    let zero = transcript("seed = 0\ninputs = [\"0 0\"]");
    assert_eq!(zero.env["BACKGAMMON_SEED"], "0");
    assert_eq!(zero.stdout, transcript("inputs = [\"0 0\"]").stdout);
    for bad in ["-1", "4294967296"] {
        let err = transcript_error(&format!("seed = {bad}\ninputs = [\"0 0\"]"));
        assert!(err.contains("is not an unsigned int"), "{bad}: {err}");
    }
}

#[test]
fn explicit_inputs_must_end_exactly_with_zero_zero() {
    let err = transcript_error(r#"inputs = ["24 22", "13 8"]"#);
    assert!(err.starts_with("inputs end at Red's prompt of turn 2"), "{err}");
    assert!(err.contains("end the inputs with \"0 0\""), "{err}");
    let err = transcript_error("inputs = []");
    assert!(err.starts_with("inputs end at White's prompt of turn 1"), "{err}");
    let err = transcript_error(r#"inputs = ["24 22", "0 0", "13 8", "1 2"]"#);
    assert!(
        err.starts_with("2 input(s) remain after the program ended (0 0 typed at White's prompt of turn 1)")
    );
    assert!(err.ends_with("`13 8`, `1 2`"), "{err}");
}

#[test]
fn explicit_inputs_a_program_could_not_read_are_rejected() {
    for line in ["24", "24 22 13", "a b", "24 x", "", "99999999999 1"] {
        let err = transcript_error(&format!("inputs = [{line:?}, \"0 0\"]"));
        assert!(
            err.starts_with(&format!("input 1 (`{line}`) at White's prompt of turn 1 is not two ints")),
            "{err}"
        );
    }
}

#[test]
fn unknown_or_conflicting_keys_are_rejected() {
    let err = transcript_error("inputs = [\"0 0\"]\ninput = [\"0 0\"]");
    assert!(err.contains("unknown field `input`"), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 3, invalid_every = 2 }");
    assert!(err.contains("unknown field `invalid_every`"), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 3, style = \"greedy\" }");
    assert!(err.contains("unknown variant `greedy`"), "{err}");
    let err = transcript_error("policy = { seed = 1 }");
    assert!(err.contains("missing field `turns`"), "{err}");
    let err = transcript_error("inputs = [\"0 0\"]\npolicy = { seed = 1, turns = 3 }");
    assert!(err.contains("either `inputs` or `policy`"), "{err}");
    let err = transcript_error("seed = 3");
    assert!(err.contains("needs `inputs = [...]` or `policy = { ... }`"), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 3, invalid-every = 0 }");
    assert!(err.contains("at least 1"), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 1001 }");
    assert!(err.contains("more than 1000"), "{err}");
    let err = transcript_error("commands = [\"start\"]");
    assert!(err.contains("unknown field `commands`"), "{err}");
}

/// Every `N 0` typed by each colour, read from a policy transcript (prompts and stdin line up).
fn bear_offs(e: &Expansion) -> (usize, usize) {
    let stdout = text(&e.stdout);
    let movers: Vec<bool> =
        stdout.match_indices("'s move:  ").map(|(i, _)| stdout[..i].ends_with("White")).collect();
    let lines = stdin_lines(e);
    assert_eq!(movers.len(), lines.len(), "one line typed per prompt");
    let mut counts = (0, 0);
    for (white, line) in movers.iter().zip(&lines) {
        let mv = parse_move(line).unwrap();
        if mv.to == 0 && mv.from != 0 {
            if *white {
                counts.0 += 1;
            } else {
                counts.1 += 1;
            }
        }
    }
    counts
}

#[test]
fn race_games_reach_bearing_off_for_both_colours_and_end_with_zero_zero() {
    for (seed, policy_seed) in [(None, 1), (Some(7), 2), (Some(14), 3), (Some(99), 11)] {
        let seed_line = seed.map(|s| format!("seed = {s}\n")).unwrap_or_default();
        let e = transcript(&format!(
            "{seed_line}policy = {{ seed = {policy_seed}, turns = 150, style = \"race\" }}"
        ));
        let (white, red) = bear_offs(&e);
        assert!(white > 0 && red > 0, "seed {seed:?}/{policy_seed}: white bore off {white}, red {red}");
        assert_eq!(stdin_lines(&e).iter().filter(|l| **l == "0 0").count(), 1);
        assert_eq!(stdin_lines(&e).last(), Some(&"0 0"));
        assert!(!text(&e.stdout).contains(INVALID_MOVE));
        replay(&e);
    }
}

#[test]
fn hit_games_send_checkers_to_the_bar_and_enter_them() {
    let e = transcript("seed = 5\npolicy = { seed = 4, turns = 60, style = \"hit\" }");
    let entries = stdin_lines(&e).iter().filter(|l| l.starts_with("0 ") && **l != "0 0").count();
    assert!(entries > 0);
    assert!(text(&e.stdout).contains("  Bar:  White-1") || text(&e.stdout).contains("Red-1\n"));
    replay(&e);
}

#[test]
fn the_game_ends_with_zero_zero_after_the_last_turn() {
    let e = transcript("seed = 8\npolicy = { seed = 1, turns = 6, style = \"race\" }");
    let stdout = text(&e.stdout);
    assert_eq!(stdout.matches("Rolling dice:").count(), 7);
    // Turn 7 is White's: its first prompt gets 0 0.
    assert!(stdout.ends_with("White's move:  "));
    assert_eq!(stdin_lines(&e).len(), 6 * 2 + 1);
    let e = transcript("policy = { seed = 1, turns = 0 }");
    assert_eq!(text(&e.stdin), "0 0\n");
}

/// What a prompt showed, kept by [`Prompts`].
#[derive(Debug, Clone)]
struct Shown {
    board: Board,
    mover: Colour,
    remaining: Vec<u8>,
    turn: u64,
}

/// Types a script and keeps what every prompt showed.
struct Prompts(Script, Vec<Shown>);

impl reference::console::InputSource<Prompt<'_>> for Prompts {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        let shown = Shown {
            board: *prompt.board,
            mover: prompt.mover,
            remaining: prompt.remaining.to_vec(),
            turn: prompt.turn,
        };
        self.1.push(shown);
        self.0.next_input(prompt)
    }
}

/// Replays an expansion with the rules and returns what each prompt showed (one per line typed).
fn prompts(e: &Expansion) -> Vec<Shown> {
    let mut source = Prompts(Script::new(stdin_lines(e)), Vec::new());
    let mut dice = seed_of(e).map_or_else(GlibcRandom::default, GlibcRandom::new);
    let mut out = Vec::new();
    let session = console::run(&mut source, &mut dice, &mut out, Options::default()).unwrap();
    assert_eq!(text(&out), text(&e.stdout));
    assert!(matches!(session.ending, console::Ending::Quit { .. }), "{:?}", session.ending);
    assert_eq!(source.1.len(), stdin_lines(e).len());
    source.1
}

/// Whether a transcript stops at a prompt that begins a turn, read from the text alone: the last line
/// is a prompt, and above it, past any `Invalid move` at that same prompt, comes the turn's roll.
fn ends_at_a_first_prompt(stdout: &str) -> bool {
    let lines: Vec<&str> = stdout.split('\n').collect();
    let (&last, above) = lines.split_last().unwrap();
    if last != prompt_text(Colour::White) && last != prompt_text(Colour::Red) {
        return false;
    }
    let invalid = format!("{last}{INVALID_MOVE}");
    above.iter().rev().find(|line| **line != invalid).is_some_and(|line| line.starts_with("Rolling dice:  "))
}

/// The second moves every correct program accepts after `first` (whichever die it gave `first`).
fn second_moves(board: &Board, mover: Colour, dice: &[u8], first: Move) -> Vec<Move> {
    let mut common: Option<Vec<Move>> = None;
    for (i, &die) in dice.iter().enumerate() {
        let mut next = *board;
        if next.play(mover, first, die).is_err() {
            continue;
        }
        let other = dice[1 - i];
        let valid = next.valid_moves(mover, other);
        common = Some(match common {
            None => valid,
            Some(c) => c.into_iter().filter(|mv| valid.contains(mv)).collect(),
        });
    }
    common.unwrap_or_default()
}

#[test]
fn a_mover_without_a_whole_turn_types_zero_zero_at_the_first_prompt() {
    // Hit games end early: sooner or later a checker cannot enter, or nothing can move twice.
    for seed in [3, 4, 5] {
        let e = transcript(&format!("seed = {seed}\npolicy = {{ seed = 9, turns = 500, style = \"hit\" }}"));
        let shown = prompts(&e);
        let Shown { board, mover, remaining, turn } = shown.last().unwrap().clone();
        assert!(turn <= 500, "stuck before the last turn");
        assert_eq!(remaining.len(), 2, "seed {seed}: 0 0 at the second prompt of turn {turn}");
        // No first move leaves a second one that every correct program accepts.
        let firsts = reference::backgammon::rules::valid_moves_with(&board, mover, &remaining);
        for first in firsts {
            let seconds = second_moves(&board, mover, &remaining, first);
            assert!(seconds.is_empty(), "seed {seed}: {mover} could play {first} then {seconds:?}");
        }
    }
}

#[test]
fn every_policy_game_ends_at_the_first_prompt_of_a_turn() {
    let styles = ["random", "race", "hit"];
    let invalid = [
        "",
        ", invalid-every = 1",
        ", invalid-every = 2",
        ", invalid-every = 3",
        ", invalid-every = 1, invalid = [\"empty-point\"]",
        ", invalid-every = 2, invalid = [\"onto-two\", \"bar-first\", \"entry-point\"]",
        ", invalid-every = 1, invalid = [\"distance\", \"early-bear-off\", \"empty-bar\"]",
    ];
    let (mut games, mut stuck) = (0, 0);
    for n in 0..240u64 {
        let seed = if n % 6 == 0 { String::new() } else { format!("seed = {}\n", n * 7919 % 100_003) };
        let style = styles[n as usize % 3];
        let invalid = invalid[n as usize % invalid.len()];
        let hits = if n % 5 == 2 { ", hits = false" } else { "" };
        let turns = if n % 4 == 0 { 8 + n % 30 } else { 400 };
        let scenario =
            format!("{seed}policy = {{ seed = {n}, turns = {turns}, style = \"{style}\"{invalid}{hits} }}");
        let e = transcript(&scenario);
        let lines = stdin_lines(&e);
        assert_eq!(lines.iter().filter(|l| **l == "0 0").count(), 1, "{scenario}");
        assert_eq!(lines.last(), Some(&"0 0"), "{scenario}");
        assert!(
            ends_at_a_first_prompt(text(&e.stdout)),
            "{scenario}: the transcript ends at a second prompt"
        );
        let shown = prompts(&e);
        let last = shown.last().unwrap();
        assert_eq!(last.remaining.len(), 2, "{scenario}: 0 0 after the first move of turn {}", last.turn);
        games += 1;
        if last.turn <= turns {
            stuck += 1;
        }
    }
    // The games end both ways: after the last turn, and without a whole turn to play.
    assert!(stuck > games / 4 && stuck < games, "{stuck} of {games} games ended without a whole turn");
}

#[test]
fn the_first_prompt_check_reads_transcripts_correctly() {
    // Unseeded, White rolls 2 5: 0 0 at the first prompt, after a mistake there, after a valid first
    // move, after a mistake at the second prompt, and at Red's first prompt.
    let cases = [
        (&["0 0"][..], true),
        (&["24 21", "0 0"][..], true),
        (&["24 21", "24 20", "0 0"][..], true),
        (&["24 22", "0 0"][..], false),
        (&["24 22", "24 21", "0 0"][..], false),
        (&["24 21", "24 22", "24 21", "0 0"][..], false),
        (&["24 22", "13 8", "0 0"][..], true),
        (&["24 22", "13 8", "1 3", "0 0"][..], false),
    ];
    for (inputs, first) in cases {
        let list: Vec<String> = inputs.iter().map(|i| format!("{i:?}")).collect();
        let e = transcript(&format!("inputs = [{}]", list.join(", ")));
        assert_eq!(ends_at_a_first_prompt(text(&e.stdout)), first, "{inputs:?}");
        assert_eq!(prompts(&e).last().unwrap().remaining.len() == 2, first, "{inputs:?}");
    }
}

/// Replays a policy transcript and classifies each deliberate invalid move by the rules' reason.
struct Classifier {
    lines: Script,
    reasons: Vec<Vec<String>>,
    moves: Vec<Move>,
}

impl reference::console::InputSource<Prompt<'_>> for Classifier {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        let line = self.lines.next_input(prompt)?;
        let mv = parse_move(&line).unwrap();
        let results: Vec<Result<_, IllegalMove>> =
            prompt.remaining.iter().map(|&d| prompt.board.check(prompt.mover, mv, d)).collect();
        if mv != Move::QUIT && results.iter().all(Result::is_err) {
            // The reason with each remaining die (a move meant for one die has the wrong distance
            // for the other).
            let reasons: Vec<String> = results
                .iter()
                .map(|r| {
                    format!("{:?}", r.as_ref().unwrap_err()).split([' ', '(', '{']).next().unwrap().to_owned()
                })
                .collect();
            self.reasons.push(reasons);
            self.moves.push(mv);
        }
        Some(line)
    }
}

/// Every invalid move of a policy transcript, with the rules' reason with each remaining die.
fn classify(e: &Expansion) -> Vec<(Move, Vec<String>)> {
    let mut classifier =
        Classifier { lines: Script::new(stdin_lines(e)), reasons: Vec::new(), moves: Vec::new() };
    let mut dice = seed_of(e).map_or_else(GlibcRandom::default, GlibcRandom::new);
    let mut out = Vec::new();
    console::run(&mut classifier, &mut dice, &mut out, Options::default()).unwrap();
    assert_eq!(text(&out), text(&e.stdout));
    assert_eq!(classifier.reasons.len(), text(&e.stdout).matches(INVALID_MOVE).count());
    classifier.moves.into_iter().zip(classifier.reasons).collect()
}

/// The rules' reason of each kind of `invalid = [...]`, and whether a move is of that kind: refused
/// for that reason with at least one remaining die, and otherwise only for the distance.
fn is_of_kind(kind: &str, mv: Move, reasons: &[String]) -> bool {
    let reason = match kind {
        "distance" | "entry-point" => "WrongDistance",
        "direction" => "WrongDirection",
        "out-of-range" => "OffBoard",
        "empty-point" => "NoChecker",
        "onto-two" => "Blocked",
        "bar-first" => "MustEnter",
        "early-bear-off" => "NotAllHome",
        "empty-bar" => "NothingOnBar",
        _ => panic!("no kind {kind}"),
    };
    let entry = mv.from == 0 && mv.to != 0;
    match kind {
        "distance" if entry => false,
        "entry-point" if !entry => false,
        _ => {
            reasons.iter().any(|r| r == reason) && reasons.iter().all(|r| r == reason || r == "WrongDistance")
        }
    }
}

#[test]
fn invalid_empty_point_types_only_moves_from_empty_points() {
    let mut typed = 0;
    for n in 0..24u32 {
        let style = ["random", "race", "hit"][n as usize % 3];
        let every = 1 + n % 3;
        let e = transcript(&format!(
            "seed = {n}\npolicy = {{ seed = {n}, turns = 60, invalid-every = {every}, style = '{style}', \
             invalid = ['empty-point'] }}"
        ));
        for (mv, reasons) in classify(&e) {
            assert!(is_of_kind("empty-point", mv, &reasons), "seed {n}: {mv} refused for {reasons:?}");
            assert!(reasons.iter().any(|r| r == "NoChecker"), "seed {n}: {mv} refused for {reasons:?}");
            typed += 1;
        }
    }
    assert!(typed > 100, "only {typed} moves from empty points");
}

#[test]
fn each_kind_of_invalid_move_alone_types_only_that_kind() {
    let kinds = [
        "distance",
        "direction",
        "out-of-range",
        "empty-point",
        "onto-two",
        "bar-first",
        "entry-point",
        "early-bear-off",
        "empty-bar",
    ];
    for kind in kinds {
        let mut typed = 0;
        for n in 0..12u32 {
            let style = ["hit", "race", "random"][n as usize % 3];
            let e = transcript(&format!(
                "seed = {}\npolicy = {{ seed = {n}, turns = 80, invalid-every = 1, style = '{style}', \
                 invalid = ['{kind}'] }}",
                n + 100
            ));
            for (mv, reasons) in classify(&e) {
                assert!(is_of_kind(kind, mv, &reasons), "{kind}, seed {n}: {mv} refused for {reasons:?}");
                typed += 1;
            }
        }
        assert!(typed > 0, "no move of kind {kind} typed");
    }
    // Two kinds: both, and nothing else.
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..6u32 {
        let e = transcript(&format!(
            "seed = {n}\npolicy = {{ seed = {n}, turns = 60, invalid-every = 2, \
             invalid = ['direction', 'empty-bar'] }}"
        ));
        for (mv, reasons) in classify(&e) {
            let kind = ["direction", "empty-bar"].into_iter().find(|k| is_of_kind(k, mv, &reasons));
            seen.insert(kind.unwrap_or_else(|| panic!("seed {n}: {mv} refused for {reasons:?}")));
        }
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

#[test]
fn invalid_kinds_must_be_known_listed_and_used() {
    let err = transcript_error(
        "policy = { seed = 1, turns = 3, invalid-every = 2, invalid = [\"empty-point\", \"wrong-way\"] }",
    );
    assert!(err.contains("unknown kind `wrong-way`"), "{err}");
    let all = "distance, direction, out-of-range, empty-point, onto-two, bar-first, entry-point, \
               early-bear-off, empty-bar";
    assert!(err.contains(&format!("(the kinds: {all})")), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 3, invalid-every = 2, invalid = [] }");
    assert!(err.contains("policy.invalid is empty"), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 3, invalid = [\"distance\"] }");
    assert!(err.contains("policy.invalid needs policy.invalid-every"), "{err}");
    let err = transcript_error("policy = { seed = 1, turns = 3, invalid-every = 2, invalid = \"distance\" }");
    assert!(err.contains("invalid type"), "{err}");
}

#[test]
fn invalid_every_types_an_invalid_move_first_then_a_valid_one() {
    let e = transcript("seed = 21\npolicy = { seed = 11, turns = 80, invalid-every = 3, style = \"race\" }");
    let stdout = text(&e.stdout);
    let invalid = stdout.matches(INVALID_MOVE).count();
    let prompts = stdout.matches("'s move:  ").count();
    assert!(invalid > 5);
    // Every third decision has one extra prompt; the final 0 0 is a prompt of its own, no decision.
    let decisions = prompts - invalid - 1;
    assert_eq!(invalid, decisions / 3, "{prompts} prompts");
    // A mistake is followed by the prompt and then a valid move: never two mistakes in a row.
    assert!(!stdout.contains(&format!("{INVALID_MOVE}\nWhite's move:  {INVALID_MOVE}")));
    assert!(!stdout.contains(&format!("{INVALID_MOVE}\nRed's move:  {INVALID_MOVE}")));
    replay(&e);
}

#[test]
fn invalid_moves_are_of_many_kinds() {
    let mut reasons = std::collections::BTreeSet::new();
    for (seed, style) in [(21, "race"), (5, "hit"), (30, "random"), (44, "race")] {
        let e = transcript(&format!(
            "seed = {seed}\npolicy = {{ seed = 2, turns = 120, invalid-every = 3, style = \"{style}\" }}"
        ));
        reasons.extend(classify(&e).into_iter().flat_map(|(_, r)| r));
    }
    for expected in [
        "WrongDistance",
        "WrongDirection",
        "OffBoard",
        "NoChecker",
        "Blocked",
        "MustEnter",
        "NothingOnBar",
        "NotAllHome",
    ] {
        assert!(reasons.contains(expected), "{expected} missing from {reasons:?}");
    }
}

#[test]
fn policy_transcripts_do_not_depend_on_which_die_a_move_valid_with_both_uses() {
    // First, the other program really is different: in the handout's section 5 it refuses 22 0.
    let mut start = Board::empty();
    start.set_count(Colour::White, 1, 1).unwrap();
    start.set_count(Colour::White, 2, 1).unwrap();
    start.set_count(Colour::Red, 23, 1).unwrap();
    // 1 0 with 2 1 is valid with both dice: ours uses the 2, so 2 0 is then refused; the other
    // program uses the 1, so 2 0 is accepted.
    let lines = ["1 0", "2 0", "0 0"];
    let other = other_choice_program(start, &mut FixedDice::new([(2, 1)]), &lines);
    let mut ours = Vec::new();
    let options = Options { start, ..Options::default() };
    console::run(&mut Script::new(lines), &mut FixedDice::new([(2, 1)]), &mut ours, options).unwrap();
    assert!(text(&ours).ends_with(&format!("White's move:  {INVALID_MOVE}\nWhite's move:  ")));
    assert!(!other.contains(INVALID_MOVE), "{other}");
    assert_eq!(other.matches("  Bar:  ").count(), 3, "the start board and one per move");

    // Then: over many policy games, bearing off included, both programs print the same transcript.
    let mut ambiguous_first_moves = 0;
    for seed in 1..=30u32 {
        for (style, invalid) in [("race", 4), ("random", 3)] {
            let e = transcript(&format!(
                "seed = {seed}\npolicy = {{ seed = {seed}, turns = 200, invalid-every = {invalid}, style = \"{style}\" }}"
            ));
            let lines = stdin_lines(&e);
            let other = other_choice_program(Board::start(), &mut GlibcRandom::new(seed), &lines);
            assert_same_transcript(&other, text(&e.stdout), &format!("seed {seed}, {style}"));
            ambiguous_first_moves += count_ambiguous_first_moves(&e, seed);
        }
    }
    assert!(ambiguous_first_moves > 10, "only {ambiguous_first_moves} first moves valid with both dice");
}

/// Compares two transcripts, naming the first line that differs instead of printing both whole.
fn assert_same_transcript(got: &str, expected: &str, context: &str) {
    if let Some((i, (g, e))) = got.lines().zip(expected.lines()).enumerate().find(|(_, (g, e))| g != e) {
        panic!("{context}: line {} differs:\n  got:      {g:?}\n  expected: {e:?}", i + 1);
    }
    assert_eq!(got.len(), expected.len(), "{context}: one transcript is a prefix of the other");
}

/// How many first moves of a turn in the replay were valid with both (different) dice.
fn count_ambiguous_first_moves(e: &Expansion, seed: u32) -> usize {
    struct Counter(Script, usize);
    impl reference::console::InputSource<Prompt<'_>> for Counter {
        fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
            let line = self.0.next_input(prompt)?;
            let mv = parse_move(&line).unwrap();
            let (a, b) = prompt.dice;
            if prompt.remaining.len() == 2
                && a != b
                && prompt.board.check(prompt.mover, mv, a).is_ok()
                && prompt.board.check(prompt.mover, mv, b).is_ok()
            {
                self.1 += 1;
            }
            Some(line)
        }
    }
    let mut counter = Counter(Script::new(stdin_lines(e)), 0);
    console::run(&mut counter, &mut GlibcRandom::new(seed), &mut Vec::new(), Options::default()).unwrap();
    counter.1
}

#[test]
fn policy_expansions_are_reproducible_and_depend_on_the_policy_seed() {
    let scenario = |s: u64| format!("seed = 77\npolicy = {{ seed = {s}, turns = 40 }}");
    assert_eq!(transcript(&scenario(1)), transcript(&scenario(1)));
    let differ = (2..6).any(|s| transcript(&scenario(s)).stdin != transcript(&scenario(1)).stdin);
    assert!(differ);
}

#[test]
fn unit_commands_are_the_stdin_and_the_driver_output_the_stdout() {
    let e = expand(CaseKind::Unit, r#"commands = ["start", "check check_move white 24 23 1", "bounds 25"]"#)
        .unwrap();
    assert_eq!(text(&e.stdin), "start\ncheck check_move white 24 23 1\nbounds 25\n");
    assert_eq!(
        text(&e.stdout),
        "> start\n> check check_move white 24 23 1\ncheck_move returned 1\n> bounds 25\ncheck_board_bounds returned 2\n"
    );
    assert!(e.env.is_empty());
}

#[test]
fn unit_scenarios_reject_bad_commands_and_unknown_keys() {
    let err = expand(CaseKind::Unit, r#"commands = ["start", "fly 0"]"#).unwrap_err().to_string();
    assert!(err.starts_with("command 2 (`fly 0`): unknown command"), "{err}");
    let err = expand(CaseKind::Unit, "commands = [\"start\"]\nseed = 1").unwrap_err().to_string();
    assert!(err.contains("unknown field `seed`"), "{err}");
    let err = expand(CaseKind::Unit, "commands = []").unwrap_err().to_string();
    assert!(err.contains("empty"), "{err}");
    let err = expand(CaseKind::Unit, r#"commands = ["start\ndump"]"#).unwrap_err().to_string();
    assert!(err.contains("line break"), "{err}");
    let err = expand(CaseKind::Unit, r#"commands = ["start", "check check_entry_move white 0 21 4"]"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no checker on the bar"), "{err}");
}
