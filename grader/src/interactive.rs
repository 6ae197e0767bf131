//! Interactive cases: the reference's referee plays its match with the program, one program start per
//! game, one line per answer within a time limit; a game that goes wrong ends with its reason and the
//! lines exchanged before it, and the next game goes on.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::time::Duration;

use reference::referee::{Answer, GameOutcome, LeftOut, Match, MatchScore, Step};

pub use crate::report::{GameEnd, GameProblem, GameStatus};
use crate::run::{self, Containment, Interactive, Limits, LineRead, Mount, SpawnRequest, Termination};

/// Lines of the exchange kept before a game's problem, for the report.
const EXCHANGE_LINES: usize = 12;

/// Characters of one exchanged line kept in a report.
const LINE_CHARS: usize = 200;

/// Lines a game keeps of what the grader sent, for replaying it: a game of the strength case sends
/// thousands; more than this and the replay is cut (and says so).
const MAX_SENT_LINES: usize = 20_000;

/// How long a program told to quit may take to end.
const QUIT_GRACE: Duration = Duration::from_secs(2);

/// How the program is started for each game.
#[derive(Debug, Clone, Copy)]
pub struct Program<'a> {
    /// Its command line (`argv[0]` absolute).
    pub argv: &'a [OsString],
    /// Its environment.
    pub env: &'a std::collections::BTreeMap<String, String>,
    /// Limits of each game's run.
    pub limits: &'a Limits,
    /// What it may see of the host.
    pub mounts: &'a [Mount],
    /// How it is contained.
    pub containment: Containment,
}

/// What a whole match gave.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchPlayed {
    /// The referee's score.
    pub score: MatchScore,
    /// The games that went wrong, in order.
    pub problems: Vec<GameProblem>,
    /// How every game ended, in order.
    pub ends: Vec<GameEnd>,
    /// Wall time of all the games.
    pub wall_time: Duration,
    /// CPU time of all the games' programs.
    pub cpu_time: Duration,
    /// The largest peak memory of a game, in KiB.
    pub peak_memory_kb: u64,
    /// The first lines the program wrote on stderr in the first game that went wrong, labelled with
    /// its number (`game 3:`).
    pub stderr: Option<String>,
}

/// Plays every game of `referee`'s match with the program, one after the other, each holding a CPU
/// slot (a referee's time limits mean something only when the program has a core).
///
/// # Errors
///
/// The grader could not start the program at all (a game where it could not is not the student's
/// fault, so the case is the grader's error, not a zero).
pub fn play_match(referee: &dyn Match, program: Program<'_>) -> Result<MatchPlayed, run::RunError> {
    let mut outcomes = Vec::with_capacity(referee.games());
    let mut problems = Vec::new();
    let mut ends = Vec::new();
    let (mut wall_time, mut cpu_time, mut peak_memory_kb) = (Duration::ZERO, Duration::ZERO, 0);
    let mut stderr = None;
    for index in 0..referee.games() {
        let _slot = run::Slot::acquire();
        let played = play_game(referee, index, program)?;
        wall_time += played.run.wall_time;
        cpu_time += played.run.cpu_time;
        peak_memory_kb = peak_memory_kb.max(played.run.peak_memory_kb);
        let ending = ending_note(&played.run.termination);
        let left_out = played.outcome.left_out;
        ends.push(GameEnd {
            game: index + 1,
            status: match (&played.outcome.problem, left_out) {
                (None, _) => GameStatus::Finished,
                (Some(_), None) => GameStatus::Failed,
                (Some(_), Some(_)) => GameStatus::LeftOut,
            },
            how: match &played.outcome.problem {
                Some(problem) => {
                    format!("{problem}{}{ending}", left_out.map(left_out_note).unwrap_or_default())
                }
                None => played.outcome.end.clone().unwrap_or_else(|| "ended".to_owned()) + &ending,
            },
        });
        if let Some(problem) = &played.outcome.problem {
            let excerpt = (!played.run.stderr.is_empty()).then(|| {
                String::from_utf8_lossy(&played.run.stderr).lines().take(5).collect::<Vec<_>>().join("\n")
            });
            if stderr.is_none() {
                stderr = excerpt.as_ref().map(|text| format!("game {}:\n{text}", index + 1));
            }
            problems.push(GameProblem {
                game: index + 1,
                problem: format!("{problem}{}{ending}", left_out.map(left_out_note).unwrap_or_default()),
                exchange: played.exchange,
                sent: played.sent,
                stderr: excerpt,
                graded_by: left_out.map(|l| l.category.to_owned()),
            });
        }
        outcomes.push(played.outcome);
    }
    Ok(MatchPlayed {
        score: referee.score(&outcomes),
        problems,
        ends,
        wall_time,
        cpu_time,
        peak_memory_kb,
        stderr,
    })
}

