//! The backgammon-ai referee: plays seeded games with a program over the protocol of
//! `shared/specs/backgammon-ai.md`, checks every answer with the full rules, and scores what its case
//! grades. Each case has one focus, and steers around the others: the grader rolls the dice, so outside
//! the legal-play cases it gives both sides "plain" rolls (no doubles, both dice playable, no bearing
//! off to tempt a program whose bearing off is wrong), and only the legal-play cases steer the AI into
//! the rare situations on purpose. Outside the protocol case, stray lines on stdout are skipped and a
//! slow answer is waited for, so that those defects cost only there.
//!
//! The doubling cube (the spec's optional extension, a bonus category) is offered in its own case
//! only. Where the spec is silent we decided: the grader asks `double?` before the AI's turns when the
//! AI may double (the cube centred or the AI's, never on the opening roll), and always takes the AI's
//! double (the game goes on with the grader's `roll`); the grader doubles before its own roll when it
//! may; after a drop the game is over and `result` names the doubler as winner of a `single` game
//! worth the cube before the double (`result black single 2` after a drop at 4).

use std::collections::VecDeque;
use std::time::Duration;

use crate::referee::{wilson_interval, Answer, Game, GameOutcome, Match, MatchScore, Step};
use crate::ScenarioError;

use super::players::{opening_roll, OnePlyPlayer, Player, RandomPlayer, Rng};
use super::rules::{
    check_play, format_play, game_result, legal_plays, parse_play, CheckerMove, Colour, Point, Position,
    ResultKind,
};

/// The time a `go` may take in the protocol case, where the time limit is graded.
const STRICT_ANSWER: Duration = Duration::from_secs(2);

/// The time an answer may take elsewhere: a slow program is still graded for its play.
const PATIENT_ANSWER: Duration = Duration::from_secs(5);

/// Stray lines skipped before one answer, outside the protocol case.
const MAX_STRAY_LINES: u32 = 8;

/// Legal plays of the grader weighed when it steers the AI into a situation.
const STEERING_SAMPLE: usize = 12;

/// Turns after which a game is stopped (a game of two sane players takes about 60).
const MAX_TURNS: u32 = 400;

/// The grader doubles, or offers the AI to, only below this cube value.
const MAX_CUBE: u32 = 64;

/// Win rate against the random player below which strength earns nothing, and from which it earns
/// everything (the rubric curve).
const STRENGTH_ZERO: f64 = 0.50;
const STRENGTH_FULL: f64 = 0.65;

/// What a case grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The program starts, answers `new`, and ends at `quit`.
    Starts,
    /// Every answer has its shape, `position` matches after every turn, answers come in time.
    Protocol,
    /// Every `move` of the AI is legal; the AI is steered into `Situation`.
    Legal(Situation),
    /// Illegal plays of the grader are refused and legal ones accepted.
    Illegal,
    /// `result` is right at the end of every game.
    Results,
    /// Games won against the random player.
    Strength,
    /// The doubling cube: answers to `double?` and `double`, and the cube in `result`'s points.
    Cube,
}

/// A rule situation the AI is steered into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Situation {
    /// No steering: uniform dice, doubles included; every move is judged.
    Any,
    /// A double that can be played in full: four moves.
    Doubles,
    /// Only one die can be played, and it must be the higher (the lower alone could move).
    HigherDie,
    /// A double of which only one, two or three moves can be played.
    PartialDouble,
    /// All checkers home and a die larger than the highest point: bear off from the highest.
    BearOffLarger,
    /// Checkers still outside the home board while a die matches a home checker: no bearing off yet.
    BearIn,
    /// A checker on the bar: it must enter first.
    Enter,
}

/// Who plays the grader's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opponent {
    Random,
    Reference,
}

/// An interactive case of backgammon-ai, from its `[scenario]`.
#[derive(Debug, Clone)]
pub struct BackgammonMatch {
    focus: Focus,
    games: usize,
    seed: u64,
    opponent: Opponent,
    /// Situations judged per game (legal-play cases).
    situations: u32,
}

