//! Backgammon as the handout defines it: the course's globals, the validity of a move, turns with two
//! dice, and the answers of the required check functions of section 8.1.
//!
//! No I/O here: the console and the driver print; this module only answers questions about a board.
//! The state is kept exactly as the course's globals (`the_board_white`, `the_board_red`, the bars,
//! `num_white`, `num_red`), so the driver's `dump` is a plain copy of them.

use std::fmt;

/// Points on the board (`BOARD_SIZE`): 1..=24.
pub const BOARD_SIZE: i32 = 24;
/// Checkers per colour (`NUM_PIECES`).
pub const NUM_PIECES: i32 = 15;
/// What the check functions return for a valid move (`VALID_MOVE`).
pub const VALID_MOVE: i32 = 1;
/// What the check functions return for an invalid move (`INVALID_MOVE`).
pub const INVALID_MOVE: i32 = 2;

/// The two players, numbered as the course header does (`WHITE` 1, `RED` 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    /// `WHITE`: moves from 24 toward 1, home on 1..=6, enters from the bar counting from 25.
    White = 1,
    /// `RED`: moves from 1 toward 24, home on 19..=24, enters from the bar counting from 0.
    Red = 2,
}

impl Colour {
    /// Both colours, White first (White moves first).
    pub const ALL: [Colour; 2] = [Colour::White, Colour::Red];

    /// The header's number: `WHITE` 1, `RED` 2.
    pub fn number(self) -> i32 {
        self as i32
    }

    /// The name printed in prompts and on the bar line: `White`, `Red`.
    pub fn name(self) -> &'static str {
        match self {
            Colour::White => "White",
            Colour::Red => "Red",
        }
    }

    /// The letter of a checker on the board: `W`, `R`.
    pub fn letter(self) -> char {
        match self {
            Colour::White => 'W',
            Colour::Red => 'R',
        }
    }

    /// The other player.
    pub fn opponent(self) -> Colour {
        match self {
            Colour::White => Colour::Red,
            Colour::Red => Colour::White,
        }
    }

    /// Where a checker entering from the bar with this die lands (section 4): white counts from 25,
    /// so a 4 enters on 21; red counts from 0, so a 4 enters on 4.
    pub fn entry_point(self, die: u8) -> i32 {
        match self {
            Colour::White => 25 - i32::from(die),
            Colour::Red => i32::from(die),
        }
    }

    /// The number of points from `point` until a checker of this colour is off the board (section 5):
    /// white bears off past point 1, red past point 24. Also the checker's distance from home's end,
    /// so a larger value is a checker further back.
    pub fn distance_off(self, point: i32) -> i32 {
        match self {
            Colour::White => point,
            Colour::Red => 25 - point,
        }
    }

    /// Whether `point` is in this colour's home quadrant: 1..=6 for white, 19..=24 for red.
    pub fn is_home(self, point: i32) -> bool {
        (1..=6).contains(&self.distance_off(point))
    }

    /// Whether going from `from` to `to` is this colour's direction (condition 2 of section 3.2): the
    /// difference `from - to` is positive for white and negative for red.
    pub fn is_forward(self, from: i32, to: i32) -> bool {
        match self {
            Colour::White => from - to > 0,
            Colour::Red => from - to < 0,
        }
    }

    /// The point `steps` points forward from `from` (may be off the board).
    pub fn advance(self, from: i32, steps: i32) -> i32 {
        match self {
            Colour::White => from - steps,
            Colour::Red => from + steps,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `index` is a point of the board (condition 1 of section 3.2).
pub fn in_bounds(index: i32) -> bool {
    (1..=BOARD_SIZE).contains(&index)
}

/// The two numbers a player types: an originating and a destination point, 0 standing for the bar
/// (`0 N`, an entry move) or for off the board (`N 0`, bearing off). `0 0` ends the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The first number: the originating point, or 0 for the bar.
    pub from: i32,
    /// The second number: the destination point, or 0 for off the board.
    pub to: i32,
}

impl Move {
    /// `0 0`, the termination move of section 6.
    pub const QUIT: Move = Move { from: 0, to: 0 };

    /// The move `from to`.
    pub fn new(from: i32, to: i32) -> Self {
        Self { from, to }
    }

    /// Which kind of move the numbers ask for (`None` for `0 0`, which is no move at all).
    pub fn kind(self) -> Option<MoveKind> {
        match (self.from, self.to) {
            (0, 0) => None,
            (0, _) => Some(MoveKind::Entry),
            (_, 0) => Some(MoveKind::BearOff),
            _ => Some(MoveKind::Basic),
        }
    }
}

impl fmt::Display for Move {
    /// The move as typed: the two numbers separated by a space.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.from, self.to)
    }
}