/// Why a game is left out of its case, as the end of its problem. The grader rewrites it once the
/// whole grading is scored, should the category named charge nothing (see [`settle_left_out`]).
fn left_out_note(left_out: LeftOut) -> String {
    format!(" (left out of this case: {} is graded by {})", left_out.what, left_out.category)
}

/// Tells, in each game left out of its case, whether the category that grades it charged anything in
/// this grading: a game left out for a category that lost nothing (or did not run) is a defect no
/// case charged, and the report says so instead of pointing elsewhere.
pub fn settle_left_out(
    cases: &mut [crate::report::CaseReport],
    categories: &[crate::report::CategoryReport],
) {
    for case in cases {
        for problem in &mut case.games {
            let Some(category) = problem.graded_by.clone() else { continue };
            let charged =
                categories.iter().find(|c| c.id == category && c.cases > 0).map(|c| c.score < c.max_score);
            let claim = format!("is graded by {category})");
            let Some(at) = problem.problem.find(&claim) else { continue };
            let instead = match charged {
                Some(true) => continue,
                Some(false) => format!(
                    "is graded by {category}, but {category} charged nothing in this grading: no case charges this game)"
                ),
                None => format!("is graded by {category}, which this grading did not run)"),
            };
            let rewritten =
                format!("{}{instead}{}", &problem.problem[..at], &problem.problem[at + claim.len()..]);
            for end in
                case.game_ends.iter_mut().filter(|e| e.game == problem.game && e.how == problem.problem)
            {
                end.how = rewritten.clone();
            }
            problem.problem = rewritten;
        }
    }
}

/// How a program that went wrong ended, as the end of its game's problem: `; it was killed by SIGSEGV`.
fn ending_note(termination: &Termination) -> String {
    match termination {
        Termination::Exited(0) => String::new(),
        other => format!("; the program {other}"),
    }
}

struct GamePlayed {
    outcome: GameOutcome,
    exchange: Vec<String>,
    sent: Vec<String>,
    run: run::RunOutcome,
}

