//! Expansion of a checkers case's `[scenario]` table into the stdin fed to a program and the stdout
//! a correct program prints.
//!
//! Transcript cases either list every move typed (`inputs`) or give a `policy` that plays the game.
//! The program never ends by itself ("continues forever"): every transcript ends at a prompt, where
//! input runs out.
//!
//! Policies keep each case inside its category. Versions of this project from other terms force
//! jumps, or continue a jump while the same piece can jump again; so the policies never step while a
//! jump is available and never play a jump after which the piece could jump again, except in the
//! one move a `finish` asks for, which then ends the game. `style = "quiet"` goes further: no jump is
//! ever available to anybody (games of steps, of kings, of invalid attempts), so that a defect of
//! jumps costs only in the cases about jumps; `crown = false` keeps men off the far row, so that a
//! defect of kings costs only in the cases about kings.

use std::collections::VecDeque;

use serde::Deserialize;

use super::console::{self, parse_move, Ending, Options, Prompt};
use super::rules::{Board, Colour, Illegal, Kind, Move, Square};
use crate::scenario::{error, parse};
use crate::{Expansion, ScenarioError};

/// The most valid moves a generated game may play (transcripts must stay readable).
pub const MOVE_LIMIT: u64 = 400;

/// `[scenario]` of a transcript case: exactly one of `inputs` or `policy`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct TranscriptScenario {
    /// Every move typed, in order (four numbers each).
    inputs: Option<Vec<String>>,
    /// How moves are chosen.
    policy: Option<PolicyConfig>,
    /// What the game must have shown, checked after expansion.
    expect: Option<Expect>,
}

/// `policy = { seed = 7, moves = 30, style = "quiet", crown = false, invalid-every = 3 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PolicyConfig {
    /// Seed of the `fastrand` generator choosing among the moves.
    seed: u64,
    /// Valid moves to play; input then ends at the next prompt.
    moves: u64,
    /// Which valid moves are played.
    style: Style,
    /// Men may reach the far row and be crowned.
    #[serde(default = "yes")]
    crown: bool,
    /// Prefer moves that land on a square whose piece was captured (shows a piece left behind).
    #[serde(default)]
    revisit: bool,
    /// Prefer moves of kings, backwards when they can.
    #[serde(default)]
    kings_first: bool,
    /// Open with a quiet path, found by a seeded search, on which a man of each colour is crowned.
    #[serde(default)]
    crown_both_first: bool,
    /// At every Nth prompt, type an invalid move first.
    invalid_every: Option<u64>,
    /// The kinds of invalid move typed (every kind when absent).
    invalid: Option<Vec<String>>,
    /// The one move that ends the game, as soon as it is possible.
    finish: Option<Finish>,
}

fn yes() -> bool {
    true
}

/// Which valid moves a policy plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Style {
    /// Steps after which the opponent has no jump: nobody ever has one.
    Quiet,
    /// A jump whenever there is one (never one after which the piece could jump again), else a step.
    Captures,
}

/// The move that ends a game on purpose, each the situation where another version of the rules
/// differs or the rule a case is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Finish {
    /// A step while a jump is available (valid here: no forced jumps).
    StepWhileJumpAvailable,
    /// A jump after which the same piece could jump again (the turn ends here: no multiple jumps).
    JumpThatCouldContinue,
    /// A king jumping backwards.
    KingJumpsBackwards,
}

/// `expect = { crowned = ["red", "white"], king-moves-backwards = true, captures = 2 }`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Expect {
    /// Colours with a man crowned during the game.
    #[serde(default)]
    crowned: Vec<String>,
    /// A king stepped or jumped backwards.
    #[serde(default)]
    king_moves_backwards: bool,
    /// At least this many captures.
    #[serde(default)]
    captures: u64,
    /// At least this many invalid moves typed.
    #[serde(default)]
    invalid: u64,
}

