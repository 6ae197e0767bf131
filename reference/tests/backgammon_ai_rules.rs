//! The full-backgammon rules suite: every case of `tests/backgammon_ai_rules/*.toml` was worked out by
//! hand from appendix A, and `legal_plays` must give exactly its set of resulting positions.
//!
//! Format of a file (all keys kebab-case, unknown keys refused):
//!
//! ```toml
//! [[case]]
//! name = "what the case shows"
//! # The position: either the wire line ...
//! position = "position black:24x2,... white:... bar:0,0 off:0,0"
//! # ... or a compact list per colour (`POINT` or `POINTxCOUNT`, POINT a number or `bar`);
//! # every checker not listed is borne off.
//! black = "bar 13x2 6x2"
//! white = "21x2"
//! colour = "black"            # the colour to move
//! dice = [4, 2]
//! plays = ["bar/23 23/19"]    # the exact set of plays: one per distinct resulting position
//! results = ["position ..."]  # more members of the exact set, as wire lines (optional)
//! count = 3                   # the number of distinct plays (required when the set is not listed)
//! includes = ["..."]          # with `count`: plays that must be among them
//! accept = ["..."]            # other writings of the listed plays, which check_play must accept
//! [[case.refuse]]             # plays check_play must refuse, and the reason it gives
//! play = "13/9 bar/23"
//! reason = "must enter from the bar first"
//!
//! [[result]]                  # game_result of a position
//! name = "..."
//! black = ""                  # (or position = "...")
//! white = "19x15"
//! expected = "black gammon"   # or "none"
//! points = 2                  # with the cube at 1 (optional)
//! ```
//!
//! A play's resulting position is computed here by moving checkers naively (hitting a lone opposing
//! checker), not by the engine, so the expected sets do not come from the code under test.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use reference::backgammon_ai::rules::{
    check_play, format_play, game_result, legal_plays, parse_play, CheckerMove, Colour, Point, Position,
};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    #[serde(default)]
    case: Vec<Case>,
    #[serde(default)]
    result: Vec<ResultCase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Case {
    name: String,
    position: Option<String>,
    black: Option<String>,
    white: Option<String>,
    colour: String,
    dice: (u8, u8),
    plays: Option<Vec<String>>,
    results: Option<Vec<String>>,
    count: Option<usize>,
    #[serde(default)]
    includes: Vec<String>,
    #[serde(default)]
    accept: Vec<String>,
    #[serde(default)]
    refuse: Vec<Refusal>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Refusal {
    play: String,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ResultCase {
    name: String,
    position: Option<String>,
    black: Option<String>,
    white: Option<String>,
    expected: String,
    points: Option<u32>,
}

fn suite_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/backgammon_ai_rules");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

fn load() -> Vec<(String, File)> {
    suite_files()
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, file)
        })
        .collect()
}

fn position_of(
    label: &str,
    position: &Option<String>,
    black: &Option<String>,
    white: &Option<String>,
) -> Position {
    match (position, black, white) {
        (Some(wire), None, None) => Position::from_wire(wire).unwrap_or_else(|e| panic!("{label}: {e}")),
        (None, Some(black), Some(white)) => {
            Position::from_lists(black, white).unwrap_or_else(|e| panic!("{label}: {e}"))
        }
        _ => panic!("{label}: give either `position` or both `black` and `white`"),
    }
}

/// Checkers of both colours by absolute point (index 0 unused), on the bar, off: moved by hand.
#[derive(Clone)]
struct Naive {
    points: [[u8; 25]; 2],
    bar: [u8; 2],
    off: [u8; 2],
}

impl Naive {
    fn of(position: &Position) -> Naive {
        let mut naive = Naive { points: [[0; 25]; 2], bar: [0; 2], off: [0; 2] };
        for (i, colour) in Colour::ALL.into_iter().enumerate() {
            for p in 1..=24u8 {
                naive.points[i][usize::from(p)] = position.count(Point::Board(p), colour);
            }
            naive.bar[i] = position.bar(colour);
            naive.off[i] = position.off(colour);
        }
        naive
    }

    /// Moves one checker of side `me` as written, hitting a lone opposing checker where it lands.
    fn apply(&mut self, me: usize, mv: CheckerMove, label: &str) {
        let them = 1 - me;
        match mv.from {
            Point::Bar => {
                assert!(self.bar[me] > 0, "{label}: {mv}: nothing on the bar");
                self.bar[me] -= 1;
            }
            Point::Board(p) => {
                let slot = &mut self.points[me][usize::from(p)];
                assert!(*slot > 0, "{label}: {mv}: no checker there");
                *slot -= 1;
            }
            Point::Off => panic!("{label}: {mv} from off"),
        }
        match mv.to {
            Point::Off => self.off[me] += 1,
            Point::Board(p) => {
                let p = usize::from(p);
                assert!(self.points[them][p] <= 1, "{label}: {mv} lands on a closed point");
                if self.points[them][p] == 1 {
                    self.points[them][p] = 0;
                    self.bar[them] += 1;
                }
                self.points[me][p] += 1;
            }
            Point::Bar => panic!("{label}: {mv} to the bar"),
        }
    }

