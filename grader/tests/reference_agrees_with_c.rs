//! The correct C fixtures and the Rust reference print identical transcripts, byte for byte: for each
//! assignment, 200 seeded whole games (also as the `game` builds link them, with our functions from
//! `cases/<id>/`) and 200 random driver scripts (Turkish draughts: under eleven conventions, the
//! handout's, ten others the driver translates or ignores). Also what the backgammon driver
//! prints for incorrect functions, which the reference never prints.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::repo;
use grader::load::CaseKind;

/// Compiles C files of the repository (and extra arguments) into `out`.
fn gcc(out: &Path, files: &[PathBuf], extra: &[&str]) {
    let status =
        Command::new("gcc").arg("-O2").arg("-o").arg(out).args(files).args(extra).status().expect("gcc runs");
    assert!(status.success());
}

fn sources(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

fn run(exe: &Path, stdin: &[u8], env: &BTreeMap<String, String>) -> Vec<u8> {
    let mut child = Command::new(exe)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the fixture runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    output.stdout
}

fn expand(assignment: &str, kind: CaseKind, scenario: &str) -> Option<reference::Expansion> {
    let table: toml::Table = scenario.parse().unwrap();
    kind.expand(reference::solution(assignment).unwrap(), &table).ok()
}

#[test]
fn two_hundred_seeded_trouble_games_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("trouble");
    gcc(&exe, &sources("fixtures/trouble/correct"), &[]);
    // As the `game` build links it: our five functions first, the student's main and playerTurn.
    let game = dir.path().join("game");
    let mut files = vec![repo().join("cases/trouble/functions.c")];
    files.extend(sources("fixtures/trouble/correct"));
    gcc(&game, &files, &["-O0", "-Wl,-z,muldefs"]);
    let mut rng = fastrand::Rng::with_seed(2026);
    for n in 0..200 {
        let seed = rng.i32(..).max(1);
        let players = 2 + n % 3;
        let illegal = if n % 4 == 0 { format!(", illegal-every = {}", 1 + n % 5) } else { String::new() };
        let end = if n % 2 == 0 { String::new() } else { format!(", quit-after-turns = {}", 10 + n % 60) };
        let scenario =
            format!("seed = {seed}\nplayers = {players}\npolicy = {{ seed = {n}{illegal}{end} }}\n");
        let expansion = expand("trouble", CaseKind::Transcript, &scenario).expect("a valid scenario");
        let actual = run(&exe, &expansion.stdin, &expansion.env);
        assert!(actual == expansion.stdout, "scenario differs:\n{scenario}");
        let actual = run(&game, &expansion.stdin, &expansion.env);
        assert!(actual == expansion.stdout, "scenario differs with cases/trouble/functions.c:\n{scenario}");
    }
}

#[test]
fn two_hundred_random_trouble_driver_scripts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("driver");
    let mut files = sources("fixtures/trouble/correct");
    files.push(repo().join("cases/trouble/driver.c"));
    files.push(repo().join("cases/common/driver-main.c"));
    gcc(&exe, &files, &["-DTEST_MAIN"]);
    let colours = ['R', 'G', 'Y', 'B'];
    let mut rng = fastrand::Rng::with_seed(7);
    let mut agreed = 0;
    while agreed < 200 {
        let mut commands = vec!["clear".to_owned()];
        for piece in 0..16 {
            match rng.u8(..4) {
                0 => {}
                1 => commands.push(format!("place {piece} {}F{}", colours[piece / 4], rng.u8(1..5))),
                _ => commands.push(format!("place {piece} {}{}", colours[rng.usize(..4)], rng.u8(1..8))),
            }
        }
        for _ in 0..8 {
            let player = rng.u8(..4);
            let roll = rng.u8(1..7);
            commands.push(match rng.u8(..5) {
                0 => "status".to_owned(),
                1 => format!("moves {player} {roll}"),
                // `show` keeps what the function prints (nothing, when it is correct).
                2 => format!("{}win {player}", if rng.bool() { "show " } else { "" }),
                3 => "dump".to_owned(),
                _ => {
                    let from = match rng.u8(..3) {
                        0 => "H".to_owned(),
                        1 => format!("{}F{}", colours[rng.usize(..4)], rng.u8(1..5)),
                        _ => format!("{}{}", colours[rng.usize(..4)], rng.u8(1..8)),
                    };
                    format!("{}move {player} {from} {roll}", if rng.bool() { "show " } else { "" })
                }
            });
        }
        let list: Vec<String> = commands.iter().map(|c| format!("{c:?}")).collect();
        // Scripts the reference rejects (two pieces on one square) have no defined answer: skip them.
        let script = format!("commands = [{}]\n", list.join(", "));
        let Some(expansion) = expand("trouble", CaseKind::Unit, &script) else {
            continue;
        };
        let actual = run(&exe, &expansion.stdin, &expansion.env);
        assert!(
            actual == expansion.stdout,
            "script differs:\n{}\n--- C ---\n{}\n--- Rust ---\n{}",
            commands.join("\n"),
            String::from_utf8_lossy(&actual),
            String::from_utf8_lossy(&expansion.stdout)
        );
        agreed += 1;
    }
}

