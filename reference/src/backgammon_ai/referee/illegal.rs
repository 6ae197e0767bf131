//! The grader's illegal plays: moves a program must refuse whatever its rule subtleties.

use super::super::rules::{check_play, format_play, legal_plays, CheckerMove, Colour, Point, Position};
use super::dice::own;

/// An illegal play for the grader's roll that a program must refuse whatever its rule subtleties: a
/// distance no die shows, a closed point, a checker that is not there, a move backwards, a die left
/// unused, not entering first; for a double, two or three of its four moves; for a roll where only
/// one die can be played, the lower. `n` picks among those that apply, the roll's own first (a double,
/// or a higher die, is why the referee rolled it). Returns the play and the reason.
pub(super) fn illegal_attempt(
    position: &Position,
    colour: Colour,
    dice: (u8, u8),
    n: usize,
) -> Option<(Vec<CheckerMove>, String)> {
    let plays = legal_plays(position, colour, dice);
    let most = plays.iter().map(|p| p.moves.len()).max().filter(|&m| m > 0)?;
    let full = plays.iter().find(|p| p.moves.len() == most)?.moves.clone();
    let step = |point: Point, by: i16| -> Option<Point> {
        let from = match point {
            Point::Bar => 25,
            Point::Board(p) => i16::from(own(colour, p)),
            Point::Off => return None,
        };
        let to = from - by;
        (1..=24).contains(&to).then(|| Point::Board(colour.absolute(to as u8)))
    };
    // What the roll is about.
    let mut own_rule: Vec<Vec<CheckerMove>> = Vec::new();
    if dice.0 == dice.1 {
        // A double played as two moves, or three.
        own_rule.extend((2..most).map(|k| full[..k].to_vec()));
    } else if most == 1 {
        // The lower die alone, where the higher must be played: a move the lower die could make on its
        // own, so that only the higher-die rule refuses it.
        let low = dice.0.min(dice.1);
        let mut alone: Vec<CheckerMove> = legal_plays(position, colour, (low, low))
            .iter()
            .filter_map(|p| p.moves.first().copied())
            .collect();
        alone.sort_by_key(|m| format_play(std::slice::from_ref(m)));
        alone.dedup();
        own_rule.extend(alone.into_iter().map(|m| vec![m]));
    }
    let mut candidates: Vec<Vec<CheckerMove>> = Vec::new();
    // One die unused.
    candidates.push(full[..most - 1].to_vec());
    // The first move one point further: a distance no die shows (when it is not the other die).
    if let Some(to) = step(full[0].from, i16::from(dice.0) + 1) {
        candidates.push([vec![CheckerMove::new(full[0].from, to)], full[1..].to_vec()].concat());
    }
    // A move backwards.
    if let Point::Board(_) = full[0].from {
        if let Some(to) = step(full[0].from, -i16::from(dice.0)) {
            candidates.push([vec![CheckerMove::new(full[0].from, to)], full[1..].to_vec()].concat());
        }
    }
    // From a point without a checker of the mover.
    if let Some(empty) = (1..=24u8).map(Point::Board).find(|&p| position.count(p, colour) == 0) {
        if let Some(to) = step(empty, i16::from(dice.0)) {
            candidates.push([vec![CheckerMove::new(empty, to)], full[1..].to_vec()].concat());
        }
    }
    // Onto a closed point.
    for die in [dice.0, dice.1] {
        for from in (1..=24u8).map(Point::Board).filter(|&p| position.count(p, colour) > 0) {
            if let Some(to) = step(from, i16::from(die)) {
                if position.count(to, colour.opponent()) >= 2 {
                    candidates.push(vec![CheckerMove::new(from, to)]);
                }
            }
        }
    }
    let illegal = |moves: Vec<Vec<CheckerMove>>| -> Vec<(Vec<CheckerMove>, String)> {
        moves
            .into_iter()
            .filter_map(|moves| {
                check_play(position, colour, dice, &moves).err().map(|reason| (moves, reason.to_string()))
            })
            .collect()
    };
    let own_rule = illegal(own_rule);
    let chosen = if own_rule.is_empty() { illegal(candidates) } else { own_rule };
    if chosen.is_empty() {
        return None;
    }
    let pick = n % chosen.len();
    chosen.into_iter().nth(pick)
}
