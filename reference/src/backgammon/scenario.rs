//! Expansion of a backgammon case's `[scenario]` table into the stdin fed to a program, its
//! environment, and the stdout a correct program prints.
//!
//! Transcript cases either list every move typed (`inputs`) or give a policy that plays the game
//! (`policy`), with an optional `seed` for the dice; unit cases list driver commands. Every value that
//! could not give a well-defined transcript is an error here, before any student program runs.
//!
//! The dice: without `seed`, glibc's default sequence (an unmodified program never seeds); with
//! `seed = N`, the environment gets `BACKGAMMON_SEED=N`, which the case's preload library passes to
//! `srandom`, and the reference rolls [`GlibcRandom::new`]`(N)`.

use std::collections::{BTreeMap, VecDeque};

use serde::Deserialize;

use super::console::{self, parse_move, Ending, InputSource, Options, Prompt};
use super::rules::{valid_moves_with, Board, Colour, IllegalMove, Move, BOARD_SIZE};
use crate::rng::GlibcRandom;
use crate::scenario::{error, parse};
use crate::{Expansion, ScenarioError};

/// The environment variable the preload library reads the seed from.
pub const SEED_VARIABLE: &str = "BACKGAMMON_SEED";
/// The most turns a policy may play (transcripts must stay readable: a turn prints two boards).
pub const MAX_TURNS: u64 = 1000;

/// `[scenario]` of a transcript case: exactly one of `inputs` or `policy`, and an optional `seed`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TranscriptScenario {
    /// Every move typed, one line each, ending with `0 0`.
    inputs: Option<Vec<String>>,
    /// The argument of `srandom` (0..=4294967295); none: the program is not seeded.
    seed: Option<i64>,
    /// How moves are chosen.
    policy: Option<PolicyConfig>,
}

/// `policy = { seed = 7, turns = 40, invalid-every = 3, invalid = ["empty-point"], style = "race" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PolicyConfig {
    /// Seed of the `fastrand` generator choosing the moves.
    seed: u64,
    /// Turns played before `0 0` is typed at the first prompt of the next one.
    turns: u64,
    /// At every Nth move decision, type an invalid move first.
    invalid_every: Option<u64>,
    /// The kinds of invalid move typed ([`InvalidKind::name`]); none: every kind.
    invalid: Option<Vec<String>>,
    /// How valid moves are chosen (default `random`).
    #[serde(default)]
    style: Style,
    /// `false`: never hit; the game ends (`0 0`) when no whole turn without a hit is left. Keeps the
    /// cases of basic moves and bearing off free of entries, so that a bug costs points where it belongs.
    #[serde(default = "yes")]
    hits: bool,
}

fn yes() -> bool {
    true
}

/// How the policy chooses among the valid moves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// Uniformly (a first move among those that leave the other die a move).
    #[default]
    Random,
    /// Bearing off first, then the rearmost checker, then hits: games reach bearing off.
    Race,
    /// Hits first, so that checkers go to the bar and enter again.
    Hit,
}

/// The kinds of invalid move a policy types, named in `invalid = [...]` by [`InvalidKind::name`].
///
/// Without `invalid`, every kind is typed as the policy has always built them: a candidate of a kind
/// is any move the rules refuse, whatever their reason (a move of the basic kinds typed while the mover
/// has a checker on the bar is refused for the bar first). With `invalid`, a candidate of a listed kind
/// is typed only when [`InvalidKind::of_move`] finds that kind with the remaining dice of every
/// correct program: refused with each die, for that kind's reason, or with some die only for the
/// distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvalidKind {
    /// `distance`: a basic move of a distance no remaining die shows.
    Distance,
    /// `direction`: a basic move backwards.
    Direction,
    /// `out-of-range`: a number that is no point (25 or -1 as a start, past the end of the board).
    OutOfRange,
    /// `empty-point`: from a point without the mover's checkers.
    EmptyPoint,
    /// `onto-two`: onto a point held by two or more opposing checkers (a basic or an entry move).
    OntoTwo,
    /// `bar-first`: a basic move while the mover has a checker on the bar.
    BarFirst,
    /// `entry-point`: `0 N` at the entry point of a die not rolled, while on the bar.
    EntryPoint,
    /// `early-bear-off`: `N 0` while not all the mover's checkers are home.
    EarlyBearOff,
    /// `empty-bar`: `0 N` with nothing on the bar.
    EmptyBar,
}