#[test]
fn two_hundred_backgammon_games_agree_seeded_and_unseeded() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("backgammon");
    gcc(&exe, &sources("fixtures/backgammon/correct"), &[]);
    // As the `game` build links it: our print_board first.
    let game = dir.path().join("game");
    let mut files = vec![repo().join("cases/backgammon/print_board.c")];
    files.extend(sources("fixtures/backgammon/correct"));
    gcc(&game, &files, &["-O0", "-Wl,-z,muldefs"]);
    let preload = dir.path().join("seed.so");
    gcc(&preload, &[repo().join("cases/backgammon/seed.c")], &["-shared", "-fPIC"]);
    let mut rng = fastrand::Rng::with_seed(1987);
    let styles = ["random", "race", "hit"];
    for n in 0..200 {
        let seed = if n % 5 == 0 { String::new() } else { format!("seed = {}\n", rng.u32(..)) };
        let style = styles[n % 3];
        let turns = if style == "race" { 250 } else { 10 + n % 50 };
        let invalid =
            if n % 4 == 1 { format!(", invalid-every = {}", 1 + 2 * (n % 3)) } else { String::new() };
        let hits = if n % 7 == 3 { ", hits = false" } else { "" };
        let scenario =
            format!("{seed}policy = {{ seed = {n}, turns = {turns}, style = \"{style}\"{invalid}{hits} }}\n");
        let expansion = expand("backgammon", CaseKind::Transcript, &scenario).expect("a valid scenario");
        let mut env = expansion.env.clone();
        env.insert("LD_PRELOAD".into(), preload.display().to_string());
        for exe in [&exe, &game] {
            let actual = run(exe, &expansion.stdin, &env);
            assert!(
                actual == expansion.stdout,
                "scenario differs ({}):\n{scenario}\n{}",
                exe.display(),
                first_difference(&expansion.stdout, &actual)
            );
        }
    }
}

