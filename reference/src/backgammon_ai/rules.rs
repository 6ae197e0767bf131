//! Full backgammon (handout 002, appendix A) in the absolute numbering of the wire: the position, the
//! legal plays of a roll, the check of a written play, and the result of a finished game. Pure.
//!
//! Numbering (spec "Coordinates on the wire"): black moves from 24 toward 1, enters on `25 - d` and
//! bears off from 1-6; white moves from 1 toward 24, enters on `d` and bears off from 19-24. Inside
//! this module a colour's *own* numbering is often handier: own point `i` is `i` for black and
//! `25 - i` for white, so that every colour moves from 24 toward 1, with the bar as own point 25 and
//! off as own point 0.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;

/// Checkers per colour.
pub const CHECKERS: u8 = 15;

/// Own number of the bar: a checker there is 25 points from off.
const BAR: u8 = 25;

/// A player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    /// Moves from 24 toward 1; home board 1-6.
    Black,
    /// Moves from 1 toward 24; home board 19-24.
    White,
}

impl Colour {
    /// Both colours, black first.
    pub const ALL: [Colour; 2] = [Colour::Black, Colour::White];

    /// The other player.
    pub fn opponent(self) -> Colour {
        match self {
            Colour::Black => Colour::White,
            Colour::White => Colour::Black,
        }
    }

    /// `black` or `white`, as the protocol writes it.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Black => "black",
            Colour::White => "white",
        }
    }

    /// The absolute point of this colour's own point `own` (1..=24), and the reverse: the mapping is
    /// its own inverse (identity for black, `25 - p` for white).
    pub fn absolute(self, own: u8) -> u8 {
        match self {
            Colour::Black => own,
            Colour::White => 25 - own,
        }
    }

    /// The absolute point where a checker of this colour enters from the bar with `die`: `25 - die`
    /// for black, `die` for white.
    pub fn entry_point(self, die: u8) -> u8 {
        self.absolute(25 - die)
    }

    fn index(self) -> usize {
        self as usize
    }

    /// +1 for black's checkers in the signed board array, -1 for white's.
    fn sign(self) -> i8 {
        match self {
            Colour::Black => 1,
            Colour::White => -1,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Colour {
    type Err = WireError;

    /// `black` or `white`, in any letter case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Colour::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| WireError::new(format!("`{text}` is not a colour (black or white)")))
    }
}

/// Text that is not in the wire format: a position, a point, a checker move or a play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WireError(pub String);

impl WireError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// Where a checker is: on the bar, on a numbered point (absolute, 1..=24), or borne off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Point {
    /// The bar: hit checkers wait here to enter.
    Bar,
    /// A point of the board, in the absolute numbering (1..=24).
    Board(u8),
    /// Borne off.
    Off,
}

impl Point {
    /// This point in `colour`'s own numbering: the bar 25, off 0; `None` for a board number that is
    /// not 1..=24.
    fn own(self, colour: Colour) -> Option<u8> {
        match self {
            Point::Bar => Some(BAR),
            Point::Off => Some(0),
            Point::Board(n) if (1..=24).contains(&n) => Some(colour.absolute(n)),
            Point::Board(_) => None,
        }
    }

    /// The point whose own number for `colour` is `own` (0 off, 25 the bar).
    fn from_own(colour: Colour, own: u8) -> Point {
        match own {
            0 => Point::Off,
            BAR => Point::Bar,
            n => Point::Board(colour.absolute(n)),
        }
    }
}

impl fmt::Display for Point {
    /// `bar`, `off` or the number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Point::Bar => f.write_str("bar"),
            Point::Off => f.write_str("off"),
            Point::Board(n) => write!(f, "{n}"),
        }
    }
}

impl FromStr for Point {
    type Err = WireError;

    /// `bar`, `off` (in any letter case) or a number 1..=24.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.eq_ignore_ascii_case("bar") {
            return Ok(Point::Bar);
        }
        if text.eq_ignore_ascii_case("off") {
            return Ok(Point::Off);
        }
        match text.parse::<u8>() {
            Ok(n) if (1..=24).contains(&n) && text.bytes().all(|b| b.is_ascii_digit()) => Ok(Point::Board(n)),
            _ => Err(WireError::new(format!("`{text}` is not a point (1 to 24, bar or off)"))),
        }
    }
}

/// One checker moved by one die: `FROM/TO` on the wire (`13/7`, `bar/22`, `3/off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CheckerMove {
    /// Where the checker was.
    pub from: Point,
    /// Where it lands.
    pub to: Point,
}

impl CheckerMove {
    /// The move `from/to`.
    pub fn new(from: Point, to: Point) -> Self {
        Self { from, to }
    }
}

impl fmt::Display for CheckerMove {
    /// `FROM/TO`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.from, self.to)
    }
}

impl FromStr for CheckerMove {
    type Err = WireError;

    /// `FROM/TO`, each a [`Point`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (from, to) = text
            .split_once('/')
            .ok_or_else(|| WireError::new(format!("`{text}` is not a checker move (FROM/TO)")))?;
        Ok(Self { from: from.parse()?, to: to.parse()? })
    }
}

/// The checker moves of a play separated by whitespace; an empty (or blank) text is the empty play.
pub fn parse_play(text: &str) -> Result<Vec<CheckerMove>, WireError> {
    text.split_whitespace().map(str::parse).collect()
}

/// The checker moves of a play, in order, separated by single spaces; the empty play is `""`.
pub fn format_play(moves: &[CheckerMove]) -> String {
    moves.iter().map(CheckerMove::to_string).collect::<Vec<_>>().join(" ")
}