impl InvalidKind {
    /// Every kind, in the order of the policy's groups of candidates.
    pub const ALL: [InvalidKind; 9] = [
        InvalidKind::Distance,
        InvalidKind::Direction,
        InvalidKind::OutOfRange,
        InvalidKind::EmptyPoint,
        InvalidKind::OntoTwo,
        InvalidKind::BarFirst,
        InvalidKind::EntryPoint,
        InvalidKind::EarlyBearOff,
        InvalidKind::EmptyBar,
    ];

    /// The name in `invalid = [...]`.
    pub fn name(self) -> &'static str {
        match self {
            InvalidKind::Distance => "distance",
            InvalidKind::Direction => "direction",
            InvalidKind::OutOfRange => "out-of-range",
            InvalidKind::EmptyPoint => "empty-point",
            InvalidKind::OntoTwo => "onto-two",
            InvalidKind::BarFirst => "bar-first",
            InvalidKind::EntryPoint => "entry-point",
            InvalidKind::EarlyBearOff => "early-bear-off",
            InvalidKind::EmptyBar => "empty-bar",
        }
    }

    /// The kind of a name.
    pub fn from_name(name: &str) -> Option<InvalidKind> {
        InvalidKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind of an invalid move, as the rules refuse it with each of `dice`: the one reason given
    /// with every die, or the one reason given with some dice when the others only find the distance
    /// wrong (a move meant for one die is the wrong distance for the other). `None` when a die accepts
    /// the move, or the reasons are of two kinds or of none.
    pub fn of_move(board: &Board, mover: Colour, mv: Move, dice: &[u8]) -> Option<InvalidKind> {
        let mut kinds = Vec::with_capacity(dice.len());
        for &die in dice {
            let reason = board.check(mover, mv, die).err()?;
            kinds.push(InvalidKind::of(mv, &reason)?);
        }
        let distance = |k: &InvalidKind| matches!(k, InvalidKind::Distance | InvalidKind::EntryPoint);
        let main = kinds.iter().copied().find(|k| !distance(k)).or_else(|| kinds.first().copied())?;
        kinds.iter().all(|k| *k == main || distance(k)).then_some(main)
    }

    /// The kind of the reason the rules give for refusing `mv` (`None` for a reason no kind types:
    /// bearing off from too far, `0 0`, a bad die, no die left).
    pub fn of(mv: Move, reason: &IllegalMove) -> Option<InvalidKind> {
        Some(match reason {
            IllegalMove::WrongDistance { .. } if mv.from == 0 => InvalidKind::EntryPoint,
            IllegalMove::WrongDistance { .. } => InvalidKind::Distance,
            IllegalMove::WrongDirection { .. } => InvalidKind::Direction,
            IllegalMove::OffBoard(_) => InvalidKind::OutOfRange,
            IllegalMove::NoChecker { .. } => InvalidKind::EmptyPoint,
            IllegalMove::Blocked { .. } => InvalidKind::OntoTwo,
            IllegalMove::MustEnter(_) => InvalidKind::BarFirst,
            IllegalMove::NotAllHome(_) => InvalidKind::EarlyBearOff,
            IllegalMove::NothingOnBar(_) => InvalidKind::EmptyBar,
            IllegalMove::TooFar { .. }
            | IllegalMove::Quit
            | IllegalMove::BadDie(_)
            | IllegalMove::NoDieLeft => return None,
        })
    }
}

/// Expands a transcript case: the whole program's stdin, environment and stdout.
pub fn expand_transcript(scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
    let s: TranscriptScenario = parse(scenario)?;
    let seed = match s.seed {
        None => None,
        Some(seed) => match u32::try_from(seed) {
            Ok(seed) => Some(seed),
            Err(_) => {
                return error(format!("scenario: seed {seed} is not an unsigned int (0 to 4294967295)"))
            }
        },
    };
    let mut expansion = match (s.inputs, s.policy) {
        (Some(inputs), None) => explicit(inputs, seed)?,
        (None, Some(policy)) => with_policy(&policy, seed)?,
        (Some(_), Some(_)) => return error("scenario: give either `inputs` or `policy`, not both"),
        (None, None) => return error("scenario: a transcript needs `inputs = [...]` or `policy = { ... }`"),
    };
    if let Some(seed) = seed {
        expansion.env = BTreeMap::from([(SEED_VARIABLE.to_owned(), seed.to_string())]);
    }
    Ok(expansion)
}