#[test]
fn two_hundred_random_backgammon_driver_scripts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("driver");
    let mut files = sources("fixtures/backgammon/correct");
    files.push(repo().join("cases/backgammon/driver.c"));
    files.push(repo().join("cases/common/driver-main.c"));
    gcc(&exe, &files, &["-Dmain=student_main"]);
    let functions =
        ["check_move", "check_basic_move", "check_entry_move", "check_bear_off_move", "check_die"];
    let colours = ["white", "red"];
    let mut rng = fastrand::Rng::with_seed(11);
    let (mut agreed, mut checks, mut effects) = (0, 0, 0);
    while agreed < 200 {
        let mut commands = vec![if rng.bool() { "start".to_owned() } else { "clear".to_owned() }];
        for _ in 0..rng.usize(..6) {
            let colour = colours[rng.usize(..2)];
            commands.push(match rng.u8(..3) {
                0 => format!("bar {colour} {}", rng.u8(..3)),
                _ => format!("set {colour} {} {}", rng.u8(1..25), rng.u8(..6)),
            });
        }
        for _ in 0..6 {
            let colour = colours[rng.usize(..2)];
            let (from, to) = match rng.u8(..4) {
                0 => (0, rng.i32(1..25)),
                1 => (rng.i32(1..25), 0),
                _ => (rng.i32(1..25), rng.i32(1..25)),
            };
            let function = functions[rng.usize(..5)];
            commands.push(match rng.u8(..10) {
                0 => "print".to_owned(),
                1 => "dump".to_owned(),
                2 => format!("bounds {}", rng.i32(-2..27)),
                3 | 4 => format!("effects {function} {colour} {from} {to} {}", rng.u8(1..7)),
                _ => format!("check {function} {colour} {from} {to} {}", rng.u8(1..7)),
            });
        }
        let list: Vec<String> = commands.iter().map(|c| format!("{c:?}")).collect();
        // Scripts asking what the handout leaves open are rejected by the reference: skip them.
        let Some(expansion) =
            expand("backgammon", CaseKind::Unit, &format!("commands = [{}]\n", list.join(", ")))
        else {
            continue;
        };
        let actual = run(&exe, &expansion.stdin, &expansion.env);
        assert!(
            actual == expansion.stdout,
            "script differs:\n{}\n{}",
            commands.join("\n"),
            first_difference(&expansion.stdout, &actual)
        );
        checks += commands.iter().filter(|c| c.starts_with("check ")).count();
        effects += commands.iter().filter(|c| c.starts_with("effects ")).count();
        agreed += 1;
    }
    assert!(checks >= 300, "the scripts ask real questions ({checks} checks)");
    assert!(effects >= 150, "the scripts ask about side effects ({effects} effects)");
}

/// What the C driver prints for incorrect functions, which the reference never shows: `check` prints the
/// return value and restores the globals silently, `effects` names each global changed (in the format
/// of the reference's `changes`) and a return value that is neither VALID_MOVE nor INVALID_MOVE.
#[test]
fn the_backgammon_driver_reports_side_effects_only_under_effects() {
    use reference::backgammon::driver::{changes, unexpected_return};
    use reference::backgammon::rules::{Board, Colour, Move};

    let dir = tempfile::tempdir().unwrap();
    let driver = repo().join("cases/backgammon/driver.c");
    let exe = dir.path().join("moving");
    let mut files = sources("fixtures/backgammon/bug-check-moves-checkers");
    files.push(driver.clone());
    files.push(repo().join("cases/common/driver-main.c"));
    gcc(&exe, &files, &["-Dmain=student_main"]);
    let script = "start\nset red 19 4\nset red 20 1\ncheck check_basic_move white 24 20 4\n\
                  effects check_basic_move white 24 20 4\neffects check_basic_move white 24 22 1\n";
    let out = String::from_utf8(run(&exe, script.as_bytes(), &BTreeMap::new())).unwrap();
    let mut before = Board::start();
    before.set_count(Colour::Red, 19, 4).unwrap();
    before.set_count(Colour::Red, 20, 1).unwrap();
    let mut after = before;
    after.play(Colour::White, Move::new(24, 20), 4).unwrap();
    let changed = changes("check_basic_move", &before, &after);
    assert_eq!(changed.len(), 4, "{changed:?}");
    let expected = format!(
        "> start\n> set red 19 4\n> set red 20 1\n> check check_basic_move white 24 20 4\n\
         check_basic_move returned 1\n> effects check_basic_move white 24 20 4\n{}\n\
         > effects check_basic_move white 24 22 1\n",
        changed.join("\n")
    );
    assert_eq!(out, expected);

    // A stub that returns 0 changes nothing, but is no function without side effects either.
    let stub = dir.path().join("stub.c");
    std::fs::write(
        &stub,
        "int the_board_white[25], the_board_red[25], the_bar_white, the_bar_red, num_white, num_red;\n\
         void print_board() {}\n\
         int check_move(int m, int f, int t, int d) { return 0; }\n\
         int check_basic_move(int m, int f, int t, int d) { return 0; }\n\
         int check_entry_move(int m, int f, int t, int d) { return 0; }\n\
         int check_bear_off_move(int m, int f, int t, int d) { return 0; }\n\
         int check_die(int m, int f, int t, int d) { return 0; }\n\
         int check_board_bounds(int i) { return 0; }\n\
         int main(void) { return 0; }\n",
    )
    .unwrap();
    let exe = dir.path().join("stub");
    gcc(&exe, &[stub, driver, repo().join("cases/common/driver-main.c")], &["-Dmain=student_main"]);
    let out = run(
        &exe,
        b"start\ncheck check_move white 24 23 1\neffects check_move white 24 23 1\n",
        &BTreeMap::new(),
    );
    let neither = unexpected_return("check_move", 0).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!(
            "> start\n> check check_move white 24 23 1\ncheck_move returned 0\n\
             > effects check_move white 24 23 1\n{neither}\n"
        )
    );
}

