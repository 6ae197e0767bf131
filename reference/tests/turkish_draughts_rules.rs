//! The Turkish draughts rules suite: every position of `tests/data/turkish-draughts-rules.txt` has
//! exactly the legal moves (and capture counts) worked out by hand, and `move()` plays each of them.

use std::collections::BTreeSet;

use reference::turkish_draughts::rules::{Board, Outcome, Player, Square};

/// One position of the suite.
struct Position {
    name: String,
    to_move: Player,
    board: Board,
    /// (from, to, captures) of every legal move.
    moves: BTreeSet<(Square, Square, usize)>,
    winner: Option<Option<Player>>,
}

fn player(name: &str) -> Player {
    match name {
        "white" => Player::White,
        "black" => Player::Black,
        other => panic!("`{other}` is not a player"),
    }
}

fn square(text: &str) -> Square {
    let numbers: Vec<i32> = text.split_whitespace().map(|n| n.parse().unwrap()).collect();
    assert_eq!(numbers.len(), 2, "`{text}` is not a square");
    Square::new(numbers[0], numbers[1])
}

fn suite() -> Vec<Position> {
    let text = include_str!("data/turkish-draughts-rules.txt");
    let mut positions = Vec::new();
    for block in text.split("\n== ").skip(1) {
        let mut lines = block.lines();
        let name = lines.next().unwrap().to_owned();
        let to_move = player(lines.next().unwrap().strip_prefix("to-move: ").expect("to-move"));
        let rows: Vec<&str> = lines.by_ref().take(8).collect();
        let board = Board::parse(&rows.join("\n")).unwrap_or_else(|| panic!("{name}: a bad board"));
        assert_eq!(lines.next(), Some("moves:"), "{name}");
        let mut moves = BTreeSet::new();
        let mut winner = None;
        for line in lines.filter(|l| !l.trim().is_empty()) {
            if let Some(w) = line.strip_prefix("winner: ") {
                winner = Some(if w == "none" { None } else { Some(player(w)) });
            } else if line != "none" {
                let (squares, captures) = line.split_once(" : ").expect("FROM > TO : N");
                let (from, to) = squares.split_once(" > ").expect("FROM > TO");
                assert!(
                    moves.insert((square(from), square(to), captures.parse().unwrap())),
                    "{name}: {line}"
                );
            }
        }
        positions.push(Position { name, to_move, board, moves, winner });
    }
    positions
}

#[test]
fn the_suite_has_the_positions_the_rules_need() {
    let positions = suite();
    assert!(positions.len() >= 15);
    assert!(positions.iter().any(|p| p.moves.is_empty()), "a blocked player");
    assert!(positions.iter().any(|p| p.moves.iter().any(|m| m.2 >= 4)), "a long capture sequence");
}

#[test]
fn every_position_has_exactly_its_legal_moves() {
    for position in suite() {
        let legal: BTreeSet<(Square, Square, usize)> = position
            .board
            .legal_moves(position.to_move)
            .iter()
            .map(|m| (m.from, m.to, m.captures()))
            .collect();
        assert_eq!(legal, position.moves, "{}", position.name);
    }
}

#[test]
fn every_legal_move_is_played_by_move_and_anything_else_is_refused() {
    for position in suite() {
        let mover = position.to_move;
        for &(from, to, captures) in &position.moves {
            let mut board = position.board.clone();
            assert_eq!(board.play(mover, from, to), Outcome::Moved(captures), "{}", position.name);
            let pieces = |b: &Board, p: Player| b.pieces(p).count();
            assert_eq!(
                pieces(&board, mover.opponent()),
                pieces(&position.board, mover.opponent()) - captures
            );
            assert_eq!(board.get(from), None, "{}: the origin is left", position.name);
            assert!(board.get(to).is_some_and(|p| p.owner == mover), "{}", position.name);
        }
        // Every other target of the mover's pieces is refused, and leaves the board alone.
        for (from, _) in position.board.pieces(mover) {
            for to in Square::all() {
                if position.moves.iter().any(|m| m.0 == from && m.1 == to) {
                    continue;
                }
                let mut board = position.board.clone();
                assert_eq!(
                    board.play(mover, from, to),
                    Outcome::NotAllowed,
                    "{}: {from} > {to}",
                    position.name
                );
                assert_eq!(board, position.board);
            }
        }
        // A square without the mover's piece: -1.
        for from in Square::all().filter(|s| position.board.get(*s).is_none_or(|p| p.owner != mover)) {
            let mut board = position.board.clone();
            assert_eq!(board.play(mover, from, Square::new(0, 0)).code(), -1, "{}", position.name);
        }
    }
}

#[test]
fn the_winner_is_as_the_spec_decides() {
    for position in suite() {
        if let Some(winner) = position.winner {
            assert_eq!(position.board.winner(), winner, "{}", position.name);
        }
    }
}

#[test]
fn a_man_is_crowned_at_the_end_of_its_move_on_the_last_row() {
    let position = suite().into_iter().find(|p| p.name.starts_with("promotion comes at the end")).unwrap();
    let mut board = position.board.clone();
    assert_eq!(board.play(Player::White, Square::new(2, 3), Square::new(0, 5)), Outcome::Moved(2));
    assert_eq!(board.get(Square::new(0, 5)).map(|p| p.symbol()), Some('W'));
    assert_eq!(board.get(Square::new(3, 5)).map(|p| p.symbol()), Some('b'), "not captured by a king");
}

#[test]
fn the_start_is_displayed_as_the_spec_shows() {
    let start = "--------\nbbbbbbbb\nbbbbbbbb\n--------\n--------\nwwwwwwww\nwwwwwwww\n--------\n";
    assert_eq!(Board::start().display(), start);
    assert_eq!(Board::parse(start), Some(Board::start()));
}