/// The three kinds of move of sections 3 to 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Section 3: from a point to a point.
    Basic,
    /// Section 4: `0 N`, from the bar onto the board.
    Entry,
    /// Section 5: `N 0`, off the board.
    BearOff,
}

/// Why a move is invalid with a die; the console prints `Invalid move` for all of them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// A die shows 1 to 6.
    #[error("a die shows 1 to 6, not {0}")]
    BadDie(u8),
    /// `0 0` ends the program; it is not a move.
    #[error("0 0 ends the program; it is not a move")]
    Quit,
    /// Both dice of the turn are used.
    #[error("both dice of the turn are used")]
    NoDieLeft,
    /// Condition 1: the numbers of a move are points 1..=24 (0 only for the bar or off the board).
    #[error("{0} is not a point of the board (1 to 24)")]
    OffBoard(i32),
    /// Condition 2: white moves toward 1, red toward 24.
    #[error("{mover} does not move from {from} to {to}: wrong direction")]
    WrongDirection {
        /// The player moving.
        mover: Colour,
        /// The originating point.
        from: i32,
        /// The destination point.
        to: i32,
    },
    /// Condition 3 (and its entry form): the distance must be the die.
    #[error("the move goes {distance} points, but the die shows {die}")]
    WrongDistance {
        /// Points travelled (for an entry, counted from 25 or 0).
        distance: i32,
        /// The die.
        die: u8,
    },
    /// Condition 4: the originating point holds none of the mover's checkers.
    #[error("no {mover} checker is on point {point}")]
    NoChecker {
        /// The player moving.
        mover: Colour,
        /// The originating point.
        point: i32,
    },
    /// Condition 5: two or more of the opponent's checkers hold the destination.
    #[error("point {point} holds {count} of the opponent's checkers")]
    Blocked {
        /// The destination point.
        point: i32,
        /// The opponent's checkers there.
        count: i32,
    },
    /// Section 4: while a checker of the mover is on the bar, only entry moves are valid.
    #[error("{0} has a checker on the bar, which must enter first")]
    MustEnter(Colour),
    /// Section 4: `0 N` with none of the mover's checkers on the bar.
    #[error("{0} has no checker on the bar")]
    NothingOnBar(Colour),
    /// Section 5: bearing off only once all the mover's checkers are in the home quadrant.
    #[error("{0} still has checkers outside its home quadrant")]
    NotAllHome(Colour),
    /// Section 5: the points to go until off must not exceed the die.
    #[error("the checker is {distance} points from off, more than the die {die}")]
    TooFar {
        /// Points from the originating point until off.
        distance: i32,
        /// The die.
        die: u8,
    },
}

/// A count that cannot be put on the board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// Points are 1..=24.
    #[error("there is no point {0} (points are 1 to 24)")]
    NoSuchPoint(i32),
    /// Counts of checkers are not negative.
    #[error("a count of checkers is not negative ({0})")]
    Negative(i32),
}

/// What a valid move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The move.
    pub mv: Move,
    /// Its kind.
    pub kind: MoveKind,
    /// Whether it hit a single opposing checker, sending it to the bar.
    pub hit: bool,
}

/// The course's globals (`board.c`): checkers per point of each colour (index 0 unused), on each bar,
/// and in play (`num_white`, `num_red`: on the points and on the bar; bearing off lowers them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    white: [i32; 25],
    red: [i32; 25],
    bar_white: i32,
    bar_red: i32,
    num_white: i32,
    num_red: i32,
}

impl Board {
    /// The start of the game (section 1): white 2 on 24, 5 on 13, 3 on 8, 5 on 6; red 2 on 1, 5 on
    /// 12, 3 on 17, 5 on 19; bars empty; 15 of each in play.
    pub fn start() -> Self {
        let mut board = Self::empty();
        for (point, count) in [(24, 2), (13, 5), (8, 3), (6, 5)] {
            board.white[point] = count;
            board.red[25 - point] = count;
        }
        board.num_white = NUM_PIECES;
        board.num_red = NUM_PIECES;
        board
    }

    /// No checker anywhere, both counts 0 (the driver's `clear`).
    pub fn empty() -> Self {
        Self { white: [0; 25], red: [0; 25], bar_white: 0, bar_red: 0, num_white: 0, num_red: 0 }
    }

    /// `the_board_white` or `the_board_red`: the checkers of a colour on each point, index 0 unused.
    pub fn points(&self, colour: Colour) -> &[i32; 25] {
        match colour {
            Colour::White => &self.white,
            Colour::Red => &self.red,
        }
    }

    fn points_mut(&mut self, colour: Colour) -> &mut [i32; 25] {
        match colour {
            Colour::White => &mut self.white,
            Colour::Red => &mut self.red,
        }
    }

    /// The checkers of a colour on a point; 0 for anything that is not a point 1..=24.
    pub fn count(&self, colour: Colour, point: i32) -> i32 {
        if in_bounds(point) {
            self.points(colour)[point as usize]
        } else {
            0
        }
    }