impl BackgammonMatch {
    /// Reads a `[scenario]`: `focus` (starts, protocol, legal, illegal, results, strength, cube),
    /// `situation` for legal (any, doubles, higher-die, partial-double, bear-off-larger, bear-in, enter),
    /// `games`, `seed`, `opponent` (random, reference), `situations` per game.
    pub fn from_scenario(scenario: &toml::Table) -> Result<BackgammonMatch, ScenarioError> {
        const KEYS: [&str; 6] = ["focus", "situation", "games", "seed", "opponent", "situations"];
        if let Some(key) = scenario.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(ScenarioError::new(format!("unknown key `{key}` (keys: {})", KEYS.join(", "))));
        }
        let text = |key: &str| scenario.get(key).and_then(toml::Value::as_str);
        let number =
            |key: &str, default: i64, range: std::ops::RangeInclusive<i64>| -> Result<i64, ScenarioError> {
                match scenario.get(key) {
                    None => Ok(default),
                    Some(value) => value.as_integer().filter(|n| range.contains(n)).ok_or_else(|| {
                        ScenarioError::new(format!("`{key}` must be a whole number in {range:?}"))
                    }),
                }
            };
        let situation = match text("situation").unwrap_or("any") {
            "any" => Situation::Any,
            "doubles" => Situation::Doubles,
            "higher-die" => Situation::HigherDie,
            "partial-double" => Situation::PartialDouble,
            "bear-off-larger" => Situation::BearOffLarger,
            "bear-in" => Situation::BearIn,
            "enter" => Situation::Enter,
            other => return Err(ScenarioError::new(format!("unknown situation `{other}`"))),
        };
        let focus = match text("focus") {
            Some("starts") => Focus::Starts,
            Some("protocol") => Focus::Protocol,
            Some("legal") => Focus::Legal(situation),
            Some("illegal") => Focus::Illegal,
            Some("results") => Focus::Results,
            Some("strength") => Focus::Strength,
            Some("cube") => Focus::Cube,
            Some(other) => return Err(ScenarioError::new(format!("unknown focus `{other}`"))),
            None => {
                return Err(ScenarioError::new(
                    "`focus` is required: starts, protocol, legal, illegal, results, strength or cube",
                ))
            }
        };
        if scenario.contains_key("situation") && !matches!(focus, Focus::Legal(_)) {
            return Err(ScenarioError::new("`situation` is for focus = \"legal\" only"));
        }
        let opponent = match text("opponent").unwrap_or("random") {
            "random" => Opponent::Random,
            "reference" => Opponent::Reference,
            other => {
                return Err(ScenarioError::new(format!("unknown opponent `{other}` (random, reference)")))
            }
        };
        Ok(BackgammonMatch {
            focus,
            games: number("games", 1, 1..=500)? as usize,
            seed: number("seed", 1, 0..=i64::MAX)? as u64,
            opponent,
            situations: number("situations", 2, 1..=50)? as u32,
        })
    }
}

impl Match for BackgammonMatch {
    fn games(&self) -> usize {
        self.games
    }

    fn game(&self, index: usize) -> Box<dyn Game> {
        Box::new(BackgammonGame::new(self, index))
    }

    fn answer_timeout(&self) -> Duration {
        if self.focus == Focus::Protocol {
            STRICT_ANSWER
        } else {
            PATIENT_ANSWER
        }
    }

    fn score(&self, outcomes: &[GameOutcome]) -> MatchScore {
        let sum = |counter: &str| -> u32 { outcomes.iter().map(|o| o.count(counter)).sum() };
        // A share of what was judged; when nothing was, `none`: checks that never came up charge
        // nothing (1), a case whose every game was left out cannot vouch for the program (0).
        let share =
            |good: u32, all: u32, none: f64| if all == 0 { none } else { f64::from(good) / f64::from(all) };
        let clean = outcomes.iter().filter(|o| o.problem.is_none()).count() as u32;
        let games = outcomes.len() as u32;
        let judged_games = games - sum("left_out");
        match self.focus {
            Focus::Starts => MatchScore {
                credit: share(clean, games, 0.0),
                summary: format!("{clean} of {games} starts answered `new` and ended at `quit`"),
            },
            Focus::Protocol => MatchScore {
                credit: share(clean, judged_games, 0.0),
                summary: format!(
                    "{clean} of {judged_games} games with every answer in shape and in time, and every position right \
                     ({} positions compared)",
                    sum("positions")
                ),
            },
            Focus::Legal(_) => {
                let (judged, legal) = (sum("situations"), sum("legal"));
                MatchScore {
                    credit: share(legal, judged, 1.0),
                    summary: format!("{legal} of {judged} moves of the AI legal in the situations played"),
                }
            }
            Focus::Illegal => {
                let (checks, right) = (sum("checks"), sum("right"));
                MatchScore {
                    credit: share(right, checks, 1.0),
                    summary: format!(
                        "{right} of {checks} plays of the grader judged right: {} illegal (to refuse), {} legal (to \
                         accept)",
                        sum("attempts"),
                        checks.saturating_sub(sum("attempts"))
                    ),
                }
            }
            Focus::Results => {
                let (checked, right) = (sum("results"), sum("results_right"));
                MatchScore {
                    credit: share(right, checked, 0.0),
                    summary: format!("{right} of {checked} game results right"),
                }
            }
            Focus::Strength => {
                let (counted, won) = (sum("counted"), sum("won"));
                let rate = share(won, counted, 0.0);
                let (low, high) = wilson_interval(won, counted);
                let left_out = games - counted;
                let left_out = if left_out > 0 {
                    format!("; {left_out} games left out (the program failed in them: graded by the protocol case)")
                } else {
                    String::new()
                };
                MatchScore {
                    credit: ((rate - STRENGTH_ZERO) / (STRENGTH_FULL - STRENGTH_ZERO)).clamp(0.0, 1.0),
                    summary: format!(
                        "won {won} of {counted} games against the random player: {:.0}% (95% interval {:.0}%-{:.0}%; \
                         full marks from {:.0}%){left_out}",
                        rate * 100.0,
                        low * 100.0,
                        high * 100.0,
                        STRENGTH_FULL * 100.0
                    ),
                }
            }
            Focus::Cube => {
                let (judged, right) = (sum("cube_games"), sum("cube_right"));
                let left_out = match sum("left_out") {
                    0 => String::new(),
                    n => format!("; {n} games left out (the program failed in them: graded by the protocol case)"),
                };
                MatchScore {
                    credit: share(right, judged, 0.0),
                    summary: format!(
                        "{right} of {judged} games with the cube right: every answer to `double?` and `double` \
                         in shape, and `result`'s points times the cube ({} doubles of the grader taken, {} dropped, \
                         {} doubles of the AI){left_out}",
                        sum("taken"),
                        sum("dropped"),
                        sum("ai_doubles")
                    ),
                }
            }
        }
    }
}