/// Both colours' checkers: on the 24 points, on the bar, borne off. Small and `Copy`; hashable, so
/// that plays can be told apart by the position they reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Index `p - 1` for absolute point `p`: black's checkers counted positive, white's negative.
    points: [i8; 24],
    /// Checkers on the bar, indexed by [`Colour::index`].
    bar: [u8; 2],
    /// Checkers borne off, indexed by [`Colour::index`].
    off: [u8; 2],
}

impl Position {
    /// The start of a game: black 2 on 24, 5 on 13, 3 on 8, 5 on 6; white 2 on 1, 5 on 12, 3 on 17,
    /// 5 on 19.
    pub fn start() -> Self {
        let mut position = EMPTY;
        for colour in Colour::ALL {
            for (own, count) in [(24, 2), (13, 5), (8, 3), (6, 5)] {
                position.set_own(colour, own, count);
            }
        }
        position
    }

    /// A position from where each colour's checkers are: `(point, count)` pairs (a point may appear
    /// more than once; counts add up); every checker not listed is borne off. An error when a colour
    /// has more than 15, a board number is not 1..=24, or a point would hold both colours.
    pub fn from_counts(black: &[(Point, u8)], white: &[(Point, u8)]) -> Result<Self, WireError> {
        let mut position = EMPTY;
        for (colour, list) in [(Colour::Black, black), (Colour::White, white)] {
            let mut total = 0u32;
            for &(point, count) in list.iter().filter(|&&(_, count)| count > 0) {
                total += u32::from(count);
                if total > u32::from(CHECKERS) {
                    return Err(WireError::new(format!("{colour} has more than {CHECKERS} checkers")));
                }
                match point {
                    Point::Bar => position.bar[colour.index()] += count,
                    Point::Off => position.off[colour.index()] += count,
                    Point::Board(n) => {
                        if !(1..=24).contains(&n) {
                            return Err(WireError::new(format!("there is no point {n}")));
                        }
                        if position.count(point, colour.opponent()) > 0 {
                            return Err(WireError::new(format!("point {n} holds both colours")));
                        }
                        let own = colour.absolute(n);
                        position.set_own(colour, own, position.mine(colour, own) + count);
                    }
                }
            }
            let listed = total as u8 - position.off[colour.index()];
            position.off[colour.index()] = CHECKERS - listed;
        }
        Ok(position)
    }