    /// `the_bar_white` or `the_bar_red`.
    pub fn bar(&self, colour: Colour) -> i32 {
        match colour {
            Colour::White => self.bar_white,
            Colour::Red => self.bar_red,
        }
    }

    fn bar_mut(&mut self, colour: Colour) -> &mut i32 {
        match colour {
            Colour::White => &mut self.bar_white,
            Colour::Red => &mut self.bar_red,
        }
    }

    /// `num_white` or `num_red`: the colour's checkers in play, on the points and on the bar.
    pub fn num(&self, colour: Colour) -> i32 {
        match colour {
            Colour::White => self.num_white,
            Colour::Red => self.num_red,
        }
    }

    fn num_mut(&mut self, colour: Colour) -> &mut i32 {
        match colour {
            Colour::White => &mut self.num_white,
            Colour::Red => &mut self.num_red,
        }
    }

    /// Sets the checkers of a colour on a point and adds the change to its `num` (the driver's `set`).
    pub fn set_count(&mut self, colour: Colour, point: i32, count: i32) -> Result<(), BoardError> {
        if !in_bounds(point) {
            return Err(BoardError::NoSuchPoint(point));
        }
        if count < 0 {
            return Err(BoardError::Negative(count));
        }
        let slot = &mut self.points_mut(colour)[point as usize];
        let change = count - *slot;
        *slot = count;
        *self.num_mut(colour) += change;
        Ok(())
    }

    /// Sets the checkers of a colour on the bar and adds the change to its `num` (the driver's `bar`).
    pub fn set_bar(&mut self, colour: Colour, count: i32) -> Result<(), BoardError> {
        if count < 0 {
            return Err(BoardError::Negative(count));
        }
        let change = count - self.bar(colour);
        *self.bar_mut(colour) = count;
        *self.num_mut(colour) += change;
        Ok(())
    }

    /// The first point holding checkers of both colours, which no game reaches.
    pub fn mixed_point(&self) -> Option<i32> {
        (1..=BOARD_SIZE).find(|&p| self.count(Colour::White, p) > 0 && self.count(Colour::Red, p) > 0)
    }

    /// Whether every checker of the colour still in play is in its home quadrant: none on the bar and
    /// none on the points outside home (7..=24 for white, 1..=18 for red). Bearing off needs this.
    pub fn all_home(&self, colour: Colour) -> bool {
        self.bar(colour) == 0 && (1..=BOARD_SIZE).all(|p| colour.is_home(p) || self.count(colour, p) == 0)
    }

    /// Whether `mv` is a valid move for `mover` with `die`, and of which kind; a correct
    /// `check_move(mover, from, to, die)` returns `VALID_MOVE` exactly when this is `Ok`.
    ///
    /// The checks: the handout's conditions 1 to 5 for basic moves (section 3.2); for `0 N`, a
    /// checker on the bar, the entry point of the die and condition 5 (section 4); while a checker is
    /// on the bar, nothing else (section 4); for `N 0`, a checker on the point, all checkers home and
    /// a distance to off no larger than the die (section 5).
    pub fn check(&self, mover: Colour, mv: Move, die: u8) -> Result<MoveKind, IllegalMove> {
        if !(1..=6).contains(&die) {
            return Err(IllegalMove::BadDie(die));
        }
        let kind = mv.kind().ok_or(IllegalMove::Quit)?;
        match kind {
            MoveKind::Entry => {
                if self.bar(mover) == 0 {
                    return Err(IllegalMove::NothingOnBar(mover));
                }
                self.check_entry(mover, mv.to, die)?;
            }
            _ if self.bar(mover) > 0 => return Err(IllegalMove::MustEnter(mover)),
            MoveKind::BearOff => self.check_bear_off(mover, mv.from, die)?,
            MoveKind::Basic => self.check_basic(mover, mv, die)?,
        }
        Ok(kind)
    }

    /// Conditions 1 to 5 of section 3.2, the bar aside.
    fn check_basic(&self, mover: Colour, mv: Move, die: u8) -> Result<(), IllegalMove> {
        let Move { from, to } = mv;
        for point in [from, to] {
            if !in_bounds(point) {
                return Err(IllegalMove::OffBoard(point));
            }
        }
        check_die(mover, from, to, die)?;
        if self.count(mover, from) == 0 {
            return Err(IllegalMove::NoChecker { mover, point: from });
        }
        self.check_destination(mover, to)
    }