/// What the answer to a command must be.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// `ok` to `new` or `roll`.
    Ok,
    /// The grader's legal play: `ok`, and the position advances.
    Accept(Vec<CheckerMove>, Position),
    /// The grader's illegal play: `illegal REASON`; the reason in words is for the report.
    Refuse(String),
    /// The AI's `move` for the last roll.
    Move,
    /// `position` with exactly this line.
    Position(String),
    /// `result` with exactly this line.
    Result(String),
    /// `quit`: the program ends.
    Quit,
    /// `result` at the end of a game of the cube case: the points of the kind it names times the
    /// cube (the winner and the kind are graded by the results case).
    CubePoints(u32),
    /// `double?`: `double` or `no`.
    DoubleOffer,
    /// The grader's `double`: `take` or `drop`.
    DoubleAnswer,
}

/// The protocol's first words of answers: a line starting otherwise is stray.
const ANSWER_WORDS: [&str; 9] =
    ["ok", "illegal", "move", "position", "result", "double", "no", "take", "drop"];

struct BackgammonGame {
    focus: Focus,
    ai: Colour,
    rng: Rng,
    opponent: Box<dyn Player + Send>,
    hitter: bool,
    position: Position,
    turn: Colour,
    dice: (u8, u8),
    first_roll: Option<(u8, u8)>,
    turns: u32,
    situations_left: u32,
    /// Whether the AI's current roll was steered into the case's situation (its move is judged).
    judging: bool,
    queue: VecDeque<(String, Expect)>,
    waiting: Option<(String, Expect)>,
    stray: u32,
    outcome: GameOutcome,
    attempt: usize,
    /// The cube's value, and who may double next (`None`: either side, the cube is centred).
    cube: u32,
    cube_owner: Option<Colour>,
    /// The grader's turn from which it doubles, when it may (cube case).
    next_double: u32,
}

impl BackgammonGame {
    fn new(m: &BackgammonMatch, index: usize) -> BackgammonGame {
        let seed = m.seed.wrapping_mul(1_000_003).wrapping_add(index as u64);
        let opponent: Box<dyn Player + Send> = match m.opponent {
            Opponent::Random => Box::new(RandomPlayer::new(seed ^ 0x5bd1_e995)),
            Opponent::Reference => Box::new(OnePlyPlayer::new()),
        };
        BackgammonGame {
            focus: m.focus,
            // Alternate colours, so that both sides of the program are played.
            ai: if index % 2 == 0 { Colour::Black } else { Colour::White },
            rng: Rng::new(seed),
            opponent,
            hitter: matches!(m.focus, Focus::Protocol | Focus::Legal(Situation::Enter)),
            position: Position::start(),
            turn: Colour::Black,
            dice: (1, 2),
            first_roll: None,
            turns: 0,
            situations_left: m.situations,
            judging: false,
            queue: VecDeque::new(),
            waiting: None,
            stray: 0,
            outcome: GameOutcome::default(),
            attempt: index,
            cube: 1,
            cube_owner: None,
            next_double: 0,
        }
    }

    fn grader(&self) -> Colour {
        self.ai.opponent()
    }

    /// Sends the next queued command, planning the next turn when the queue is empty.
    fn next(&mut self) -> Step {
        if self.queue.is_empty() {
            self.plan();
        }
        match self.queue.pop_front() {
            Some((command, expect)) => {
                self.waiting = Some((command.clone(), expect));
                self.stray = 0;
                Step::Send(command)
            }
            None => Step::Done(std::mem::take(&mut self.outcome)),
        }
    }

    fn push(&mut self, command: String, expect: Expect) {
        self.queue.push_back((command, expect));
    }

    /// Ends the game after the commands queued: `quit`, and nothing more.
    fn finish(&mut self) {
        self.push("quit".into(), Expect::Quit);
    }

    /// Ends the game now with a problem that this case grades.
    fn fail(&mut self, problem: String) -> Step {
        self.outcome.problem = Some(problem);
        self.queue.clear();
        Step::Done(std::mem::take(&mut self.outcome))
    }

    /// Ends the game now with a problem that another case grades: the game is left out of this one's
    /// score (the report still shows why).
    fn leave_out(&mut self, problem: String) -> Step {
        self.outcome.add("left_out", 1);
        self.fail(format!("{problem} (graded by another case; this game is left out here)"))
    }

    /// Ends the game after the program failed to answer: graded by the cases of the protocol, left
    /// out of the others, which cannot judge what they never saw.
    fn program_failed(&mut self, problem: String) -> Step {
        match self.focus {
            Focus::Starts | Focus::Protocol => self.fail(problem),
            Focus::Illegal => {
                self.outcome.add("checks", 1);
                self.fail(problem)
            }
            _ => self.leave_out(problem),
        }
    }

