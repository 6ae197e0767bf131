//! Whole games between the players of full backgammon: every position stays legal, every game ends,
//! and the one-ply AI beats the random player by far.

use std::collections::HashSet;
use std::time::Instant;

use reference::backgammon_ai::players::{opening_roll, play_game, OnePlyPlayer, Player, RandomPlayer, Rng};
use reference::backgammon_ai::rules::{
    check_play, game_result, legal_plays, Colour, Point, Position, CHECKERS,
};

/// 15 checkers of each colour on the points, the bar and off; no point holds both colours.
fn assert_sound(position: &Position, context: &str) {
    for colour in Colour::ALL {
        let on_points: u32 = (1..=24).map(|p| u32::from(position.count(Point::Board(p), colour))).sum();
        let total = on_points + u32::from(position.bar(colour)) + u32::from(position.off(colour));
        assert_eq!(total, u32::from(CHECKERS), "{context}: {colour} has {total} checkers: {position}");
    }
    for p in 1..=24 {
        let both = position.count(Point::Board(p), Colour::Black) > 0
            && position.count(Point::Board(p), Colour::White) > 0;
        assert!(!both, "{context}: point {p} holds both colours: {position}");
    }
}

/// Plays one game between two players through the public rules, checking every position reached by
/// every legal play of every roll; returns the number of turns.
fn checked_game(seed: u64, black: &mut dyn Player, white: &mut dyn Player) -> u32 {
    let mut dice = Rng::new(seed);
    let (mut colour, mut roll) = opening_roll(&mut dice);
    let mut position = Position::start();
    for turn in 1..=5_000 {
        let context = format!("seed {seed}, turn {turn}, {colour} {}-{}", roll.0, roll.1);
        let plays = legal_plays(&position, colour, roll);
        assert!(!plays.is_empty(), "{context}");
        let distinct: HashSet<Position> = plays.iter().map(|p| p.result).collect();
        assert_eq!(distinct.len(), plays.len(), "{context}: a position twice");
        let dice_used: HashSet<usize> = plays.iter().map(|p| p.moves.len()).collect();
        assert_eq!(dice_used.len(), 1, "{context}: plays of different lengths");
        for play in &plays {
            assert_sound(&play.result, &context);
        }
        let player: &mut dyn Player = if colour == Colour::Black { &mut *black } else { &mut *white };
        let moves = player.choose(&position, colour, roll);
        let next = check_play(&position, colour, roll, &moves).unwrap_or_else(|e| panic!("{context}: {e}"));
        assert!(plays.iter().any(|p| p.result == next), "{context}");
        assert_eq!(Position::from_wire(&next.to_wire()), Ok(next), "{context}: the wire line reads back");
        position = next;
        if game_result(&position).is_some() {
            return turn;
        }
        colour = colour.opponent();
        roll = dice.roll();
    }
    panic!("seed {seed}: the game did not end in 5000 turns");
}

#[test]
fn random_games_stay_legal_and_end() {
    let mut kinds = HashSet::new();
    for seed in 0..150 {
        let turns = checked_game(seed, &mut RandomPlayer::new(seed + 1), &mut RandomPlayer::new(seed + 2));
        assert!(turns > 5, "seed {seed}: {turns} turns");
    }
    for seed in 0..100 {
        let mut ai = OnePlyPlayer::new();
        let mut random = RandomPlayer::new(seed);
        if seed % 2 == 0 {
            checked_game(seed, &mut ai, &mut random);
        } else {
            checked_game(seed, &mut random, &mut ai);
        }
    }
    for seed in 0..300 {
        let record = play_game(
            &mut RandomPlayer::new(seed * 2),
            &mut RandomPlayer::new(seed * 2 + 1),
            &mut Rng::new(seed),
            5_000,
        )
        .unwrap();
        kinds.insert(record.result.kind);
    }
    assert_eq!(kinds.len(), 3, "random games end in singles, gammons and backgammons: {kinds:?}");
}

#[test]
fn seeded_games_are_the_same_every_time() {
    let game = |seed| {
        play_game(&mut OnePlyPlayer::new(), &mut RandomPlayer::new(seed), &mut Rng::new(seed), 5_000).unwrap()
    };
    for seed in [3, 14, 15] {
        assert_eq!(game(seed), game(seed));
    }
}

#[test]
fn the_generator_is_seeded_uniform_and_in_range() {
    let mut rng = Rng::new(42);
    let mut faces = [0u32; 6];
    for _ in 0..60_000 {
        faces[usize::from(rng.die()) - 1] += 1;
    }
    assert!(faces.iter().all(|&n| (9_400..10_600).contains(&n)), "{faces:?}");
    assert_eq!(Rng::new(7).next_u64(), Rng::new(7).next_u64());
    assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    assert!((0..1000).all(|_| rng.below(3) < 3));
    for seed in 0..200 {
        let (first, (black, white)) = opening_roll(&mut Rng::new(seed));
        assert_ne!(black, white);
        assert_eq!(first, if black > white { Colour::Black } else { Colour::White });
    }
}

#[test]
fn the_one_ply_player_makes_the_classic_opening_points() {
    let start = Position::start();
    let choose = |colour, dice| {
        reference::backgammon_ai::rules::format_play(&OnePlyPlayer.choose(&start, colour, dice))
    };
    assert_eq!(choose(Colour::Black, (3, 1)), "8/5 6/5");
    assert_eq!(choose(Colour::Black, (1, 6)), "13/7 8/7");
    assert_eq!(choose(Colour::White, (4, 2)), "17/21 19/21");
}

/// Plays `games` games of the one-ply player against the random one, alternating colours (the
/// one-ply player is black in even games), the dice and the random player's choices seeded from
/// `seed` and the game number; returns the one-ply player's wins.
fn one_ply_wins(seed: u64, games: u64) -> u64 {
    let mut wins = 0;
    for game in 0..games {
        let mut dice = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(game));
        let mut random = RandomPlayer::new(seed ^ (game << 20) ^ 0x5eed);
        let mut ai = OnePlyPlayer::new();
        let ai_colour = if game % 2 == 0 { Colour::Black } else { Colour::White };
        let record = match ai_colour {
            Colour::Black => play_game(&mut ai, &mut random, &mut dice, 10_000),
            Colour::White => play_game(&mut random, &mut ai, &mut dice, 10_000),
        }
        .unwrap();
        wins += u64::from(record.result.winner == ai_colour);
    }
    wins
}

#[test]
fn the_one_ply_player_beats_the_random_player() {
    let games = 300;
    let wins = one_ply_wins(1, games);
    assert!(wins as f64 / games as f64 > 0.75, "one-ply won {wins} of {games}");
}

/// The figure reported for the AI's strength: 1000 games (about 3 seconds optimised).
#[test]
#[ignore = "measurement: cargo test --release -p reference --test backgammon_ai_players -- --ignored --nocapture"]
fn measure_one_ply_against_random() {
    let start = Instant::now();
    let games = 1000;
    let wins = one_ply_wins(1, games);
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "one-ply won {wins}/{games} ({:.1}%), {:.0} games/s",
        100.0 * wins as f64 / games as f64,
        games as f64 / seconds
    );
}