    /// A position from a compact text per colour, handy in test data: items `POINT` or
    /// `POINTxCOUNT` separated by spaces or commas, `POINT` a number, `bar` or `off`
    /// (`"bar 6x2 5"`); every checker not listed is borne off.
    pub fn from_lists(black: &str, white: &str) -> Result<Self, WireError> {
        fn items(text: &str) -> Result<Vec<(Point, u8)>, WireError> {
            text.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|item| !item.is_empty())
                .map(|item| match item.split_once('x') {
                    Some((point, count)) => Ok((point.parse()?, parse_count(count)?)),
                    None => Ok((item.parse()?, 1)),
                })
                .collect()
        }
        Self::from_counts(&items(black)?, &items(white)?)
    }

    /// The spec's `position` answer: `position black:LIST white:LIST bar:B,W off:B,W`, each LIST
    /// the colour's points as `POINTxCOUNT` joined by commas in descending point order. A colour with
    /// no checker on the points has an empty list: nothing after its colon (`black: white:19x2 ...`).
    pub fn to_wire(&self) -> String {
        let list = |colour: Colour| {
            (1..=24u8)
                .rev()
                .filter_map(|p| {
                    let n = self.count(Point::Board(p), colour);
                    (n > 0).then(|| format!("{p}x{n}"))
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "position black:{} white:{} bar:{},{} off:{},{}",
            list(Colour::Black),
            list(Colour::White),
            self.bar[0],
            self.bar[1],
            self.off[0],
            self.off[1]
        )
    }

    /// Reads [`Position::to_wire`]'s format back (the leading word `position` may be left out;
    /// fields are separated by runs of whitespace). An error unless the four fields come in order,
    /// each list is in strictly descending point order with counts of at least 1, no point holds both
    /// colours, and each colour has exactly 15 checkers on the points, on the bar and off.
    pub fn from_wire(text: &str) -> Result<Self, WireError> {
        let mut fields = text.split_whitespace().peekable();
        if fields.peek() == Some(&"position") {
            fields.next();
        }
        let mut field = |name: &str| {
            let field = fields.next().ok_or_else(|| WireError::new(format!("`{name}:` is missing")))?;
            field
                .strip_prefix(name)
                .and_then(|f| f.strip_prefix(':'))
                .ok_or_else(|| WireError::new(format!("`{field}` where `{name}:` was expected")))
        };
        let (black, white, bar, off) = (field("black")?, field("white")?, field("bar")?, field("off")?);
        if let Some(extra) = fields.next() {
            return Err(WireError::new(format!("`{extra}` after the position")));
        }
        let list = |text: &str| -> Result<Vec<(Point, u8)>, WireError> {
            let mut items = Vec::new();
            let mut last = 25;
            for item in text.split(',').filter(|_| !text.is_empty()) {
                let (point, count) = item
                    .split_once('x')
                    .ok_or_else(|| WireError::new(format!("`{item}` is not POINTxCOUNT")))?;
                let point: Point = point.parse()?;
                let Point::Board(p) = point else {
                    return Err(WireError::new(format!("`{item}` is not POINTxCOUNT")));
                };
                let count = parse_count(count)?;
                if count == 0 {
                    return Err(WireError::new(format!("`{item}`: a listed point holds a checker")));
                }
                if p >= last {
                    return Err(WireError::new(format!("`{item}`: points go in descending order")));
                }
                last = p;
                items.push((point, count));
            }
            Ok(items)
        };
        let pair = |name: &str, text: &str| -> Result<(u8, u8), WireError> {
            let (b, w) = text
                .split_once(',')
                .ok_or_else(|| WireError::new(format!("`{name}:{text}` is not {name}:B,W")))?;
            Ok((parse_count(b)?, parse_count(w)?))
        };
        let (bar, off) = (pair("bar", bar)?, pair("off", off)?);
        let mut black = list(black)?;
        let mut white = list(white)?;
        black.extend([(Point::Bar, bar.0), (Point::Off, off.0)]);
        white.extend([(Point::Bar, bar.1), (Point::Off, off.1)]);
        for (colour, list) in [(Colour::Black, &black), (Colour::White, &white)] {
            let total: u32 = list.iter().map(|&(_, n)| u32::from(n)).sum();
            if total != u32::from(CHECKERS) {
                return Err(WireError::new(format!("{colour} has {total} checkers, not {CHECKERS}")));
            }
        }
        Self::from_counts(&black, &white)
    }

    /// `colour`'s checkers on `point` (on the bar, borne off, or on a board point).
    ///
    /// # Panics
    ///
    /// When a board point is not 1..=24.
    pub fn count(&self, point: Point, colour: Colour) -> u8 {
        match point {
            Point::Bar => self.bar(colour),
            Point::Off => self.off(colour),
            Point::Board(n) => {
                assert!((1..=24).contains(&n), "there is no point {n}");
                self.mine(colour, colour.absolute(n))
            }
        }
    }

    /// `colour`'s checkers on the bar.
    pub fn bar(&self, colour: Colour) -> u8 {
        self.bar[colour.index()]
    }

    /// `colour`'s checkers borne off.
    pub fn off(&self, colour: Colour) -> u8 {
        self.off[colour.index()]
    }

    /// The owner and number of checkers on a board point (`None` when it is empty).
    ///
    /// # Panics
    ///
    /// When `point` is not 1..=24.
    pub fn occupant(&self, point: u8) -> Option<(Colour, u8)> {
        let v = self.points[usize::from(point) - 1];
        match v.signum() {
            1 => Some((Colour::Black, v as u8)),
            -1 => Some((Colour::White, v.unsigned_abs())),
            _ => None,
        }
    }

    /// `colour`'s pip count: the sum over its checkers of the points each still has to travel to be
    /// off (25 for one on the bar).
    pub fn pip_count(&self, colour: Colour) -> u32 {
        (1..=BAR).map(|own| u32::from(own) * u32::from(self.mine(colour, own))).sum()
    }

    /// Whether all of `colour`'s checkers still in play are in its home board, so that it may bear
    /// off.
    pub fn all_home(&self, colour: Colour) -> bool {
        self.bar(colour) == 0 && (7..=24).all(|own| self.mine(colour, own) == 0)
    }

    /// `colour`'s checkers on its own point `own`: 1..=24 on the board, 25 the bar, 0 off.
    pub(crate) fn mine(&self, colour: Colour, own: u8) -> u8 {
        match own {
            0 => self.off(colour),
            BAR => self.bar(colour),
            _ => {
                let v = self.points[usize::from(colour.absolute(own)) - 1] * colour.sign();
                v.max(0) as u8
            }
        }
    }

    /// The opponent's checkers on `colour`'s own point `own` (1..=24).
    pub(crate) fn theirs(&self, colour: Colour, own: u8) -> u8 {
        let v = self.points[usize::from(colour.absolute(own)) - 1] * colour.sign();
        (-v).max(0) as u8
    }

    /// Sets `colour`'s checkers on its own board point `own` (1..=24).
    fn set_own(&mut self, colour: Colour, own: u8, count: u8) {
        self.points[usize::from(colour.absolute(own)) - 1] = count as i8 * colour.sign();
    }

    /// The highest own point holding one of `colour`'s checkers (25 for the bar, 0 when all are off).
    fn highest(&self, colour: Colour) -> u8 {
        if self.bar(colour) > 0 {
            return BAR;
        }
        (1..=24).rev().find(|&own| self.mine(colour, own) > 0).unwrap_or(0)
    }

    /// The position after one of `colour`'s checkers goes from own point `from` to own point `to`
    /// (0 is off), hitting a blot there. No check of legality.
    fn moved(&self, colour: Colour, from: u8, to: u8) -> Position {
        let mut next = *self;
        if from == BAR {
            next.bar[colour.index()] -= 1;
        } else {
            next.set_own(colour, from, self.mine(colour, from) - 1);
        }
        if to == 0 {
            next.off[colour.index()] += 1;
        } else {
            if self.theirs(colour, to) == 1 {
                next.bar[colour.opponent().index()] += 1;
                next.set_own(colour, to, 0);
            }
            next.set_own(colour, to, next.mine(colour, to) + 1);
        }
        next
    }

    /// The position after `colour` plays one checker from own point `from` (25 the bar) with `die`,
    /// when the checker move is legal by itself; the caller sees to the bar rule and that `from`
    /// holds a checker.
    fn step(&self, colour: Colour, from: u8, die: u8) -> Option<(Position, CheckerMove)> {
        let target = i16::from(from) - i16::from(die);
        let to = if target >= 1 {
            if self.theirs(colour, target as u8) >= 2 {
                return None;
            }
            target as u8
        } else {
            // Bearing off: all home, and a die larger than needed only from the highest point.
            if !self.all_home(colour) || (target < 0 && self.highest(colour) > from) {
                return None;
            }
            0
        };
        let mv = CheckerMove::new(Point::from_own(colour, from), Point::from_own(colour, to));
        Some((self.moved(colour, from, to), mv))
    }

    /// The position after `colour`'s checker moves as written, whatever the dice and the rules, as long
    /// as each moves a checker of `colour` that is there onto a point it can share (not one held by two
    /// or more opposing checkers); a lone opposing checker is hit. `None` otherwise. What a program that
    /// played an illegal move now believes, so that a game can go on in its world.
    pub fn apply_unchecked(&self, colour: Colour, moves: &[CheckerMove]) -> Option<Position> {
        let mut position = *self;
        for mv in moves {
            let from = mv.from.own(colour)?;
            let to = mv.to.own(colour)?;
            let there = if from == BAR { position.bar(colour) } else { position.mine(colour, from) };
            if from == 0 || to == BAR || there == 0 || (to != 0 && position.theirs(colour, to) >= 2) {
                return None;
            }
            position = position.moved(colour, from, to);
        }
        Some(position)
    }

    /// Every position one checker move of `colour` with `die` reaches, with the move: from the bar
    /// when a checker is there, else from each occupied point, furthest back first.
    fn steps(&self, colour: Colour, die: u8) -> Steps {
        let mut steps = Steps::none();
        if self.bar(colour) > 0 {
            steps.extend(self.step(colour, BAR, die));
        } else {
            for own in (1..=24u8).rev() {
                if self.mine(colour, own) > 0 {
                    steps.extend(self.step(colour, own, die));
                }
            }
        }
        steps
    }
}

/// No checker anywhere: only a filler for [`Steps`].
const EMPTY: Position = Position { points: [0; 24], bar: [0; 2], off: [0; 2] };

/// The checker moves of one die from one position, kept on the stack (the generator's inner loop):
/// at most one per occupied point, so at most 15.
struct Steps {
    len: usize,
    items: [(Position, CheckerMove); 15],
}

impl Steps {
    fn none() -> Self {
        Steps { len: 0, items: [(EMPTY, CheckerMove::new(Point::Off, Point::Off)); 15] }
    }

    fn extend(&mut self, step: Option<(Position, CheckerMove)>) {
        if let Some(step) = step {
            self.items[self.len] = step;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[(Position, CheckerMove)] {
        &self.items[..self.len]
    }
}

impl fmt::Display for Position {
    /// The wire form, [`Position::to_wire`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_wire())
    }
}

fn parse_count(text: &str) -> Result<u8, WireError> {
    match text.parse::<u8>() {
        Ok(n) if n <= CHECKERS && text.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(WireError::new(format!("`{text}` is not a count of checkers (0 to {CHECKERS})"))),
    }
}

/// One legal play of a roll: the checker moves in the order made, and the position they reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalPlay {
    /// The checker moves, in order (a checker moving twice appears twice).
    pub moves: Vec<CheckerMove>,
    /// The position after the play.
    pub result: Position,
}

/// A fast hasher for positions (FxHash's multiply-rotate): the default SipHash costs more than the
/// move generation it serves, and positions are not attacker-controlled.
#[derive(Default)]
struct PositionHasher(u64);

impl Hasher for PositionHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

type FastBuild = BuildHasherDefault<PositionHasher>;

/// What the generator learns of a roll: the legal plays and the rule that selected them.
struct Generated {
    plays: Vec<LegalPlay>,
    /// The most dice any sequence of checker moves can use (0 when nothing moves).
    max_dice: usize,
    /// With two different dice of which only one can be used: whether the higher one can.
    higher_only: bool,
}

fn check_dice(dice: (u8, u8)) {
    assert!((1..=6).contains(&dice.0) && (1..=6).contains(&dice.1), "dice show 1 to 6, not {dice:?}");
}

/// Every legal play of `colour` with `dice` in `position`, one per distinct resulting position (two
/// orders of the same checker moves are one play), sorted by their moves.
///
/// The full rules: a double is four moves of its value; a play uses as many dice as any sequence of
/// legal checker moves can; when only one of two different dice can be used, the higher one if it
/// can; checkers on the bar enter first; a blot is hit; a point held by two or more opposing
/// checkers is closed, also as the intermediate landing of a checker moving twice; bearing off only
/// with all 15 home (or off), exactly, or from the highest point with a larger die. When nothing can
/// move, the one play is the empty play with the same position.
///
/// # Panics
///
/// When a die is not 1..=6.
pub fn legal_plays(position: &Position, colour: Colour, dice: (u8, u8)) -> Vec<LegalPlay> {
    generate(position, colour, dice).plays
}

/// Whether every legal play of `colour` with `dice` moves exactly two checkers: what
/// `legal_plays(..).iter().all(|p| p.moves.len() == 2)` says, without listing the plays. With two
/// different dice that is whether some checker move of one die leaves one of the other (a play uses
/// as many dice as any sequence can): a few steps, where listing the plays hashes and sorts them.
/// The referee asks it of every roll at every turn, to find the plain ones.
///
/// # Panics
///
/// When a die is not 1..=6.
pub fn every_play_uses_two_dice(position: &Position, colour: Colour, dice: (u8, u8)) -> bool {
    check_dice(dice);
    if dice.0 == dice.1 {
        return legal_plays(position, colour, dice).iter().all(|p| p.moves.len() == 2);
    }
    [(dice.0, dice.1), (dice.1, dice.0)].into_iter().any(|(first, second)| {
        let steps = position.steps(colour, first);
        steps.as_slice().iter().any(|(after, _)| after.steps(colour, second).len > 0)
    })
}

fn generate(position: &Position, colour: Colour, dice: (u8, u8)) -> Generated {
    check_dice(dice);
    let mut found: HashMap<Position, Vec<CheckerMove>, FastBuild> = HashMap::default();
    let (mut max_dice, mut higher_only) = (0, false);
    if dice.0 == dice.1 {
        let mut seen: [HashSet<Position, FastBuild>; 4] = Default::default();
        let mut path = Vec::with_capacity(4);
        double(position, colour, dice.0, &mut path, &mut seen, &mut found, &mut max_dice);
    } else {
        let (high, low) = (dice.0.max(dice.1), dice.0.min(dice.1));
        let mut singles: [Vec<(Position, CheckerMove)>; 2] = Default::default();
        for (first, second, slot) in [(high, low, 0), (low, high, 1)] {
            for &(after, mv) in position.steps(colour, first).as_slice() {
                let mut continued = false;
                for &(end, mv2) in after.steps(colour, second).as_slice() {
                    continued = true;
                    found.entry(end).or_insert_with(|| vec![mv, mv2]);
                }
                if !continued {
                    singles[slot].push((after, mv));
                }
            }
        }
        if !found.is_empty() {
            max_dice = 2;
        } else {
            let [with_high, with_low] = singles;
            higher_only = !with_high.is_empty();
            let chosen = if higher_only { with_high } else { with_low };
            max_dice = usize::from(!chosen.is_empty());
            for (end, mv) in chosen {
                found.entry(end).or_insert_with(|| vec![mv]);
            }
        }
    }
    let mut plays: Vec<LegalPlay> =
        found.into_iter().map(|(result, moves)| LegalPlay { moves, result }).collect();
    if plays.is_empty() {
        plays.push(LegalPlay { moves: Vec::new(), result: *position });
    }
    plays.sort_by(|a, b| a.moves.cmp(&b.moves));
    Generated { plays, max_dice, higher_only }
}

/// Depth-first search of a double's moves; `seen[k]` holds the positions reached after `k + 1`
/// moves, so a position reached in two orders is searched once. Only plays of the greatest length
/// are kept in `found`.
fn double(
    position: &Position,
    colour: Colour,
    die: u8,
    path: &mut Vec<CheckerMove>,
    seen: &mut [HashSet<Position, FastBuild>; 4],
    found: &mut HashMap<Position, Vec<CheckerMove>, FastBuild>,
    max_dice: &mut usize,
) {
    let depth = path.len();
    let next = if depth < 4 { position.steps(colour, die) } else { Steps::none() };
    if next.len == 0 {
        if depth > *max_dice {
            *max_dice = depth;
            found.clear();
        }
        if depth == *max_dice && depth > 0 {
            found.entry(*position).or_insert_with(|| path.clone());
        }
        return;
    }
    for &(after, mv) in next.as_slice() {
        if seen[depth].insert(after) {
            path.push(mv);
            double(&after, colour, die, path, seen, found, max_dice);
            path.pop();
        }
    }
}

/// Why a written play is refused; [`fmt::Display`] gives the short reason of the protocol's
/// `illegal REASON`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalPlay {
    /// The game is already over.
    GameOver,
    /// A checker move from off or onto the bar.
    NotAMove(CheckerMove),
    /// A board number that is not 1..=24.
    NoSuchPoint(u8),
    /// A checker is on the bar and the move does not enter it.
    MustEnterFirst,
    /// No checker of the mover on the move's origin.
    NoChecker(Point),
    /// The move goes backwards for the mover (or nowhere).
    WrongDirection(CheckerMove),
    /// No unused die for this distance.
    NoDie(u8),
    /// Entering from the bar onto a point that is not in the opponent's home board.
    NotAnEntryPoint(Point),
    /// Bearing off while checkers are outside the home board or on the bar.
    CannotBearOff,
    /// Bearing off with a die larger than the point while a higher point is still occupied.
    HigherPointOccupied {
        /// The point borne off from.
        from: Point,
        /// The die that would be used.
        die: u8,
    },
    /// Landing on a point held by two or more opposing checkers.
    Closed(Point),
    /// The play uses fewer dice than the roll allows.
    TooFewDice {
        /// The number of dice that can be used.
        required: u8,
        /// The number of dice of the roll: 2, or 4 for a double.
        rolled: u8,
    },
    /// Only one die can be used, and the play uses the lower when the higher can be used.
    MustUseHigherDie,
    /// The moves are legal one by one but the result is none of the legal plays' (kept as a guard).
    NotALegalPlay,
}

