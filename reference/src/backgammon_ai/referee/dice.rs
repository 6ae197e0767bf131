//! The dice the referee gives each side: plain rolls where a case steers around the rules'
//! subtleties, and the rolls that put a side in the situation a legal-play case is about.

use super::super::players::Rng;
use super::super::rules::{
    every_play_uses_two_dice, game_result, legal_plays, CheckerMove, Colour, Point, Position, ResultKind,
};
use super::Situation;

/// The 21 distinct rolls, higher die first.
pub(super) fn all_rolls() -> Vec<(u8, u8)> {
    (1..=6u8).flat_map(|a| (1..=a).map(move |b| (a, b))).collect()
}

/// How far `point` is from bearing off for `colour` (its own number).
pub(super) fn own(colour: Colour, point: u8) -> u8 {
    colour.absolute(point)
}

/// Points (own numbers 1..=6) of `colour`'s home board that hold its checkers.
pub(super) fn home_points(position: &Position, colour: Colour) -> Vec<u8> {
    (1..=6u8).filter(|&p| position.count(Point::Board(colour.absolute(p)), colour) > 0).collect()
}

/// A roll in which no rule subtlety can show: not a double, both dice used by every legal play, no
/// die that could bear a checker off while some are outside the home board, and no die larger than
/// the highest home point. A program with a subtle rule wrong plays such a roll as a correct one does.
pub(super) fn is_plain(position: &Position, colour: Colour, dice: (u8, u8)) -> bool {
    if dice.0 == dice.1 || !every_play_uses_two_dice(position, colour, dice) {
        return false;
    }
    let home = home_points(position, colour);
    let all_home = position.all_home(colour);
    [dice.0, dice.1].iter().all(|&die| {
        let exact = home.contains(&die) && !all_home;
        let larger = home.iter().max().is_some_and(|&top| die > top);
        !exact && !larger
    })
}

/// The rolls to give a side outside the situations steered into: the plain ones, else the closest to
/// plain (never a double: no game needs one to end).
pub(super) fn plain_rolls(position: &Position, colour: Colour) -> Vec<(u8, u8)> {
    let singles: Vec<(u8, u8)> = all_rolls().into_iter().filter(|d| d.0 != d.1).collect();
    let both_dice = |d: &(u8, u8)| every_play_uses_two_dice(position, colour, *d);
    for tier in 0..3 {
        let rolls: Vec<(u8, u8)> = singles
            .iter()
            .copied()
            .filter(|d| match tier {
                0 => is_plain(position, colour, *d),
                1 => both_dice(d) && !tempts_bearing_off(position, colour, *d),
                _ => both_dice(d),
            })
            .collect();
        if !rolls.is_empty() {
            return rolls;
        }
    }
    singles
}

/// Whether a die of the roll could bear a checker off exactly while some are still outside the home
/// board: where a program with that rule wrong goes astray.
pub(super) fn tempts_bearing_off(position: &Position, colour: Colour, dice: (u8, u8)) -> bool {
    !position.all_home(colour) && home_points(position, colour).iter().any(|&p| p == dice.0 || p == dice.1)
}

/// Whether `dice` put `colour` in `situation`.
pub(super) fn is_situation(
    position: &Position,
    colour: Colour,
    dice: (u8, u8),
    situation: Situation,
) -> bool {
    let plays = legal_plays(position, colour, dice);
    let most = plays.iter().map(|p| p.moves.len()).max().unwrap_or(0);
    let (high, low) = (dice.0.max(dice.1), dice.0.min(dice.1));
    match situation {
        Situation::Any => true,
        Situation::Doubles => dice.0 == dice.1 && most == 4,
        Situation::PartialDouble => dice.0 == dice.1 && (1..4).contains(&most),
        Situation::HigherDie => {
            // One die only, the higher, while the lower alone could have moved.
            high != low
                && !tempts_bearing_off(position, colour, dice)
                && most == 1
                && legal_plays(position, colour, (low, low)).iter().any(|p| !p.moves.is_empty())
                && plays.iter().all(|p| single_die(colour, &p.moves) == Some(high))
        }
        Situation::BearOffLarger => {
            high != low
                && position.all_home(colour)
                && home_points(position, colour).iter().max().is_some_and(|&top| high > top)
                && plays.iter().any(|p| p.moves.iter().any(|m| m.to == Point::Off))
        }
        Situation::BearIn => {
            high != low
                && most == 2
                && !position.all_home(colour)
                && position.bar(colour) == 0
                && home_points(position, colour).iter().any(|&p| p == high || p == low)
        }
        Situation::Enter => {
            high != low && position.bar(colour) > 0 && most > 0 && !tempts_bearing_off(position, colour, dice)
        }
        Situation::EnterThenFree => {
            // One checker to enter, then the other die free for any checker: some play moves another.
            high != low
                && position.bar(colour) == 1
                && most == 2
                && !tempts_bearing_off(position, colour, dice)
                && plays.iter().any(|p| p.moves[1].from != p.moves[0].to)
        }
        Situation::Gammon | Situation::Backgammon => {
            let kind =
                if situation == Situation::Gammon { ResultKind::Gammon } else { ResultKind::Backgammon };
            !plays.is_empty()
                && plays
                    .iter()
                    .all(|p| game_result(&p.result).is_some_and(|r| r.winner == colour && r.kind == kind))
        }
    }
}