    /// Queues the next turn (or the end of the game).
    fn plan(&mut self) {
        if let Some(result) = game_result(&self.position) {
            if self.focus == Focus::Results {
                let line =
                    format!("result {} {} {}", result.winner.name(), result.kind.name(), result.points(1));
                self.push("result".into(), Expect::Result(line));
            }
            if self.focus == Focus::Cube {
                self.push("result".into(), Expect::CubePoints(self.cube));
            }
            if self.focus == Focus::Strength {
                self.outcome.add("counted", 1);
                self.outcome.add("won", u32::from(result.winner == self.ai));
            }
            self.finish();
            return;
        }
        let steered =
            matches!(self.focus, Focus::Legal(s) if s != Situation::Any) || self.focus == Focus::Illegal;
        let done_judging = steered && self.situations_left == 0;
        if self.turns >= MAX_TURNS || done_judging {
            if self.focus == Focus::Strength {
                // A game cut short counts by the race: fewer pips to go wins.
                self.outcome.add("counted", 1);
                let won = self.position.pip_count(self.ai) < self.position.pip_count(self.grader());
                self.outcome.add("won", u32::from(won));
            }
            self.finish();
            return;
        }
        self.turns += 1;
        let colour = self.turn;
        let opening = self.first_roll.is_some();
        if self.focus == Focus::Cube && !opening {
            self.plan_cube(colour);
        }
        self.dice = match self.first_roll.take() {
            Some(dice) => dice,
            None => self.roll_for(colour),
        };
        let (d1, d2) = self.dice;
        self.push(format!("roll {} {d1} {d2}", colour.name()), Expect::Ok);
        if colour == self.ai {
            self.push("go".into(), Expect::Move);
        } else {
            self.plan_grader_play();
        }
    }

    /// Queues the cube's command before `colour`'s roll, when that side may double: `double?` to the
    /// AI before each of its turns; the grader's `double` from a turn picked at random.
    fn plan_cube(&mut self, colour: Colour) {
        if self.cube >= MAX_CUBE || self.cube_owner == Some(colour.opponent()) {
            return;
        }
        if colour == self.ai {
            self.push("double?".into(), Expect::DoubleOffer);
        } else if self.turns >= self.next_double {
            self.push("double".into(), Expect::DoubleAnswer);
            self.next_double = self.turns + 6 + self.rng.below(10) as u32;
        }
    }

    /// Ends the game at a dropped double: the doubler wins the cube as it was.
    fn dropped(&mut self, doubler: Colour) -> Step {
        self.queue.clear();
        let line = format!("result {} single {}", doubler.name(), self.cube);
        self.push("result".into(), Expect::Result(line));
        self.finish();
        self.next()
    }

    /// The dice of `colour`'s turn: steered by the case's focus.
    fn roll_for(&mut self, colour: Colour) -> (u8, u8) {
        let all = all_rolls();
        let candidates: Vec<(u8, u8)> = match (self.focus, colour == self.ai) {
            (Focus::Legal(Situation::Any), _) => Vec::new(),
            (Focus::Legal(situation), true) => {
                let steered: Vec<(u8, u8)> = all
                    .iter()
                    .copied()
                    .filter(|&d| is_situation(&self.position, colour, d, situation))
                    .collect();
                self.judging = !steered.is_empty();
                if steered.is_empty() {
                    plain_rolls(&self.position, colour)
                } else {
                    steered
                }
            }
            _ => plain_rolls(&self.position, colour),
        };
        if candidates.is_empty() {
            return self.rng.roll();
        }
        candidates[self.rng.below(candidates.len() as u64) as usize]
    }

    /// Queues the grader's play for its roll: in the illegal-play case, an illegal attempt first.
    fn plan_grader_play(&mut self) {
        let colour = self.grader();
        let mut plays = legal_plays(&self.position, colour, self.dice);
        if self.hitter {
            let ai = self.ai;
            let before = self.position.bar(ai);
            let hits: Vec<_> = plays.iter().filter(|p| p.result.bar(ai) > before).cloned().collect();
            if !hits.is_empty() {
                plays = hits;
            }
        }
        let moves = if let (Focus::Legal(situation), true) = (self.focus, plays.len() > 1) {
            self.steering_play(&plays, self.ai, situation)
        } else if plays.len() == 1 || self.hitter {
            let pick = self.rng.below(plays.len() as u64) as usize;
            plays[pick].moves.clone()
        } else {
            self.opponent.choose(&self.position, colour, self.dice)
        };
        let result =
            check_play(&self.position, colour, self.dice, &moves).expect("the grader's own play is legal");
        if self.focus == Focus::Illegal {
            if let Some((attempt, reason)) = illegal_attempt(&self.position, colour, self.dice, self.attempt)
            {
                self.attempt += 1;
                self.situations_left = self.situations_left.saturating_sub(1);
                self.outcome.add("attempts", 1);
                self.push(
                    format!("play {}", format_play(&attempt)).trim_end().to_owned(),
                    Expect::Refuse(reason),
                );
            }
        }
        self.push(
            format!("play {}", format_play(&moves)).trim_end().to_owned(),
            Expect::Accept(moves, result),
        );
    }

    /// The grader's play that gives `target` the most rolls putting it in `situation` next turn (among
    /// a sample of the legal plays, to keep a turn cheap), so that rare situations come up in every
    /// grading; a random one when the situation needs no help.
    fn steering_play(
        &mut self,
        plays: &[super::rules::LegalPlay],
        target: Colour,
        situation: Situation,
    ) -> Vec<CheckerMove> {
        if situation == Situation::Any {
            let pick = self.rng.below(plays.len() as u64) as usize;
            return plays[pick].moves.clone();
        }
        let start = self.rng.below(plays.len() as u64) as usize;
        let sample = plays.iter().cycle().skip(start).take(plays.len().min(STEERING_SAMPLE));
        let best = sample
            .map(|play| {
                let odds = all_rolls()
                    .into_iter()
                    .filter(|&d| is_situation(&play.result, target, d, situation))
                    .count();
                (odds, play)
            })
            .max_by_key(|(odds, _)| *odds)
            .map(|(_, play)| play.moves.clone());
        best.unwrap_or_default()
    }