/// A kind of invalid move a policy types, each breaking one condition of the handout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidKind {
    /// A step off the edge of the board (condition 1).
    OffBoard,
    /// From an empty square (condition 2).
    EmptyOrigin,
    /// A piece of the opponent (condition 2).
    OpponentsPiece,
    /// Onto an occupied square (condition 2).
    Occupied,
    /// A man stepping backwards (condition 3).
    Backwards,
    /// Three squares along a diagonal, or straight ahead (conditions 3 and 4).
    TooFar,
    /// Two squares over an empty square (condition 4).
    JumpOverNothing,
    /// Two squares over the mover's own piece (condition 4).
    JumpOverOwn,
    /// Off the board by more than a step over the edge (condition 1): a step of the mover typed
    /// 8 columns further right and a row up (the squares a program indexing `board[y][x]` without
    /// bounds reads there are those of the step itself), or onto column or row 1000000.
    FarOffBoard,
    /// One or two squares away but not along a diagonal (condition 3): a knight's move, or one
    /// square sideways.
    NotDiagonal,
    /// Beside an opponent's piece, two and three squares away, not along a diagonal (condition 4):
    /// it looks like a jump but does not land on the diagonal.
    CrookedJump,
    /// A man jumping backwards over an opponent's piece (condition 4).
    BackwardsJump,
}

impl InvalidKind {
    /// Every kind, in the order names are listed.
    pub const ALL: [InvalidKind; 12] = [
        InvalidKind::OffBoard,
        InvalidKind::EmptyOrigin,
        InvalidKind::OpponentsPiece,
        InvalidKind::Occupied,
        InvalidKind::Backwards,
        InvalidKind::TooFar,
        InvalidKind::JumpOverNothing,
        InvalidKind::JumpOverOwn,
        InvalidKind::FarOffBoard,
        InvalidKind::NotDiagonal,
        InvalidKind::CrookedJump,
        InvalidKind::BackwardsJump,
    ];

    /// The kinds typed when a policy names none: the first eight (the kinds added after them are
    /// typed only where named, so that the cases written before them stay as they were).
    pub const MIXED: [InvalidKind; 8] = [
        InvalidKind::OffBoard,
        InvalidKind::EmptyOrigin,
        InvalidKind::OpponentsPiece,
        InvalidKind::Occupied,
        InvalidKind::Backwards,
        InvalidKind::TooFar,
        InvalidKind::JumpOverNothing,
        InvalidKind::JumpOverOwn,
    ];

