//! The whole Trouble program driven by input sources that look at the game: turn order, the extra
//! roll after a 6, wins and quits.

use reference::trouble::console::{run, Ending, InputSource, Options, Prompt, Script, NO_MOVES, ROLL_AGAIN};
use reference::trouble::rules::Colour;

/// Types a seed and a player count, then always the first legal move, and `Q` after `quit_after`
/// turns (if set).
struct FirstMove {
    seed: i32,
    players: u8,
    quit_after: Option<u64>,
}

impl reference::console::InputSource<Prompt<'_>> for FirstMove {
    fn next_input(&mut self, prompt: &Prompt<'_>) -> Option<String> {
        Some(match prompt {
            Prompt::Seed => self.seed.to_string(),
            Prompt::Players => self.players.to_string(),
            Prompt::Move(r) if self.quit_after.is_some_and(|q| r.turn > q) => "Q".to_owned(),
            Prompt::Move(r) => r.legal[0].from.to_string(),
        })
    }
}

fn play(source: &mut dyn InputSource) -> (String, Ending) {
    let mut out = Vec::new();
    let options = Options { echo_input: false, turn_limit: Some(5000) };
    let session = run(source, &mut out, options).unwrap();
    (String::from_utf8(out).unwrap(), session.ending)
}

fn turn_headers(stdout: &str) -> Vec<&str> {
    stdout.lines().filter_map(|l| l.strip_prefix("---- ")?.strip_suffix("'s turn")).collect()
}

#[test]
fn three_players_take_turns_red_green_yellow() {
    let (out, _) = play(&mut FirstMove { seed: 42, players: 3, quit_after: Some(7) });
    let headers = turn_headers(&out);
    assert!(headers.len() >= 8);
    for (i, name) in headers.iter().enumerate() {
        assert_eq!(*name, ["Red", "Green", "Yellow"][i % 3], "turn {}", i + 1);
    }
}

#[test]
fn four_players_take_turns_red_green_yellow_blue() {
    let (out, _) = play(&mut FirstMove { seed: 42, players: 4, quit_after: Some(9) });
    let headers = turn_headers(&out);
    assert!(headers.len() >= 10);
    for (i, name) in headers.iter().enumerate() {
        assert_eq!(*name, ["Red", "Green", "Yellow", "Blue"][i % 4], "turn {}", i + 1);
    }
}

#[test]
fn two_players_are_red_and_yellow() {
    let (out, _) = play(&mut FirstMove { seed: 42, players: 2, quit_after: Some(6) });
    for (i, name) in turn_headers(&out).iter().enumerate() {
        assert_eq!(*name, ["Red", "Yellow"][i % 2], "turn {}", i + 1);
    }
}

#[test]
fn a_game_played_to_the_end_stops_right_after_the_winning_move() {
    let (out, ending) = play(&mut FirstMove { seed: 1234, players: 2, quit_after: None });
    let Ending::Won { player, turn } = ending else {
        panic!("{ending:?}");
    };
    assert_eq!(turn_headers(&out).len() as u64, turn);
    assert_eq!(*turn_headers(&out).last().unwrap(), player.name());
    assert!(out.ends_with("Enter position of piece to move: "));
    // The last status shows three of the winner's pieces already in the Finish Line.
    let status = out.lines().rev().find(|l| l.trim_start().starts_with(&format!("{player}:"))).unwrap();
    assert_eq!(status.matches(&format!("{}F", player.name().chars().next().unwrap())).count(), 3);
}

#[test]
fn a_six_rolls_again_even_without_a_legal_move() {
    // A 6 with no move is rare (Home blocked by an own piece on the start square, every other
    // piece blocked or too far): look through whole games until one has it.
    let stuck_six = format!("You rolled 6.\n{NO_MOVES}\n");
    let out = (1..200)
        .map(|seed| play(&mut FirstMove { seed, players: 4, quit_after: None }).0)
        .find(|out| out.contains(&stuck_six))
        .expect("some game has a 6 without a legal move");
    let found = out.matches(&stuck_six).count();
    assert!(found > 0, "no 6 without a move in this game");
    assert_eq!(out.matches(&format!("{stuck_six}{ROLL_AGAIN}\n")).count(), found);
    // After the extra-roll line the status follows directly, without a turn header.
    assert!(!out.contains(&format!("{ROLL_AGAIN}\n\n")));
    assert!(!out.contains(&format!("{ROLL_AGAIN}\n----")));
    assert!(out.contains(&format!("{ROLL_AGAIN}\n   Red: ")));
    for (i, _) in out.match_indices(&stuck_six) {
        let rest = &out[i + stuck_six.len() + ROLL_AGAIN.len() + 1..];
        assert!(rest.starts_with("   Red: "), "status, then a new roll: {}", &rest[..200.min(rest.len())]);
        assert!(rest.lines().nth(4).unwrap().starts_with("You rolled "));
    }
}

#[test]
fn q_ends_the_program_without_a_message() {
    let mut out = Vec::new();
    let session = run(&mut Script::new(["1234", "2", "Q", "extra"]), &mut out, Options::default()).unwrap();
    assert_eq!(session.ending, Ending::Quit { player: Colour::Red, turn: 3 });
    assert_eq!(session.consumed, ["1234", "2", "Q"]);
    assert!(String::from_utf8(out).unwrap().ends_with("H to R5\nEnter position of piece to move: "));
}
