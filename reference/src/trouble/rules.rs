//! Trouble's rules over the handout's data representation: pure state, legal moves, moves, the win test.
//!
//! No I/O here: the console and the driver print; this module only answers questions about a board.
//! The state is kept exactly as the handout's globals (`gPieces`, `gHome`, `gRing`, `gFinish`), so the
//! driver's `dump` is a plain copy of the arrays.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// Number of pieces in the game (`gPieces`): four per colour, ids `4 * colour .. 4 * colour + 4`.
pub const PIECES: usize = 16;
/// Number of squares on the Ring (`gRing`).
pub const RING: usize = 28;
/// Number of squares in each colour's Finish Line (`gFinish[c]`).
pub const FINISH: usize = 4;
/// Pieces per colour.
pub const PIECES_PER_COLOUR: usize = 4;
/// Integer of the Home location in `gPieces`, and of an empty square in `gRing` and `gFinish`.
pub const EMPTY: i32 = -1;

/// The four colours, numbered as in the handout ("Colors"): Red 0, Green 1, Yellow 2, Blue 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    /// Colour 0, pieces 0..3, start square R5 (4).
    Red,
    /// Colour 1, pieces 4..7, start square G5 (11).
    Green,
    /// Colour 2, pieces 8..11, start square Y5 (18).
    Yellow,
    /// Colour 3, pieces 12..15, start square B5 (25).
    Blue,
}

impl Colour {
    /// All colours in number order.
    pub const ALL: [Colour; 4] = [Colour::Red, Colour::Green, Colour::Yellow, Colour::Blue];

    /// The colour's number (0..=3).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour with this number, if it is 0..=3.
    pub fn from_index(index: usize) -> Option<Colour> {
        Colour::ALL.get(index).copied()
    }

    /// The colour of a piece id (`piece / 4`); `None` past piece 15.
    pub fn of_piece(piece: usize) -> Option<Colour> {
        Colour::from_index(piece / PIECES_PER_COLOUR)
    }

    /// The template's `gPlayerNames` entry: `Red`, `Green`, `Yellow`, `Blue`.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "Red",
            Colour::Green => "Green",
            Colour::Yellow => "Yellow",
            Colour::Blue => "Blue",
        }
    }

    /// The first letter of the name, used in location strings.
    pub fn letter(self) -> char {
        match self {
            Colour::Red => 'R',
            Colour::Green => 'G',
            Colour::Yellow => 'Y',
            Colour::Blue => 'B',
        }
    }

    /// The colour whose location strings start with this letter (upper case only, as the handout).
    pub fn from_letter(letter: char) -> Option<Colour> {
        Colour::ALL.into_iter().find(|c| c.letter() == letter)
    }

    /// Ring index of the colour's start square, square 5 of its region: `7 * colour + 4`.
    pub fn start(self) -> usize {
        7 * self.index() + 4
    }

    /// The colour's piece ids.
    pub fn pieces(self) -> Range<usize> {
        let first = self.index() * PIECES_PER_COLOUR;
        first..first + PIECES_PER_COLOUR
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A location on the board ("Positions on the Board").
///
/// The variants' numbers must be in range (ring index < 28, finish index < 4); the parsers and
/// [`Location::from_int`] only build such values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// Any square of the piece's own Home area: integer -1, string `H`.
    Home,
    /// Ring square 0..=27: colour region `x / 7`, number `x % 7 + 1` (`R1` is 0, `B7` is 27).
    Ring(usize),
    /// Finish Line square 0..=3 of a colour: integer `100 + 10 * colour + k`, string `RF1`..`BF4`.
    Finish(Colour, usize),
}

impl Location {
    /// The handout's integer for this location.
    pub fn to_int(self) -> i32 {
        // Both indices are small (< 28), so the casts are exact.
        match self {
            Location::Home => EMPTY,
            Location::Ring(x) => x as i32,
            Location::Finish(c, k) => 100 + 10 * c.index() as i32 + k as i32,
        }
    }

    /// The location of a handout integer, if it is one (-1, 0..=27, or `100 + 10c + k`).
    pub fn from_int(value: i32) -> Option<Location> {
        match value {
            EMPTY => Some(Location::Home),
            0..=27 => Some(Location::Ring(value as usize)),
            100..=133 if value % 10 < 4 => {
                let colour = Colour::from_index(((value - 100) / 10) as usize)?;
                Some(Location::Finish(colour, (value % 10) as usize))
            }
            _ => None,
        }
    }