/// The first line where two outputs differ, for a readable failure.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let (e, a) = (String::from_utf8_lossy(expected), String::from_utf8_lossy(actual));
    let i = e.lines().zip(a.lines()).take_while(|(x, y)| x == y).count();
    format!("line {}: expected {:?}, actual {:?}", i + 1, e.lines().nth(i), a.lines().nth(i))
}

#[test]
fn two_hundred_seeded_checkers_games_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("checkers");
    gcc(&exe, &sources("fixtures/checkers/correct"), &[]);
    let styles = ["quiet", "captures"];
    for n in 0..200 {
        let style = styles[n % 2];
        let moves = 5 + n % 60;
        let crown = if n % 3 == 0 { "false" } else { "true" };
        let invalid = if n % 4 == 1 { format!(", invalid-every = {}", 1 + n % 3) } else { String::new() };
        let extra = match n % 5 {
            0 => ", revisit = true",
            1 => ", kings-first = true",
            _ => "",
        };
        let scenario = format!(
            "policy = {{ seed = {n}, moves = {moves}, style = \"{style}\", crown = {crown}{invalid}{extra} }}\n"
        );
        let expansion = expand("checkers", CaseKind::Transcript, &scenario).expect("a valid scenario");
        let actual = run(&exe, &expansion.stdin, &BTreeMap::new());
        assert!(
            actual == expansion.stdout,
            "scenario differs:\n{scenario}\n{}",
            first_difference(&expansion.stdout, &actual)
        );
    }
}

/// A random Turkish draughts position: men nowhere on their own last row, kings anywhere.
fn random_draughts_position(rng: &mut fastrand::Rng) -> String {
    let density = rng.u8(10..60);
    let rows: Vec<String> = (0..8)
        .map(|x| {
            (0..8)
                .map(|_| {
                    if rng.u8(..100) >= density {
                        return '-';
                    }
                    match rng.u8(..10) {
                        0 => 'W',
                        1 => 'B',
                        n if n < 6 && x != 0 => 'w',
                        n if n >= 6 && x != 7 => 'b',
                        _ => '-',
                    }
                })
                .collect()
        })
        .collect();
    rows.join("/")
}

/// Builds the Turkish draughts driver with a fixture's files as the recipe does: `configure.sh` joins
/// them into one file (which the driver includes) and writes what it names into `drv-config.h`.
fn draughts_driver(dir: &Path, fixture: &str) -> PathBuf {
    let folder = dir.join(fixture);
    std::fs::create_dir_all(&folder).unwrap();
    let student = sources(&format!("fixtures/turkish-draughts/{fixture}"));
    let status = Command::new("sh")
        .arg(repo().join("cases/turkish-draughts/configure.sh"))
        .arg(&folder)
        .args(&student)
        .status()
        .unwrap();
    assert!(status.success(), "configure.sh failed for {fixture}");
    let exe = folder.join("driver");
    let include = format!("-I{}", folder.display());
    let files = [
        repo().join("cases/turkish-draughts/driver.c"),
        repo().join("cases/turkish-draughts/fallbacks.c"),
        repo().join("cases/common/driver-main.c"),
    ];
    gcc(&exe, &files, &[&include]);
    exe
}