/// The dice of a case: glibc's `random()` after `srandom(seed)`, or never seeded.
fn dice(seed: Option<u32>) -> GlibcRandom {
    seed.map_or_else(GlibcRandom::default, GlibcRandom::new)
}

/// Runs the console on a source and returns its stdout and session.
fn play(
    source: &mut dyn InputSource,
    seed: Option<u32>,
    turn_limit: u64,
) -> Result<(Vec<u8>, console::Session), ScenarioError> {
    let mut out = Vec::new();
    let options = Options { turn_limit: Some(turn_limit), ..Options::default() };
    let session = console::run(source, &mut dice(seed), &mut out, options)
        .map_err(|e| ScenarioError::new(format!("writing the transcript: {e}")))?;
    Ok((out, session))
}

/// How an ending reads in messages.
fn describe(ending: &Ending) -> String {
    match ending {
        Ending::Quit { mover, turn } => format!("0 0 typed at {mover}'s prompt of turn {turn}"),
        Ending::InputEnded { mover, turn } => format!("inputs end at {mover}'s prompt of turn {turn}"),
        Ending::NotAMove { mover, turn, text } => {
            format!("`{text}` at {mover}'s prompt of turn {turn} is not two ints")
        }
        Ending::DiceRanOut { turn } => format!("no dice for turn {turn}"),
        Ending::TurnLimit { turns } => format!("the program did not end within {turns} turns"),
    }
}

/// The explicit form: every move typed, in order.
fn explicit(inputs: Vec<String>, seed: Option<u32>) -> Result<Expansion, ScenarioError> {
    let mut source = Checked { lines: inputs.into(), typed: 0, error: None };
    let (stdout, session) = play(&mut source, seed, MAX_TURNS)?;
    if let Some(e) = source.error {
        return Err(e);
    }
    match session.ending {
        Ending::Quit { .. } => {}
        ref other => {
            let hint = match other {
                Ending::InputEnded { .. } => " (end the inputs with \"0 0\" to stop the program there)",
                _ => "",
            };
            return error(format!("{}{hint}", describe(other)));
        }
    }
    ScenarioError::check_all_typed(&source.lines, &describe(&session.ending))?;
    Ok(Expansion::typed(&session.consumed, stdout))
}

/// The explicit list, checked line by line: each must be a move a correct program can read.
struct Checked {
    lines: VecDeque<String>,
    typed: usize,
    error: Option<ScenarioError>,
}

impl crate::console::InputSource<Prompt<'_>> for Checked {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        let line = self.lines.pop_front()?;
        self.typed += 1;
        if parse_move(&line).is_some() {
            return Some(line);
        }
        self.error = Some(ScenarioError::new(format!(
            "input {} (`{line}`) at {}'s prompt of turn {} is not two ints (the program reads each \
             move with scanf(\"%d %d\"))",
            self.typed, prompt.mover, prompt.turn
        )));
        None
    }
}

/// The policy form.
fn with_policy(config: &PolicyConfig, seed: Option<u32>) -> Result<Expansion, ScenarioError> {
    if config.invalid_every == Some(0) {
        return error("scenario: policy.invalid-every must be at least 1");
    }
    if config.turns > MAX_TURNS {
        return error(format!("scenario: policy.turns is {}, more than {MAX_TURNS}", config.turns));
    }
    let kinds = match &config.invalid {
        None => None,
        Some(names) => {
            if config.invalid_every.is_none() {
                return error("scenario: policy.invalid needs policy.invalid-every");
            }
            if names.is_empty() {
                return error("scenario: policy.invalid is empty (leave it out for every kind)");
            }
            let mut kinds = Vec::new();
            for name in names {
                let Some(kind) = InvalidKind::from_name(name) else {
                    let all: Vec<&str> = InvalidKind::ALL.iter().map(|k| k.name()).collect();
                    return error(format!(
                        "scenario: policy.invalid: unknown kind `{name}` (the kinds: {})",
                        all.join(", ")
                    ));
                };
                kinds.push(kind);
            }
            Some(kinds)
        }
    };
    let mut source = Policy::new(config, kinds);
    // One turn more than the policy plays: it types 0 0 at the first prompt of that turn.
    let (stdout, session) = play(&mut source, seed, config.turns + 1)?;
    match session.ending {
        Ending::Quit { .. } => {}
        ref other => return error(format!("the policy did not end the program: {}", describe(other))),
    }
    Ok(Expansion::typed(&session.consumed, stdout))
}