    /// All 45 locations in a fixed order: `H`, the ring `R1`..`B7`, then `RF1`..`RF4`, ..., `BF1`..`BF4`.
    pub fn all() -> impl Iterator<Item = Location> {
        std::iter::once(Location::Home)
            .chain((0..RING).map(Location::Ring))
            .chain(Colour::ALL.into_iter().flat_map(|c| (0..FINISH).map(move |k| Location::Finish(c, k))))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Location::Home => f.write_str("H"),
            Location::Ring(x) => match Colour::from_index(x / 7) {
                Some(c) => write!(f, "{}{}", c.letter(), x % 7 + 1),
                None => write!(f, "?{x}"),
            },
            Location::Finish(c, k) => write!(f, "{}F{}", c.letter(), k + 1),
        }
    }
}

/// A string that is not one of the handout's 45 location strings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a location (H, R1..R7, G1..G7, Y1..Y7, B1..B7, RF1..RF4, GF1..GF4, YF1..YF4, BF1..BF4)"
)]
pub struct ParseLocationError(pub String);

impl FromStr for Location {
    type Err = ParseLocationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseLocationError(s.to_owned());
        if s == "H" {
            return Ok(Location::Home);
        }
        let mut chars = s.chars();
        let colour = chars.next().and_then(Colour::from_letter).ok_or_else(err)?;
        let rest = chars.as_str();
        let (finish, digits) = match rest.strip_prefix('F') {
            Some(digits) => (true, digits),
            None => (false, rest),
        };
        // Exactly one digit: "R01" or "R+1" is not a location string.
        let number = match digits.as_bytes() {
            [d @ b'1'..=b'7'] => usize::from(d - b'0'),
            _ => return Err(err()),
        };
        if finish {
            if number > FINISH {
                return Err(err());
            }
            Ok(Location::Finish(colour, number - 1))
        } else {
            Ok(Location::Ring(7 * colour.index() + number - 1))
        }
    }
}

/// One move: which piece goes where, and whom it sends Home.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// The piece id that moves (for a move out of Home, the lowest id at Home).
    pub piece: usize,
    /// Where it is.
    pub from: Location,
    /// Where it lands.
    pub to: Location,
    /// The piece of another colour on `to`, which goes back to its Home.
    pub captures: Option<usize>,
}

impl fmt::Display for Move {
    /// The handout's `printMoves` line without its newline: `X to Y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} to {}", self.from, self.to)
    }
}

/// Why `movePiece` would return 0: the move is well-formed but not legal on this board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The roll is not a die value.
    #[error("a roll is 1 to 6, not {0}")]
    BadRoll(u8),
    /// The player has no piece at Home to bring out.
    #[error("no {0} piece is at Home")]
    NoneAtHome(Colour),
    /// Leaving Home needs a 6.
    #[error("a piece leaves Home only on a roll of 6")]
    NeedsSix,
    /// The square holds no piece of the player.
    #[error("no {player} piece is on {from}")]
    NotYourPiece {
        /// The player moving.
        player: Colour,
        /// The square named.
        from: Location,
    },
    /// The target holds a piece of the same colour.
    #[error("{0} holds a piece of the same colour")]
    OwnPieceThere(Location),
    /// Past the last Finish Line square: entering and moving in the Finish Line need exact rolls.
    #[error("the roll overshoots the end of the Finish Line")]
    Overshoot,
}

/// Why a piece cannot be put on a square (the driver's `place`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    /// Piece ids are 0..=15.
    #[error("there is no piece {0} (pieces are 0..15)")]
    NoSuchPiece(usize),
    /// A location built with an index out of range.
    #[error("{0:?} is not a square of the board")]
    NoSuchSquare(Location),
    /// Each square holds one piece.
    #[error("{at} is already held by piece {by}")]
    Occupied {
        /// The square.
        at: Location,
        /// The piece on it.
        by: usize,
    },
    /// A piece only ever enters its own colour's Finish Line.
    #[error("piece {piece} is {colour}, so it cannot be in the Finish Line {at}")]
    OtherFinish {
        /// The piece.
        piece: usize,
        /// Its colour.
        colour: Colour,
        /// The square of another colour's Finish Line.
        at: Location,
    },
}

/// The state of a game, as the handout's four global arrays, always consistent with each other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    pieces: [i32; PIECES],
    home: [i32; 4],
    ring: [i32; RING],
    finish: [[i32; FINISH]; 4],
}

impl Default for Board {
    fn default() -> Self {
        Self::new()
    }
}