fn play_game(referee: &dyn Match, index: usize, program: Program<'_>) -> Result<GamePlayed, run::RunError> {
    let request = SpawnRequest {
        argv: program.argv,
        env: program.env,
        limits: program.limits,
        mounts: program.mounts,
        containment: program.containment,
    };
    let mut session = Interactive::start(&request)?;
    let mut game = referee.game(index);
    let mut exchange: VecDeque<String> = VecDeque::with_capacity(EXCHANGE_LINES + 1);
    let mut sent: Vec<String> = Vec::new();
    let mut log = |line: String| {
        if exchange.len() == EXCHANGE_LINES {
            exchange.pop_front();
        }
        exchange.push_back(line);
    };
    let mut timeout = referee.first_answer_timeout();
    let mut step = game.start();
    let outcome = loop {
        match step {
            Step::Send(_) | Step::Read => {
                let read = match &step {
                    Step::Send(command) => {
                        log(format!("> {}", shorten(command)));
                        if sent.len() < MAX_SENT_LINES {
                            sent.push(command.clone());
                        }
                        match session.send_line(command.as_bytes()) {
                            Ok(()) => session.read_line(timeout),
                            Err(_) => LineRead::Closed { partial: Vec::new() },
                        }
                    }
                    _ => session.read_line(timeout),
                };
                timeout = referee.answer_timeout();
                let text;
                let answer = match read {
                    LineRead::Line(bytes) => {
                        text = String::from_utf8_lossy(&bytes).into_owned();
                        log(format!("< {}", shorten(&text)));
                        Answer::Line(&text)
                    }
                    LineRead::TimedOut => {
                        log(format!("(no answer within {:.1} s)", referee.answer_timeout().as_secs_f64()));
                        Answer::TimedOut
                    }
                    LineRead::Closed { .. } => {
                        log("(the program's output ended)".to_owned());
                        Answer::Ended
                    }
                    LineRead::OutputLimit => {
                        log("(the program printed more than the output limit)".to_owned());
                        Answer::Flooded
                    }
                };
                step = game.answer(answer);
            }
            Step::Done(outcome) => break outcome,
        }
    };
    let run = session.finish(QUIT_GRACE)?;
    Ok(GamePlayed { outcome, exchange: exchange.into(), sent, run })
}

/// A line cut to [`LINE_CHARS`] characters for the report.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{CaseReport, CategoryReport};

    fn category(id: &str, score: f64, cases: usize) -> CategoryReport {
        CategoryReport {
            id: id.into(),
            title: id.into(),
            score,
            max_score: 15.0,
            passed: 0,
            cases,
            bonus: false,
        }
    }

    fn left_out_game(game: usize) -> (GameProblem, GameEnd) {
        let problem = format!(
            "refused the grader's legal play `13/7` (illegal no){}",
            left_out_note(LeftOut { what: "refusing a legal play", category: "illegal-plays" })
        );
        let end = GameEnd { game, status: GameStatus::LeftOut, how: problem.clone() };
        let problem = GameProblem {
            game,
            problem,
            exchange: Vec::new(),
            sent: Vec::new(),
            stderr: None,
            graded_by: Some("illegal-plays".into()),
        };
        (problem, end)
    }

    fn settled(categories: &[CategoryReport]) -> (String, String) {
        let (problem, end) = left_out_game(2);
        let mut case: CaseReport = serde_json::from_value(serde_json::json!({
            "id": "legal-play/any-roll", "title": "", "category": "legal-play", "visibility": "visible",
            "disclosure": "diff", "kind": "interactive", "status": "passed", "score": 1.0, "max_score": 1.0,
            "leniency": [], "forgiven": [],
        }))
        .unwrap();
        case.games = vec![problem];
        case.game_ends =
            vec![GameEnd { game: 1, status: GameStatus::Finished, how: "ended at `quit`".into() }, end];
        let mut cases = vec![case];
        settle_left_out(&mut cases, categories);
        assert_eq!(cases[0].game_ends[0].how, "ended at `quit`");
        (cases[0].games[0].problem.clone(), cases[0].game_ends[1].how.clone())
    }

    #[test]
    fn a_game_left_out_points_elsewhere_only_where_that_category_charged_something() {
        let (problem, end) = settled(&[category("illegal-plays", 12.5, 4)]);
        assert!(
            problem.ends_with("(left out of this case: refusing a legal play is graded by illegal-plays)")
        );
        assert_eq!(end, problem);
        let (problem, end) = settled(&[category("illegal-plays", 15.0, 4)]);
        assert!(
            problem.ends_with(
                "is graded by illegal-plays, but illegal-plays charged nothing in this grading: no case charges \
                 this game)"
            ),
            "{problem}"
        );
        assert_eq!(end, problem);
        let (problem, _) = settled(&[category("illegal-plays", 0.0, 0)]);
        assert!(
            problem.ends_with("is graded by illegal-plays, which this grading did not run)"),
            "{problem}"
        );
    }
}