    /// The name used in `invalid = [...]`.
    pub fn name(self) -> &'static str {
        match self {
            InvalidKind::OffBoard => "off-board",
            InvalidKind::EmptyOrigin => "empty-origin",
            InvalidKind::OpponentsPiece => "opponents-piece",
            InvalidKind::Occupied => "occupied",
            InvalidKind::Backwards => "backwards",
            InvalidKind::TooFar => "too-far",
            InvalidKind::JumpOverNothing => "jump-over-nothing",
            InvalidKind::JumpOverOwn => "jump-over-own",
            InvalidKind::FarOffBoard => "far-off-board",
            InvalidKind::NotDiagonal => "not-diagonal",
            InvalidKind::CrookedJump => "crooked-jump",
            InvalidKind::BackwardsJump => "backwards-jump",
        }
    }

    /// The kind of this name.
    pub fn from_name(name: &str) -> Option<InvalidKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The condition a move of this kind breaks, as the rules classify it.
    fn illegal(self) -> Illegal {
        match self {
            InvalidKind::OffBoard | InvalidKind::FarOffBoard => Illegal::OffBoard,
            InvalidKind::EmptyOrigin | InvalidKind::OpponentsPiece => Illegal::NotYourPiece,
            InvalidKind::Occupied => Illegal::Occupied,
            InvalidKind::Backwards | InvalidKind::BackwardsJump => Illegal::Backwards,
            InvalidKind::TooFar | InvalidKind::NotDiagonal | InvalidKind::CrookedJump => {
                Illegal::NotADiagonalStepOrJump
            }
            InvalidKind::JumpOverNothing => Illegal::JumpOverNothing,
            InvalidKind::JumpOverOwn => Illegal::JumpOverOwn,
        }
    }

    /// Moves of this kind for `mover` on `board`, each invalid for this kind's reason only.
    pub fn candidates(self, board: &Board, mover: Colour) -> Vec<Move> {
        let f = mover.forward();
        let opponent = mover.opponent();
        let opponent_on = |x: i32, y: i32| board.get(Square::new(x, y)).is_some_and(|p| p.colour == opponent);
        let mut moves = Vec::new();
        for (from, piece) in board.pieces(mover) {
            let (x, y) = (from.x, from.y);
            // The rows a piece may move toward (a king both ways), and the row behind a man.
            let ahead = if piece.king { vec![f, -f] } else { vec![f] };
            let back = if piece.king { Vec::new() } else { vec![-f] };
            let to = |tx: i32, ty: i32| Move { from, to: Square::new(tx, ty) };
            let mut attempts = Vec::new();
            match self {
                InvalidKind::OffBoard | InvalidKind::Occupied => {
                    attempts = vec![to(x - 1, y + f), to(x + 1, y + f)]
                }
                InvalidKind::Backwards => {
                    for b in &back {
                        attempts.extend([to(x - 1, y + b), to(x + 1, y + b)]);
                    }
                }
                InvalidKind::TooFar => {
                    attempts = vec![to(x, y + f), to(x - 3, y + 3 * f), to(x + 3, y + 3 * f)]
                }
                InvalidKind::JumpOverNothing | InvalidKind::JumpOverOwn => {
                    attempts = vec![to(x - 2, y + 2 * f), to(x + 2, y + 2 * f)];
                }
                InvalidKind::FarOffBoard => {
                    let shifted = |s: Square| Square::new(s.x + 8, s.y - 1);
                    for step in board.legal_moves(mover).into_iter().filter(|mv| mv.from == from) {
                        if (step.to.x - x).abs() != 1 {
                            continue;
                        }
                        if y >= 1 && step.to.y >= 1 {
                            attempts.push(Move { from: shifted(from), to: shifted(step.to) });
                        }
                        attempts.extend([to(FAR, step.to.y), to(step.to.x, FAR)]);
                    }
                }
                InvalidKind::NotDiagonal => {
                    for d in &ahead {
                        attempts.extend([
                            to(x - 2, y + d),
                            to(x + 2, y + d),
                            to(x - 1, y + 2 * d),
                            to(x + 1, y + 2 * d),
                        ]);
                    }
                    attempts.extend([to(x - 1, y), to(x + 1, y)]);
                }
                InvalidKind::CrookedJump => {
                    for d in &ahead {
                        for sx in [-1, 1] {
                            if opponent_on(x + sx, y + d) {
                                attempts.extend([to(x + 3 * sx, y + 2 * d), to(x + 2 * sx, y + 3 * d)]);
                            }
                        }
                    }
                }
                InvalidKind::BackwardsJump => {
                    for b in &back {
                        for sx in [-1, 1] {
                            if opponent_on(x + sx, y + b) {
                                attempts.push(to(x + 2 * sx, y + 2 * b));
                            }
                        }
                    }
                }
                InvalidKind::EmptyOrigin | InvalidKind::OpponentsPiece => {}
            }
            moves.extend(attempts);
        }
        if matches!(self, InvalidKind::EmptyOrigin | InvalidKind::OpponentsPiece) {
            let opponent = mover.opponent();
            for from in Square::all().filter(|s| s.is_dark()) {
                let wanted = match self {
                    InvalidKind::EmptyOrigin => board.get(from).is_none(),
                    _ => board.get(from).is_some_and(|p| p.colour == opponent),
                };
                if wanted {
                    // Toward the mover's forward direction, onto an empty square of the board.
                    for dx in [-1, 1] {
                        moves.push(Move { from, to: Square::new(from.x + dx, from.y + f) });
                    }
                }
            }
        }
        moves.retain(|mv| {
            let target_ok = match self {
                InvalidKind::OffBoard | InvalidKind::FarOffBoard => !mv.to.on_board(),
                InvalidKind::Occupied => mv.to.on_board(),
                _ => mv.to.on_board() && board.get(mv.to).is_none(),
            };
            target_ok && board.check(mover, *mv) == Err(self.illegal())
        });
        moves
    }
}