    /// Section 4 for `0 to`, the mover's bar aside: the entry point of the die, and condition 5.
    fn check_entry(&self, mover: Colour, to: i32, die: u8) -> Result<(), IllegalMove> {
        if !in_bounds(to) {
            return Err(IllegalMove::OffBoard(to));
        }
        if to != mover.entry_point(die) {
            // Counted from 25 for white, from 0 for red.
            let distance = mover.opponent().distance_off(to);
            return Err(IllegalMove::WrongDistance { distance, die });
        }
        self.check_destination(mover, to)
    }

    /// Section 5 for `from 0`, the mover's bar aside.
    fn check_bear_off(&self, mover: Colour, from: i32, die: u8) -> Result<(), IllegalMove> {
        if !in_bounds(from) {
            return Err(IllegalMove::OffBoard(from));
        }
        if self.count(mover, from) == 0 {
            return Err(IllegalMove::NoChecker { mover, point: from });
        }
        if !self.all_home(mover) {
            return Err(IllegalMove::NotAllHome(mover));
        }
        let distance = mover.distance_off(from);
        if distance > i32::from(die) {
            return Err(IllegalMove::TooFar { distance, die });
        }
        Ok(())
    }

    /// Condition 5: at most one opposing checker on the destination.
    fn check_destination(&self, mover: Colour, to: i32) -> Result<(), IllegalMove> {
        let count = self.count(mover.opponent(), to);
        if count >= 2 {
            return Err(IllegalMove::Blocked { point: to, count });
        }
        Ok(())
    }

    /// Makes `mv` for `mover` if it is valid with `die`: a hit sends the single opposing checker to its
    /// bar, bearing off takes the checker out of play. An invalid move leaves the board unchanged.
    pub fn play(&mut self, mover: Colour, mv: Move, die: u8) -> Result<Played, IllegalMove> {
        let kind = self.check(mover, mv, die)?;
        if kind == MoveKind::Entry {
            *self.bar_mut(mover) -= 1;
        } else {
            self.points_mut(mover)[mv.from as usize] -= 1;
        }
        let mut hit = false;
        if kind == MoveKind::BearOff {
            *self.num_mut(mover) -= 1;
        } else {
            let to = mv.to as usize;
            let opponent = mover.opponent();
            if self.points(opponent)[to] == 1 {
                self.points_mut(opponent)[to] = 0;
                *self.bar_mut(opponent) += 1;
                hit = true;
            }
            self.points_mut(mover)[to] += 1;
        }
        Ok(Played { mv, kind, hit })
    }

    /// Every valid move of `mover` with `die`, ordered by originating point (the bar first).
    pub fn valid_moves(&self, mover: Colour, die: u8) -> Vec<Move> {
        let steps = i32::from(die);
        let candidates = if self.bar(mover) > 0 {
            vec![Move::new(0, mover.entry_point(die))]
        } else {
            (1..=BOARD_SIZE)
                .filter(|&p| self.count(mover, p) > 0)
                .flat_map(|p| [Move::new(p, mover.advance(p, steps)), Move::new(p, 0)])
                .collect()
        };
        candidates.into_iter().filter(|&mv| self.check(mover, mv, die).is_ok()).collect()
    }

    /// Whether `mover` could hit with `mv`: its destination holds exactly one opposing checker.
    pub fn would_hit(&self, mover: Colour, mv: Move) -> bool {
        mv.to != 0 && self.count(mover.opponent(), mv.to) == 1
    }
}

/// Conditions 2 and 3 of section 3.2 for a basic move: the direction of `from - to`, and its size.
fn check_die(mover: Colour, from: i32, to: i32, die: u8) -> Result<(), IllegalMove> {
    if !mover.is_forward(from, to) {
        return Err(IllegalMove::WrongDirection { mover, from, to });
    }
    let distance = (from - to).abs();
    if distance != i32::from(die) {
        return Err(IllegalMove::WrongDistance { distance, die });
    }
    Ok(())
}

/// One player's turn (sections 3.1 and 3.2): two dice, two moves. The first move may use either die,
/// tried in roll order (the first that makes the move valid is used); the second must use the other.
/// Doubles give two moves of the same value, no more (section 7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    mover: Colour,
    dice: (u8, u8),
    remaining: Vec<u8>,
}

impl Turn {
    /// The turn of `mover` with the dice in the order rolled.
    pub fn new(mover: Colour, dice: (u8, u8)) -> Self {
        Self { mover, dice, remaining: vec![dice.0, dice.1] }
    }

    /// Whose turn it is.
    pub fn mover(&self) -> Colour {
        self.mover
    }

    /// The dice in the order rolled.
    pub fn dice(&self) -> (u8, u8) {
        self.dice
    }

    /// The dice not used yet, in roll order.
    pub fn remaining(&self) -> &[u8] {
        &self.remaining
    }

    /// Whether both moves have been made.
    pub fn is_over(&self) -> bool {
        self.remaining.is_empty()
    }

