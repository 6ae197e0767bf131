//! Expansion of checkers cases' `[scenario]` tables (explicit inputs, policies, `expect`), and the
//! invariants that keep every committed case inside its category: no step while a jump is
//! available, no jump that could continue, quiet games outside `jumps`, kings only in `kings`, each
//! case showing what it is named after, and fresh `.stdin`/`.stdout` sidecars.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use reference::checkers::console::{self, parse_move, prompt_text, Ending};
use reference::checkers::rules::{Board, Colour, Illegal, Kind, Move, Square};
use reference::checkers::scenario::MOVE_LIMIT;
use reference::{solution, Expansion, ScenarioError};

fn expand(scenario: &str) -> Result<Expansion, ScenarioError> {
    let table: toml::Table = toml::from_str(scenario).unwrap();
    solution("checkers").unwrap().expand_transcript(&table)
}

fn transcript(scenario: &str) -> Expansion {
    expand(scenario).unwrap()
}

fn transcript_error(scenario: &str) -> String {
    expand(scenario).unwrap_err().to_string()
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// Feeds the expansion's stdin to the reference console: a correct program prints the stdout.
fn replay(e: &Expansion) -> console::Session {
    let mut input = e.stdin.as_slice();
    let mut out = Vec::new();
    let session = console::run_stdin(&mut input, &mut out).unwrap();
    assert_eq!(text(&out), text(&e.stdout), "replaying the stdin");
    session
}

#[test]
fn explicit_inputs_are_typed_one_per_line_and_replaying_them_prints_the_stdout() {
    let e = transcript(r#"inputs = ["1 2 0 3", "0 5 1 4", "1 2 1 3", "2 1 1 2"]"#);
    assert_eq!(text(&e.stdin), "1 2 0 3\n0 5 1 4\n1 2 1 3\n2 1 1 2\n");
    assert!(e.env.is_empty());
    let stdout = text(&e.stdout);
    assert!(stdout.starts_with("   0   1   2   3   4   5   6   7 \n |---|"), "{stdout}");
    assert!(stdout.contains("RED's move:  INVALID MOVE.  TRY AGAIN!!\nRED's move:  \n"), "{stdout}");
    assert!(stdout.ends_with("|\n\nWHITE's move:  "), "{stdout}");
    let session = replay(&e);
    assert_eq!(session.ending, Ending::InputEnded { mover: Colour::White, turn: 4 });
    assert_eq!(session.turns, 3);
}

#[test]
fn no_inputs_is_the_start_board_and_reds_prompt() {
    let e = transcript("inputs = []");
    assert!(e.stdin.is_empty());
    assert!(text(&e.stdout).ends_with("|\n\nRED's move:  "));
    assert_eq!(replay(&e).turns, 0);
}

#[test]
fn an_input_that_is_not_four_ints_is_an_error_naming_it() {
    for line in ["0 5 1", "0 5 1 4 2", "a b c d", "", "0 5 1 x", "99999999999 5 1 4"] {
        let err = transcript_error(&format!("inputs = [\"1 2 0 3\", {line:?}, \"2 1 1 2\"]"));
        assert!(err.contains(&format!("input 2 (`{line}`) is not four ints")), "{line:?}: {err}");
    }
}

#[test]
fn unknown_or_conflicting_keys_are_rejected() {
    let err = transcript_error("inputs = [\"1 2 0 3\"]\npolicy = { seed = 1, moves = 3, style = \"quiet\" }");
    assert!(err.contains("either `inputs` or `policy`, not both"), "{err}");
    let err = transcript_error("expect = { invalid = 1 }");
    assert!(err.contains("needs `inputs = [...]` or `policy = { ... }`"), "{err}");
    let err = transcript_error("inputs = [\"1 2 0 3\"]\ninput = [\"1 2 0 3\"]");
    assert!(err.contains("unknown field `input`"), "{err}");
    let err = transcript_error("policy = { seed = 1, moves = 3, style = \"quiet\", invalid_every = 2 }");
    assert!(err.contains("unknown field `invalid_every`"), "{err}");
    let err = transcript_error("inputs = [\"1 2 0 3\"]\nexpect = { capture = 1 }");
    assert!(err.contains("unknown field `capture`"), "{err}");
    let err = transcript_error("policy = { seed = 1, moves = 3, style = \"greedy\" }");
    assert!(err.contains("unknown variant `greedy`"), "{err}");
    let err = transcript_error("policy = { seed = 1, moves = 3 }");
    assert!(err.contains("missing field `style`"), "{err}");
    let err = transcript_error("commands = [\"start\"]");
    assert!(err.contains("unknown field `commands`"), "{err}");
}

#[test]
fn an_expectation_not_met_is_an_error_saying_what_is_missing() {
    let inputs = "inputs = [\"1 2 0 3\", \"0 5 1 4\"]";
    let cases = [
        ("captures = 1", "0 capture(s), not 1"),
        ("invalid = 2", "0 invalid move(s), not 2"),
        ("crowned = [\"red\"]", "no red man was crowned"),
        ("crowned = [\"white\"]", "no white man was crowned"),
        ("king-moves-backwards = true", "no king moved backwards"),
    ];
    for (expect, missing) in cases {
        let err = transcript_error(&format!("{inputs}\nexpect = {{ {expect} }}"));
        assert!(err.starts_with("expect: ") && err.contains(missing), "{expect}: {err}");
    }
    let err = transcript_error(&format!("{inputs}\nexpect = {{ captures = 1, invalid = 1 }}"));
    assert!(err.contains("0 capture(s), not 1; 0 invalid move(s), not 1"), "{err}");
    let err = transcript_error(&format!("{inputs}\nexpect = {{ crowned = [\"blue\"] }}"));
    assert!(err.contains("`blue` is not red or white"), "{err}");
    // Met expectations pass: a jump and an invalid move.
    let e = transcript(
        "inputs = [\"3 2 4 3\", \"2 5 3 4\", \"4 3 4 5\", \"4 3 2 5\"]\nexpect = { captures = 1, invalid = 1 }",
    );
    replay(&e);
}

#[test]
fn an_unknown_invalid_kind_is_an_error_listing_the_names() {
    let err = transcript_error(
        "policy = { seed = 1, moves = 8, style = \"quiet\", invalid-every = 2, invalid = [\"backwards\", \"sideways\"] }",
    );
    let names = "off-board, empty-origin, opponents-piece, occupied, backwards, too-far, jump-over-nothing, \
                 jump-over-own, far-off-board, not-diagonal, crooked-jump, backwards-jump";
    assert!(err.contains(&format!("invalid kind `sideways` is not one of {names}")), "{err}");
}

#[test]
fn policy_values_out_of_range_or_at_odds_are_errors() {
    let err = transcript_error("policy = { seed = 1, moves = 8, style = \"quiet\", invalid-every = 0 }");
    assert!(err.contains("invalid-every must be at least 1"), "{err}");
    let err = transcript_error(&format!(
        "policy = {{ seed = 1, moves = {}, style = \"captures\" }}",
        MOVE_LIMIT + 1
    ));
    assert!(err.contains(&format!("moves = {} is more than {MOVE_LIMIT}", MOVE_LIMIT + 1)), "{err}");
    for finish in ["step-while-jump-available", "jump-that-could-continue"] {
        let err = transcript_error(&format!(
            "policy = {{ seed = 1, moves = 40, style = \"quiet\", finish = \"{finish}\" }}"
        ));
        assert!(err.contains("a quiet game never has a jump available"), "{finish}: {err}");
    }
    let err = transcript_error(
        "policy = { seed = 1, moves = 40, style = \"quiet\", crown = false, crown-both-first = true }",
    );
    assert!(err.contains("crown-both-first goes with style = \"quiet\" and crown = true"), "{err}");
    let err =
        transcript_error("policy = { seed = 1, moves = 40, style = \"captures\", crown-both-first = true }");
    assert!(err.contains("crown-both-first goes with style = \"quiet\" and crown = true"), "{err}");
    // The limits themselves are accepted.
    let e = transcript(&format!(
        "policy = {{ seed = 1, moves = {MOVE_LIMIT}, style = \"quiet\", invalid-every = 1 }}"
    ));
    replay(&e);
}

#[test]
fn policy_expansions_are_reproducible_and_depend_on_the_policy_seed() {
    for style in ["quiet", "captures"] {
        let policy = |seed: u64| format!("policy = {{ seed = {seed}, moves = 30, style = \"{style}\" }}");
        let (a, again) = (transcript(&policy(1)), transcript(&policy(1)));
        assert_eq!(a, again, "{style}: the same seed, the same game");
        let b = transcript(&policy(2));
        assert_ne!(a.stdin, b.stdin, "{style}: other seeds, other games");
        assert_ne!(a.stdout, b.stdout, "{style}");
        replay(&a);
        replay(&b);
    }
    // The seeded search of crown-both-first too: the committed kings games (their sidecars are fresh,
    // so an expansion now is the one made then) differ from seed to seed.
    let kings = cases_named("kings/crowned-");
    assert!(kings.len() >= 2);
    for (i, a) in kings.iter().enumerate() {
        for b in &kings[i + 1..] {
            assert_ne!(a.expansion.stdin, b.expansion.stdin, "{} and {}", a.id, b.id);
        }
    }
}

// ---- The committed cases ----

/// One valid or invalid move typed, replayed on the rules' board.
struct Typed {
    /// Whose prompt it was typed at.
    mover: Colour,
    mv: Move,
    /// The board when it was typed.
    before: Board,
    /// What the rules said: the kind of a valid move, or why it was refused.
    outcome: Result<Kind, Illegal>,
    /// The board after it (the same as `before` when it was refused).
    after: Board,
    /// A man was crowned by it.
    crowned: bool,
}

impl Typed {
    fn valid(&self) -> bool {
        self.outcome.is_ok()
    }

    fn by_king(&self) -> bool {
        self.before.get(self.mv.from).is_some_and(|p| p.king)
    }

    fn backwards(&self) -> bool {
        self.mv.is_backwards_for(self.mover)
    }

    fn jump_available(&self) -> bool {
        !self.before.jumps(self.mover).is_empty()
    }

    fn could_jump_again(&self) -> bool {
        self.after.can_jump_from(self.mover, self.mv.to)
    }

    fn describe(&self, n: usize) -> String {
        format!("move {n} (`{}`) typed by {}", self.mv, self.mover.name())
    }
}

/// A committed case, expanded and replayed.
struct Case {
    /// `category/name`.
    id: String,
    category: String,
    name: String,
    toml: PathBuf,
    expansion: Expansion,
    typed: Vec<Typed>,
    /// The board at the last prompt, where input ends.
    last_board: Board,
}

impl Case {
    fn load(toml_path: &Path) -> Case {
        let category = toml_path.parent().unwrap().file_name().unwrap().to_str().unwrap().to_owned();
        let name = toml_path.file_stem().unwrap().to_str().unwrap().to_owned();
        let id = format!("{category}/{name}");
        let source = std::fs::read_to_string(toml_path).unwrap();
        let table: toml::Table = toml::from_str(&source).unwrap_or_else(|e| panic!("{id}: {e}"));
        let scenario = table.get("scenario").and_then(toml::Value::as_table);
        let scenario = scenario.unwrap_or_else(|| panic!("{id}: no [scenario] table"));
        let expansion =
            solution("checkers").unwrap().expand_transcript(scenario).unwrap_or_else(|e| panic!("{id}: {e}"));
        // Replay as the console plays: valid moves alternate the players, invalid ones keep the mover.
        let mut board = Board::start();
        let mut mover = Colour::Red;
        let mut typed = Vec::new();
        for (i, line) in text(&expansion.stdin).lines().enumerate() {
            let mv = parse_move(line).unwrap_or_else(|| panic!("{id}: stdin line {} `{line}`", i + 1));
            let before = board.clone();
            let outcome = board.check(mover, mv);
            let crowned = match outcome {
                Ok(_) => board.play(mover, mv).unwrap().crowned,
                Err(_) => false,
            };
            typed.push(Typed { mover, mv, before, outcome, after: board.clone(), crowned });
            if outcome.is_ok() {
                mover = mover.opponent();
            }
        }
        let stdout = text(&expansion.stdout);
        assert!(stdout.ends_with(&format!("\n{}", prompt_text(mover))), "{id}: ends at {mover:?}'s prompt");
        Case { id, category, name, toml: toml_path.to_owned(), expansion, typed, last_board: board }
    }

    /// The valid moves, numbered from 1 among everything typed.
    fn valid(&self) -> impl Iterator<Item = (usize, &Typed)> {
        self.typed.iter().enumerate().map(|(i, t)| (i + 1, t)).filter(|(_, t)| t.valid())
    }

    /// The board at every prompt, with whose prompt it is.
    fn prompts(&self) -> impl Iterator<Item = (&Board, Colour)> {
        let last_mover = match self.typed.last() {
            Some(t) if t.valid() => t.mover.opponent(),
            Some(t) => t.mover,
            None => Colour::Red,
        };
        self.typed.iter().map(|t| (&t.before, t.mover)).chain([(&self.last_board, last_mover)])
    }
}

/// Every case under `cases/checkers/<category>/`, expanded and replayed once for all the tests.
fn committed_cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| common::case_files("checkers", 30).iter().map(|p| Case::load(p)).collect())
}