/// The column or row `far-off-board` types: far enough that a program reading `board[y][x]` there
/// without bounds reads outside its memory.
const FAR: i32 = 1_000_000;

/// Expands a transcript case: the whole program's stdin and stdout.
pub fn expand_transcript(scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
    let s: TranscriptScenario = parse(scenario)?;
    let (expansion, stats) = match (s.inputs, s.policy) {
        (Some(inputs), None) => explicit(inputs)?,
        (None, Some(policy)) => with_policy(&policy)?,
        (Some(_), Some(_)) => return error("scenario: give either `inputs` or `policy`, not both"),
        (None, None) => return error("scenario: a transcript needs `inputs = [...]` or `policy = { ... }`"),
    };
    if let Some(expect) = s.expect {
        check_expectations(&expect, &stats)?;
    }
    Ok(expansion)
}

/// What happened in a game, for `expect`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Colours that had a man crowned.
    pub crowned: Vec<Colour>,
    /// A king moved backwards.
    pub king_moved_backwards: bool,
    /// Pieces captured.
    pub captures: u64,
    /// Invalid moves typed.
    pub invalid: u64,
}

impl Stats {
    /// Replays the typed moves on the board and counts what happened.
    fn of(consumed: &[String]) -> Stats {
        let mut stats = Stats::default();
        let mut board = Board::start();
        let mut mover = Colour::Red;
        for line in consumed {
            let Some(mv) = parse_move(line) else { break };
            let was_king = board.get(mv.from).is_some_and(|p| p.king);
            match board.play(mover, mv) {
                Ok(played) => {
                    if played.crowned && !stats.crowned.contains(&mover) {
                        stats.crowned.push(mover);
                    }
                    stats.king_moved_backwards |= was_king && mv.is_backwards_for(mover);
                    stats.captures += u64::from(played.kind == Kind::Jump);
                    mover = mover.opponent();
                }
                Err(_) => stats.invalid += 1,
            }
        }
        stats
    }
}

fn check_expectations(expect: &Expect, stats: &Stats) -> Result<(), ScenarioError> {
    let mut missing = Vec::new();
    for name in &expect.crowned {
        let colour = match name.as_str() {
            "red" => Colour::Red,
            "white" => Colour::White,
            _ => return error(format!("expect: crowned `{name}` is not red or white")),
        };
        if !stats.crowned.contains(&colour) {
            missing.push(format!("no {name} man was crowned"));
        }
    }
    if expect.king_moves_backwards && !stats.king_moved_backwards {
        missing.push("no king moved backwards".to_owned());
    }
    if stats.captures < expect.captures {
        missing.push(format!("{} capture(s), not {}", stats.captures, expect.captures));
    }
    if stats.invalid < expect.invalid {
        missing.push(format!("{} invalid move(s), not {}", stats.invalid, expect.invalid));
    }
    if missing.is_empty() {
        Ok(())
    } else {
        error(format!("expect: {} (try another policy seed or more moves)", missing.join("; ")))
    }
}

/// Runs the console on a source and returns its stdout and session.
fn play(source: &mut dyn console::InputSource) -> Result<(Vec<u8>, console::Session), ScenarioError> {
    let mut out = Vec::new();
    let options = Options { turn_limit: Some(MOVE_LIMIT), ..Options::default() };
    let session = console::run(source, &mut out, options)
        .map_err(|e| ScenarioError::new(format!("writing the transcript: {e}")))?;
    Ok((out, session))
}