/// Plays the game: valid moves chosen by a style, an invalid move now and then, and `0 0` after the
/// last turn or as soon as the mover cannot play a whole turn.
///
/// `0 0` is only ever typed at the first prompt of a turn, right after the roll, so that a game ends
/// at a neutral point: at a first prompt the policy picks only a first move after which it has a
/// second move to type, and when there is none it types `0 0` there. Invalid moves may come at either
/// prompt.
///
/// The handout leaves one choice open: which die a first move uses when it is valid with both
/// (bearing off from nearer than both dice). The policy keeps every remaining-dice state a correct
/// program may be in, types as valid only moves that all of them accept and as invalid only moves
/// that all of them refuse, and counts a second move as possible only when all of them accept it. So
/// any two correct programs print the same transcript.
#[derive(Debug)]
pub struct Policy {
    rng: fastrand::Rng,
    turns: u64,
    invalid_every: Option<u64>,
    /// The kinds of invalid move typed, each only for its own reason; `None`: every kind, as built.
    kinds: Option<Vec<InvalidKind>>,
    style: Style,
    hits: bool,
    /// Move decisions taken so far (the retry after a deliberate mistake is part of its decision).
    decisions: u64,
    /// The last line was a deliberate invalid move: the next must be valid.
    owe_valid: bool,
    /// After a first move: the remaining dice of each correct program (two lists when the move was
    /// valid with both dice).
    after_first: Vec<Vec<u8>>,
}

impl Policy {
    fn new(config: &PolicyConfig, kinds: Option<Vec<InvalidKind>>) -> Self {
        let mut policy = Self::with(config.seed, config.turns, config.invalid_every, config.style);
        policy.hits = config.hits;
        policy.kinds = kinds;
        policy
    }

    /// A policy choosing with `fastrand::Rng::with_seed(seed)`, typing `0 0` after `turns` turns and
    /// an invalid move at every `invalid_every`th decision.
    pub fn with(seed: u64, turns: u64, invalid_every: Option<u64>, style: Style) -> Self {
        Self {
            rng: fastrand::Rng::with_seed(seed),
            turns,
            invalid_every,
            kinds: None,
            style,
            hits: true,
            decisions: 0,
            owe_valid: false,
            after_first: Vec::new(),
        }
    }

    /// The remaining dice of each correct program at this prompt.
    fn alternatives(&self, prompt: &Prompt<'_>) -> Vec<Vec<u8>> {
        if prompt.remaining.len() == 2 {
            vec![prompt.remaining.to_vec()]
        } else {
            debug_assert!(self.after_first.iter().any(|alt| alt == prompt.remaining));
            self.after_first.clone()
        }
    }