fn case(id: &str) -> &'static Case {
    committed_cases().iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no case {id}"))
}

fn cases_named(prefix: &str) -> Vec<&'static Case> {
    let found: Vec<&Case> = committed_cases().iter().filter(|c| c.id.starts_with(prefix)).collect();
    assert!(!found.is_empty(), "no case {prefix}*");
    found
}

#[test]
fn committed_sidecars_are_fresh_and_replay() {
    for case in committed_cases() {
        let sidecar = |ext: &str| {
            let path = case.toml.with_extension(ext);
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {}: {e}", case.id, path.display()))
        };
        assert!(sidecar("stdin") == case.expansion.stdin, "{}: the .stdin sidecar is stale", case.id);
        assert!(sidecar("stdout") == case.expansion.stdout, "{}: the .stdout sidecar is stale", case.id);
        let session = replay(&case.expansion);
        assert!(matches!(session.ending, Ending::InputEnded { .. }), "{}: {:?}", case.id, session.ending);
    }
}

#[test]
fn no_case_but_no_forced_jumps_steps_while_a_jump_is_available() {
    case("jumps/no-forced-jumps");
    for case in committed_cases().iter().filter(|c| c.id != "jumps/no-forced-jumps") {
        for (n, t) in case.valid() {
            assert!(
                !(t.outcome == Ok(Kind::Step) && t.jump_available()),
                "{}: {} steps while {} can jump ({:?})",
                case.id,
                t.describe(n),
                t.mover.name(),
                t.before.jumps(t.mover).iter().map(Move::to_string).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn no_case_but_no_multiple_jumps_plays_a_jump_after_which_the_piece_could_jump_again() {
    case("jumps/no-multiple-jumps");
    for case in committed_cases().iter().filter(|c| c.id != "jumps/no-multiple-jumps") {
        for (n, t) in case.valid() {
            assert!(
                !(t.outcome == Ok(Kind::Jump) && t.could_jump_again()),
                "{}: after {} the piece on {:?} could jump again",
                case.id,
                t.describe(n),
                t.mv.to
            );
        }
    }
}

#[test]
fn games_of_board_stepping_validation_and_kings_are_quiet() {
    let quiet = |c: &&Case| {
        ["board", "stepping", "validation", "kings"].contains(&c.category.as_str())
            && !c.name.starts_with("king-jumps-backwards-")
    };
    let cases: Vec<&Case> = committed_cases().iter().filter(quiet).collect();
    assert!(cases.iter().any(|c| c.category == "kings"));
    for case in cases {
        for (i, (board, mover)) in case.prompts().enumerate() {
            for colour in [Colour::Red, Colour::White] {
                let jumps = board.jumps(colour);
                assert!(
                    jumps.is_empty(),
                    "{}: at prompt {} ({}'s) {} could jump: {:?}",
                    case.id,
                    i + 1,
                    mover.name(),
                    colour.name(),
                    jumps.iter().map(Move::to_string).collect::<Vec<_>>()
                );
            }
        }
    }
}

#[test]
fn no_man_is_crowned_outside_kings() {
    let cases: Vec<&Case> = committed_cases()
        .iter()
        .filter(|c| ["board", "stepping", "validation", "jumps"].contains(&c.category.as_str()))
        .collect();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for case in cases {
        for (n, t) in case.valid() {
            assert!(!t.crowned, "{}: {} crowns a man", case.id, t.describe(n));
        }
    }
}

#[test]
fn kings_crowned_cases_crown_both_colours_and_move_a_king_backwards() {
    let mut cases = cases_named("kings/crowned-");
    cases.push(case("kings/shown-as-capitals"));
    for case in cases {
        let crowned: Vec<Colour> = case.valid().filter(|(_, t)| t.crowned).map(|(_, t)| t.mover).collect();
        assert!(crowned.contains(&Colour::Red), "{}: no red man crowned", case.id);
        assert!(crowned.contains(&Colour::White), "{}: no white man crowned", case.id);
        assert!(
            case.valid().any(|(_, t)| t.by_king() && t.backwards()),
            "{}: no king moves backwards",
            case.id
        );
    }
    // The one case that grades the drawing of kings shows both capitals.
    let drawn = text(&case("kings/shown-as-capitals").expansion.stdout);
    assert!(drawn.contains("| R |") && drawn.contains("| W |"));
}

#[test]
fn king_jumps_backwards_cases_end_with_a_kings_backward_jump() {
    for case in cases_named("kings/king-jumps-backwards-") {
        let (n, last) = case.valid().last().unwrap_or_else(|| panic!("{}: no valid move", case.id));
        assert_eq!(last.outcome, Ok(Kind::Jump), "{}: {}", case.id, last.describe(n));
        assert!(
            last.by_king() && last.backwards(),
            "{}: {} is not a king's backward jump",
            case.id,
            last.describe(n)
        );
    }
}

#[test]
fn no_forced_jumps_ends_with_a_step_while_a_jump_is_available() {
    let case = case("jumps/no-forced-jumps");
    let n = case.typed.len();
    let last = case.typed.last().unwrap();
    assert_eq!(last.outcome, Ok(Kind::Step), "{}", last.describe(n));
    assert!(last.jump_available(), "{}: no jump was available", last.describe(n));
}

#[test]
fn no_multiple_jumps_ends_with_a_jump_after_which_the_piece_could_jump_again() {
    let case = case("jumps/no-multiple-jumps");
    let n = case.typed.len();
    let last = case.typed.last().unwrap();
    assert_eq!(last.outcome, Ok(Kind::Jump), "{}", last.describe(n));
    assert!(last.could_jump_again(), "{}: the piece could not jump again", last.describe(n));
}

/// Whether an invalid move is of the kind a validation case is named after.
fn is_of_kind(kind: &str, t: &Typed) -> bool {
    let origin = t.before.get(t.mv.from);
    match kind {
        "off-board" => t.outcome == Err(Illegal::OffBoard),
        "empty-origin" => t.outcome == Err(Illegal::NotYourPiece) && origin.is_none(),
        "opponents-piece" => {
            t.outcome == Err(Illegal::NotYourPiece) && origin.is_some_and(|p| p.colour == t.mover.opponent())
        }
        "occupied" => t.outcome == Err(Illegal::Occupied),
        "backwards" => t.outcome == Err(Illegal::Backwards),
        "too-far" => t.outcome == Err(Illegal::NotADiagonalStepOrJump),
        "jump-over-nothing" => t.outcome == Err(Illegal::JumpOverNothing),
        "jump-over-own" => t.outcome == Err(Illegal::JumpOverOwn),
        // Not one square past an edge: the origin is off the board too, or a coordinate is far out.
        "far-off-board" => {
            let far = [t.mv.to.x, t.mv.to.y].iter().any(|c| !(-1..=8).contains(c));
            t.outcome == Err(Illegal::OffBoard) && (!t.mv.from.on_board() || far)
        }
        "not-diagonal" => {
            let (dx, dy) = (t.mv.to.x - t.mv.from.x, t.mv.to.y - t.mv.from.y);
            t.outcome == Err(Illegal::NotADiagonalStepOrJump)
                && dx != 0
                && dx.abs() != dy.abs()
                && dx.abs().max(dy.abs()) <= 2
        }
        "crooked-jump" => {
            let (dx, dy) = (t.mv.to.x - t.mv.from.x, t.mv.to.y - t.mv.from.y);
            let beside = t.before.get(Square::new(t.mv.from.x + dx.signum(), t.mv.from.y + dy.signum()));
            t.outcome == Err(Illegal::NotADiagonalStepOrJump)
                && [dx.abs(), dy.abs()].contains(&2)
                && [dx.abs(), dy.abs()].contains(&3)
                && beside.is_some_and(|p| p.colour == t.mover.opponent())
        }
        "backwards-jump" => {
            let jumped = t.before.get(t.mv.middle());
            t.outcome == Err(Illegal::Backwards)
                && (t.mv.to.x - t.mv.from.x).abs() == 2
                && jumped.is_some_and(|p| p.colour == t.mover.opponent())
        }
        _ => unreachable!("{kind}"),
    }
}

#[test]
fn validation_cases_type_invalid_moves_each_of_the_kind_the_case_is_named_after() {
    const KINDS: [&str; 12] = [
        "off-board",
        "empty-origin",
        "opponents-piece",
        "occupied",
        "backwards",
        "too-far",
        "jump-over-nothing",
        "jump-over-own",
        "far-off-board",
        "not-diagonal",
        "crooked-jump",
        "backwards-jump",
    ];
    for case in cases_named("validation/") {
        let invalid: Vec<(usize, &Typed)> =
            case.typed.iter().enumerate().map(|(i, t)| (i + 1, t)).filter(|(_, t)| !t.valid()).collect();
        assert!(!invalid.is_empty(), "{}: no invalid move typed", case.id);
        if !KINDS.contains(&case.name.as_str()) {
            continue;
        }
        for (n, t) in invalid {
            assert!(
                is_of_kind(&case.name, t),
                "{}: {} is refused as {:?}, not as {}",
                case.id,
                t.describe(n),
                t.outcome.unwrap_err(),
                case.name
            );
        }
    }
    for kind in KINDS {
        case(&format!("validation/{kind}"));
    }
}