    fn after_turn(&mut self) {
        self.turn = self.turn.opponent();
        if self.focus == Focus::Protocol {
            self.push("position".into(), Expect::Position(self.position.to_wire()));
            if self.turns % 5 == 0 && game_result(&self.position).is_none() {
                self.push("result".into(), Expect::Result("result none".into()));
            }
        }
    }

    /// Judges one answer line to the command waited for.
    fn judge(&mut self, command: String, expect: Expect, line: &str) -> Step {
        let first = line.split_whitespace().next().unwrap_or("");
        let expected_word = match &expect {
            Expect::Ok | Expect::Accept(..) => "ok",
            Expect::Refuse(_) => "illegal",
            Expect::Move => "move",
            Expect::Position(_) => "position",
            Expect::Result(_) | Expect::CubePoints(_) => "result",
            Expect::Quit => "",
            Expect::DoubleOffer => "double` or `no",
            Expect::DoubleAnswer => "take` or `drop",
        };
        // A stray line (debug output) is skipped outside the protocol case: it is graded there. At a
        // cube command an `error` line is the answer of a program without the extension, not waited
        // past.
        let cube_error = first == "error" && matches!(expect, Expect::DoubleOffer | Expect::DoubleAnswer);
        if !ANSWER_WORDS.contains(&first)
            && self.focus != Focus::Protocol
            && !cube_error
            && self.stray < MAX_STRAY_LINES
        {
            self.stray += 1;
            self.outcome.add("stray", 1);
            self.waiting = Some((command, expect));
            return Step::Read;
        }
        match expect {
            Expect::Ok if line == "ok" => self.next(),
            Expect::Accept(_, result) if line == "ok" => {
                self.position = result;
                if self.focus == Focus::Illegal {
                    self.outcome.add("checks", 1);
                    self.outcome.add("right", 1);
                }
                self.after_turn();
                self.next()
            }
            Expect::Accept(moves, _) if first == "illegal" && self.focus == Focus::Illegal => {
                self.outcome.add("checks", 1);
                self.fail(format!("refused the legal play `{}` ({line})", format_play(&moves)))
            }
            Expect::Accept(moves, _) if first == "illegal" => {
                self.leave_out(format!("refused the grader's legal play `{}` ({line})", format_play(&moves)))
            }
            Expect::Refuse(_) if first == "illegal" => {
                self.outcome.add("checks", 1);
                self.outcome.add("right", 1);
                self.next()
            }
            Expect::Refuse(reason) => {
                self.outcome.add("checks", 1);
                self.fail(format!("answered `{line}` to `{command}`, which is illegal: {reason}"))
            }
            Expect::Move if first == "move" => self.judge_move(line),
            Expect::Position(wanted) if line == wanted => {
                self.outcome.add("positions", 1);
                self.next()
            }
            Expect::Position(wanted) if self.focus == Focus::Protocol => {
                self.fail(format!("the position is wrong: expected `{wanted}`, got `{line}`"))
            }
            Expect::Position(_) => self.next(),
            Expect::Result(wanted) if line == wanted => {
                if wanted != "result none" {
                    self.outcome.add("results", 1);
                    self.outcome.add("results_right", 1);
                    if self.focus == Focus::Cube {
                        // The result after a dropped double.
                        self.outcome.add("cube_games", 1);
                        self.outcome.add("cube_right", 1);
                    }
                }
                self.next()
            }
            Expect::Result(wanted) if wanted != "result none" => {
                self.outcome.add("results", 1);
                if self.focus == Focus::Cube {
                    self.outcome.add("cube_games", 1);
                    return self.fail(format!(
                        "expected `{wanted}` to `result` after a dropped double at {}, got `{line}`",
                        self.cube * 2
                    ));
                }
                self.fail(format!("expected `{wanted}` to `result`, got `{line}`"))
            }
            Expect::Result(wanted) => self.fail(format!("expected `{wanted}` to `result`, got `{line}`")),
            Expect::Quit => self.fail(format!("answered `{line}` to `quit` instead of ending")),
            Expect::CubePoints(cube) if first == "result" => {
                self.outcome.add("cube_games", 1);
                let words: Vec<&str> = line.split_whitespace().collect();
                let multiplier = [ResultKind::Single, ResultKind::Gammon, ResultKind::Backgammon]
                    .into_iter()
                    .find(|kind| words.get(2) == Some(&kind.name()))
                    .map(ResultKind::multiplier);
                match (multiplier, words.get(3).and_then(|p| p.parse::<u32>().ok())) {
                    (Some(m), Some(points)) if words.len() == 4 && points == m * cube => {
                        self.outcome.add("cube_right", 1);
                        self.next()
                    }
                    (Some(m), _) => self.fail(format!(
                        "`{line}`: a {} game at cube {cube} is worth {}",
                        words[2],
                        m * cube
                    )),
                    (None, _) => {
                        self.fail(format!("`{line}` is not `result WINNER single|gammon|backgammon POINTS`"))
                    }
                }
            }
            Expect::DoubleOffer if line == "no" => self.next(),
            Expect::DoubleOffer if line == "double" => {
                // The grader always takes: the game goes on with its `roll`.
                self.outcome.add("ai_doubles", 1);
                self.cube *= 2;
                self.cube_owner = Some(self.grader());
                self.next()
            }
            Expect::DoubleAnswer if line == "take" => {
                self.outcome.add("taken", 1);
                self.cube *= 2;
                self.cube_owner = Some(self.ai);
                self.next()
            }
            Expect::DoubleAnswer if line == "drop" => {
                self.outcome.add("dropped", 1);
                self.dropped(self.grader())
            }
            Expect::DoubleOffer | Expect::DoubleAnswer => {
                self.outcome.add("cube_games", 1);
                self.fail(format!("answered `{line}` to `{command}`, expected `{expected_word}`"))
            }
            _ => self.fail(format!("answered `{line}` to `{command}`, expected `{expected_word} ...`")),
        }
    }

