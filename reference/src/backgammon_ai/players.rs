//! Players of full backgammon: a seeded random player and a one-ply evaluator, with the small
//! generator that rolls their dice and a loop that plays a whole game between two of them.
//!
//! The generator is our own (SplitMix64), so that seeded games stay the same whatever versions of
//! outside crates are built: the grader's strength cases depend on them.

use super::rules::{
    check_play, format_play, game_result, legal_plays, CheckerMove, Colour, GameResult, IllegalPlay, Position,
};

/// SplitMix64: a tiny, fast, well-mixed generator of 64-bit values from a 64-bit seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed` (every seed, 0 included, gives a good sequence).
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform value in `0..n`, without modulo bias (values below `2^64 mod n` are drawn again).
    ///
    /// # Panics
    ///
    /// When `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0) has no value");
        let rejected = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            if x >= rejected {
                return x % n;
            }
        }
    }

    /// One die: 1..=6.
    pub fn die(&mut self) -> u8 {
        self.below(6) as u8 + 1
    }

    /// Two dice, in the order rolled.
    pub fn roll(&mut self) -> (u8, u8) {
        (self.die(), self.die())
    }
}

/// The opening (appendix A.3): each player rolls one die, again while they tie; the higher plays
/// first with both values. Returns the first player and the dice as (black's die, white's die).
pub fn opening_roll(rng: &mut Rng) -> (Colour, (u8, u8)) {
    loop {
        let (black, white) = rng.roll();
        if black != white {
            let first = if black > white { Colour::Black } else { Colour::White };
            return (first, (black, white));
        }
    }
}

/// Something that chooses a play for a roll.
pub trait Player {
    /// The checker moves `colour` plays with `dice` in `position` (empty when nothing can move).
    fn choose(&mut self, position: &Position, colour: Colour, dice: (u8, u8)) -> Vec<CheckerMove>;
}

/// Chooses uniformly among the distinct legal plays (distinct resulting positions), with its own
/// seeded generator.
#[derive(Debug, Clone)]
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// A random player whose choices follow from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { rng: Rng::new(seed) }
    }
}

impl Player for RandomPlayer {
    fn choose(&mut self, position: &Position, colour: Colour, dice: (u8, u8)) -> Vec<CheckerMove> {
        let mut plays = legal_plays(position, colour, dice);
        let pick = self.rng.below(plays.len() as u64) as usize;
        plays.swap_remove(pick).moves
    }
}

/// Plays the legal play whose resulting position [`evaluate`]s best for it; among equals, the first
/// in [`legal_plays`]' order. Deterministic.
#[derive(Debug, Clone, Copy, Default)]
pub struct OnePlyPlayer;

impl OnePlyPlayer {
    /// The one-ply player.
    pub fn new() -> Self {
        Self
    }
}

impl Player for OnePlyPlayer {
    fn choose(&mut self, position: &Position, colour: Colour, dice: (u8, u8)) -> Vec<CheckerMove> {
        let mut best: Option<(f64, Vec<CheckerMove>)> = None;
        for play in legal_plays(position, colour, dice) {
            let score = evaluate(&play.result, colour);
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, play.moves));
            }
        }
        best.map(|(_, moves)| moves).unwrap_or_default()
    }
}

/// One colour's checkers in its own numbering: index 0 off, 1..=24 its own points (it moves toward
/// 1), 25 the bar.
struct Side([u8; 26]);

impl Side {
    fn of(position: &Position, colour: Colour) -> Side {
        let mut counts = [0u8; 26];
        for (own, count) in counts.iter_mut().enumerate() {
            *count = position.mine(colour, own as u8);
        }
        Side(counts)
    }

    fn pips(&self) -> f64 {
        self.0.iter().enumerate().map(|(own, &n)| (own * usize::from(n)) as f64).sum()
    }

    /// The own point of the checker furthest back (25 on the bar, 0 when all are off).
    fn back(&self) -> usize {
        (1..=25).rev().find(|&own| self.0[own] > 0).unwrap_or(0)
    }

    fn made(&self, own: usize) -> bool {
        self.0[own] >= 2
    }

    fn home_points(&self) -> usize {
        (1..=6).filter(|&own| self.made(own)).count()
    }
}

/// What a made point is worth by its own number: the 4, 5, 6 and bar points most, then the rest of
/// the home board and the outfield; in the opponent's home board, anchors on its 4 and 5 points.
const POINT_VALUE: [f64; 25] = [
    0.0, // off
    0.5, 1.0, 2.0, 3.5, 4.5, 4.0, // home board
    3.5, 2.5, 1.5, 1.0, 0.5, 0.3, // outer board
    0.3, 0.3, 0.3, 0.3, 0.3, 0.5, // the opponent's outer board
    1.0, 3.0, 3.5, 2.0, 1.5, 1.0, // anchors in the opponent's home board
];