/// Programs in other conventions than the handout's, which the driver must grade by the same rules:
/// each with what `convention NAME` prints for it where that differs from the handout's.
const DRAUGHTS_CONVENTIONS: [(&str, &[(&str, &str)]); 12] = [
    ("correct", &[]),
    ("variant-display-blank-lines", &[]),
    ("variant-prints-inside", &[]),
    ("variant-white-on-top", &[("orientation", "orientation: white starts on rows 1-2")]),
    ("variant-one-based", &[("coordinates", "coordinates: 1-based")]),
    ("variant-transposed", &[("orientation", "orientation: the board transposed, white on columns 5-6")]),
    (
        "variant-first-landing",
        &[("captures", "capture sequences: the first landing, move() finishing the sequence")],
    ),
    ("variant-one-jump-per-call", &[("captures", "capture sequences: one jump per call")]),
    (
        "variant-long-landing-ends-call",
        &[(
            "captures",
            "capture sequences: the first landing, move() finishing the sequence; a king's long landing ends the call",
        )],
    ),
    (
        "variant-characters",
        &[("pieces", "pieces: the characters w b W B and '-' for empty, players white as 'w', black as 'b'")],
    ),
    // Men and kings in conventions of their own.
    (
        "variant-straight-sequences",
        &[(
            "captures",
            "capture sequences: men: the first landing, move() finishing the sequence as far as it goes \
             straight (a turn ends the call); kings: one jump per call",
        )],
    ),
    (
        "variant-men-finish-kings-one-jump",
        &[(
            "captures",
            "capture sequences: men: the final square or the first landing, move() finishing the sequence; \
             kings: one jump per call",
        )],
    ),
];

/// Programs that read rule 6 otherwise (a king lands right behind the piece it takes): the rules
/// differ, so only their conventions are compared here.
const DRAUGHTS_READINGS: [(&str, &[(&str, &str)]); 2] = [
    ("variant-king-lands-behind", &[("king-landing", "king captures: land right behind the piece taken")]),
    (
        "variant-captured-square",
        &[
            ("captures", "capture sequences: the square of the piece taken, one jump per call"),
            ("king-landing", "king captures: land right behind the piece taken"),
        ],
    ),
];

#[test]
fn the_turkish_draughts_driver_finds_each_programs_conventions() {
    use reference::turkish_draughts::driver::HANDOUT_CONVENTIONS;

    let dir = tempfile::tempdir().unwrap();
    for (fixture, differences) in DRAUGHTS_CONVENTIONS.into_iter().chain(DRAUGHTS_READINGS) {
        let exe = draughts_driver(dir.path(), fixture);
        let script: String =
            HANDOUT_CONVENTIONS.iter().map(|(name, _)| format!("convention {name}\n")).collect();
        let out = String::from_utf8(run(&exe, script.as_bytes(), &BTreeMap::new())).unwrap();
        let expected: String = HANDOUT_CONVENTIONS
            .iter()
            .map(|&(name, line)| {
                let line = differences.iter().find(|(n, _)| *n == name).map_or(line, |(_, l)| l);
                format!("> convention {name}\n{line}\n")
            })
            .collect();
        assert_eq!(out, expected, "{fixture}");
    }
}

#[test]
fn a_program_that_names_the_piece_it_takes_is_never_asked_to_step_onto_an_enemy_piece() {
    // Sent as it is, the request would read as taking that piece, which such a program would do: the
    // rules refuse it in every reading, and the driver answers so without asking.
    let dir = tempfile::tempdir().unwrap();
    let exe = draughts_driver(dir.path(), "variant-captured-square");
    let commands = [
        "position --------/--------/--------/--------/---b----/---w----/--------/--------",
        "move 5 3 4 3 white",
        "move 4 3 5 3 white",
        "dump",
        "move 5 3 3 3 white",
        "dump",
    ];
    let expected =
        reference::driver::run_script::<reference::turkish_draughts::driver::Driver, _>(&commands).unwrap();
    let script = commands.join("\n") + "\n";
    let actual = String::from_utf8(run(&exe, script.as_bytes(), &BTreeMap::new())).unwrap();
    assert_eq!(actual, expected);
    assert!(expected.contains("move returned -2\n> move 4 3 5 3 white\nmove returned -1\n"), "{expected}");
}