impl fmt::Display for IllegalPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalPlay::GameOver => f.write_str("the game is over"),
            IllegalPlay::NotAMove(mv) => write!(f, "{mv} is not a checker move"),
            IllegalPlay::NoSuchPoint(n) => write!(f, "there is no point {n}"),
            IllegalPlay::MustEnterFirst => f.write_str("must enter from the bar first"),
            IllegalPlay::NoChecker(Point::Bar) => f.write_str("no checker of yours on the bar"),
            IllegalPlay::NoChecker(point) => write!(f, "no checker of yours on {point}"),
            IllegalPlay::WrongDirection(mv) => write!(f, "wrong direction ({mv})"),
            IllegalPlay::NoDie(n) => write!(f, "no die of {n} left"),
            IllegalPlay::NotAnEntryPoint(point) => write!(f, "{point} is not an entry point"),
            IllegalPlay::CannotBearOff => f.write_str("cannot bear off with checkers outside the home board"),
            IllegalPlay::HigherPointOccupied { from, die } => {
                write!(f, "cannot bear off from {from} with a {die} while a higher point is occupied")
            }
            IllegalPlay::Closed(point) => write!(f, "point {point} is closed"),
            IllegalPlay::TooFewDice { required: 1, .. } => f.write_str("must use a die"),
            IllegalPlay::TooFewDice { required: 2, rolled: 2 } => f.write_str("must use both dice"),
            IllegalPlay::TooFewDice { required: 4, .. } => f.write_str("must use all four dice"),
            IllegalPlay::TooFewDice { required, .. } => write!(f, "must use {required} dice"),
            IllegalPlay::MustUseHigherDie => f.write_str("must use the higher die"),
            IllegalPlay::NotALegalPlay => f.write_str("not a legal play"),
        }
    }
}