/// How good `position` is for `colour` just after it played, the opponent to roll, in rough units
/// of pips: large and positive when `colour` has won.
///
/// While the checkers are in contact: the pip lead, made points (the 4-7 points most), primes,
/// anchors, opposing checkers on the bar (worth more against a strong home board), stacks, and the
/// expected pips lost to hits on blots, counting for each of the 36 rolls whether some hitter reaches
/// a blot directly or with both dice over open points. In a race: pips, checkers still on the board
/// and badly stacked or gapped home boards.
pub fn evaluate(position: &Position, colour: Colour) -> f64 {
    if let Some(result) = game_result(position) {
        let value = 1000.0 * f64::from(result.kind.multiplier());
        return if result.winner == colour { value } else { -value };
    }
    let me = Side::of(position, colour);
    let them = Side::of(position, colour.opponent());
    let lead = them.pips() - me.pips();
    if me.back() + them.back() <= 25 {
        return lead - race_waste(&me) + race_waste(&them);
    }
    let mut score = lead;
    score += structure(&me) - structure(&them);
    score += f64::from(them.0[25]) * (3.0 + 1.5 * me.home_points() as f64);
    score -= f64::from(me.0[25]) * (3.0 + 1.5 * them.home_points() as f64);
    score -= blot_risk(&me, &them);
    score
}

/// In a race: pips lost in the bear-off to checkers still on the board, stacks and gaps.
fn race_waste(side: &Side) -> f64 {
    let on_board: u32 = (1..=24).map(|own| u32::from(side.0[own])).sum();
    let stacks: u32 = (1..=24).map(|own| u32::from(side.0[own].saturating_sub(3))).sum();
    let gaps = (1..=6).filter(|&own| side.0[own] == 0 && side.back() > own).count();
    2.0 * f64::from(on_board) + 0.5 * f64::from(stacks) + 0.5 * gaps as f64
}

/// Made points, the longest run of them, and stacks.
fn structure(side: &Side) -> f64 {
    let mut score = 0.0;
    let (mut run, mut longest) = (0, 0);
    for (own, value) in POINT_VALUE.iter().enumerate().skip(1) {
        if side.made(own) {
            score += value;
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
        score -= 0.4 * f64::from(side.0[own].saturating_sub(3));
    }
    score + 0.6 * f64::from(longest * longest)
}

/// The expected pips `me` loses to `them` hitting one of its blots on their next roll: for each roll,
/// the worst blot it hits, weighted by the roll's chance; a hit blot loses the pips it travelled plus
/// a tempo, more against a strong home board.
fn blot_risk(me: &Side, them: &Side) -> f64 {
    let blots: Vec<usize> = (1..=24).filter(|&own| me.0[own] == 1).collect();
    if blots.is_empty() {
        return 0.0;
    }
    let hitters: Vec<usize> = (1..=25).filter(|&own| them.0[own] > 0).collect();
    // Their own point `x` is our own point `25 - x`; they cannot land where we have made a point.
    let open = |x: usize| !me.made(25 - x);
    let severity = 1.0 + 0.15 * them.home_points() as f64;
    let mut total = 0.0;
    for a in 1..=6usize {
        for b in a..=6usize {
            let weight = if a == b { 1.0 } else { 2.0 };
            let mut worst: f64 = 0.0;
            for &blot in &blots {
                let target = 25 - blot;
                let hit = hitters.iter().any(|&from| {
                    if them.0[25] >= 2 && from != 25 && a != b {
                        return false;
                    }
                    reaches(from, target, a, b, &open)
                });
                if hit {
                    worst = worst.max((25 - blot) as f64 + 4.0);
                }
            }
            total += weight * worst;
        }
    }
    severity * total / 36.0
}

/// Whether a checker on its own point `from` reaches its own point `target` with dice `a`, `b`,
/// landing on open points only.
fn reaches(from: usize, target: usize, a: usize, b: usize, open: &impl Fn(usize) -> bool) -> bool {
    if from <= target {
        return false;
    }
    let distance = from - target;
    if distance == a || distance == b {
        return true;
    }
    if a != b {
        return distance == a + b && (open(from - a) || open(from - b));
    }
    (2..=4).any(|k| distance == k * a && (1..k).all(|m| open(from - m * a)))
}

/// How a game between two players ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameRecord {
    /// Who won and how.
    pub result: GameResult,
    /// Turns played, the opening one included.
    pub turns: u32,
    /// Who won the opening roll.
    pub first: Colour,
}

/// A game that could not be played to the end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// A player chose a play the rules refuse.
    #[error("{colour} played `{play}` with {}-{}: {reason}", dice.0, dice.1)]
    Illegal {
        /// The player.
        colour: Colour,
        /// The play, as written on the wire.
        play: String,
        /// The dice.
        dice: (u8, u8),
        /// Why it was refused.
        reason: IllegalPlay,
    },
    /// No one had won after this many turns.
    #[error("no result after {0} turns")]
    TooLong(u32),
}

/// Plays a game from the start with the opening-roll rule and dice from `dice`, checking every play
/// with [`check_play`], until someone wins or `max_turns` turns have been played.
pub fn play_game(
    black: &mut dyn Player,
    white: &mut dyn Player,
    dice: &mut Rng,
    max_turns: u32,
) -> Result<GameRecord, GameError> {
    let (first, mut roll) = opening_roll(dice);
    let mut colour = first;
    let mut position = Position::start();
    for turns in 1..=max_turns {
        let player: &mut dyn Player = match colour {
            Colour::Black => &mut *black,
            Colour::White => &mut *white,
        };
        let moves = player.choose(&position, colour, roll);
        position = check_play(&position, colour, roll, &moves).map_err(|reason| GameError::Illegal {
            colour,
            play: format_play(&moves),
            dice: roll,
            reason,
        })?;
        if let Some(result) = game_result(&position) {
            return Ok(GameRecord { result, turns, first });
        }
        colour = colour.opponent();
        roll = dice.roll();
    }
    Err(GameError::TooLong(max_turns))
}