    /// The die a move would use: the first remaining die, in roll order, that makes it valid. The
    /// error is the reason the move is invalid with the first remaining die.
    pub fn die_for(&self, board: &Board, mv: Move) -> Result<u8, IllegalMove> {
        let mut first_error = None;
        for &die in &self.remaining {
            match board.check(self.mover, mv, die) {
                Ok(_) => return Ok(die),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or(IllegalMove::NoDieLeft))
    }

    /// Makes a move with the die [`Turn::die_for`] picks and uses that die up.
    pub fn play(&mut self, board: &mut Board, mv: Move) -> Result<(u8, Played), IllegalMove> {
        let die = self.die_for(board, mv)?;
        let played = board.play(self.mover, mv, die)?;
        if let Some(i) = self.remaining.iter().position(|&d| d == die) {
            self.remaining.remove(i);
        }
        Ok((die, played))
    }

    /// Every move valid with some remaining die, in the order of [`Board::valid_moves`], without
    /// repeats.
    pub fn valid_moves(&self, board: &Board) -> Vec<Move> {
        valid_moves_with(board, self.mover, &self.remaining)
    }
}

/// Every move of `mover` valid with at least one of `dice`, without repeats, in the order of
/// [`Board::valid_moves`] for the first die, then the new ones of the next.
pub fn valid_moves_with(board: &Board, mover: Colour, dice: &[u8]) -> Vec<Move> {
    let mut moves = Vec::new();
    for &die in dice {
        for mv in board.valid_moves(mover, die) {
            if !moves.contains(&mv) {
                moves.push(mv);
            }
        }
    }
    moves
}

/// What a required check function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// `VALID_MOVE` (1).
    Valid,
    /// `INVALID_MOVE` (2).
    Invalid,
}

impl Validity {
    /// The header's value: `VALID_MOVE` 1 or `INVALID_MOVE` 2.
    pub fn value(self) -> i32 {
        match self {
            Validity::Valid => VALID_MOVE,
            Validity::Invalid => INVALID_MOVE,
        }
    }

    fn of(valid: bool) -> Self {
        if valid {
            Validity::Valid
        } else {
            Validity::Invalid
        }
    }
}

/// A query the handout leaves open: two correct programs may answer it differently, so no case may
/// depend on it. The text says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Open(pub String);

/// The answer of a required function: a return value, or open.
pub type Answer = Result<Validity, Open>;

/// The required functions of section 8.1 that take `(mover, from, to, die)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckFunction {
    /// `check_move`: is the move valid with this die, of whatever kind.
    CheckMove,
    /// `check_basic_move`: is it a valid basic move (section 3).
    CheckBasicMove,
    /// `check_entry_move`: is it a valid entry move (section 4).
    CheckEntryMove,
    /// `check_bear_off_move`: is it a valid bearing off move (section 5).
    CheckBearOffMove,
    /// `check_die`: conditions 2 and 3 of section 3.2.
    CheckDie,
}

impl CheckFunction {
    /// All five, in the handout's order.
    pub const ALL: [CheckFunction; 5] = [
        CheckFunction::CheckMove,
        CheckFunction::CheckBasicMove,
        CheckFunction::CheckEntryMove,
        CheckFunction::CheckBearOffMove,
        CheckFunction::CheckDie,
    ];