    /// Judges the AI's `move` line against the full rules.
    fn judge_move(&mut self, line: &str) -> Step {
        let text = line.strip_prefix("move").unwrap_or("").trim();
        let judged = std::mem::take(&mut self.judging) || self.focus == Focus::Legal(Situation::Any);
        if judged {
            self.outcome.add("situations", 1);
            self.situations_left = self.situations_left.saturating_sub(1);
        }
        let (d1, d2) = self.dice;
        let verdict =
            parse_play(text).map_err(|e| format!("`{line}` is not a play: {}", e.0)).and_then(|moves| {
                check_play(&self.position, self.ai, self.dice, &moves).map_err(|reason| {
                    format!(
                        "played `{text}` with {d1}-{d2} from `{}`: illegal, {reason}",
                        self.position.to_wire()
                    )
                })
            });
        match verdict {
            Ok(result) => {
                if judged {
                    self.outcome.add("legal", 1);
                }
                self.position = result;
                self.after_turn();
                self.next()
            }
            // An illegal move is graded by the legal-play cases (here when it was a judged one). Elsewhere
            // the game goes on in the program's world, the move applied as played, so that this case
            // still grades what it grades; a move that cannot even be applied leaves the game out.
            Err(problem) if judged => self.fail(problem),
            Err(problem) => {
                match parse_play(text).ok().and_then(|m| self.position.apply_unchecked(self.ai, &m)) {
                    Some(result) => {
                        self.outcome.add("illegal_moves", 1);
                        self.position = result;
                        self.after_turn();
                        self.next()
                    }
                    None => self.leave_out(problem),
                }
            }
        }
    }
}

impl Game for BackgammonGame {
    fn start(&mut self) -> Step {
        self.push(format!("new {}", self.ai.name()), Expect::Ok);
        if self.focus == Focus::Starts {
            self.finish();
        } else {
            let (first, (black, white)) = opening_roll(&mut self.rng);
            self.turn = first;
            if self.focus == Focus::Cube {
                self.next_double = 3 + self.rng.below(8) as u32;
            }
            self.first_roll = Some((black.max(white), black.min(white)));
        }
        self.next()
    }

    fn answer(&mut self, answer: Answer<'_>) -> Step {
        let Some((command, expect)) = self.waiting.take() else {
            return self.fail("the referee lost track of its last command".into());
        };
        match answer {
            Answer::Line(line) if expect == Expect::Quit => {
                self.fail(format!("answered `{line}` to `quit` instead of ending"))
            }
            Answer::Line(line) => self.judge(command, expect, line.trim_end()),
            Answer::Ended if expect == Expect::Quit => Step::Done(std::mem::take(&mut self.outcome)),
            Answer::Ended => self.program_failed(format!("the program ended before answering `{command}`")),
            Answer::TimedOut if expect == Expect::Quit => {
                self.program_failed("still running after `quit`".into())
            }
            Answer::TimedOut => self.program_failed(format!("no answer to `{command}` in time")),
            Answer::Flooded => {
                self.program_failed(format!("printed more than the output limit after `{command}`"))
            }
        }
    }
}

/// The 21 distinct rolls, higher die first.
fn all_rolls() -> Vec<(u8, u8)> {
    (1..=6u8).flat_map(|a| (1..=a).map(move |b| (a, b))).collect()
}

/// How far `point` is from bearing off for `colour` (its own number).
fn own(colour: Colour, point: u8) -> u8 {
    colour.absolute(point)
}

/// Points (own numbers 1..=6) of `colour`'s home board that hold its checkers.
fn home_points(position: &Position, colour: Colour) -> Vec<u8> {
    (1..=6u8).filter(|&p| position.count(Point::Board(colour.absolute(p)), colour) > 0).collect()
}

/// A roll in which no rule subtlety can show: not a double, both dice used by every legal play, no
/// die that could bear a checker off while some are outside the home board, and no die larger than
/// the highest home point. A program with a subtle rule wrong plays such a roll as a correct one does.
fn is_plain(position: &Position, colour: Colour, dice: (u8, u8)) -> bool {
    if dice.0 == dice.1 || !legal_plays(position, colour, dice).iter().all(|p| p.moves.len() == 2) {
        return false;
    }
    let home = home_points(position, colour);
    let all_home = position.all_home(colour);
    [dice.0, dice.1].iter().all(|&die| {
        let exact = home.contains(&die) && !all_home;
        let larger = home.iter().max().is_some_and(|&top| die > top);
        !exact && !larger
    })
}

