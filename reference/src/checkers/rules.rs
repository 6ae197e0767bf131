//! The rules of checkers as this handout defines them (sections 1, 4, 5, 6, 7): steps and single
//! jumps on the dark squares, men forward only, kings both ways, crowning on the far row, no forced
//! jumps, no multiple jumps, no end of game. Pure: no input or output.

use std::fmt;

/// Squares per side.
pub const SIZE: i32 = 8;

/// A player. Red starts on rows 0-2 and moves first; white starts on rows 5-7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    /// Moves toward larger rows (y).
    Red,
    /// Moves toward smaller rows (y).
    White,
}

impl Colour {
    /// The other player.
    pub fn opponent(self) -> Colour {
        match self {
            Colour::Red => Colour::White,
            Colour::White => Colour::Red,
        }
    }

    /// The row direction of this colour's men: +1 for red, -1 for white.
    pub fn forward(self) -> i32 {
        match self {
            Colour::Red => 1,
            Colour::White => -1,
        }
    }

    /// The row where this colour's men are crowned (section 5): 7 for red, 0 for white.
    pub fn far_row(self) -> i32 {
        match self {
            Colour::Red => SIZE - 1,
            Colour::White => 0,
        }
    }

    /// `RED` or `WHITE`, as the prompts name the players.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "RED",
            Colour::White => "WHITE",
        }
    }
}

/// A piece: a man or a king of one colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub colour: Colour,
    /// Crowned on the far row: moves and jumps both ways.
    pub king: bool,
}

impl Piece {
    /// The letter on the board: `r`, `w`, `R`, `W`.
    pub fn letter(self) -> char {
        match (self.colour, self.king) {
            (Colour::Red, false) => 'r',
            (Colour::White, false) => 'w',
            (Colour::Red, true) => 'R',
            (Colour::White, true) => 'W',
        }
    }
}

/// A square as typed: column x, row y (either may be off the board).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// Column, 0 at the left.
    pub x: i32,
    /// Row, 0 at the top.
    pub y: i32,
}

impl Square {
    /// The square at column `x`, row `y`.
    pub const fn new(x: i32, y: i32) -> Square {
        Square { x, y }
    }

    /// On the 8x8 grid (condition 1).
    pub fn on_board(self) -> bool {
        (0..SIZE).contains(&self.x) && (0..SIZE).contains(&self.y)
    }

    /// A dark square, where the game is played (`(x + y)` odd).
    pub fn is_dark(self) -> bool {
        (self.x + self.y).rem_euclid(2) == 1
    }

    /// Every square of the board, row by row.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| Square::new(x, y)))
    }
}

/// A move as typed: `x1 y1 x2 y2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square of the piece to move.
    pub from: Square,
    /// The square to move it to.
    pub to: Square,
}

impl Move {
    /// The move from `(x1, y1)` to `(x2, y2)`.
    pub const fn new(x1: i32, y1: i32, x2: i32, y2: i32) -> Move {
        Move { from: Square::new(x1, y1), to: Square::new(x2, y2) }
    }

    fn delta(self) -> (i32, i32) {
        (self.to.x - self.from.x, self.to.y - self.from.y)
    }

    /// The move goes toward `colour`'s own side: backwards, which only its kings may.
    pub fn is_backwards_for(self, colour: Colour) -> bool {
        (self.to.y - self.from.y).signum() == -colour.forward()
    }

    /// The square jumped over by a two-square diagonal move.
    pub fn middle(self) -> Square {
        Square::new((self.from.x + self.to.x).div_euclid(2), (self.from.y + self.to.y).div_euclid(2))
    }
}

impl fmt::Display for Move {
    /// The four numbers as typed: `1 2 0 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {} {}", self.from.x, self.from.y, self.to.x, self.to.y)
    }
}

/// Why a move is invalid: which of the handout's conditions it breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Illegal {
    /// Condition 1: the origin or the target is off the 8x8 grid.
    OffBoard,
    /// Condition 2: the origin holds no piece of the mover (empty, or the opponent's).
    NotYourPiece,
    /// Condition 2: the target is not empty.
    Occupied,
    /// Conditions 3 and 4: a man moving or jumping backwards (or sideways along its row).
    Backwards,
    /// Conditions 3 and 4: not one or two squares along a diagonal.
    NotADiagonalStepOrJump,
    /// Condition 4: a two-square move over an empty square.
    JumpOverNothing,
    /// Condition 4: a two-square move over the mover's own piece.
    JumpOverOwn,
}

/// What a valid move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One square along a diagonal.
    Step,
    /// Two squares along a diagonal over an opponent's piece, which is removed.
    Jump,
}