impl Board {
    /// The start of a game (`initializeBoard`): every piece at Home, the Ring and Finish Lines empty.
    pub fn new() -> Self {
        Self {
            pieces: [EMPTY; PIECES],
            home: [PIECES_PER_COLOUR as i32; 4],
            ring: [EMPTY; RING],
            finish: [[EMPTY; FINISH]; 4],
        }
    }

    /// `gPieces`: the integer location of each piece.
    pub fn pieces(&self) -> &[i32; PIECES] {
        &self.pieces
    }

    /// `gHome`: how many pieces of each colour are at Home.
    pub fn home(&self) -> &[i32; 4] {
        &self.home
    }

    /// `gRing`: the piece on each ring square, or -1.
    pub fn ring(&self) -> &[i32; RING] {
        &self.ring
    }

    /// `gFinish`: the piece on each Finish Line square of each colour, or -1.
    pub fn finish(&self) -> &[[i32; FINISH]; 4] {
        &self.finish
    }

    /// Where a piece is. Panics if `piece` is not 0..=15.
    pub fn location(&self, piece: usize) -> Location {
        Location::from_int(self.pieces[piece]).expect("the board keeps valid locations")
    }

    /// The piece on a ring or finish square; `None` for an empty square and for Home.
    pub fn occupant(&self, at: Location) -> Option<usize> {
        let id = match at {
            Location::Home => EMPTY,
            Location::Ring(x) => self.ring.get(x).copied().unwrap_or(EMPTY),
            Location::Finish(c, k) => self.finish[c.index()].get(k).copied().unwrap_or(EMPTY),
        };
        usize::try_from(id).ok()
    }

    /// Puts a piece on a square, wherever it was, keeping the four arrays consistent.
    ///
    /// Refuses a square held by another piece and another colour's Finish Line: a correct program's
    /// behaviour on such a board is not defined by the handout.
    pub fn place(&mut self, piece: usize, at: Location) -> Result<(), PlaceError> {
        let colour = Colour::of_piece(piece).ok_or(PlaceError::NoSuchPiece(piece))?;
        match at {
            Location::Ring(x) if x >= RING => return Err(PlaceError::NoSuchSquare(at)),
            Location::Finish(_, k) if k >= FINISH => return Err(PlaceError::NoSuchSquare(at)),
            Location::Finish(c, _) if c != colour => {
                return Err(PlaceError::OtherFinish { piece, colour, at })
            }
            _ => {}
        }
        match self.occupant(at) {
            Some(by) if by != piece => return Err(PlaceError::Occupied { at, by }),
            _ => {}
        }
        self.lift(piece);
        self.put(piece, at);
        Ok(())
    }

    /// The legal moves of `player` for `roll`, in `printMoves` order: the move out of Home first
    /// (one, however many pieces are at Home), then the other pieces in piece-id order.
    pub fn legal_moves(&self, player: Colour, roll: u8) -> Vec<Move> {
        let home = self.check_move(player, Location::Home, roll).ok();
        let others = player
            .pieces()
            .map(|piece| self.location(piece))
            .filter(|&from| from != Location::Home)
            .filter_map(|from| self.check_move(player, from, roll).ok());
        home.into_iter().chain(others).collect()
    }

    /// The move `movePiece(player, from, roll)` makes, or why it returns 0.
    pub fn check_move(&self, player: Colour, from: Location, roll: u8) -> Result<Move, IllegalMove> {
        if !(1..=6).contains(&roll) {
            return Err(IllegalMove::BadRoll(roll));
        }
        let steps = usize::from(roll);
        let not_yours = IllegalMove::NotYourPiece { player, from };
        let (piece, to) = match from {
            Location::Home => {
                let piece = player
                    .pieces()
                    .find(|&p| self.pieces[p] == EMPTY)
                    .ok_or(IllegalMove::NoneAtHome(player))?;
                if roll != 6 {
                    return Err(IllegalMove::NeedsSix);
                }
                (piece, Location::Ring(player.start()))
            }
            Location::Ring(x) => {
                let piece =
                    self.occupant(from).filter(|&p| Colour::of_piece(p) == Some(player)).ok_or(not_yours)?;
                // Squares travelled since the start square; a piece never passes its start again,
                // so 27 is its last ring square and 28..=31 are its Finish Line.
                let travelled = (x + RING - player.start()) % RING + steps;
                let to = match travelled {
                    0..=27 => Location::Ring((x + steps) % RING),
                    28..=31 => Location::Finish(player, travelled - RING),
                    _ => return Err(IllegalMove::Overshoot),
                };
                (piece, to)
            }
            Location::Finish(c, k) => {
                let piece = self.occupant(from).filter(|_| c == player).ok_or(not_yours)?;
                if k + steps >= FINISH {
                    return Err(IllegalMove::Overshoot);
                }
                (piece, Location::Finish(c, k + steps))
            }
        };
        let captures = match self.occupant(to) {
            Some(other) if Colour::of_piece(other) == Some(player) => {
                return Err(IllegalMove::OwnPieceThere(to))
            }
            other => other,
        };
        Ok(Move { piece, from, to, captures })
    }

