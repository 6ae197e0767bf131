//! The rules of Turkish draughts as the handout and `shared/specs/turkish-draughts.md` define them:
//! men one square forward or sideways, flying kings along rows and columns, captures by jumping,
//! capture sequences with pieces removed as they are jumped, maximum capture compulsory over all pieces,
//! no 180-degree turn of a king between two captures, promotion at the end of the move. Pure: no input
//! or output.
//!
//! Coordinates are the handout's: `board[x][y]`, x the row (0 at the top as displayed), y the column.

use std::fmt;

/// Squares per side.
pub const SIZE: i32 = 8;

/// A player, with the handout's enum values (`white = 10`, `black = 20`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// Starts on rows 5 and 6, moves toward row 0.
    White,
    /// Starts on rows 1 and 2, moves toward row 7.
    Black,
}

impl Player {
    /// Both players, white first.
    pub const ALL: [Player; 2] = [Player::White, Player::Black];

    /// The handout's enum value: 10 for white, 20 for black.
    pub fn code(self) -> i32 {
        match self {
            Player::White => 10,
            Player::Black => 20,
        }
    }

    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::White => Player::Black,
            Player::Black => Player::White,
        }
    }

    /// The row direction of this player's men: -1 for white, +1 for black.
    pub fn forward(self) -> i32 {
        match self {
            Player::White => -1,
            Player::Black => 1,
        }
    }

    /// The row where this player's men are crowned: 0 for white, 7 for black.
    pub fn last_row(self) -> i32 {
        match self {
            Player::White => 0,
            Player::Black => SIZE - 1,
        }
    }

    /// `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Player::White => "white",
            Player::Black => "black",
        }
    }
}

/// A piece: a man or a king of one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub owner: Player,
    /// A king moves and captures any distance along rows and columns.
    pub king: bool,
}

impl Piece {
    /// The symbol of `display_board`: `w`, `b`, `W`, `B`.
    pub fn symbol(self) -> char {
        match (self.owner, self.king) {
            (Player::White, false) => 'w',
            (Player::Black, false) => 'b',
            (Player::White, true) => 'W',
            (Player::Black, true) => 'B',
        }
    }

    /// The piece of a `display_board` symbol.
    pub fn from_symbol(symbol: char) -> Option<Piece> {
        Some(match symbol {
            'w' => Piece { owner: Player::White, king: false },
            'b' => Piece { owner: Player::Black, king: false },
            'W' => Piece { owner: Player::White, king: true },
            'B' => Piece { owner: Player::Black, king: true },
            _ => return None,
        })
    }
}

/// A square: row x (0 at the top), column y. Either may be off the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// Row, 0 at the top.
    pub x: i32,
    /// Column, 0 at the left.
    pub y: i32,
}

impl Square {
    /// The square in row `x`, column `y`.
    pub const fn new(x: i32, y: i32) -> Square {
        Square { x, y }
    }

    /// On the 8x8 board.
    pub fn on_board(self) -> bool {
        (0..SIZE).contains(&self.x) && (0..SIZE).contains(&self.y)
    }

    fn step(self, (dx, dy): (i32, i32), n: i32) -> Square {
        Square::new(self.x + dx * n, self.y + dy * n)
    }

    /// Every square, row by row.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SIZE).flat_map(|x| (0..SIZE).map(move |y| Square::new(x, y)))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.x, self.y)
    }
}

/// The four orthogonal directions, as (row, column) steps.
const DIRECTIONS: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// A legal move: where the piece starts and ends, the squares it lands on along the way, and what it
/// captures.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square of the moving piece.
    pub from: Square,
    /// The square where the move ends.
    pub to: Square,
    /// Every landing square of a capture sequence, in order (the last is `to`); empty for a plain move.
    pub landings: Vec<Square>,
    /// The captured pieces' squares, in the order they are jumped.
    pub captured: Vec<Square>,
}

impl Move {
    /// How many pieces the move captures.
    pub fn captures(&self) -> usize {
        self.captured.len()
    }
}

/// What `move()` answers for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `-1`: the piece at `from` does not belong to the player (or there is none).
    NotYourPiece,
    /// `-2`: the move is not allowed.
    NotAllowed,
    /// `n >= 0`: the move was made, capturing n pieces.
    Moved(usize),
}

