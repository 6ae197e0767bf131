//! Interactive cases without I/O: a referee plays a match of games with a program over a line
//! protocol. The grader does the talking and the timing (one program start per game, a time limit per
//! answer); the referee decides every line sent and judges every answer, and scores the match.

use std::collections::BTreeMap;
use std::time::Duration;

/// What the program gave back for the last command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer<'a> {
    /// One line, without its line break.
    Line(&'a str),
    /// No line within the time allowed.
    TimedOut,
    /// The program closed its output or ended (crashed, exited) before answering.
    Ended,
    /// The program printed more than the output limit.
    Flooded,
}

/// What the referee does next in a game.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send this line (without a line break) and wait for one answer. A command the program must end
    /// on (`quit`) is sent this way too: its answer is [`Answer::Ended`] when the program did.
    Send(String),
    /// Read one more line for the same command, sending nothing: the last one was stray output that
    /// the referee skips.
    Read,
    /// The game is over; the program is stopped if it still runs.
    Done(GameOutcome),
}

/// How one game went, as the match's scoring needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameOutcome {
    /// Why the game stopped early, in words (`answered \`move 13/7\`, an illegal play: ...`), if it did.
    pub problem: Option<String>,
    /// Counters the match's scoring reads (`turns`, `legal_turns`, `refused`, `won`...).
    pub counts: BTreeMap<&'static str, u32>,
    /// The first few lines behind a counter (`stray`: the lines skipped), for the report.
    pub examples: BTreeMap<&'static str, Vec<String>>,
    /// How a game that went right ended, in words (`ended at \`quit\`: 1 game played to its end`).
    pub end: Option<String>,
    /// For a game left out of its case's score: the case that grades what went wrong instead.
    pub left_out: Option<LeftOut>,
}

/// Why a game that went wrong is not charged by its own case: another category grades that defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftOut {
    /// The defect in words (`refusing a legal play`).
    pub what: &'static str,
    /// The id of the category that grades it (`illegal-plays`).
    pub category: &'static str,
}

impl GameOutcome {
    /// Adds `n` to a counter.
    pub fn add(&mut self, counter: &'static str, n: u32) {
        *self.counts.entry(counter).or_default() += n;
    }

    /// A counter's value (0 when never set).
    pub fn count(&self, counter: &str) -> u32 {
        self.counts.get(counter).copied().unwrap_or(0)
    }

    /// Adds 1 to a counter and keeps `line` as one of its first [`EXAMPLES`] examples.
    pub fn add_example(&mut self, counter: &'static str, line: &str) {
        self.add(counter, 1);
        let kept = self.examples.entry(counter).or_default();
        if kept.len() < EXAMPLES {
            kept.push(line.chars().take(EXAMPLE_CHARS).collect());
        }
    }

    /// A counter's examples (none when never set).
    pub fn examples(&self, counter: &str) -> &[String] {
        self.examples.get(counter).map_or(&[], Vec::as_slice)
    }
}

/// Examples a game keeps of one counter.
pub const EXAMPLES: usize = 3;

/// Characters of one example kept.
const EXAMPLE_CHARS: usize = 120;

/// One game of a match: a state machine fed with the program's answers.
pub trait Game: Send {
    /// The first step of the game, before anything was sent.
    fn start(&mut self) -> Step;

    /// The next step after the program answered the last [`Step::Send`].
    fn answer(&mut self, answer: Answer<'_>) -> Step;
}

/// A match's score, from the outcomes of all its games.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchScore {
    /// The share of the case's points earned, from 0 to 1.
    pub credit: f64,
    /// One line on what the referee saw (`20 of 20 games played legally`).
    pub summary: String,
}

/// An interactive case: how many games, how each is refereed, how the match is scored.
pub trait Match: Send + Sync {
    /// Games in the match; the program is started once for each.
    fn games(&self) -> usize;

    /// The referee of game `index` (0-based), seeded by the case so that every grading plays the same.
    fn game(&self, index: usize) -> Box<dyn Game>;

    /// How long the program may take to answer one command.
    fn answer_timeout(&self) -> Duration;

    /// How long the first answer of a game may take (the program starting, a JVM say).
    fn first_answer_timeout(&self) -> Duration {
        self.answer_timeout() + Duration::from_secs(10)
    }

    /// The match's score from the outcomes of its games, in order.
    fn score(&self, outcomes: &[GameOutcome]) -> MatchScore;
}

/// A Wilson score interval for `successes` out of `trials` at about 95% confidence: the range of
/// true rates the observed one is consistent with.
pub fn wilson_interval(successes: u32, trials: u32) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_985;
    let n = f64::from(trials);
    let p = f64::from(successes) / n;
    let centre = p + Z * Z / (2.0 * n);
    let spread = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + Z * Z / n;
    (((centre - spread) / scale).max(0.0), ((centre + spread) / scale).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wilson_interval_holds_the_rate_and_narrows_with_more_games() {
        let (low, high) = wilson_interval(17, 20);
        assert!(low < 0.85 && 0.85 < high, "{low} {high}");
        assert!((low - 0.640).abs() < 0.005 && (high - 0.948).abs() < 0.005, "{low} {high}");
        let (low2, high2) = wilson_interval(170, 200);
        assert!(high2 - low2 < high - low);
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
        let (low, high) = wilson_interval(0, 10);
        assert_eq!(low, 0.0);
        assert!(high > 0.2 && high < 0.35, "{high}");
    }

    #[test]
    fn outcome_counters_start_at_zero() {
        let mut outcome = GameOutcome::default();
        assert_eq!(outcome.count("turns"), 0);
        outcome.add("turns", 2);
        outcome.add("turns", 1);
        assert_eq!(outcome.count("turns"), 3);
    }
}