/// What playing a valid move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// A step or a jump.
    pub kind: Kind,
    /// The piece removed by a jump, and where it stood.
    pub captured: Option<(Square, Piece)>,
    /// The moved man became a king.
    pub crowned: bool,
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

    /// The start of the game: twelve red men on the dark squares of rows 0-2, twelve white men on
    /// those of rows 5-7.
    pub fn start() -> Board {
        let mut board = Board::empty();
        for square in Square::all().filter(|s| s.is_dark()) {
            let colour = match square.y {
                0..=2 => Colour::Red,
                5..=7 => Colour::White,
                _ => continue,
            };
            board.set(square, Some(Piece { colour, king: false }));
        }
        board
    }

    /// The piece on a square; `None` for an empty square or one off the board.
    pub fn get(&self, square: Square) -> Option<Piece> {
        square.on_board().then(|| self.cells[square.y as usize][square.x as usize]).flatten()
    }

    /// Puts a piece on (or removes it from) a square of the board.
    ///
    /// # Panics
    ///
    /// When the square is off the board.
    pub fn set(&mut self, square: Square, piece: Option<Piece>) {
        assert!(square.on_board(), "{square:?} is off the board");
        self.cells[square.y as usize][square.x as usize] = piece;
    }

    /// The pieces of one colour, with their squares, row by row.
    pub fn pieces(&self, colour: Colour) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(move |s| self.get(s).filter(|p| p.colour == colour).map(|p| (s, p)))
    }

    /// Checks a move of `mover` against conditions 1-4, in the handout's order.
    pub fn check(&self, mover: Colour, mv: Move) -> Result<Kind, Illegal> {
        if !mv.from.on_board() || !mv.to.on_board() {
            return Err(Illegal::OffBoard);
        }
        let piece = match self.get(mv.from) {
            Some(piece) if piece.colour == mover => piece,
            _ => return Err(Illegal::NotYourPiece),
        };
        if self.get(mv.to).is_some() {
            return Err(Illegal::Occupied);
        }
        let (dx, dy) = mv.delta();
        if dx.abs() != dy.abs() || !(1..=2).contains(&dx.abs()) {
            return Err(Illegal::NotADiagonalStepOrJump);
        }
        if !piece.king && dy.signum() != mover.forward() {
            return Err(Illegal::Backwards);
        }
        if dx.abs() == 1 {
            return Ok(Kind::Step);
        }
        match self.get(mv.middle()) {
            None => Err(Illegal::JumpOverNothing),
            Some(jumped) if jumped.colour == mover => Err(Illegal::JumpOverOwn),
            Some(_) => Ok(Kind::Jump),
        }
    }

    /// Plays a move of `mover` if it is valid: moves the piece, removes a jumped one, crowns a man
    /// that lands on the far row. An invalid move leaves the board as it was.
    pub fn play(&mut self, mover: Colour, mv: Move) -> Result<Played, Illegal> {
        let kind = self.check(mover, mv)?;
        let mut piece = self.get(mv.from).expect("checked: the mover's piece");
        self.set(mv.from, None);
        let captured = match kind {
            Kind::Jump => {
                let middle = mv.middle();
                let jumped = self.get(middle).expect("checked: an opponent's piece");
                self.set(middle, None);
                Some((middle, jumped))
            }
            Kind::Step => None,
        };
        let crowned = !piece.king && mv.to.y == mover.far_row();
        piece.king |= crowned;
        self.set(mv.to, Some(piece));
        Ok(Played { kind, captured, crowned })
    }

    /// Every valid move of the piece on `from` (steps and jumps), in a fixed order.
    pub fn moves_from(&self, mover: Colour, from: Square) -> Vec<Move> {
        let mut moves = Vec::new();
        for distance in [1, 2] {
            for (dx, dy) in [(-1, -1), (1, -1), (-1, 1), (1, 1)] {
                let to = Square::new(from.x + dx * distance, from.y + dy * distance);
                let mv = Move { from, to };
                if self.check(mover, mv).is_ok() {
                    moves.push(mv);
                }
            }
        }
        moves
    }

    /// Every valid move of `mover`, in a fixed order (by piece, row by row).
    pub fn legal_moves(&self, mover: Colour) -> Vec<Move> {
        self.pieces(mover).flat_map(|(square, _)| self.moves_from(mover, square)).collect()
    }

    /// The valid jumps of `mover`.
    pub fn jumps(&self, mover: Colour) -> Vec<Move> {
        self.legal_moves(mover).into_iter().filter(|mv| self.check(mover, *mv) == Ok(Kind::Jump)).collect()
    }

    /// True when the piece on `square` (of `mover`) could jump again: the situation where the
    /// official rules continue a multiple jump, which this handout ends (section 6).
    pub fn can_jump_from(&self, mover: Colour, square: Square) -> bool {
        self.moves_from(mover, square).iter().any(|mv| self.check(mover, *mv) == Ok(Kind::Jump))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn man(colour: Colour) -> Option<Piece> {
        Some(Piece { colour, king: false })
    }

    fn king(colour: Colour) -> Option<Piece> {
        Some(Piece { colour, king: true })
    }

    #[test]
    fn the_start_has_twelve_men_each_on_dark_squares() {
        let board = Board::start();
        assert_eq!(board.pieces(Colour::Red).count(), 12);
        assert_eq!(board.pieces(Colour::White).count(), 12);
        assert_eq!(board.get(Square::new(1, 0)), man(Colour::Red));
        assert_eq!(board.get(Square::new(0, 1)), man(Colour::Red));
        assert_eq!(board.get(Square::new(0, 5)), man(Colour::White));
        assert_eq!(board.get(Square::new(0, 0)), None);
        // Red's front row can step; nobody can jump.
        assert_eq!(board.legal_moves(Colour::Red).len(), 7);
        assert!(board.jumps(Colour::Red).is_empty());
    }

    #[test]
    fn every_condition_is_checked() {
        let mut board = Board::empty();
        board.set(Square::new(3, 2), man(Colour::Red));
        board.set(Square::new(4, 3), man(Colour::White));
        board.set(Square::new(2, 3), man(Colour::Red));
        let red = Colour::Red;
        assert_eq!(board.check(red, Move::new(3, 2, 3, 8)), Err(Illegal::OffBoard));
        assert_eq!(board.check(red, Move::new(-1, 2, 0, 3)), Err(Illegal::OffBoard));
        assert_eq!(board.check(red, Move::new(5, 2, 6, 3)), Err(Illegal::NotYourPiece));
        assert_eq!(board.check(red, Move::new(4, 3, 5, 4)), Err(Illegal::NotYourPiece));
        assert_eq!(board.check(red, Move::new(3, 2, 4, 3)), Err(Illegal::Occupied));
        assert_eq!(board.check(red, Move::new(3, 2, 3, 4)), Err(Illegal::NotADiagonalStepOrJump));
        assert_eq!(board.check(red, Move::new(3, 2, 0, 5)), Err(Illegal::NotADiagonalStepOrJump));
        assert_eq!(board.check(red, Move::new(3, 2, 2, 1)), Err(Illegal::Backwards));
        assert_eq!(board.check(red, Move::new(3, 2, 5, 4)), Ok(Kind::Jump));
        assert_eq!(board.check(red, Move::new(3, 2, 1, 4)), Err(Illegal::JumpOverOwn));
        assert_eq!(board.check(red, Move::new(2, 3, 0, 5)), Err(Illegal::JumpOverNothing));
        assert_eq!(board.check(red, Move::new(2, 3, 1, 4)), Ok(Kind::Step));
    }

    #[test]
    fn a_jump_removes_the_jumped_piece_and_a_man_is_crowned_on_the_far_row() {
        let mut board = Board::empty();
        board.set(Square::new(2, 5), man(Colour::Red));
        board.set(Square::new(3, 6), man(Colour::White));
        let played = board.play(Colour::Red, Move::new(2, 5, 4, 7)).unwrap();
        assert_eq!(played.kind, Kind::Jump);
        assert_eq!(played.captured, Some((Square::new(3, 6), Piece { colour: Colour::White, king: false })));
        assert!(played.crowned);
        assert_eq!(board.get(Square::new(3, 6)), None);
        assert_eq!(board.get(Square::new(4, 7)), king(Colour::Red));
        // A king steps and jumps backwards.
        board.set(Square::new(3, 6), man(Colour::White));
        assert_eq!(board.check(Colour::Red, Move::new(4, 7, 2, 5)), Ok(Kind::Jump));
        assert_eq!(board.check(Colour::Red, Move::new(4, 7, 5, 6)), Ok(Kind::Step));
    }

    #[test]
    fn an_invalid_move_changes_nothing() {
        let mut board = Board::start();
        let before = board.clone();
        assert_eq!(board.play(Colour::White, Move::new(1, 2, 0, 3)), Err(Illegal::NotYourPiece));
        assert_eq!(board, before);
    }

    #[test]
    fn a_white_man_is_crowned_on_row_zero_and_a_king_is_not_crowned_again() {
        let mut board = Board::empty();
        board.set(Square::new(1, 1), man(Colour::White));
        assert!(board.play(Colour::White, Move::new(1, 1, 0, 0)).unwrap().crowned);
        assert!(!board.play(Colour::White, Move::new(0, 0, 1, 1)).unwrap().crowned);
        assert!(!board.play(Colour::White, Move::new(1, 1, 2, 0)).unwrap().crowned);
    }
}