    /// `movePiece`: makes the move if it is legal (sending a captured piece Home) and returns it;
    /// an illegal move leaves the board unchanged.
    pub fn play(&mut self, player: Colour, from: Location, roll: u8) -> Result<Move, IllegalMove> {
        let mv = self.check_move(player, from, roll)?;
        if let Some(victim) = mv.captures {
            self.lift(victim);
            self.put(victim, Location::Home);
        }
        self.lift(mv.piece);
        self.put(mv.piece, mv.to);
        Ok(mv)
    }

    /// `checkWin`: all four Finish Line squares of the colour are occupied.
    pub fn has_won(&self, player: Colour) -> bool {
        self.finish[player.index()].iter().all(|&id| id != EMPTY)
    }

    /// Takes a piece off its square (or out of the Home count); its `gPieces` entry is left stale.
    fn lift(&mut self, piece: usize) {
        match self.location(piece) {
            Location::Home => self.home[piece / PIECES_PER_COLOUR] -= 1,
            Location::Ring(x) => self.ring[x] = EMPTY,
            Location::Finish(c, k) => self.finish[c.index()][k] = EMPTY,
        }
    }

    /// Puts a lifted piece on a square (or back Home).
    fn put(&mut self, piece: usize, at: Location) {
        // Piece ids are < 16, so the cast is exact.
        let id = piece as i32;
        match at {
            Location::Home => self.home[piece / PIECES_PER_COLOUR] += 1,
            Location::Ring(x) => self.ring[x] = id,
            Location::Finish(c, k) => self.finish[c.index()][k] = id,
        }
        self.pieces[piece] = at.to_int();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(s: &str) -> Location {
        s.parse().unwrap()
    }

    fn board(placements: &[(usize, &str)]) -> Board {
        let mut b = Board::new();
        for &(piece, at) in placements {
            b.place(piece, loc(at)).unwrap();
        }
        b
    }

    fn moves(b: &Board, player: Colour, roll: u8) -> Vec<String> {
        b.legal_moves(player, roll).iter().map(ToString::to_string).collect()
    }

    /// The arrays agree with each other, whatever happened.
    fn assert_consistent(b: &Board) {
        for c in Colour::ALL {
            let at_home = c.pieces().filter(|&p| b.pieces[p] == EMPTY).count() as i32;
            assert_eq!(b.home[c.index()], at_home, "gHome of {c}");
        }
        for (x, &id) in b.ring.iter().enumerate() {
            if id != EMPTY {
                assert_eq!(b.pieces[id as usize], x as i32);
            }
        }
        for p in 0..PIECES {
            let at = b.location(p);
            if at != Location::Home {
                assert_eq!(b.occupant(at), Some(p));
            }
        }
    }

    #[test]
    fn the_45_location_strings_round_trip_through_their_integers() {
        let all: Vec<Location> = Location::all().collect();
        assert_eq!(all.len(), 45);
        for at in all {
            let s = at.to_string();
            assert_eq!(s.parse::<Location>(), Ok(at));
            assert_eq!(Location::from_int(at.to_int()), Some(at));
        }
        assert_eq!(loc("R1").to_int(), 0);
        assert_eq!(loc("B7").to_int(), 27);
        assert_eq!(loc("Y5").to_int(), 18);
        assert_eq!(loc("GF3").to_int(), 112);
        assert_eq!(loc("H").to_int(), -1);
    }

    #[test]
    fn malformed_location_strings_are_parse_errors() {
        for s in ["", "h", "R0", "R8", "RF0", "RF5", "R01", "X1", "RF", "R", "r1", "Q", "R1 ", "HH"] {
            assert!(s.parse::<Location>().is_err(), "{s:?}");
        }
        for v in [-2, 28, 99, 104, 134, 140] {
            assert_eq!(Location::from_int(v), None, "{v}");
        }
    }

    #[test]
    fn start_squares_are_square_5_of_each_region() {
        let starts: Vec<String> = Colour::ALL.iter().map(|c| Location::Ring(c.start()).to_string()).collect();
        assert_eq!(starts, ["R5", "G5", "Y5", "B5"]);
        assert_eq!(Colour::Yellow.start(), 18);
        assert_eq!(Colour::Blue.start(), 25);
    }

    #[test]
    fn a_six_is_needed_to_leave_home() {
        let b = Board::new();
        for roll in 1..=5 {
            assert!(b.legal_moves(Colour::Red, roll).is_empty());
            assert_eq!(b.check_move(Colour::Red, Location::Home, roll), Err(IllegalMove::NeedsSix));
        }
        assert_eq!(moves(&b, Colour::Red, 6), ["H to R5"]);
        assert_eq!(moves(&b, Colour::Blue, 6), ["H to B5"]);
    }

    #[test]
    fn leaving_home_takes_the_lowest_piece_at_home() {
        let mut b = board(&[(0, "G2")]);
        let mv = b.play(Colour::Red, Location::Home, 6).unwrap();
        assert_eq!(mv.piece, 1);
        assert_eq!(b.pieces()[1], 4);
        assert_eq!(b.home()[0], 2);
        assert_consistent(&b);
    }

    #[test]
    fn one_home_move_is_listed_however_many_pieces_are_home_and_it_comes_first() {
        let b = board(&[(2, "Y1")]);
        assert_eq!(moves(&b, Colour::Red, 6), ["H to R5", "Y1 to Y7"]);
    }

    #[test]
    fn moves_are_listed_in_piece_id_order_after_home() {
        let b = board(&[(3, "R1"), (0, "G2"), (1, "B3")]);
        assert_eq!(moves(&b, Colour::Red, 1), ["G2 to G3", "B3 to B4", "R1 to R2"]);
    }

    #[test]
    fn a_start_square_held_by_the_same_colour_blocks_leaving_home() {
        let b = board(&[(0, "R5"), (1, "R6")]);
        // R5 + 6 = G4 is free, but H to R5 is not possible.
        assert_eq!(moves(&b, Colour::Red, 6), ["R5 to G4", "R6 to G5"]);
        assert_eq!(b.check_move(Colour::Red, Location::Home, 6), Err(IllegalMove::OwnPieceThere(loc("R5"))));
    }

    #[test]
    fn capture_at_start_sends_the_piece_home() {
        let mut b = board(&[(9, "R5")]);
        let mv = b.play(Colour::Red, Location::Home, 6).unwrap();
        assert_eq!(mv.captures, Some(9));
        assert_eq!(b.location(9), Location::Home);
        assert_eq!(b.location(0), loc("R5"));
        assert_eq!(b.home(), &[3, 4, 4, 4]);
        assert_consistent(&b);
    }

    #[test]
    fn landing_on_another_colour_sends_it_home_and_it_keeps_its_id() {
        let mut b = board(&[(0, "Y1"), (8, "Y6")]);
        b.play(Colour::Red, loc("Y1"), 5).unwrap();
        assert_eq!(b.pieces()[8], -1);
        assert_eq!(b.ring()[loc("Y6").to_int() as usize], 0);
        assert_eq!(b.home()[2], 4);
        assert_consistent(&b);
    }

    #[test]
    fn landing_on_the_same_colour_is_illegal_but_jumping_over_is_not() {
        let b = board(&[(0, "G1"), (1, "G3"), (8, "G2")]);
        assert_eq!(b.check_move(Colour::Red, loc("G1"), 2), Err(IllegalMove::OwnPieceThere(loc("G3"))));
        assert!(b.check_move(Colour::Red, loc("G1"), 3).is_ok());
    }

    #[test]
    fn an_exact_roll_enters_the_finish_line() {
        // R4 is Red's last ring square; R1 is four squares before the finish.
        let b = board(&[(0, "R4"), (1, "R1")]);
        assert_eq!(moves(&b, Colour::Red, 1), ["R4 to RF1", "R1 to R2"]);
        assert_eq!(moves(&b, Colour::Red, 4), ["R4 to RF4", "R1 to RF1"]);
        let yellow = board(&[(8, "Y4")]);
        assert_eq!(moves(&yellow, Colour::Yellow, 3), ["Y4 to YF3"]);
    }

    #[test]
    fn a_piece_never_passes_its_start_again() {
        let b = board(&[(4, "G4")]);
        // Green's start is G5: from G4 every roll enters the Finish Line or overshoots it.
        assert_eq!(moves(&b, Colour::Green, 2), ["G4 to GF2"]);
        // Red passing G5 (Green's start) just goes on around the ring.
        let r = board(&[(0, "G4")]);
        assert_eq!(moves(&r, Colour::Red, 2), ["G4 to G6"]);
    }

    #[test]
    fn overshooting_the_finish_line_is_illegal() {
        let b = board(&[(0, "R4"), (1, "RF3")]);
        assert_eq!(b.check_move(Colour::Red, loc("R4"), 5), Err(IllegalMove::Overshoot));
        assert_eq!(b.check_move(Colour::Red, loc("RF3"), 2), Err(IllegalMove::Overshoot));
        assert!(moves(&b, Colour::Red, 5).is_empty());
    }

    #[test]
    fn moving_inside_the_finish_line_is_legal_when_the_target_is_free() {
        let mut b = board(&[(0, "RF1"), (1, "RF3")]);
        assert_eq!(moves(&b, Colour::Red, 1), ["RF1 to RF2", "RF3 to RF4"]);
        assert_eq!(b.check_move(Colour::Red, loc("RF1"), 2), Err(IllegalMove::OwnPieceThere(loc("RF3"))));
        b.play(Colour::Red, loc("RF1"), 1).unwrap();
        assert_eq!(b.finish()[0], [-1, 0, 1, -1]);
        assert_consistent(&b);
    }

    #[test]
    fn a_full_finish_line_wins() {
        let mut b = board(&[(12, "BF1"), (13, "BF2"), (14, "BF4"), (15, "B3")]);
        assert!(!b.has_won(Colour::Blue));
        // Blue starts on B5 (25); B3 (23) is 26 squares on, so a 4 reaches 30: BF3.
        assert_eq!(moves(&b, Colour::Blue, 4), ["B3 to BF3"]);
        b.play(Colour::Blue, loc("B3"), 4).unwrap();
        assert!(b.has_won(Colour::Blue));
        assert!(!b.has_won(Colour::Red));
        assert_consistent(&b);
    }

    #[test]
    fn three_pieces_home_do_not_win() {
        let b = board(&[(0, "RF1"), (1, "RF2"), (2, "RF3")]);
        assert!(!b.has_won(Colour::Red));
    }

    #[test]
    fn only_the_players_own_pieces_move() {
        let b = board(&[(4, "R1"), (0, "RF1")]);
        let err = IllegalMove::NotYourPiece { player: Colour::Red, from: loc("R1") };
        assert_eq!(b.check_move(Colour::Red, loc("R1"), 1), Err(err));
        assert!(b.check_move(Colour::Green, loc("RF1"), 1).is_err());
        assert!(b.check_move(Colour::Red, loc("R2"), 1).is_err());
        assert_eq!(b.check_move(Colour::Green, Location::Home, 6).unwrap().piece, 5);
    }

    #[test]
    fn an_illegal_move_leaves_the_board_unchanged() {
        let mut b = board(&[(0, "R4"), (1, "RF2")]);
        let before = b.clone();
        assert!(b.play(Colour::Red, loc("R4"), 2).is_err());
        assert!(b.play(Colour::Red, Location::Home, 6).is_ok());
        let after_home = b.clone();
        assert!(b.play(Colour::Red, loc("RF2"), 3).is_err());
        assert_eq!(b, after_home);
        assert_ne!(b, before);
    }

    #[test]
    fn rolls_outside_one_to_six_have_no_moves() {
        let b = board(&[(0, "R1")]);
        assert!(b.legal_moves(Colour::Red, 0).is_empty());
        assert!(b.legal_moves(Colour::Red, 7).is_empty());
    }

    #[test]
    fn placing_keeps_the_arrays_consistent_and_refuses_occupied_squares() {
        let mut b = board(&[(0, "G1")]);
        assert_eq!(b.place(5, loc("G1")), Err(PlaceError::Occupied { at: loc("G1"), by: 0 }));
        assert!(matches!(b.place(0, loc("GF1")), Err(PlaceError::OtherFinish { .. })));
        assert_eq!(b.place(16, loc("R1")), Err(PlaceError::NoSuchPiece(16)));
        b.place(0, loc("G1")).unwrap();
        b.place(0, loc("RF2")).unwrap();
        b.place(0, Location::Home).unwrap();
        assert_eq!(b, Board::new());
    }
}