/// The die a one-move play uses.
pub(super) fn single_die(colour: Colour, moves: &[CheckerMove]) -> Option<u8> {
    let [only] = moves else { return None };
    let from = match only.from {
        Point::Bar => 25,
        Point::Board(p) => own(colour, p),
        Point::Off => return None,
    };
    let to = match only.to {
        Point::Off => 0,
        Point::Board(p) => own(colour, p),
        Point::Bar => return None,
    };
    // A bear-off with a larger die is not exact; the die used is then at least the distance.
    Some(from - to)
}

/// Positions drawn before giving up on a situation (each is checked against all 21 rolls).
const SEARCH_LIMIT: u32 = 20_000;

/// A position and a roll that put `colour` in `situation`, for `setup`: drawn at random (each colour's
/// checkers on a few points, now and then one on the bar or some borne off) until one fits, so that a
/// case meets the rare situations in every grading instead of when the dice happen to lead there.
/// `None` when none was found within [`SEARCH_LIMIT`] draws.
pub(super) fn position_for(
    rng: &mut Rng,
    colour: Colour,
    situation: Situation,
) -> Option<(Position, (u8, u8))> {
    for _ in 0..SEARCH_LIMIT {
        let drawn = match situation {
            Situation::Gammon | Situation::Backgammon => {
                finishing_position(rng, colour, situation == Situation::Backgammon)
            }
            _ => random_position(rng),
        };
        let Some(position) = drawn else { continue };
        let fitting: Vec<(u8, u8)> =
            all_rolls().into_iter().filter(|&d| is_situation(&position, colour, d, situation)).collect();
        if !fitting.is_empty() {
            let dice = fitting[rng.below(fitting.len() as u64) as usize];
            return Some((position, dice));
        }
    }
    None
}

/// A legal position: each colour's 15 checkers on two to seven points of its own (none shared), one
/// on the bar a tenth of the time, and in a quarter of the positions a colour well into bearing off.
fn random_position(rng: &mut Rng) -> Option<Position> {
    let mut taken = [false; 25];
    let mut lists: Vec<Vec<(Point, u8)>> = Vec::new();
    for colour in Colour::ALL {
        let bearing_off = rng.below(4) == 0;
        let mut left = if bearing_off { 4 + rng.below(10) as u8 } else { 15 };
        let mut list = Vec::new();
        if rng.below(10) == 0 && !bearing_off {
            list.push((Point::Bar, 1));
            left -= 1;
        }
        let points = 2 + rng.below(6);
        for k in 0..points {
            // Own numbers: home points (1-6) only while bearing off.
            let own = if bearing_off { 1 + rng.below(6) as u8 } else { 1 + rng.below(24) as u8 };
            let point = colour.absolute(own);
            if taken[point as usize] {
                continue;
            }
            let count = if k + 1 == points { left } else { (1 + rng.below(4) as u8).min(left) };
            if count == 0 {
                break;
            }
            taken[point as usize] = true;
            list.push((Point::Board(point), count));
            left -= count;
        }
        if left > 0 && !bearing_off {
            return None;
        }
        lists.push(list);
    }
    Position::from_counts(&lists[0], &lists[1]).ok()
}

/// A position where `winner` is about to bear off its last one or two checkers (on its points 1-3)
/// while the loser has borne off none: a gammon at hand, or with `backgammon` one of the loser's
/// checkers on the bar or in the winner's home board (its points 4-6, clear of the winner's).
fn finishing_position(rng: &mut Rng, winner: Colour, backgammon: bool) -> Option<Position> {
    let loser = winner.opponent();
    let mut winners = Vec::new();
    for _ in 0..1 + rng.below(2) {
        winners.push((Point::Board(winner.absolute(1 + rng.below(3) as u8)), 1));
    }
    let mut losers = Vec::new();
    let mut left = 15u8;
    if backgammon {
        // The loser's own 19-21 are the winner's 6-4.
        let point = if rng.below(3) == 0 {
            Point::Bar
        } else {
            Point::Board(loser.absolute(19 + rng.below(3) as u8))
        };
        losers.push((point, 1));
        left -= 1;
    }
    let points = 3 + rng.below(3);
    for k in 0..points {
        // Outside both home boards: the loser's own 7-18.
        let point = Point::Board(loser.absolute(7 + rng.below(12) as u8));
        let count = if k + 1 == points { left } else { (1 + rng.below(5) as u8).min(left) };
        losers.push((point, count));
        left -= count;
    }
    let (black, white) = if winner == Colour::Black { (winners, losers) } else { (losers, winners) };
    Position::from_counts(&black, &white).ok()
}
