//! Interactive cases end to end with a toy referee (`ping N` → `pong N`, then `quit`) and shell
//! programs that answer well, late, with junk, or crash: each game that goes wrong ends with a precise
//! reason and the lines exchanged before it, and the next game goes on.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::time::Duration;

use grader::interactive::{play_match, Program};
use grader::run::{Containment, Limits};
use reference::referee::{Answer, Game, GameOutcome, Match, MatchScore, Step};

/// Three games of four pings each; a game is won when every answer is right and the program quits.
struct PingMatch;

struct PingGame {
    sent: u32,
}

const PINGS: u32 = 4;

impl Game for PingGame {
    fn start(&mut self) -> Step {
        self.sent = 1;
        Step::Send("ping 1".into())
    }

    fn answer(&mut self, answer: Answer<'_>) -> Step {
        let mut outcome = GameOutcome::default();
        if self.sent > PINGS {
            // The answer to `quit`: the program should have ended.
            if answer != Answer::Ended {
                outcome.problem = Some(format!("did not end after quit ({answer:?})"));
            } else {
                outcome.add("won", 1);
            }
            return Step::Done(outcome);
        }
        let wanted = format!("pong {}", self.sent);
        match answer {
            Answer::Line(line) if line == wanted => {}
            Answer::Line(line) => {
                outcome.problem = Some(format!("answered `{line}` to `ping {}`, not `{wanted}`", self.sent));
                return Step::Done(outcome);
            }
            other => {
                outcome.problem = Some(format!("{other:?} after `ping {}`", self.sent));
                return Step::Done(outcome);
            }
        }
        self.sent += 1;
        if self.sent > PINGS {
            Step::Send("quit".into())
        } else {
            Step::Send(format!("ping {}", self.sent))
        }
    }
}

impl Match for PingMatch {
    fn games(&self) -> usize {
        3
    }

    fn game(&self, _index: usize) -> Box<dyn Game> {
        Box::new(PingGame { sent: 0 })
    }

    fn answer_timeout(&self) -> Duration {
        Duration::from_millis(700)
    }

    fn score(&self, outcomes: &[GameOutcome]) -> MatchScore {
        let won: u32 = outcomes.iter().map(|o| o.count("won")).sum();
        MatchScore {
            credit: f64::from(won) / outcomes.len() as f64,
            summary: format!("{won} of 3 games won"),
        }
    }
}

/// Plays the match with `/bin/sh -c script`.
fn play(script: &str) -> grader::interactive::MatchPlayed {
    let argv: Vec<OsString> = ["/bin/sh", "-c", script].iter().map(OsString::from).collect();
    let limits = Limits { wall: Duration::from_secs(20), ..Limits::default() };
    let env = BTreeMap::new();
    let program = Program {
        argv: &argv,
        env: &env,
        limits: &limits,
        mounts: &[],
        containment: Containment::available(),
    };
    play_match(&PingMatch, program).expect("the grader starts /bin/sh")
}

const GOOD: &str = r#"while read word n; do case $word in ping) echo "pong $n";; quit) exit 0;; esac; done"#;

#[test]
fn a_program_that_answers_every_ping_wins_every_game() {
    let played = play(GOOD);
    assert_eq!(played.score.credit, 1.0, "{:?}", played.problems);
    assert!(played.problems.is_empty());
    assert_eq!(played.score.summary, "3 of 3 games won");
}

#[test]
fn a_late_answer_ends_its_game_with_the_exchange_before_it() {
    let late = r#"while read word n; do case $word in ping) [ "$n" = 3 ] && sleep 5; echo "pong $n";; quit) exit 0;; esac; done"#;
    let played = play(late);
    assert_eq!(played.score.credit, 0.0);
    assert_eq!(played.problems.len(), 3, "each game goes on after the one before went wrong");
    let first = &played.problems[0];
    assert_eq!(first.game, 1);
    assert!(first.problem.contains("TimedOut after `ping 3`"), "{}", first.problem);
    assert_eq!(
        first.exchange,
        ["> ping 1", "< pong 1", "> ping 2", "< pong 2", "> ping 3", "(no answer within 0.7 s)"]
    );
}

#[test]
fn a_crash_is_named_with_its_signal() {
    let crash = r#"while read word n; do case $word in ping) [ "$n" = 2 ] && kill -SEGV $$; echo "pong $n";; quit) exit 0;; esac; done"#;
    let played = play(crash);
    assert_eq!(played.score.credit, 0.0);
    let problem = &played.problems[0].problem;
    assert!(problem.contains("Ended after `ping 2`") && problem.contains("SIGSEGV"), "{problem}");
}

#[test]
fn a_game_that_went_wrong_keeps_what_was_sent_and_its_own_stderr_to_replay_it() {
    let crash = r#"while read word n; do case $word in ping) [ "$n" = 2 ] && { echo "boom at $n" >&2; exit 3; }; echo "pong $n";; quit) exit 0;; esac; done"#;
    let played = play(crash);
    let first = &played.problems[0];
    assert_eq!(first.sent, ["ping 1", "ping 2"], "every line the grader sent, in order");
    assert_eq!(first.stderr.as_deref(), Some("boom at 2"));
    assert_eq!(played.stderr.as_deref(), Some("game 1:\nboom at 2"), "labelled with its game");
}

#[test]
fn a_debug_line_on_stdout_desynchronises_the_game() {
    let chatty = r#"while read word n; do case $word in ping) echo "debug: got $n"; echo "pong $n";; quit) exit 0;; esac; done"#;
    let played = play(chatty);
    assert_eq!(played.score.credit, 0.0);
    assert!(
        played.problems[0].problem.contains("answered `debug: got 1` to `ping 1`"),
        "{:?}",
        played.problems
    );
}

#[test]
fn a_program_that_does_not_quit_loses_only_that_and_is_stopped() {
    let stays = r#"while read word n; do case $word in ping) echo "pong $n";; esac; done; sleep 30"#;
    let played = play(stays);
    assert_eq!(played.score.credit, 0.0);
    assert!(
        played.problems[0].problem.contains("did not end after quit (TimedOut)"),
        "{:?}",
        played.problems
    );
    // Each game's program was stopped by the grader after its grace, not left to sleep on: the
    // problem says how it ended.
    for problem in &played.problems {
        assert!(problem.problem.contains("; the program "), "{problem:?}");
    }
    assert_eq!(played.problems.len(), 3);
}