impl Outcome {
    /// The return value of the handout's `move()`.
    pub fn code(self) -> i32 {
        match self {
            Outcome::NotYourPiece => -1,
            Outcome::NotAllowed => -2,
            Outcome::Moved(n) => n as i32,
        }
    }
}

/// Rules the handout leaves open, as the reference plays them by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules {
    /// A king may turn back 180 degrees between two captures. The official rule forbids it and the
    /// reference follows it; the handout never states it, so cases avoid every position where it
    /// changes the answer (a test replays them under both).
    pub king_may_turn_back: bool,
    /// A king that captures lands on the square right behind the piece it takes. The official rule
    /// (and the reference) lets it land on any vacant square beyond; the handout's wording ("jumping
    /// to a vacant square beyond an adverse piece, any distance away") allows both readings, so only
    /// the `conventions` case about it lands a king far beyond (a test replays the others under both).
    pub king_lands_right_behind: bool,
}

/// The board: one optional piece per square.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [[Option<Piece>; SIZE as usize]; SIZE as usize],
}

impl Default for Board {
    fn default() -> Self {
        Board::start()
    }
}

impl Board {
    /// No piece at all.
    pub fn empty() -> Board {
        Board { cells: [[None; SIZE as usize]; SIZE as usize] }
    }

    /// The start (rule 2, figure 1): black men on rows 1 and 2, white men on rows 5 and 6.
    pub fn start() -> Board {
        let mut board = Board::empty();
        for square in Square::all() {
            let owner = match square.x {
                1 | 2 => Player::Black,
                5 | 6 => Player::White,
                _ => continue,
            };
            board.set(square, Some(Piece { owner, king: false }));
        }
        board
    }