impl std::error::Error for IllegalPlay {}

/// Checks a play as written: each checker move must be legal in turn with an unused die (entering
/// first, landing on open points, bearing off only when allowed; a checker moving twice lands on
/// the intermediate point, which must be open), and the play must use as many dice as the roll
/// allows, the higher die when only one can be used. Returns the position after the play.
///
/// A play that bears off the mover's last checker with fewer dice than the roll would allow is
/// accepted: it reaches the same final position as the longer play, and the game is over.
///
/// # Panics
///
/// When a die is not 1..=6.
pub fn check_play(
    position: &Position,
    colour: Colour,
    dice: (u8, u8),
    moves: &[CheckerMove],
) -> Result<Position, IllegalPlay> {
    check_dice(dice);
    if game_result(position).is_some() {
        return Err(IllegalPlay::GameOver);
    }
    let dice_left: Vec<u8> = if dice.0 == dice.1 { vec![dice.0; 4] } else { vec![dice.0, dice.1] };
    let mut endings = Vec::new();
    search(position, colour, moves, dice_left, &mut Vec::new(), &mut endings)?;
    let generated = generate(position, colour, dice);
    let high = dice.0.max(dice.1);
    let mut refusal = IllegalPlay::NotALegalPlay;
    for (result, used) in endings {
        let finished = result.off(colour) == CHECKERS;
        let legal = generated.plays.iter().any(|p| p.result == result);
        if used.len() < generated.max_dice && !finished {
            let rolled = if dice.0 == dice.1 { 4 } else { 2 };
            refusal = IllegalPlay::TooFewDice { required: generated.max_dice as u8, rolled };
        } else if generated.higher_only && used.first() != Some(&high) && !finished {
            refusal = IllegalPlay::MustUseHigherDie;
        } else if legal {
            return Ok(result);
        }
    }
    Err(refusal)
}