    /// The move typed at `prompt`; `None` only if the policy had no second move after its first
    /// (which it rules out when it picks the first), so that the expansion fails rather than end
    /// the game at a second prompt.
    fn choose(&mut self, prompt: &Prompt<'_>) -> Option<Move> {
        if prompt.turn > self.turns {
            return Some(Move::QUIT);
        }
        let alternatives = self.alternatives(prompt);
        let (board, mover) = (prompt.board, prompt.mover);
        let first = prompt.remaining.len() == 2;
        let sets: Vec<Vec<Move>> =
            alternatives.iter().map(|dice| valid_moves_with(board, mover, dice)).collect();
        let accepted = self.allowed(board, mover, accepted_moves(board, mover, &alternatives));
        // A first move only if the policy then has a second one: a whole turn, or 0 0 right here.
        let playable =
            if first { self.whole_turns(board, mover, prompt.remaining, &accepted) } else { accepted };
        if playable.is_empty() {
            return if first { Some(Move::QUIT) } else { None };
        }
        if !self.owe_valid {
            self.decisions += 1;
            if self.invalid_every.is_some_and(|n| self.decisions % n == 0) {
                let refused = |mv: &Move| sets.iter().all(|s| !s.contains(mv)) && *mv != Move::QUIT;
                // With `invalid`, each move only when every correct program refuses it for its
                // kind's reason.
                let for_its_reason = |kind: InvalidKind, mv: &Move| {
                    self.kinds.is_none()
                        || alternatives
                            .iter()
                            .all(|dice| InvalidKind::of_move(board, mover, *mv, dice) == Some(kind))
                };
                let groups: Vec<Vec<Move>> = invalid_candidates(board, mover, &alternatives)
                    .into_iter()
                    .zip(InvalidKind::ALL)
                    .filter(|(_, kind)| self.kinds.as_ref().is_none_or(|kinds| kinds.contains(kind)))
                    .map(|(group, kind)| {
                        group
                            .into_iter()
                            .filter(|mv| refused(mv) && for_its_reason(kind, mv))
                            .collect::<Vec<Move>>()
                    })
                    .filter(|group| !group.is_empty())
                    .collect();
                if !groups.is_empty() {
                    let group = &groups[self.rng.usize(..groups.len())];
                    self.owe_valid = true;
                    return Some(group[self.rng.usize(..group.len())]);
                }
            }
        }
        self.owe_valid = false;
        let mv = self.pick(board, mover, &playable);
        if first {
            self.after_first = after_first(board, mover, prompt.remaining, mv);
        }
        Some(mv)
    }

    /// The accepted first moves after which the policy has a second move to type: one that every
    /// correct program accepts, whichever die it gave the first move, and that `hits` allows.
    fn whole_turns(&self, board: &Board, mover: Colour, dice: &[u8], accepted: &[Move]) -> Vec<Move> {
        accepted
            .iter()
            .copied()
            .filter(|&mv| {
                // The board after the move does not depend on the die it used.
                let mut next = *board;
                let die = dice.iter().copied().find(|&d| board.check(mover, mv, d).is_ok());
                let alternatives = after_first(board, mover, dice, mv);
                die.is_some_and(|d| next.play(mover, mv, d).is_ok())
                    && !self.allowed(&next, mover, accepted_moves(&next, mover, &alternatives)).is_empty()
            })
            .collect()
    }

    /// The accepted moves the policy may play: without hits when `hits = false`.
    fn allowed(&self, board: &Board, mover: Colour, mut accepted: Vec<Move>) -> Vec<Move> {
        if !self.hits {
            accepted.retain(|mv| !board.would_hit(mover, *mv));
        }
        accepted
    }

    /// One of the accepted moves, as the style prefers.
    fn pick(&mut self, board: &Board, mover: Colour, accepted: &[Move]) -> Move {
        let score = |mv: &Move| -> i32 {
            let hit = i32::from(board.would_hit(mover, *mv));
            let rearness = if mv.from == 0 { 25 } else { mover.distance_off(mv.from) };
            match self.style {
                Style::Random => 0,
                Style::Race => 1000 * i32::from(mv.to == 0) + 10 * rearness + hit,
                Style::Hit => 100 * hit + i32::from(mv.from == 0),
            }
        };
        let best = accepted.iter().map(score).max().expect("at least one accepted move");
        let top: Vec<Move> = accepted.iter().copied().filter(|mv| score(mv) == best).collect();
        top[self.rng.usize(..top.len())]
    }
}

impl crate::console::InputSource<Prompt<'_>> for Policy {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        self.choose(prompt).map(|mv| mv.to_string())
    }
}

/// The moves every correct program accepts: valid with the remaining dice of every alternative.
fn accepted_moves(board: &Board, mover: Colour, alternatives: &[Vec<u8>]) -> Vec<Move> {
    let sets: Vec<Vec<Move>> = alternatives.iter().map(|dice| valid_moves_with(board, mover, dice)).collect();
    match sets.split_first() {
        Some((first, rest)) => {
            first.iter().copied().filter(|mv| rest.iter().all(|s| s.contains(mv))).collect()
        }
        None => Vec::new(),
    }
}

