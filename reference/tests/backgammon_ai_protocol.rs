//! The `--protocol` mode of a correct submission, driven with scripted sessions.

use reference::backgammon_ai::players::{OnePlyPlayer, Player, RandomPlayer, Rng};
use reference::backgammon_ai::protocol::run_protocol;
use reference::backgammon_ai::rules::{check_play, format_play, game_result, Colour, Position};

/// The answer lines of a session fed `commands`, one per line.
fn session(commands: &[&str]) -> Vec<String> {
    let input = commands.iter().map(|c| format!("{c}\n")).collect::<String>();
    let mut output = Vec::new();
    run_protocol(&mut input.as_bytes(), &mut output).unwrap();
    String::from_utf8(output).unwrap().lines().map(str::to_owned).collect()
}

const START: &str = "position black:24x2,13x5,8x3,6x5 white:19x5,17x3,12x5,1x2 bar:0,0 off:0,0";

#[test]
fn a_scripted_session_is_answered_line_by_line() {
    // The AI plays white; its answer to 4-2 is whatever the one-ply player chooses there.
    let after_black =
        Position::from_wire("position black:24x2,13x5,8x2,6x4,5x2 white:19x5,17x3,12x5,1x2 bar:0,0 off:0,0")
            .unwrap();
    let ai_moves = OnePlyPlayer.choose(&after_black, Colour::White, (4, 2));
    let after_ai = check_play(&after_black, Colour::White, (4, 2), &ai_moves).unwrap();
    let answers = session(&[
        "new white",
        "position",
        "roll black 3 1",
        "play 13/9",
        "position",
        "play 13/12 12/9",
        "play 8/5",
        "play 8/5 6/5",
        "position",
        "play 24/23 24/21",
        "go",
        "roll white 4 2",
        "go",
        "position",
        "result",
        "double?",
        "double",
        "frobnicate 3",
        "",
        "quit",
        "position",
    ]);
    let expected = vec![
        "ok".to_owned(),
        START.to_owned(),
        "ok".to_owned(),
        "illegal no die of 4 left".to_owned(),
        START.to_owned(),
        "illegal point 12 is closed".to_owned(),
        "illegal must use both dice".to_owned(),
        "ok".to_owned(),
        after_black.to_wire(),
        "illegal no dice rolled for black".to_owned(),
        "error NO-ROLL no dice rolled for white".to_owned(),
        "ok".to_owned(),
        format!("move {}", format_play(&ai_moves)),
        after_ai.to_wire(),
        "result none".to_owned(),
        "no".to_owned(),
        "take".to_owned(),
        "error UNKNOWN-COMMAND frobnicate".to_owned(),
    ];
    assert_eq!(answers, expected);
}

#[test]
fn misuse_gets_one_error_line_each() {
    let answers = session(&[
        "go",
        "roll black 3 1",
        "new red",
        "new",
        "new black",
        "roll black 7 1",
        "roll blue 3 1",
        "roll black 3",
        "play 13-9",
        "go now",
        "position please",
    ]);
    assert_eq!(
        answers,
        [
            "error NO-GAME send new black or new white first",
            "error NO-GAME send new black or new white first",
            "error BAD-ARGUMENTS `red` is not a colour (black or white)",
            "error BAD-ARGUMENTS new black or new white",
            "ok",
            "error BAD-ARGUMENTS roll COLOUR D1 D2 with dice 1 to 6",
            "error BAD-ARGUMENTS roll COLOUR D1 D2 with dice 1 to 6",
            "error BAD-ARGUMENTS roll COLOUR D1 D2 with dice 1 to 6",
            "illegal `13-9` is not a checker move (FROM/TO)",
            "error BAD-ARGUMENTS go takes no arguments",
            "error BAD-ARGUMENTS position takes no arguments",
        ]
    );
}

#[test]
fn the_grader_may_not_pass_while_it_can_move() {
    let answers = session(&["new black", "roll white 6 6", "play", "play 1/7 1/7 12/18 12/18"]);
    assert_eq!(answers, ["ok", "ok", "illegal must use all four dice", "ok"]);
}

/// A whole game over the protocol against a seeded random grader, the cube doubled once: every
/// answer is what the rules and the one-ply player say, and the result counts the cube.
fn whole_game(seed: u64, ai: Colour) {
    let mut dice = Rng::new(seed);
    let mut grader = RandomPlayer::new(seed + 100);
    let mut commands = vec![format!("new {ai}"), "double".to_owned()];
    let mut expected = vec!["ok".to_owned(), "take".to_owned()];
    let mut position = Position::start();
    let (mut colour, mut roll) = reference::backgammon_ai::players::opening_roll(&mut dice);
    let result = loop {
        commands.push(format!("roll {colour} {} {}", roll.0, roll.1));
        expected.push("ok".to_owned());
        if colour == ai {
            let moves = OnePlyPlayer.choose(&position, colour, roll);
            commands.push("go".to_owned());
            expected.push(format!("move {}", format_play(&moves)).trim_end().to_owned());
            position = check_play(&position, colour, roll, &moves).unwrap();
        } else {
            let moves = grader.choose(&position, colour, roll);
            commands.push(format!("play {}", format_play(&moves)));
            expected.push("ok".to_owned());
            position = check_play(&position, colour, roll, &moves).unwrap();
        }
        commands.push("position".to_owned());
        expected.push(position.to_wire());
        if let Some(result) = game_result(&position) {
            break result;
        }
        commands.push("result".to_owned());
        expected.push("result none".to_owned());
        colour = colour.opponent();
        roll = dice.roll();
    };
    commands.push("result".to_owned());
    expected.push(format!("result {} {} {}", result.winner, result.kind.name(), result.points(2)));
    commands.push("go".to_owned());
    expected.push("error GAME-OVER the game is over".to_owned());
    commands.push("quit".to_owned());
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    assert_eq!(session(&commands), expected, "seed {seed}");
}

#[test]
fn whole_games_over_the_protocol_match_the_rules() {
    for seed in 0..6 {
        whole_game(seed, if seed % 2 == 0 { Colour::Black } else { Colour::White });
    }
}