/// Plays `moves` in turn with the dice left, trying each die that fits a move (several only when
/// bearing off with a larger die); collects every ending with the dice used, or the refusal of the
/// first failing move when no assignment of dice works.
fn search(
    position: &Position,
    colour: Colour,
    moves: &[CheckerMove],
    dice_left: Vec<u8>,
    used: &mut Vec<u8>,
    endings: &mut Vec<(Position, Vec<u8>)>,
) -> Result<(), IllegalPlay> {
    let Some((&mv, rest)) = moves.split_first() else {
        endings.push((*position, used.clone()));
        return Ok(());
    };
    let (from, to, candidates) = candidate_dice(position, colour, mv, &dice_left)?;
    let mut first_error = None;
    for die in candidates {
        let mut left = dice_left.clone();
        let at = left.iter().position(|&d| d == die).expect("a candidate die is left");
        left.remove(at);
        let next = position.moved(colour, from, to);
        used.push(die);
        if let Err(e) = search(&next, colour, rest, left, used, endings) {
            first_error.get_or_insert(e);
        }
        used.pop();
    }
    match first_error {
        Some(e) if endings.is_empty() => Err(e),
        _ => Ok(()),
    }
}

/// Checks one written checker move of `colour` against the position and the dice left: its own
/// origin and destination, and the distinct dice that can play it (the exact one first).
fn candidate_dice(
    position: &Position,
    colour: Colour,
    mv: CheckerMove,
    dice_left: &[u8],
) -> Result<(u8, u8, Vec<u8>), IllegalPlay> {
    if mv.from == Point::Off || mv.to == Point::Bar {
        return Err(IllegalPlay::NotAMove(mv));
    }
    let own = |point: Point| match point {
        Point::Board(n) => point.own(colour).ok_or(IllegalPlay::NoSuchPoint(n)),
        _ => Ok(point.own(colour).expect("bar and off have own numbers")),
    };
    let (from, to) = (own(mv.from)?, own(mv.to)?);
    if position.bar(colour) > 0 && from != BAR {
        return Err(IllegalPlay::MustEnterFirst);
    }
    if position.mine(colour, from) == 0 {
        return Err(IllegalPlay::NoChecker(mv.from));
    }
    if to >= from {
        return Err(IllegalPlay::WrongDirection(mv));
    }
    let distance = from - to;
    if from == BAR && distance > 6 {
        return Err(IllegalPlay::NotAnEntryPoint(mv.to));
    }
    let mut candidates = Vec::new();
    if dice_left.contains(&distance) {
        candidates.push(distance);
    }
    if to == 0 {
        if !position.all_home(colour) {
            return Err(IllegalPlay::CannotBearOff);
        }
        let mut larger: Vec<u8> = dice_left.iter().copied().filter(|&d| d > distance).collect();
        larger.sort_unstable();
        larger.dedup();
        if !larger.is_empty() && position.highest(colour) > from {
            if candidates.is_empty() {
                return Err(IllegalPlay::HigherPointOccupied { from: mv.from, die: larger[0] });
            }
        } else {
            candidates.extend(larger);
        }
    } else if position.theirs(colour, to) >= 2 {
        return Err(IllegalPlay::Closed(mv.to));
    }
    if candidates.is_empty() {
        return Err(IllegalPlay::NoDie(distance));
    }
    Ok((from, to, candidates))
}