/// The rolls to give a side outside the situations steered into: the plain ones, else the closest to
/// plain (never a double: no game needs one to end).
fn plain_rolls(position: &Position, colour: Colour) -> Vec<(u8, u8)> {
    let singles: Vec<(u8, u8)> = all_rolls().into_iter().filter(|d| d.0 != d.1).collect();
    let both_dice = |d: &(u8, u8)| legal_plays(position, colour, *d).iter().all(|p| p.moves.len() == 2);
    for tier in 0..3 {
        let rolls: Vec<(u8, u8)> = singles
            .iter()
            .copied()
            .filter(|d| match tier {
                0 => is_plain(position, colour, *d),
                1 => both_dice(d) && !tempts_bearing_off(position, colour, *d),
                _ => both_dice(d),
            })
            .collect();
        if !rolls.is_empty() {
            return rolls;
        }
    }
    singles
}

/// Whether a die of the roll could bear a checker off exactly while some are still outside the home
/// board: where a program with that rule wrong goes astray.
fn tempts_bearing_off(position: &Position, colour: Colour, dice: (u8, u8)) -> bool {
    !position.all_home(colour) && home_points(position, colour).iter().any(|&p| p == dice.0 || p == dice.1)
}

/// Whether `dice` put `colour` in `situation`.
fn is_situation(position: &Position, colour: Colour, dice: (u8, u8), situation: Situation) -> bool {
    let plays = legal_plays(position, colour, dice);
    let most = plays.iter().map(|p| p.moves.len()).max().unwrap_or(0);
    let (high, low) = (dice.0.max(dice.1), dice.0.min(dice.1));
    match situation {
        Situation::Any => true,
        Situation::Doubles => dice.0 == dice.1 && most == 4,
        Situation::PartialDouble => dice.0 == dice.1 && (1..4).contains(&most),
        Situation::HigherDie => {
            // One die only, the higher, while the lower alone could have moved.
            high != low
                && !tempts_bearing_off(position, colour, dice)
                && most == 1
                && legal_plays(position, colour, (low, low)).iter().any(|p| !p.moves.is_empty())
                && plays.iter().all(|p| single_die(colour, &p.moves) == Some(high))
        }
        Situation::BearOffLarger => {
            high != low
                && position.all_home(colour)
                && home_points(position, colour).iter().max().is_some_and(|&top| high > top)
                && plays.iter().any(|p| p.moves.iter().any(|m| m.to == Point::Off))
        }
        Situation::BearIn => {
            high != low
                && most == 2
                && !position.all_home(colour)
                && position.bar(colour) == 0
                && home_points(position, colour).iter().any(|&p| p == high || p == low)
        }
        Situation::Enter => {
            high != low && position.bar(colour) > 0 && most > 0 && !tempts_bearing_off(position, colour, dice)
        }
    }
}

/// The die a one-move play uses.
fn single_die(colour: Colour, moves: &[CheckerMove]) -> Option<u8> {
    let [only] = moves else { return None };
    let from = match only.from {
        Point::Bar => 25,
        Point::Board(p) => own(colour, p),
        Point::Off => return None,
    };
    let to = match only.to {
        Point::Off => 0,
        Point::Board(p) => own(colour, p),
        Point::Bar => return None,
    };
    // A bear-off with a larger die is not exact; the die used is then at least the distance.
    Some(from - to)
}

