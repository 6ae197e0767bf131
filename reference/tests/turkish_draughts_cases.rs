//! The committed Turkish draughts cases keep their categories apart, as `cases/turkish-draughts/README.md`
//! says: every script is replayed on the rules' board and checked for what only one category may see,
//! so that a program with one defect loses points in that category alone.

mod common;

use reference::turkish_draughts::rules::{Board, Move, Piece, Player, Rules, Square};

/// One `move` command of a case, replayed.
struct Requested {
    player: Player,
    from: Square,
    to: Square,
    /// The board when it was requested.
    before: Board,
    /// The legal move it made, if any.
    made: Option<Move>,
}

impl Requested {
    fn has_capture(&self) -> bool {
        self.before.legal_moves(self.player).iter().any(|m| m.captures() > 0)
    }

    fn crowns(&self) -> bool {
        self.made.as_ref().is_some_and(|m| {
            let piece = self.before.get(m.from).expect("a legal move starts at a piece");
            !piece.king && m.to.x == piece.owner.last_row()
        })
    }

    fn by_king(&self) -> bool {
        self.before.get(self.from).is_some_and(|p| p.king)
    }
}

/// A committed case: its id (`category/name`), its commands, and each move replayed.
struct Case {
    id: String,
    commands: Vec<String>,
    moves: Vec<Requested>,
    /// Whether any board of the case holds a king.
    has_king: bool,
    /// What each `end` command answers: the winner, if any.
    ends: Vec<Option<Player>>,
}

impl Case {
    fn category(&self) -> &str {
        self.id.split('/').next().unwrap()
    }
}

fn square(x: &str, y: &str) -> Square {
    Square::new(x.parse().unwrap(), y.parse().unwrap())
}

/// The piece of a `set` command's symbol (`-` for none).
fn symbol(s: &str) -> Option<Piece> {
    s.chars().next().and_then(Piece::from_symbol)
}

fn replay(id: String, commands: Vec<String>) -> Case {
    let mut board = Board::empty();
    let (mut moves, mut has_king, mut ends) = (Vec::new(), false, Vec::new());
    for command in &commands {
        let tokens: Vec<&str> = command.split_whitespace().collect();
        match tokens.as_slice() {
            ["start" | "init"] => board = Board::start(),
            ["clear"] => board = Board::empty(),
            ["position", rows] => board = Board::parse(&rows.replace('/', "\n")).unwrap(),
            ["set", x, y, s] => board.set(square(x, y), symbol(s)),
            ["end"] => ends.push(board.winner()),
            ["move", fx, fy, tx, ty, who, ..] => {
                let player = if *who == "white" { Player::White } else { Player::Black };
                let (from, to) = (square(fx, fy), square(tx, ty));
                let made = board.legal_moves(player).into_iter().find(|m| m.from == from && m.to == to);
                let before = board.clone();
                if let Some(m) = &made {
                    board.apply(m);
                }
                moves.push(Requested { player, from, to, before, made });
            }
            _ => {}
        }
        has_king |= Player::ALL.iter().any(|&p| board.pieces(p).any(|(_, piece)| piece.king));
    }
    Case { id, commands, moves, has_king, ends }
}

fn committed_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for file in common::case_files("turkish-draughts", 40) {
        let table: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let commands: Vec<String> = table["scenario"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        let category = file.parent().unwrap().file_name().unwrap().to_string_lossy();
        let id = format!("{category}/{}", file.file_stem().unwrap().to_string_lossy());
        cases.push(replay(id, commands));
    }
    cases
}

#[test]
fn only_max_capture_requests_a_move_while_a_capture_is_available_and_not_taken() {
    for case in committed_cases().iter().filter(|c| c.category() != "max-capture") {
        for (n, m) in case.moves.iter().enumerate() {
            if m.has_capture() {
                assert!(
                    m.made.is_some(),
                    "{}: move {} is refused while a capture is available",
                    case.id,
                    n + 1
                );
            }
        }
    }
}

#[test]
fn only_king_moves_crowns_a_man() {
    for case in committed_cases().iter().filter(|c| c.category() != "king-moves") {
        assert!(!case.moves.iter().any(Requested::crowns), "{} crowns a man", case.id);
    }
}

#[test]
fn man_moves_and_return_codes_have_no_kings() {
    for case in committed_cases().iter().filter(|c| ["man-moves", "return-codes"].contains(&c.category())) {
        assert!(!case.has_king, "{} has a king", case.id);
    }
}