    fn position(&self) -> Position {
        let list = |i: usize| {
            let mut list: Vec<(Point, u8)> =
                (1..=24u8).map(|p| (Point::Board(p), self.points[i][usize::from(p)])).collect();
            list.push((Point::Bar, self.bar[i]));
            list
        };
        let position = Position::from_counts(&list(0), &list(1)).unwrap();
        assert_eq!((position.off(Colour::Black), position.off(Colour::White)), (self.off[0], self.off[1]));
        position
    }
}

/// The position after `play` written in `label`, moved naively.
fn naive_result(position: &Position, colour: Colour, play: &str, label: &str) -> Position {
    let moves = parse_play(play).unwrap_or_else(|e| panic!("{label}: `{play}`: {e}"));
    let mut naive = Naive::of(position);
    let me = Colour::ALL.iter().position(|&c| c == colour).unwrap();
    for mv in moves {
        naive.apply(me, mv, label);
    }
    naive.position()
}

struct Checked {
    cases: usize,
    refusals: usize,
    results: usize,
    reasons: HashSet<String>,
}

fn run_suite() -> Checked {
    let mut checked = Checked { cases: 0, refusals: 0, results: 0, reasons: HashSet::new() };
    let mut names = HashSet::new();
    for (file, suite) in load() {
        for case in &suite.case {
            let label = format!("{file}: {}", case.name);
            assert!(names.insert(label.clone()), "{label}: a second case of this name");
            let position = position_of(&label, &case.position, &case.black, &case.white);
            let colour: Colour = case.colour.parse().unwrap();
            let legal = legal_plays(&position, colour, case.dice);
            let got: HashSet<Position> = legal.iter().map(|p| p.result).collect();
            assert_eq!(got.len(), legal.len(), "{label}: legal_plays repeats a resulting position");

            // The expected set, from plays moved by hand and from wire lines.
            let mut expected: HashSet<Position> = HashSet::new();
            for play in case.plays.iter().flatten() {
                let result = naive_result(&position, colour, play, &label);
                expected.insert(result);
                let moves = parse_play(play).unwrap();
                assert_eq!(
                    check_play(&position, colour, case.dice, &moves),
                    Ok(result),
                    "{label}: check_play refuses the listed play `{play}`"
                );
            }
            for wire in case.results.iter().flatten() {
                expected.insert(Position::from_wire(wire).unwrap_or_else(|e| panic!("{label}: {e}")));
            }
            let listed = case.plays.is_some() || case.results.is_some();
            if listed {
                let missing: Vec<String> = expected.difference(&got).map(|p| p.to_wire()).collect();
                let extra: Vec<String> = legal
                    .iter()
                    .filter(|p| !expected.contains(&p.result))
                    .map(|p| format!("`{}` -> {}", format_play(&p.moves), p.result))
                    .collect();
                assert!(
                    missing.is_empty() && extra.is_empty(),
                    "{label}: missing {missing:#?}\nunexpected {extra:#?}"
                );
            }
            match case.count {
                Some(count) => assert_eq!(legal.len(), count, "{label}: number of distinct plays"),
                None => assert!(listed, "{label}: give the plays or their count"),
            }
            for play in case.includes.iter().chain(&case.accept) {
                let result = naive_result(&position, colour, play, &label);
                assert!(got.contains(&result), "{label}: `{play}` is not among the legal plays");
                let moves = parse_play(play).unwrap();
                assert_eq!(
                    check_play(&position, colour, case.dice, &moves),
                    Ok(result),
                    "{label}: check_play refuses `{play}`"
                );
            }
            for refusal in &case.refuse {
                let moves = parse_play(&refusal.play).unwrap();
                let reason = check_play(&position, colour, case.dice, &moves)
                    .map(|p| p.to_wire())
                    .map_err(|e| e.to_string());
                assert_eq!(reason, Err(refusal.reason.clone()), "{label}: `{}`", refusal.play);
                checked.reasons.insert(refusal.reason.clone());
                checked.refusals += 1;
            }
            checked.cases += 1;
        }
        for case in &suite.result {
            let label = format!("{file}: {}", case.name);
            let position = position_of(&label, &case.position, &case.black, &case.white);
            let result = game_result(&position);
            let text = result.map_or("none".to_owned(), |r| format!("{} {}", r.winner, r.kind.name()));
            assert_eq!(text, case.expected, "{label}");
            if let Some(points) = case.points {
                assert_eq!(result.map(|r| r.points(1)), Some(points), "{label}");
            }
            checked.results += 1;
        }
    }
    checked
}

#[test]
fn every_situation_of_the_suite_has_exactly_its_legal_plays() {
    let checked = run_suite();
    assert!(checked.cases >= 30, "{} situations", checked.cases);
    assert!(checked.refusals >= 20, "{} refusals", checked.refusals);
    assert!(checked.results >= 6, "{} results", checked.results);
    for reason in [
        "must enter from the bar first",
        "must use both dice",
        "must use the higher die",
        "cannot bear off with checkers outside the home board",
    ] {
        assert!(checked.reasons.contains(reason), "no refusal for `{reason}`");
    }
}
