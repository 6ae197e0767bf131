//! The correct C fixtures and the Rust reference print identical transcripts, byte for byte: for each
//! assignment, 200 seeded whole games and 200 random driver scripts.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::repo;
use reference::CaseKind;

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
    reference::assignment(assignment).unwrap().expand(kind, &table).ok()
}

#[test]
fn two_hundred_seeded_trouble_games_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("trouble");
    gcc(&exe, &sources("fixtures/trouble/correct"), &[]);
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
    }
}

#[test]
fn two_hundred_random_trouble_driver_scripts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("driver");
    let mut files = sources("fixtures/trouble/correct");
    files.push(repo().join("cases/trouble/driver.c"));
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
                2 => format!("win {player}"),
                3 => "dump".to_owned(),
                _ => {
                    let from = match rng.u8(..3) {
                        0 => "H".to_owned(),
                        1 => format!("{}F{}", colours[rng.usize(..4)], rng.u8(1..5)),
                        _ => format!("{}{}", colours[rng.usize(..4)], rng.u8(1..8)),
                    };
                    format!("move {player} {from} {roll}")
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
        let actual = run(&exe, &expansion.stdin, &env);
        assert!(
            actual == expansion.stdout,
            "scenario differs:\n{scenario}\n{}",
            first_difference(&expansion.stdout, &actual)
        );
    }
}

#[test]
fn two_hundred_random_backgammon_driver_scripts_agree() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("driver");
    let mut files = sources("fixtures/backgammon/correct");
    files.push(repo().join("cases/backgammon/driver.c"));
    gcc(&exe, &files, &["-Dmain=student_main"]);
    let functions =
        ["check_move", "check_basic_move", "check_entry_move", "check_bear_off_move", "check_die"];
    let colours = ["white", "red"];
    let mut rng = fastrand::Rng::with_seed(11);
    let (mut agreed, mut checks) = (0, 0);
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
            commands.push(match rng.u8(..8) {
                0 => "print".to_owned(),
                1 => "dump".to_owned(),
                2 => format!("bounds {}", rng.i32(-2..27)),
                _ => format!("check {} {colour} {from} {to} {}", functions[rng.usize(..5)], rng.u8(1..7)),
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
        checks += commands.iter().filter(|c| c.starts_with("check")).count();
        agreed += 1;
    }
    assert!(checks >= 400, "the scripts ask real questions ({checks} checks)");
}

/// The first line where two outputs differ, for a readable failure.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let (e, a) = (String::from_utf8_lossy(expected), String::from_utf8_lossy(actual));
    let i = e.lines().zip(a.lines()).take_while(|(x, y)| x == y).count();
    format!("line {}: expected {:?}, actual {:?}", i + 1, e.lines().nth(i), a.lines().nth(i))
}