#[test]
fn return_codes_refuses_only_what_every_rule_defect_refuses_alike() {
    for case in committed_cases().iter().filter(|c| c.category() == "return-codes") {
        for m in case.moves.iter().filter(|m| m.made.is_none()) {
            let Some(piece) = m.before.get(m.from).filter(|p| p.owner == m.player) else {
                continue; // an empty square or the opponent's piece
            };
            let (dx, dy) = (m.to.x - m.from.x, m.to.y - m.from.y);
            let backwards = dx.signum() == -piece.owner.forward() && dy == 0;
            let onto_a_piece = m.before.get(m.to).is_some();
            let not_a_step = dx != 0 && dy != 0 || dx.abs() + dy.abs() > 1;
            assert!(!backwards && (onto_a_piece || not_a_step), "{}: a refusal only some rules see", case.id);
            assert!(!m.has_capture(), "{}: a refusal under the maximum-capture rule", case.id);
        }
    }
}

#[test]
fn max_capture_reads_single_squares_after_a_capture() {
    // A program that leaves captured pieces on the board loses `captures`, not these.
    for case in committed_cases().iter().filter(|c| c.category() == "max-capture") {
        // Moves are replayed in the order of their commands.
        let mut moves = case.moves.iter();
        let mut captured = false;
        for command in &case.commands {
            if command.starts_with("move ") {
                let m = moves.next().unwrap();
                captured |= m.made.as_ref().is_some_and(|m| m.captures() > 0);
            }
            assert!(!(captured && command == "dump"), "{}: a dump after a capture", case.id);
        }
    }
}

#[test]
fn end_of_game_sets_positions_up_without_moves() {
    for case in committed_cases().iter().filter(|c| c.category() == "end-of-game") {
        assert!(case.moves.is_empty(), "{} plays moves", case.id);
    }
}

#[test]
fn every_case_needs_positive_evidence_so_a_program_that_does_nothing_passes_none() {
    // A program that moves nothing and answers one constant (the -1 a stub returns, or memory never
    // written) must not pass a case by failing to do something.
    for case in committed_cases() {
        match case.category() {
            // A refusal is checked beside a move the program must make (the board is read back).
            "man-moves" | "king-moves" | "captures" | "max-capture" => {
                assert!(case.moves.iter().any(|m| m.made.is_some()), "{}: no move is made", case.id);
            }
            // No one value answers every request: from an empty square -1 and -2 both do.
            "return-codes" => {
                let answers: Vec<Vec<i32>> = case
                    .moves
                    .iter()
                    .map(|m| match (m.before.get(m.from), &m.made) {
                        (None, _) => vec![-1, -2],
                        (Some(p), _) if p.owner != m.player => vec![-1],
                        (_, Some(made)) => vec![made.captures() as i32],
                        (_, None) => vec![-2],
                    })
                    .collect();
                let constant = answers[0].iter().find(|v| answers.iter().all(|a| a.contains(v)));
                assert_eq!(constant, None, "{}: move() may answer every request alike", case.id);
            }
            "end-of-game" => {
                let first = case.ends[0];
                assert!(case.ends.iter().any(|&e| e != first), "{}: every end answers alike", case.id);
            }
            _ => {}
        }
    }
}

/// Every capture path of the piece on `from` that cannot go on, of any length (the rules keep only
/// the longest): its landing squares, under the official rules (a king lands on any vacant square
/// beyond the piece it takes and never turns back).
fn capture_paths(board: &Board, from: Square) -> Vec<Vec<Square>> {
    fn extend(
        board: &mut Board,
        piece: Piece,
        at: Square,
        last: Option<(i32, i32)>,
        path: &mut Vec<Square>,
        found: &mut Vec<Vec<Square>>,
    ) {
        let mut extended = false;
        for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            if (!piece.king && dx == -piece.owner.forward()) || (piece.king && last == Some((-dx, -dy))) {
                continue;
            }
            let step = |k: i32| Square::new(at.x + dx * k, at.y + dy * k);
            let empty = |board: &Board, s: Square| s.on_board() && board.get(s).is_none();
            let mut n = 1;
            while piece.king && empty(board, step(n)) {
                n += 1;
            }
            let Some(victim) = board.get(step(n)).filter(|v| v.owner != piece.owner) else { continue };
            let mut m = n + 1;
            while empty(board, step(m)) {
                extended = true;
                board.set(step(n), None);
                path.push(step(m));
                extend(board, piece, step(m), Some((dx, dy)), path, found);
                path.pop();
                board.set(step(n), Some(victim));
                if !piece.king {
                    break;
                }
                m += 1;
            }
        }
        if !extended && !path.is_empty() {
            found.push(path.clone());
        }
    }
    let mut board = board.clone();
    let piece = board.get(from).expect("a piece on the square");
    board.set(from, None);
    let mut found = Vec::new();
    extend(&mut board, piece, from, None, &mut Vec::new(), &mut found);
    found
}