    /// The C name.
    pub fn name(self) -> &'static str {
        match self {
            CheckFunction::CheckMove => "check_move",
            CheckFunction::CheckBasicMove => "check_basic_move",
            CheckFunction::CheckEntryMove => "check_entry_move",
            CheckFunction::CheckBearOffMove => "check_bear_off_move",
            CheckFunction::CheckDie => "check_die",
        }
    }

    /// The function of a C name.
    pub fn from_name(name: &str) -> Option<CheckFunction> {
        CheckFunction::ALL.into_iter().find(|f| f.name() == name)
    }

    /// What a correct implementation returns for `(mover, from, to, die)` on `board`, or why the
    /// handout leaves it open.
    ///
    /// Open: any query on a board no game reaches (a point holding both colours, more than 15
    /// checkers of a colour), except `check_die`, which does not read the board; `check_move` on
    /// `0 0` (the program ends before checking it); each per-kind function on a move of another kind
    /// (section 8.1 lets `check_move` dispatch on the kind, so they may assume theirs);
    /// `check_basic_move` and `check_bear_off_move` while the mover has a checker on the bar (the
    /// handout does not say whether they or `check_move` check the bar); `check_entry_move` with the
    /// mover's bar empty (likewise); `check_die` with a number outside 1..=24 (its conditions are
    /// those of a basic move; how it counts from the bar or off the board is the student's design).
    pub fn answer(self, board: &Board, mover: Colour, from: i32, to: i32, die: u8) -> Answer {
        if !(1..=6).contains(&die) {
            return Err(Open(format!("a die shows 1 to 6, not {die}")));
        }
        if self == CheckFunction::CheckDie {
            if !in_bounds(from) || !in_bounds(to) {
                return Err(Open(format!(
                    "check_die on {from} {to}: how it counts from the bar (0) or off the board, or \
                     treats numbers outside 1..24, is left to the student's design"
                )));
            }
            return Ok(Validity::of(check_die(mover, from, to, die).is_ok()));
        }
        reachable(board)?;
        let mv = Move::new(from, to);
        let Some(kind) = mv.kind() else {
            return Err(Open(format!("{}(0, 0): the program ends at 0 0 without checking it", self.name())));
        };
        let on_bar = board.bar(mover) > 0;
        let other_kind = |expected: &str| {
            Err(Open(format!(
                "{} on {mv}, which is not {expected}: check_move may dispatch on the kind of move, so \
                 the function may assume its own kind",
                self.name()
            )))
        };
        let bar_open = |owner: &str| {
            Err(Open(format!(
                "{} while {mover} has a checker on the bar: the handout does not say whether {owner} \
                 checks the bar",
                self.name()
            )))
        };
        let valid = match self {
            CheckFunction::CheckMove => board.check(mover, mv, die).is_ok(),
            CheckFunction::CheckBasicMove => {
                if kind != MoveKind::Basic {
                    return other_kind("a basic move");
                }
                if on_bar {
                    return bar_open("it or check_move");
                }
                board.check_basic(mover, mv, die).is_ok()
            }
            CheckFunction::CheckEntryMove => {
                if kind != MoveKind::Entry {
                    return other_kind("an entry move (0 N)");
                }
                if !on_bar {
                    return Err(Open(format!(
                        "check_entry_move while {mover} has no checker on the bar: the handout does not \
                         say whether it or check_move checks the bar"
                    )));
                }
                board.check_entry(mover, to, die).is_ok()
            }
            CheckFunction::CheckBearOffMove => {
                if kind != MoveKind::BearOff {
                    return other_kind("a bearing off move (N 0)");
                }
                if on_bar {
                    return bar_open("it or check_move");
                }
                board.check_bear_off(mover, from, die).is_ok()
            }
            CheckFunction::CheckDie => unreachable!("answered above"),
        };
        Ok(Validity::of(valid))
    }
}

/// `check_board_bounds(index)`: condition 1 of section 3.2, defined for every int.
pub fn check_board_bounds(index: i32) -> Validity {
    Validity::of(in_bounds(index))
}