    /// Reads the eight lines of `display_board` (`-`, `w`, `b`, `W`, `B`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Board> {
        let rows: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        if rows.len() != SIZE as usize {
            return None;
        }
        let mut board = Board::empty();
        for (x, row) in rows.iter().enumerate() {
            let symbols: Vec<char> = row.chars().collect();
            if symbols.len() != SIZE as usize {
                return None;
            }
            for (y, symbol) in symbols.into_iter().enumerate() {
                let piece = match symbol {
                    '-' => None,
                    other => Some(Piece::from_symbol(other)?),
                };
                board.set(Square::new(x as i32, y as i32), piece);
            }
        }
        Some(board)
    }

    /// The eight lines of `display_board`, each ending with a newline.
    pub fn display(&self) -> String {
        let mut text = String::with_capacity(72);
        for x in 0..SIZE {
            for y in 0..SIZE {
                text.push(self.get(Square::new(x, y)).map_or('-', Piece::symbol));
            }
            text.push('\n');
        }
        text
    }

    /// The piece on a square; `None` for an empty square or one off the board.
    pub fn get(&self, square: Square) -> Option<Piece> {
        square.on_board().then(|| self.cells[square.x as usize][square.y as usize]).flatten()
    }

    /// Puts a piece on (or removes it from) a square.
    ///
    /// # Panics
    ///
    /// When the square is off the board.
    pub fn set(&mut self, square: Square, piece: Option<Piece>) {
        assert!(square.on_board(), "{square:?} is off the board");
        self.cells[square.x as usize][square.y as usize] = piece;
    }

    fn is_empty(&self, square: Square) -> bool {
        square.on_board() && self.get(square).is_none()
    }

    /// The pieces of one player, with their squares, row by row.
    pub fn pieces(&self, owner: Player) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(move |s| self.get(s).filter(|p| p.owner == owner).map(|p| (s, p)))
    }

    /// The directions a piece may move and capture in: a man forward and sideways, a king all four.
    fn directions(piece: Piece) -> impl Iterator<Item = (i32, i32)> {
        DIRECTIONS.into_iter().filter(move |&(dx, _)| piece.king || dx != -piece.owner.forward())
    }

    /// Every legal move of `player`: when any capture exists, only the sequences capturing the most
    /// pieces over all of the player's pieces (rule 7); otherwise every plain move.
    pub fn legal_moves(&self, player: Player) -> Vec<Move> {
        self.legal_moves_under(player, Rules::default())
    }

    /// [`Board::legal_moves`] under `rules`: the reference's own, or a reading the handout allows.
    pub fn legal_moves_under(&self, player: Player, rules: Rules) -> Vec<Move> {
        let mut captures = Vec::new();
        for (from, piece) in self.pieces(player) {
            let mut board = self.clone();
            board.set(from, None);
            let mut path = (Vec::new(), Vec::new());
            board.sequences(piece, from, from, None, rules, &mut path, &mut captures);
        }
        if let Some(most) = captures.iter().map(Move::captures).max() {
            captures.retain(|m| m.captures() == most);
            captures.sort();
            captures.dedup();
            return captures;
        }
        let mut moves = Vec::new();
        for (from, piece) in self.pieces(player) {
            for direction in Self::directions(piece) {
                let reach = if piece.king { SIZE } else { 1 };
                for n in 1..=reach {
                    let to = from.step(direction, n);
                    if !self.is_empty(to) {
                        break;
                    }
                    moves.push(Move { from, to, landings: Vec::new(), captured: Vec::new() });
                }
            }
        }
        moves.sort();
        moves
    }

    /// Collects every maximal capture sequence of `piece` (already lifted off `from`) standing on
    /// `at`, with the captured pieces removed as they are jumped; `last` is the direction of the
    /// previous capture (a king may not turn back along it).
    #[allow(clippy::too_many_arguments)] // one recursion's state, passed down as it is
    fn sequences(
        &mut self,
        piece: Piece,
        from: Square,
        at: Square,
        last: Option<(i32, i32)>,
        rules: Rules,
        path: &mut (Vec<Square>, Vec<Square>),
        found: &mut Vec<Move>,
    ) {
        let mut extended = false;
        for direction in Self::directions(piece) {
            let turns_back = last.is_some_and(|(dx, dy)| (dx, dy) == (-direction.0, -direction.1));
            if turns_back && piece.king && !rules.king_may_turn_back {
                continue;
            }
            // The enemy piece to jump: adjacent for a man; for a king, the first piece along the line.
            let reach = if piece.king { SIZE } else { 1 };
            let mut n = 1;
            while n < reach && self.is_empty(at.step(direction, n)) {
                n += 1;
            }
            let victim_square = at.step(direction, n);
            let Some(victim) = self.get(victim_square) else { continue };
            if victim.owner == piece.owner {
                continue;
            }
            let landing_reach = if piece.king && !rules.king_lands_right_behind { SIZE } else { 1 };
            for m in 1..=landing_reach {
                let landing = victim_square.step(direction, m);
                if !self.is_empty(landing) {
                    break;
                }
                extended = true;
                self.set(victim_square, None);
                path.0.push(landing);
                path.1.push(victim_square);
                self.sequences(piece, from, landing, Some(direction), rules, path, found);
                path.0.pop();
                path.1.pop();
                self.set(victim_square, Some(victim));
            }
        }
        if !extended && !path.1.is_empty() {
            found.push(Move { from, to: at, landings: path.0.clone(), captured: path.1.clone() });
        }
    }

    /// Plays a legal move: the piece lands on `to`, the captured pieces go, a man that ends on its
    /// last row is crowned.
    pub fn apply(&mut self, mv: &Move) {
        let mut piece = self.get(mv.from).expect("a legal move starts at a piece");
        self.set(mv.from, None);
        for &square in &mv.captured {
            self.set(square, None);
        }
        if mv.to.x == piece.owner.last_row() {
            piece.king = true;
        }
        self.set(mv.to, Some(piece));
    }

    /// The handout's `move()` with the final square of the whole move (the reference's convention):
    /// makes the move when it is legal.
    pub fn play(&mut self, player: Player, from: Square, to: Square) -> Outcome {
        if self.get(from).is_none_or(|p| p.owner != player) {
            return Outcome::NotYourPiece;
        }
        let legal = self.legal_moves(player);
        // Several maximal sequences may end on the same square: they capture as many; take the first.
        match legal.iter().find(|m| m.from == from && m.to == to) {
            Some(mv) => {
                let mv = mv.clone();
                self.apply(&mv);
                Outcome::Moved(mv.captures())
            }
            None => Outcome::NotAllowed,
        }
    }

    /// The winner, if the game is over (`check_end_of_game`, the spec's decision): black when white
    /// has no piece or no legal move, else white when black has none; `None` while both can move.
    pub fn winner(&self) -> Option<Player> {
        if self.legal_moves(Player::White).is_empty() {
            return Some(Player::Black);
        }
        if self.legal_moves(Player::Black).is_empty() {
            return Some(Player::White);
        }
        None
    }
}