#[test]
fn the_freed_square_case_has_one_capture_path_and_it_crosses_a_freed_square() {
    // After its first landing a program that finishes the sequence itself has no choice to make (no
    // shorter branch, no other landing): the case tests the freed square, not maximum capture.
    let case = committed_cases().into_iter().find(|c| c.id == "captures/freed-square").unwrap();
    let [m] = case.moves.as_slice() else { panic!("one move") };
    let made = m.made.as_ref().expect("the move is legal");
    let paths: Vec<Vec<Square>> =
        m.before.pieces(m.player).flat_map(|(from, _)| capture_paths(&m.before, from)).collect();
    assert_eq!(paths, std::slice::from_ref(&made.landings));
    // One of its captures passes the square of a piece taken earlier in the sequence.
    let between = |a: Square, b: Square, s: Square| {
        (a.x == b.x && s.x == a.x && s.y > a.y.min(b.y) && s.y < a.y.max(b.y))
            || (a.y == b.y && s.y == a.y && s.x > a.x.min(b.x) && s.x < a.x.max(b.x))
    };
    let crosses = (1..made.landings.len())
        .any(|i| made.captured[..i].iter().any(|&c| between(made.landings[i - 1], made.landings[i], c)));
    assert!(crosses, "{made:?}");
}

#[test]
fn every_category_has_cases_and_kings_are_present_where_their_rules_are_graded() {
    let cases = committed_cases();
    let categories: std::collections::BTreeSet<&str> = cases.iter().map(Case::category).collect();
    assert_eq!(categories.len(), 9);
    for category in categories {
        let count = cases.iter().filter(|c| c.category() == category).count();
        assert!(count >= 3, "{category}: {count} cases");
    }
    // Kings are present wherever king rules are graded.
    assert!(cases
        .iter()
        .filter(|c| c.category() == "king-moves")
        .all(|c| c.has_king || c.moves.iter().any(Requested::crowns)));
    assert!(cases
        .iter()
        .any(|c| c.moves.iter().any(|m| m.by_king() && m.made.as_ref().is_some_and(|m| m.captures() > 1))));
}

/// What a case's commands leave after each move, under `rules`: the board, and the pieces the move
/// took (`None` when refused). A move whose command lists its landing squares is found with them:
/// a program that plays one jump per call is asked for those landings.
fn boards_under(commands: &[String], rules: Rules) -> Vec<(Board, Option<usize>)> {
    let mut board = Board::empty();
    let mut seen = Vec::new();
    for command in commands {
        let tokens: Vec<&str> = command.split_whitespace().collect();
        match tokens.as_slice() {
            ["start" | "init"] => board = Board::start(),
            ["clear"] => board = Board::empty(),
            ["position", rows] => board = Board::parse(&rows.replace('/', "\n")).unwrap(),
            ["set", x, y, s] => board.set(square(x, y), symbol(s)),
            ["move", fx, fy, tx, ty, who, landings @ ..] => {
                let player = if *who == "white" { Player::White } else { Player::Black };
                let (from, to) = (square(fx, fy), square(tx, ty));
                let landings: Vec<Square> = landings.chunks(2).map(|xy| square(xy[0], xy[1])).collect();
                let made = board.legal_moves_under(player, rules).into_iter().find(|m| {
                    m.from == from && m.to == to && (landings.is_empty() || m.landings == landings)
                });
                if let Some(m) = &made {
                    board.apply(m);
                }
                seen.push((board.clone(), made.map(|m| m.captures())));
            }
            _ => {}
        }
    }
    seen
}

/// Every case's commands, by file.
fn case_commands() -> Vec<(std::path::PathBuf, Vec<String>)> {
    common::case_files("turkish-draughts", 40)
        .into_iter()
        .map(|file| {
            let table: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let commands = table["scenario"]["commands"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_owned())
                .collect();
            (file, commands)
        })
        .collect()
}

#[test]
fn no_case_depends_on_the_rule_that_a_king_may_not_turn_back() {
    // The handout never states it (the spec's decision): a case whose answer it changes would charge
    // a reading the handout allows.
    for (file, commands) in case_commands() {
        let official = boards_under(&commands, Rules::default());
        let lenient = boards_under(&commands, Rules { king_may_turn_back: true, ..Rules::default() });
        assert_eq!(official, lenient, "{} depends on the no-turning-back rule", file.display());
    }
}

#[test]
fn no_case_depends_on_whether_a_king_may_land_beyond_the_square_right_behind_the_piece_it_takes() {
    // Rule 6 reads either way (the spec's conventions): the C driver detects the reading, and only
    // `conventions/king-landing` charges it; a rule case whose answer it changed would charge it again.
    for (file, commands) in case_commands() {
        let official = boards_under(&commands, Rules::default());
        let behind = boards_under(&commands, Rules { king_lands_right_behind: true, ..Rules::default() });
        assert_eq!(official, behind, "{} lands a king beyond the square right behind", file.display());
    }
}