/// Whether a game could reach this board; the check functions' answers are open otherwise.
pub fn reachable(board: &Board) -> Result<(), Open> {
    if let Some(point) = board.mixed_point() {
        return Err(Open(format!("point {point} holds checkers of both colours, which no game reaches")));
    }
    for colour in Colour::ALL {
        let total = board.points(colour)[1..].iter().sum::<i32>() + board.bar(colour);
        if total > NUM_PIECES {
            return Err(Open(format!(
                "{colour} has {total} checkers in play, more than the {NUM_PIECES} of a game"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(white: &[(i32, i32)], red: &[(i32, i32)]) -> Board {
        let mut b = Board::empty();
        for &(p, n) in white {
            b.set_count(Colour::White, p, n).unwrap();
        }
        for &(p, n) in red {
            b.set_count(Colour::Red, p, n).unwrap();
        }
        b
    }

    fn mv(from: i32, to: i32) -> Move {
        Move::new(from, to)
    }

    #[test]
    fn the_start_position_mirrors_the_colours() {
        let b = Board::start();
        for p in 1..=24 {
            assert_eq!(b.count(Colour::White, p), b.count(Colour::Red, 25 - p), "point {p}");
        }
        assert_eq!(b.points(Colour::White)[1..].iter().sum::<i32>(), 15);
        assert_eq!((b.num(Colour::White), b.num(Colour::Red)), (15, 15));
        assert_eq!(b.count(Colour::White, 13), 5);
        assert_eq!(b.count(Colour::Red, 17), 3);
        assert_eq!(b.mixed_point(), None);
    }

    #[test]
    fn the_five_conditions_of_a_basic_move() {
        let b = Board::start();
        let w = Colour::White;
        assert_eq!(b.check(w, mv(24, 23), 1), Ok(MoveKind::Basic));
        assert_eq!(b.check(w, mv(24, 25), 1), Err(IllegalMove::OffBoard(25)));
        assert_eq!(b.check(w, mv(-1, 3), 4), Err(IllegalMove::OffBoard(-1)));
        assert!(matches!(b.check(w, mv(13, 14), 1), Err(IllegalMove::WrongDirection { .. })));
        assert_eq!(b.check(w, mv(24, 22), 1), Err(IllegalMove::WrongDistance { distance: 2, die: 1 }));
        assert_eq!(b.check(w, mv(23, 22), 1), Err(IllegalMove::NoChecker { mover: w, point: 23 }));
        // Red's checkers are not white's to move.
        assert_eq!(b.check(w, mv(12, 11), 1), Err(IllegalMove::NoChecker { mover: w, point: 12 }));
        assert_eq!(b.check(w, mv(24, 19), 5), Err(IllegalMove::Blocked { point: 19, count: 5 }));
        assert_eq!(b.check(Colour::Red, mv(12, 14), 2), Ok(MoveKind::Basic));
        assert!(b.check(Colour::Red, mv(12, 10), 2).is_err());
    }

    #[test]
    fn a_single_opposing_checker_is_hit_and_goes_to_the_bar() {
        let mut b = board(&[(24, 1)], &[(20, 1)]);
        let played = b.play(Colour::White, mv(24, 20), 4).unwrap();
        assert!(played.hit);
        assert_eq!((b.count(Colour::White, 20), b.count(Colour::Red, 20)), (1, 0));
        assert_eq!(b.bar(Colour::Red), 1);
        // Hit checkers stay in play.
        assert_eq!((b.num(Colour::White), b.num(Colour::Red)), (1, 1));
    }

    #[test]
    fn landing_on_own_checkers_is_no_hit() {
        let mut b = board(&[(24, 1), (20, 3)], &[]);
        assert!(!b.play(Colour::White, mv(24, 20), 4).unwrap().hit);
        assert_eq!(b.count(Colour::White, 20), 4);
    }

    #[test]
    fn a_checker_on_the_bar_must_enter_before_anything_else() {
        let mut b = board(&[(13, 2)], &[(3, 1)]);
        b.set_bar(Colour::White, 1).unwrap();
        assert_eq!(b.check(Colour::White, mv(13, 11), 2), Err(IllegalMove::MustEnter(Colour::White)));
        assert_eq!(b.valid_moves(Colour::White, 4), [mv(0, 21)]);
        assert_eq!(b.check(Colour::White, mv(0, 21), 4), Ok(MoveKind::Entry));
        assert!(matches!(b.check(Colour::White, mv(0, 4), 4), Err(IllegalMove::WrongDistance { .. })));
        // Red enters counting from 0: a 3 enters on 3.
        b.set_bar(Colour::Red, 1).unwrap();
        assert_eq!(b.valid_moves(Colour::Red, 3), [mv(0, 3)]);
        b.play(Colour::White, mv(0, 21), 4).unwrap();
        assert_eq!((b.bar(Colour::White), b.count(Colour::White, 21)), (0, 1));
    }

    #[test]
    fn an_entry_onto_two_opposing_checkers_is_blocked_and_onto_one_hits() {
        let mut b = board(&[(2, 2), (4, 1)], &[]);
        b.set_bar(Colour::Red, 1).unwrap();
        assert_eq!(b.check(Colour::Red, mv(0, 2), 2), Err(IllegalMove::Blocked { point: 2, count: 2 }));
        assert!(b.play(Colour::Red, mv(0, 4), 4).unwrap().hit);
        assert_eq!(b.bar(Colour::White), 1);
    }

    #[test]
    fn zero_n_needs_a_checker_on_the_bar() {
        let b = Board::start();
        assert_eq!(b.check(Colour::White, mv(0, 21), 4), Err(IllegalMove::NothingOnBar(Colour::White)));
        assert_eq!(b.check(Colour::White, mv(0, 0), 4), Err(IllegalMove::Quit));
    }

    #[test]
    fn bearing_off_needs_every_checker_home_and_a_large_enough_die() {
        let b = board(&[(6, 2), (3, 1)], &[(24, 1)]);
        assert_eq!(b.check(Colour::White, mv(3, 0), 3), Ok(MoveKind::BearOff));
        assert_eq!(b.check(Colour::White, mv(3, 0), 5), Ok(MoveKind::BearOff));
        assert_eq!(b.check(Colour::White, mv(6, 0), 5), Err(IllegalMove::TooFar { distance: 6, die: 5 }));
        assert_eq!(b.check(Colour::Red, mv(24, 0), 1), Ok(MoveKind::BearOff));
        let outside = board(&[(7, 1), (3, 1)], &[]);
        assert_eq!(outside.check(Colour::White, mv(3, 0), 6), Err(IllegalMove::NotAllHome(Colour::White)));
        let mut barred = board(&[(3, 1)], &[]);
        barred.set_bar(Colour::White, 1).unwrap();
        assert_eq!(barred.check(Colour::White, mv(3, 0), 6), Err(IllegalMove::MustEnter(Colour::White)));
        let mut off = b;
        off.play(Colour::White, mv(3, 0), 4).unwrap();
        assert_eq!((off.count(Colour::White, 3), off.num(Colour::White)), (0, 2));
    }

    #[test]
    fn a_move_uses_the_first_die_in_roll_order_and_the_second_move_the_other() {
        let mut b = Board::start();
        let mut turn = Turn::new(Colour::White, (4, 1));
        assert_eq!(turn.play(&mut b, mv(24, 23)).unwrap().0, 1);
        assert_eq!(turn.remaining(), [4]);
        // The 1 is used up: the same distance again is invalid.
        assert!(turn.play(&mut b, mv(23, 22)).is_err());
        assert_eq!(turn.play(&mut b, mv(13, 9)).unwrap().0, 4);
        assert!(turn.is_over());

        // Bearing off from 2 is valid with a 2 and with a 3: the first die rolled is used.
        let home = board(&[(2, 2), (3, 1)], &[]);
        assert_eq!(Turn::new(Colour::White, (3, 2)).die_for(&home, mv(2, 0)), Ok(3));
        assert_eq!(Turn::new(Colour::White, (2, 3)).die_for(&home, mv(2, 0)), Ok(2));
    }

    #[test]
    fn doubles_give_two_moves_only() {
        let mut b = Board::start();
        let mut turn = Turn::new(Colour::Red, (3, 3));
        turn.play(&mut b, mv(17, 20)).unwrap();
        turn.play(&mut b, mv(17, 20)).unwrap();
        assert!(turn.is_over());
        assert!(turn.valid_moves(&b).is_empty());
    }

    #[test]
    fn valid_moves_are_exactly_the_checked_ones() {
        let b = Board::start();
        for colour in Colour::ALL {
            for die in 1..=6 {
                let listed = b.valid_moves(colour, die);
                let mut all = Vec::new();
                for from in -2..=27 {
                    for to in -2..=27 {
                        if b.check(colour, mv(from, to), die).is_ok() {
                            all.push(mv(from, to));
                        }
                    }
                }
                assert_eq!(listed, all, "{colour} {die}");
            }
        }
        assert_eq!(Board::start().valid_moves(Colour::White, 6), [mv(8, 2), mv(13, 7), mv(24, 18)]);
    }

    #[test]
    fn the_required_functions_answer_where_the_handout_defines_them() {
        use CheckFunction::*;
        let b = Board::start();
        let w = Colour::White;
        assert_eq!(CheckMove.answer(&b, w, 24, 23, 1), Ok(Validity::Valid));
        assert_eq!(CheckMove.answer(&b, w, 0, 23, 2), Ok(Validity::Invalid));
        assert_eq!(CheckBasicMove.answer(&b, w, 24, 19, 5), Ok(Validity::Invalid));
        assert_eq!(CheckDie.answer(&b, w, 10, 7, 3), Ok(Validity::Valid));
        // check_die does not look at the board: an empty point is fine.
        assert_eq!(CheckDie.answer(&b, w, 11, 7, 4), Ok(Validity::Valid));
        assert_eq!(CheckDie.answer(&b, w, 7, 10, 3), Ok(Validity::Invalid));
        assert_eq!(check_board_bounds(0), Validity::Invalid);
        assert_eq!(check_board_bounds(24), Validity::Valid);
        assert_eq!(Validity::Invalid.value(), 2);
    }

    #[test]
    fn the_required_functions_are_open_where_the_handout_is() {
        use CheckFunction::*;
        let w = Colour::White;
        let start = Board::start();
        let mut barred = start;
        barred.set_count(w, 24, 1).unwrap();
        barred.set_bar(w, 1).unwrap();
        let open = [
            (CheckMove, &start, 0, 0, 1),
            (CheckBasicMove, &start, 0, 21, 4),
            (CheckBasicMove, &barred, 13, 11, 2),
            (CheckEntryMove, &start, 0, 21, 4),
            (CheckEntryMove, &barred, 24, 21, 3),
            (CheckBearOffMove, &barred, 6, 0, 6),
            (CheckBearOffMove, &start, 6, 5, 1),
            (CheckDie, &start, 0, 21, 4),
            (CheckDie, &start, 3, 0, 3),
            (CheckDie, &start, 26, 25, 1),
            (CheckMove, &start, 24, 23, 7),
        ];
        for (f, b, from, to, die) in open {
            assert!(f.answer(b, w, from, to, die).is_err(), "{} {from} {to} {die}", f.name());
        }
        let mut mixed = start;
        mixed.set_count(Colour::Red, 24, 1).unwrap();
        assert!(CheckMove.answer(&mixed, w, 13, 12, 1).is_err());
        let mut crowded = start;
        crowded.set_count(w, 3, 1).unwrap();
        assert!(CheckMove.answer(&crowded, w, 13, 12, 1).unwrap_err().0.contains("16 checkers"));
        // check_die reads no board.
        assert_eq!(CheckDie.answer(&mixed, w, 13, 12, 1), Ok(Validity::Valid));
    }
}