/// The remaining dice of each correct program after the first move `mv` of a turn with `dice`: one
/// list per die the move is valid with (two when it is valid with both and they differ).
fn after_first(board: &Board, mover: Colour, dice: &[u8], mv: Move) -> Vec<Vec<u8>> {
    let mut used: Vec<u8> = dice.iter().copied().filter(|&d| board.check(mover, mv, d).is_ok()).collect();
    used.dedup();
    used.iter()
        .map(|&d| {
            let mut rest = dice.to_vec();
            let i = rest.iter().position(|&r| r == d).expect("a die of the turn");
            rest.remove(i);
            rest
        })
        .collect()
}

/// Candidate invalid moves grouped by kind of mistake, in the order of [`InvalidKind::ALL`] (each
/// still to be checked against the rules): wrong distance, wrong direction, numbers off the board,
/// from a point without the mover's checkers, onto two or more opposing checkers, a basic move while
/// on the bar, an entry at the wrong point, bearing off too early, and `0 N` with nothing on the bar.
fn invalid_candidates(board: &Board, mover: Colour, alternatives: &[Vec<u8>]) -> Vec<Vec<Move>> {
    let mut dice: Vec<i32> = alternatives.iter().flatten().map(|&d| i32::from(d)).collect();
    dice.sort_unstable();
    dice.dedup();
    let own: Vec<i32> = (1..=BOARD_SIZE).filter(|&p| board.count(mover, p) > 0).collect();
    let opponent = mover.opponent();
    let on_board = |p: i32| (1..=BOARD_SIZE).contains(&p);
    let on_bar = board.bar(mover) > 0;
    let steps = |from: i32, distances: &[i32]| -> Vec<Move> {
        distances
            .iter()
            .map(|&d| Move::new(from, mover.advance(from, d)))
            .filter(|mv| on_board(mv.to))
            .collect()
    };
    let other_distances: Vec<i32> = (1..=6).filter(|d| !dice.contains(d)).collect();
    let backwards: Vec<i32> = dice.iter().map(|d| -d).collect();

    let wrong_distance = own.iter().flat_map(|&p| steps(p, &other_distances)).collect();
    let wrong_direction = own.iter().flat_map(|&p| steps(p, &backwards)).collect();
    let mut off_board: Vec<Move> = Vec::new();
    for &d in &dice {
        // A start beyond the far end, as if the bar were a point (25 for white, -1 for red).
        let beyond = match mover {
            Colour::White => 25,
            Colour::Red => -1,
        };
        off_board.push(Move::new(beyond, mover.advance(beyond, d)));
        // Past the near end without bearing off: white to -2, red to 27 and so on.
        for &p in &own {
            let to = mover.advance(p, d);
            if !on_board(to) && to != 0 {
                off_board.push(Move::new(p, to));
            }
        }
    }
    let empty_from =
        (1..=BOARD_SIZE).filter(|&p| board.count(mover, p) == 0).flat_map(|p| steps(p, &dice)).collect();
    let mut blocked: Vec<Move> = own.iter().flat_map(|&p| steps(p, &dice)).collect();
    blocked.extend(dice.iter().map(|&d| Move::new(0, mover.entry_point(d as u8))));
    blocked.retain(|mv| board.count(opponent, mv.to) >= 2);
    let basic_on_bar = if on_bar { own.iter().flat_map(|&p| steps(p, &dice)).collect() } else { Vec::new() };
    let wrong_entry = if on_bar {
        other_distances.iter().map(|&d| Move::new(0, mover.entry_point(d as u8))).collect()
    } else {
        Vec::new()
    };
    let early_bear_off = if board.all_home(mover) {
        Vec::new()
    } else {
        let max = dice.last().copied().unwrap_or(6);
        let home: Vec<Move> = own
            .iter()
            .filter(|&&p| mover.is_home(p) && mover.distance_off(p) <= max)
            .map(|&p| Move::new(p, 0))
            .collect();
        if home.is_empty() {
            own.iter().map(|&p| Move::new(p, 0)).collect()
        } else {
            home
        }
    };
    let nothing_on_bar = if on_bar {
        Vec::new()
    } else {
        dice.iter().map(|&d| Move::new(0, mover.entry_point(d as u8))).collect()
    };
    vec![
        wrong_distance,
        wrong_direction,
        off_board,
        empty_from,
        blocked,
        basic_on_bar,
        wrong_entry,
        early_bear_off,
        nothing_on_bar,
    ]
}