/// How a game was won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultKind {
    /// The loser bore off at least one checker: 1 point.
    Single,
    /// The loser bore off none: 2 points.
    Gammon,
    /// The loser bore off none and still has a checker on the bar or in the winner's home board:
    /// 3 points.
    Backgammon,
}

impl ResultKind {
    /// `single`, `gammon` or `backgammon`, as the protocol's `result` writes it.
    pub fn name(self) -> &'static str {
        match self {
            ResultKind::Single => "single",
            ResultKind::Gammon => "gammon",
            ResultKind::Backgammon => "backgammon",
        }
    }

    /// The multiple of the stake: 1, 2 or 3.
    pub fn multiplier(self) -> u32 {
        match self {
            ResultKind::Single => 1,
            ResultKind::Gammon => 2,
            ResultKind::Backgammon => 3,
        }
    }
}

/// The end of a game: who won and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameResult {
    /// The player who bore off all 15 checkers.
    pub winner: Colour,
    /// Single, gammon or backgammon.
    pub kind: ResultKind,
}

impl GameResult {
    /// The points won with the doubling cube at `cube` (1 when it was never turned).
    pub fn points(self, cube: u32) -> u32 {
        self.kind.multiplier() * cube
    }
}

/// The result of the game when a colour has borne off all its checkers, else `None`.
pub fn game_result(position: &Position) -> Option<GameResult> {
    let winner = Colour::ALL.into_iter().find(|&c| position.off(c) == CHECKERS)?;
    let loser = winner.opponent();
    // The winner's home board is the loser's own points 19-24.
    let kind = if position.off(loser) > 0 {
        ResultKind::Single
    } else if position.bar(loser) > 0 || (19..=24).any(|own| position.mine(loser, own) > 0) {
        ResultKind::Backgammon
    } else {
        ResultKind::Gammon
    };
    Some(GameResult { winner, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "position black:24x2,13x5,8x3,6x5 white:19x5,17x3,12x5,1x2 bar:0,0 off:0,0";

    fn board(n: u8) -> Point {
        Point::Board(n)
    }

    #[test]
    fn the_start_position_is_the_specs_example_line() {
        assert_eq!(Position::start().to_wire(), START);
        assert_eq!(Position::from_wire(START), Ok(Position::start()));
        assert_eq!(Position::from_wire(START.strip_prefix("position ").unwrap()), Ok(Position::start()));
        assert_eq!(Position::start().pip_count(Colour::Black), 167);
        assert_eq!(Position::start().pip_count(Colour::White), 167);
    }

    #[test]
    fn an_empty_list_is_nothing_after_the_colon_and_reads_back() {
        let position = Position::from_lists("", "bar 19x3 3").unwrap();
        let wire = position.to_wire();
        assert_eq!(wire, "position black: white:19x3,3x1 bar:0,1 off:15,10");
        assert_eq!(Position::from_wire(&wire), Ok(position));
    }

    #[test]
    fn wire_lines_that_are_not_positions_are_refused() {
        for bad in [
            "",
            "position",
            "position black:24x2 white:1x2 bar:0,0 off:13,13 extra",
            "position white:1x2 black:24x2 bar:0,0 off:13,13",
            "position black:6x2,24x2 white:1x2 bar:0,0 off:13,13",
            "position black:24x2,24x1 white:1x2 bar:0,0 off:12,13",
            "position black:24x2 white:1x2 bar:0,0 off:13,12",
            "position black:24x2 white:24x2 bar:0,0 off:13,13",
            "position black:24x0,6x2 white:1x2 bar:0,0 off:13,13",
            "position black:25x2 white:1x2 bar:0,0 off:13,13",
            "position black:24-2 white:1x2 bar:0,0 off:13,13",
            "position black:24x2 white:1x2 bar:0 off:13,13",
            "position black:24x2 white:1x2 bar:x,0 off:13,13",
            "position black:24x2, white:1x2 bar:0,0 off:13,13",
        ] {
            assert!(Position::from_wire(bad).is_err(), "`{bad}` was read");
        }
    }

    #[test]
    fn counts_are_read_from_each_colours_side() {
        let position = Position::from_lists("bar 6x2,5", "24x3 off").unwrap();
        assert_eq!(position.count(Point::Bar, Colour::Black), 1);
        assert_eq!(position.count(board(6), Colour::Black), 2);
        assert_eq!(position.count(board(6), Colour::White), 0);
        assert_eq!(position.count(board(24), Colour::White), 3);
        assert_eq!(position.off(Colour::Black), 11);
        assert_eq!(position.off(Colour::White), 12);
        assert_eq!(position.occupant(5), Some((Colour::Black, 1)));
        assert_eq!(position.occupant(24), Some((Colour::White, 3)));
        assert_eq!(position.occupant(23), None);
        assert!(!position.all_home(Colour::Black));
        assert!(position.all_home(Colour::White));
        assert!(Position::from_lists("6x2", "6").is_err(), "a point with both colours");
        assert!(Position::from_lists("6x16", "").is_err(), "sixteen checkers");
    }

    #[test]
    fn plays_are_read_and_written_in_the_spec_notation() {
        let play = parse_play("13/7 7/4  bar/22\t3/off").unwrap();
        assert_eq!(
            play,
            vec![
                CheckerMove::new(board(13), board(7)),
                CheckerMove::new(board(7), board(4)),
                CheckerMove::new(Point::Bar, board(22)),
                CheckerMove::new(board(3), Point::Off),
            ]
        );
        assert_eq!(format_play(&play), "13/7 7/4 bar/22 3/off");
        assert_eq!(parse_play(""), Ok(Vec::new()));
        assert_eq!(parse_play("  "), Ok(Vec::new()));
        assert_eq!(format_play(&[]), "");
        for bad in ["13-7", "13/", "/7", "25/20", "0/off", "13/7/4", "+5/3", "thirteen/7", "13/7*"] {
            assert!(parse_play(bad).is_err(), "`{bad}` was read");
        }
    }

    #[test]
    fn colours_read_and_print_in_lower_case() {
        assert_eq!("black".parse(), Ok(Colour::Black));
        assert_eq!("White".parse(), Ok(Colour::White));
        assert!("red".parse::<Colour>().is_err());
        assert_eq!(Colour::White.to_string(), "white");
        assert_eq!(Colour::Black.opponent(), Colour::White);
        assert_eq!(Colour::Black.entry_point(4), 21);
        assert_eq!(Colour::White.entry_point(4), 4);
    }

    #[test]
    fn a_blot_hit_goes_to_the_bar() {
        let position = Position::from_lists("8", "5").unwrap();
        let after = check_play(&position, Colour::Black, (3, 1), &parse_play("8/5 5/4").unwrap()).unwrap();
        assert_eq!(after.bar(Colour::White), 1);
        assert_eq!(after.count(board(5), Colour::White), 0);
        assert_eq!(after.count(board(4), Colour::Black), 1);
    }

    #[test]
    fn nothing_is_played_once_the_game_is_over() {
        let over = Position::from_lists("", "19x15").unwrap();
        assert_eq!(check_play(&over, Colour::White, (3, 1), &[]), Err(IllegalPlay::GameOver));
        assert_eq!(IllegalPlay::GameOver.to_string(), "the game is over");
    }

    #[test]
    fn moves_that_are_no_moves_are_refused_with_a_reason() {
        let start = Position::start();
        let refuse = |moves: &[CheckerMove]| check_play(&start, Colour::Black, (3, 1), moves).unwrap_err();
        assert_eq!(
            refuse(&[CheckerMove::new(Point::Off, board(3))]).to_string(),
            "off/3 is not a checker move"
        );
        assert_eq!(
            refuse(&[CheckerMove::new(board(6), Point::Bar)]).to_string(),
            "6/bar is not a checker move"
        );
        assert_eq!(refuse(&[CheckerMove::new(board(30), board(27))]).to_string(), "there is no point 30");
        assert_eq!(
            refuse(&[CheckerMove::new(Point::Bar, board(22))]).to_string(),
            "no checker of yours on the bar"
        );
        assert_eq!(refuse(&[CheckerMove::new(board(6), board(6))]).to_string(), "wrong direction (6/6)");
    }

    #[test]
    fn every_legal_play_is_accepted_as_written_and_reaches_its_position() {
        let start = Position::start();
        for (a, b) in [(3, 1), (6, 6), (5, 2), (4, 4), (1, 1)] {
            let plays = legal_plays(&start, Colour::White, (a, b));
            let distinct: HashSet<Position> = plays.iter().map(|p| p.result).collect();
            assert_eq!(distinct.len(), plays.len());
            for play in plays {
                assert_eq!(check_play(&start, Colour::White, (a, b), &play.moves), Ok(play.result));
                assert_eq!(check_play(&start, Colour::White, (b, a), &play.moves), Ok(play.result));
            }
        }
    }

    #[test]
    fn whether_every_play_uses_two_dice_is_what_the_listed_plays_say() {
        // Positions of random games, every roll from each, both sides.
        let mut rng = crate::backgammon_ai::players::Rng::new(7);
        let (mut yes, mut no) = (0, 0);
        for game in 0..40 {
            let mut position = Position::start();
            let mut chooser = crate::backgammon_ai::players::RandomPlayer::new(game);
            for turn in 0..400 {
                let colour = if turn % 2 == 0 { Colour::White } else { Colour::Black };
                for a in 1..=6 {
                    for b in 1..=6 {
                        let listed =
                            legal_plays(&position, colour, (a, b)).iter().all(|p| p.moves.len() == 2);
                        assert_eq!(
                            every_play_uses_two_dice(&position, colour, (a, b)),
                            listed,
                            "{position} {a}-{b}"
                        );
                        if listed {
                            yes += 1
                        } else {
                            no += 1
                        }
                    }
                }
                let roll = rng.roll();
                let moves =
                    crate::backgammon_ai::players::Player::choose(&mut chooser, &position, colour, roll);
                position = check_play(&position, colour, roll, &moves).unwrap();
                if game_result(&position).is_some() {
                    break;
                }
            }
        }
        assert!(yes > 1000 && no > 1000, "both answers are tried often: {yes} and {no}");
    }

    #[test]
    fn the_order_of_the_dice_does_not_matter() {
        let position = Position::from_lists("bar 13x2 6x2 5", "21x2 3 9").unwrap();
        for (a, b) in [(4, 2), (6, 3), (5, 1)] {
            assert_eq!(
                legal_plays(&position, Colour::Black, (a, b)),
                legal_plays(&position, Colour::Black, (b, a))
            );
        }
    }

    #[test]
    fn results_score_with_the_cube() {
        let gammon = GameResult { winner: Colour::White, kind: ResultKind::Gammon };
        assert_eq!(gammon.points(1), 2);
        assert_eq!(gammon.points(4), 8);
        assert_eq!(ResultKind::Backgammon.name(), "backgammon");
    }
}