#[test]
fn two_hundred_random_turkish_draughts_driver_scripts_agree_under_every_convention() {
    use reference::turkish_draughts::rules::{Board, Player};

    let dir = tempfile::tempdir().unwrap();
    let exes: Vec<(&str, PathBuf)> = DRAUGHTS_CONVENTIONS
        .iter()
        .map(|(fixture, ..)| (*fixture, draughts_driver(dir.path(), fixture)))
        .collect();
    let mut rng = fastrand::Rng::with_seed(2018);
    let (mut agreed, mut captures, mut long_landings) = (0, 0, 0);
    while agreed < 200 {
        let position = if rng.u8(..4) == 0 { "start".to_owned() } else { random_draughts_position(&mut rng) };
        let mut commands =
            vec![if position == "start" { position.clone() } else { format!("position {position}") }];
        let mut board = if position == "start" {
            Board::start()
        } else {
            Board::parse(&position.replace('/', "\n")).unwrap()
        };
        let mut player = if rng.bool() { Player::White } else { Player::Black };
        for _ in 0..6 {
            let legal = board.legal_moves(player);
            let (from, to, landings) = match rng.u8(..4) {
                // Mostly a legal move, so that games go on and sequences are played; a capture lists
                // its landing squares, as cases do.
                0 | 1 if !legal.is_empty() => {
                    let mv = &legal[rng.usize(..legal.len())];
                    // A king landing beyond the square right behind a piece, with more to take after.
                    long_landings += (1..mv.landings.len())
                        .filter(|&i| {
                            let (l, c) = (mv.landings[i - 1], mv.captured[i - 1]);
                            (l.x - c.x).abs() + (l.y - c.y).abs() > 1
                        })
                        .count();
                    let landings: String = mv.landings.iter().map(|l| format!(" {} {}", l.x, l.y)).collect();
                    (mv.from, mv.to, landings)
                }
                _ => (
                    reference::turkish_draughts::rules::Square::new(rng.i32(0..8), rng.i32(0..8)),
                    reference::turkish_draughts::rules::Square::new(rng.i32(0..8), rng.i32(0..8)),
                    String::new(),
                ),
            };
            commands.push(format!(
                "move {} {} {} {} {}{landings}",
                from.x,
                from.y,
                to.x,
                to.y,
                player.name()
            ));
            if let reference::turkish_draughts::rules::Outcome::Moved(n) = board.play(player, from, to) {
                captures += n;
                player = player.opponent();
            }
            if rng.bool() {
                commands.push("end".to_owned());
            }
            if rng.u8(..4) == 0 {
                commands.push(format!("at {} {}", rng.u8(0..8), rng.u8(0..8)));
            }
        }
        commands.push("dump".to_owned());
        // What display_board shows, in the handout's order whatever the program's orientation.
        commands.push("display-content".to_owned());
        let Ok(expected) =
            reference::driver::run_script::<reference::turkish_draughts::driver::Driver, _>(&commands)
        else {
            continue; // A script the rules leave open (two sequences, different captures).
        };
        let script = commands.join("\n") + "\n";
        for (fixture, exe) in &exes {
            let actual = String::from_utf8(run(exe, script.as_bytes(), &BTreeMap::new())).unwrap();
            assert!(
                actual == expected,
                "{fixture}: script differs:\n{script}\n{}",
                first_difference(expected.as_bytes(), actual.as_bytes())
            );
        }
        agreed += 1;
    }
    assert!(captures > 100, "the scripts played {captures} captures");
    assert!(long_landings > 5, "the scripts asked for {long_landings} long landings in a sequence");
}
