//! The grader's illegal plays: moves a program must refuse whatever its rule subtleties.

use super::super::rules::{check_play, legal_plays, CheckerMove, Colour, Point, Position};
use super::dice::own;

/// An illegal play for the grader's roll that a program must refuse whatever its rule subtleties: a
/// distance no die shows, a closed point, a checker that is not there, a move backwards, one die left
/// unused, not entering first. `n` picks among those that apply. Returns the play and the reason.
pub(super) fn illegal_attempt(
    position: &Position,
    colour: Colour,
    dice: (u8, u8),
    n: usize,
) -> Option<(Vec<CheckerMove>, String)> {
    let plays = legal_plays(position, colour, dice);
    let full = plays.iter().find(|p| p.moves.len() == 2)?.moves.clone();
    let mut candidates: Vec<Vec<CheckerMove>> = Vec::new();
    let step = |point: Point, by: i16| -> Option<Point> {
        let from = match point {
            Point::Bar => 25,
            Point::Board(p) => i16::from(own(colour, p)),
            Point::Off => return None,
        };
        let to = from - by;
        (1..=24).contains(&to).then(|| Point::Board(colour.absolute(to as u8)))
    };
    // One die unused.
    candidates.push(vec![full[0]]);
    // The first move one point further: a distance no die shows (when it is not the other die).
    if let Some(to) = step(full[0].from, i16::from(dice.0) + 1) {
        candidates.push(vec![CheckerMove::new(full[0].from, to), full[1]]);
    }
    // A move backwards.
    if let Point::Board(_) = full[0].from {
        if let Some(to) = step(full[0].from, -i16::from(dice.0)) {
            candidates.push(vec![CheckerMove::new(full[0].from, to), full[1]]);
        }
    }
    // From a point without a checker of the mover.
    if let Some(empty) = (1..=24u8).map(Point::Board).find(|&p| position.count(p, colour) == 0) {
        if let Some(to) = step(empty, i16::from(dice.0)) {
            candidates.push(vec![CheckerMove::new(empty, to), full[1]]);
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
    let illegal: Vec<(Vec<CheckerMove>, String)> = candidates
        .into_iter()
        .filter_map(|moves| {
            check_play(position, colour, dice, &moves).err().map(|reason| (moves, reason.to_string()))
        })
        .collect();
    if illegal.is_empty() {
        return None;
    }
    let pick = n % illegal.len();
    illegal.into_iter().nth(pick)
}