/// The explicit form: every move typed, in order; input then ends.
fn explicit(inputs: Vec<String>) -> Result<(Expansion, Stats), ScenarioError> {
    if let Some((i, line)) = inputs.iter().enumerate().find(|(_, l)| parse_move(l).is_none()) {
        return error(format!("input {} (`{line}`) is not four ints", i + 1));
    }
    let (stdout, session) = play(&mut console::Script::new(inputs))?;
    match session.ending {
        Ending::InputEnded { .. } => {}
        Ending::TurnLimit { turns } => return error(format!("more than {turns} valid moves")),
        Ending::NotAMove { text, .. } => return error(format!("`{text}` is not four ints")),
    }
    let stats = Stats::of(&session.consumed);
    Ok((Expansion::typed(&session.consumed, stdout), stats))
}

fn with_policy(config: &PolicyConfig) -> Result<(Expansion, Stats), ScenarioError> {
    if config.moves > MOVE_LIMIT {
        return error(format!("scenario: moves = {} is more than {MOVE_LIMIT}", config.moves));
    }
    if config.invalid_every == Some(0) {
        return error("scenario: invalid-every must be at least 1");
    }
    let kinds = match &config.invalid {
        None => InvalidKind::MIXED.to_vec(),
        Some(names) => names
            .iter()
            .map(|n| {
                InvalidKind::from_name(n).ok_or_else(|| {
                    let all: Vec<&str> = InvalidKind::ALL.iter().map(|k| k.name()).collect();
                    ScenarioError::new(format!(
                        "scenario: invalid kind `{n}` is not one of {}",
                        all.join(", ")
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    if config.style == Style::Quiet
        && matches!(config.finish, Some(Finish::StepWhileJumpAvailable | Finish::JumpThatCouldContinue))
    {
        return error("scenario: a quiet game never has a jump available; use style = \"captures\"");
    }
    let mut rng = fastrand::Rng::with_seed(config.seed);
    let plan = if config.crown_both_first {
        if config.style != Style::Quiet || !config.crown {
            return error("scenario: crown-both-first goes with style = \"quiet\" and crown = true");
        }
        quiet_path_crowning_both(&mut rng).ok_or_else(|| {
            ScenarioError::new(format!(
                "scenario: no quiet path crowning both colours found within {SEARCH_BUDGET} positions \
                 from policy seed {} (try another seed)",
                config.seed
            ))
        })?
    } else {
        VecDeque::new()
    };
    let mut policy = Policy {
        rng,
        config: config.clone(),
        kinds,
        prompts: 0,
        finished: false,
        captured: VecDeque::new(),
        plan,
    };
    let (stdout, session) = play(&mut policy)?;
    if let Some(finish) = config.finish {
        if !policy.finished {
            return error(format!(
                "scenario: the game never reached its finish ({finish:?}) within {} moves",
                config.moves
            ));
        }
    }
    let stats = Stats::of(&session.consumed);
    Ok((Expansion::typed(&session.consumed, stdout), stats))
}

/// Plays moves chosen by a seeded generator within the policy's style; `None` ends the input.
struct Policy {
    rng: fastrand::Rng,
    config: PolicyConfig,
    kinds: Vec<InvalidKind>,
    /// Prompts answered with a valid move so far (invalid attempts come before some of them).
    prompts: u64,
    /// The finishing move was played: input ends.
    finished: bool,
    /// Squares whose piece was captured recently (for `revisit`).
    captured: VecDeque<Square>,
    /// Moves to play first (`crown-both-first`).
    plan: VecDeque<Move>,
}

impl Policy {
    fn choose(&mut self, prompt: &Prompt<'_>) -> Option<Move> {
        let (board, mover) = (prompt.board, prompt.mover);
        if self.finished || prompt.turn > self.config.moves {
            return None;
        }
        if !prompt.retry {
            if let Some(n) = self.config.invalid_every {
                if (self.prompts + 1) % n == 0 {
                    self.prompts += 1;
                    if let Some(mv) = self.invalid(board, mover) {
                        return Some(mv);
                    }
                    self.prompts -= 1;
                }
            }
        }
        self.prompts += 1;
        if let Some(mv) = self.plan.pop_front() {
            return Some(mv);
        }
        if let Some(mv) = self.finishing_move(board, mover) {
            self.finished = true;
            return Some(mv);
        }
        let candidates = self.valid_candidates(board, mover);
        if candidates.is_empty() {
            return None;
        }
        let preferred = self.preferred(board, mover, &candidates);
        let pool = if preferred.is_empty() { &candidates } else { &preferred };
        let mv = pool[self.rng.usize(..pool.len())];
        if board.check(mover, mv) == Ok(Kind::Jump) {
            self.captured.push_back(mv.middle());
            if self.captured.len() > 3 {
                self.captured.pop_front();
            }
        }
        Some(mv)
    }

    /// An invalid move of one of the policy's kinds, if the board has one.
    fn invalid(&mut self, board: &Board, mover: Colour) -> Option<Move> {
        let mut kinds = self.kinds.clone();
        self.rng.shuffle(&mut kinds);
        kinds.into_iter().find_map(|kind| {
            let moves = kind.candidates(board, mover);
            (!moves.is_empty()).then(|| moves[self.rng.usize(..moves.len())])
        })
    }

    /// The finish's move, when the board offers it now.
    fn finishing_move(&mut self, board: &Board, mover: Colour) -> Option<Move> {
        let moves = board.legal_moves(mover);
        let jumps: Vec<Move> = moves.iter().copied().filter(|mv| is_jump(board, mover, *mv)).collect();
        let found: Vec<Move> = match self.config.finish? {
            Finish::StepWhileJumpAvailable if !jumps.is_empty() => {
                moves.iter().copied().filter(|mv| !is_jump(board, mover, *mv)).collect()
            }
            Finish::StepWhileJumpAvailable => Vec::new(),
            Finish::JumpThatCouldContinue => {
                jumps.into_iter().filter(|mv| could_continue(board, mover, *mv)).collect()
            }
            Finish::KingJumpsBackwards => jumps
                .into_iter()
                .filter(|mv| {
                    board.get(mv.from).is_some_and(|p| p.king)
                        && mv.is_backwards_for(mover)
                        && !could_continue(board, mover, *mv)
                })
                .collect(),
        };
        (!found.is_empty()).then(|| found[self.rng.usize(..found.len())])
    }

    /// The valid moves the style allows.
    fn valid_candidates(&self, board: &Board, mover: Colour) -> Vec<Move> {
        let moves: Vec<Move> = board
            .legal_moves(mover)
            .into_iter()
            .filter(|mv| self.config.crown || !crowns(board, mover, *mv))
            .collect();
        let jumps: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|mv| is_jump(board, mover, *mv) && !could_continue(board, mover, *mv))
            .collect();
        match self.config.style {
            Style::Captures if board.jumps(mover).is_empty() => moves,
            // A jump is available: play one, or stop (a step would force a version's hand).
            Style::Captures => jumps,
            Style::Quiet => moves
                .into_iter()
                .filter(|mv| !is_jump(board, mover, *mv) && self.quiet_after(board, mover, *mv))
                .collect(),
        }
    }

    /// After `mv`, the opponent has no jump, or (finishing with a king's backward jump) only those.
    fn quiet_after(&self, board: &Board, mover: Colour, mv: Move) -> bool {
        let mut after = board.clone();
        if after.play(mover, mv).is_err() {
            return false;
        }
        let opponent = mover.opponent();
        after.jumps(opponent).iter().all(|jump| {
            self.config.finish == Some(Finish::KingJumpsBackwards)
                && after.get(jump.from).is_some_and(|p| p.king)
                && jump.is_backwards_for(opponent)
        }) && after.jumps(mover).is_empty()
    }

    /// The candidates the policy's preferences pick out (none: no preference applies).
    fn preferred(&self, board: &Board, mover: Colour, candidates: &[Move]) -> Vec<Move> {
        if self.config.revisit {
            let revisits: Vec<Move> =
                candidates.iter().copied().filter(|mv| self.captured.contains(&mv.to)).collect();
            if !revisits.is_empty() {
                return revisits;
            }
        }
        if self.config.kings_first {
            let kings: Vec<Move> =
                candidates.iter().copied().filter(|mv| board.get(mv.from).is_some_and(|p| p.king)).collect();
            let backwards: Vec<Move> =
                kings.iter().copied().filter(|mv| mv.is_backwards_for(mover)).collect();
            if !backwards.is_empty() {
                return backwards;
            }
            if !kings.is_empty() {
                return kings;
            }
            // Otherwise the most advanced men, so that crowning comes soon.
            let advance = |mv: &Move| if mover == Colour::Red { mv.to.y } else { 7 - mv.to.y };
            let best = candidates.iter().map(advance).max().unwrap_or(0);
            return candidates.iter().copied().filter(|mv| advance(mv) == best).collect();
        }
        Vec::new()
    }
}

impl crate::console::InputSource<Prompt<'_>> for Policy {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        self.choose(prompt).map(|mv| mv.to_string())
    }
}

fn is_jump(board: &Board, mover: Colour, mv: Move) -> bool {
    board.check(mover, mv) == Ok(Kind::Jump)
}

/// The move crowns a man.
fn crowns(board: &Board, mover: Colour, mv: Move) -> bool {
    board.get(mv.from).is_some_and(|p| !p.king) && mv.to.y == mover.far_row()
}

/// After the jump `mv`, the same piece could jump again.
fn could_continue(board: &Board, mover: Colour, mv: Move) -> bool {
    let mut after = board.clone();
    after.play(mover, mv).is_ok() && after.can_jump_from(mover, mv.to)
}

/// Positions the search for a quiet crowning path may visit.
pub const SEARCH_BUDGET: u64 = 200_000;
/// The longest quiet crowning path searched for, in moves.
const SEARCH_DEPTH: usize = 80;

/// A path of steps from the start, red first, after each of which nobody has a jump, on which a man
/// of each colour is crowned: a depth-first search trying the most advancing steps first (ties in the
/// seeded generator's order).
fn quiet_path_crowning_both(rng: &mut fastrand::Rng) -> Option<VecDeque<Move>> {
    struct Search<'a> {
        rng: &'a mut fastrand::Rng,
        budget: u64,
        path: Vec<Move>,
    }
    impl Search<'_> {
        fn visit(&mut self, board: &Board, mover: Colour, crowned: [bool; 2]) -> bool {
            if crowned == [true, true] {
                return true;
            }
            if self.budget == 0 || self.path.len() >= SEARCH_DEPTH {
                return false;
            }
            self.budget -= 1;
            let mut steps: Vec<Move> =
                board.legal_moves(mover).into_iter().filter(|mv| !is_jump(board, mover, *mv)).collect();
            self.rng.shuffle(&mut steps);
            let advance = |mv: &Move| {
                let man = board.get(mv.from).is_some_and(|p| !p.king);
                if man {
                    (mv.to.y - mv.from.y) * mover.forward() * (mv.to.y * mover.forward())
                } else {
                    i32::MIN
                }
            };
            steps.sort_by_key(|mv| std::cmp::Reverse(advance(mv)));
            for mv in steps {
                let mut after = board.clone();
                let Ok(played) = after.play(mover, mv) else { continue };
                if !(after.jumps(Colour::Red).is_empty() && after.jumps(Colour::White).is_empty()) {
                    continue;
                }
                let mut now = crowned;
                now[usize::from(mover == Colour::White)] |= played.crowned;
                self.path.push(mv);
                if self.visit(&after, mover.opponent(), now) {
                    return true;
                }
                self.path.pop();
            }
            false
        }
    }
    let mut search = Search { rng, budget: SEARCH_BUDGET, path: Vec::new() };
    search.visit(&Board::start(), Colour::Red, [false, false]).then(|| search.path.into())
}