/// An illegal play for the grader's roll that a program must refuse whatever its rule subtleties: a
/// distance no die shows, a closed point, a checker that is not there, a move backwards, one die left
/// unused, not entering first. `n` picks among those that apply. Returns the play and the reason.
fn illegal_attempt(
    position: &Position,
    colour: Colour,
    dice: (u8, u8),
    n: usize,
) -> Option<(Vec<CheckerMove>, String)> {
    let plays = legal_plays(position, colour, dice);
    let full = plays.iter().find(|p| p.moves.len() == 2)?.moves.clone();
    let mut candidates: Vec<Vec<CheckerMove>> = Vec::new();
    let step = |point: Point, by: i16| -> Option<Point> {
        let from = match point {
            Point::Bar => 25,
            Point::Board(p) => i16::from(own(colour, p)),
            Point::Off => return None,
        };
        let to = from - by;
        (1..=24).contains(&to).then(|| Point::Board(colour.absolute(to as u8)))
    };
    // One die unused.
    candidates.push(vec![full[0]]);
    // The first move one point further: a distance no die shows (when it is not the other die).
    if let Some(to) = step(full[0].from, i16::from(dice.0) + 1) {
        candidates.push(vec![CheckerMove::new(full[0].from, to), full[1]]);
    }
    // A move backwards.
    if let Point::Board(_) = full[0].from {
        if let Some(to) = step(full[0].from, -i16::from(dice.0)) {
            candidates.push(vec![CheckerMove::new(full[0].from, to), full[1]]);
        }
    }
    // From a point without a checker of the mover.
    if let Some(empty) = (1..=24u8).map(Point::Board).find(|&p| position.count(p, colour) == 0) {
        if let Some(to) = step(empty, i16::from(dice.0)) {
            candidates.push(vec![CheckerMove::new(empty, to), full[1]]);
        }
    }
    // Onto a closed point.
    for die in [dice.0, dice.1] {
        for from in (1..=24u8).map(Point::Board).filter(|&p| position.count(p, colour) > 0) {
            if let Some(to) = step(from, i16::from(die)) {
                if position.count(to, colour.opponent()) >= 2 {
                    candidates.push(vec![CheckerMove::new(from, to)]);
                }
            }
        }
    }
    let illegal: Vec<(Vec<CheckerMove>, String)> = candidates
        .into_iter()
        .filter_map(|moves| {
            check_play(position, colour, dice, &moves).err().map(|reason| (moves, reason.to_string()))
        })
        .collect();
    if illegal.is_empty() {
        return None;
    }
    let pick = n % illegal.len();
    illegal.into_iter().nth(pick)
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{CubePolicy, Session};
    use super::*;

    /// Plays every game of `m` with a reference session under `policy`, its answers passed through
    /// `alter(command, answer)` (to make a wrong program of a right one).
    fn play(
        m: &BackgammonMatch,
        policy: CubePolicy,
        alter: impl Fn(&str, String) -> String,
    ) -> (MatchScore, Vec<GameOutcome>) {
        let outcomes: Vec<GameOutcome> = (0..m.games())
            .map(|index| {
                let mut session = Session::with_cube_policy(policy);
                let mut game = m.game(index);
                let mut step = game.start();
                loop {
                    match step {
                        Step::Send(command) => {
                            step = match session.answer(&command) {
                                Some(line) => game.answer(Answer::Line(&alter(&command, line))),
                                None => game.answer(Answer::Ended),
                            }
                        }
                        Step::Read => step = game.answer(Answer::TimedOut),
                        Step::Done(outcome) => break outcome,
                    }
                }
            })
            .collect();
        (m.score(&outcomes), outcomes)
    }

    fn cube_match(games: i64) -> BackgammonMatch {
        let scenario = format!("focus = \"cube\"\ngames = {games}\nseed = 7");
        BackgammonMatch::from_scenario(&toml::from_str(&scenario).unwrap()).unwrap()
    }

    fn total(outcomes: &[GameOutcome], counter: &str) -> u32 {
        outcomes.iter().map(|o| o.count(counter)).sum()
    }

    #[test]
    fn every_cube_policy_of_a_correct_program_gets_full_credit() {
        let m = cube_match(4);
        for (policy, counter) in [
            (CubePolicy::Takes, "taken"),
            (CubePolicy::Doubles, "ai_doubles"),
            (CubePolicy::Drops, "dropped"),
        ] {
            let (score, outcomes) = play(&m, policy, |_, line| line);
            assert_eq!(score.credit, 1.0, "{policy:?}: {}", score.summary);
            assert!(outcomes.iter().all(|o| o.problem.is_none()), "{policy:?}: {outcomes:?}");
            assert_eq!(total(&outcomes, "cube_games"), 4, "{policy:?}: every game's result judged");
            assert!(total(&outcomes, counter) >= 4, "{policy:?}: {counter} in every game: {}", score.summary);
        }
    }

    #[test]
    fn a_program_without_the_cube_earns_nothing_and_is_not_waited_for() {
        let (score, outcomes) = play(&cube_match(2), CubePolicy::Takes, |command, line| {
            if command.starts_with("double") {
                format!("error UNKNOWN-COMMAND {command}")
            } else {
                line
            }
        });
        assert_eq!(score.credit, 0.0);
        assert_eq!(total(&outcomes, "stray"), 0, "an error line is the answer, not debug output");
        let problem = outcomes[0].problem.as_deref().unwrap();
        assert!(
            problem.contains("expected `double` or `no`") || problem.contains("expected `take` or `drop`")
        );
    }

    #[test]
    fn a_result_that_ignores_the_cube_is_wrong() {
        let (score, outcomes) = play(&cube_match(2), CubePolicy::Takes, |command, line| {
            if command == "result" {
                // The points of a game at cube 1: what a program that never multiplies says.
                let mut words: Vec<String> = line.split(' ').map(str::to_owned).collect();
                if let Some(points) = words.get_mut(3) {
                    *points = (points.parse::<u32>().unwrap() / 2).max(1).to_string();
                }
                words.join(" ")
            } else {
                line
            }
        });
        assert_eq!(score.credit, 0.0, "{}", score.summary);
        assert!(outcomes[0].problem.as_deref().unwrap().contains("at cube 2 is worth"), "{outcomes:?}");
    }

    #[test]
    fn a_wrong_kind_of_win_is_left_to_the_results_case() {
        // A program that never sees gammons, but multiplies by the cube what it does see.
        let gammons = std::cell::Cell::new(0);
        let (score, outcomes) = play(&cube_match(4), CubePolicy::Takes, |command, line| {
            if command == "result" && line.contains("gammon") {
                gammons.set(gammons.get() + 1);
                let words: Vec<&str> = line.split(' ').collect();
                let cube = words[3].parse::<u32>().unwrap() / if words[2] == "gammon" { 2 } else { 3 };
                format!("result {} single {cube}", words[1])
            } else {
                line
            }
        });
        assert_eq!(score.credit, 1.0, "{}", score.summary);
        assert_eq!(total(&outcomes, "cube_right"), 4);
        assert!(gammons.get() > 0, "the seeded games have a gammon to get wrong");
    }

    #[test]
    fn the_cube_is_asked_about_only_in_its_own_case() {
        let m = BackgammonMatch::from_scenario(&toml::from_str("focus = \"results\"\ngames = 2").unwrap())
            .unwrap();
        let (score, _) = play(&m, CubePolicy::Drops, |command, line| {
            assert!(!command.starts_with("double"), "{command}");
            line
        });
        assert_eq!(score.credit, 1.0);
    }
}
