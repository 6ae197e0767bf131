//! One game of a backgammon-ai case: the commands the referee sends, in turn, and the judgement of
//! each answer line; what it counts goes into the game's outcome for the case's score.

use std::collections::VecDeque;

use crate::referee::{Answer, Game, GameOutcome, LeftOut, Step};

use super::super::players::{opening_roll, OnePlyPlayer, Player, RandomPlayer, Rng};
use super::super::rules::{
    check_play, format_play, game_result, legal_plays, parse_play, CheckerMove, Colour, LegalPlay, Position,
    ResultKind,
};
use super::dice::{all_rolls, is_situation, plain_rolls, position_for};
use super::illegal::illegal_attempt;
use super::{BackgammonMatch, Focus, Opponent, Situation};

/// Stray lines skipped before one answer: more, and the answer is taken as missing.
const MAX_STRAY_LINES: u32 = 8;

/// Legal plays of the grader weighed when it steers the AI into a situation.
const STEERING_SAMPLE: usize = 12;

/// Turns after which a game is stopped (a game of two sane players takes about 60).
const MAX_TURNS: u32 = 400;

/// The grader doubles, or offers the AI to, only below this cube value.
const MAX_CUBE: u32 = 64;

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
    /// An answer starting with this word, whatever follows (the quiet case grades only that one line
    /// answers each command).
    Shape(&'static str),
    /// `position` before an illegal play of the grader: kept, to compare with the one after.
    Snapshot,
    /// `position` after a refused play: the same line as before it.
    Unchanged(String),
    /// `setup`: `ok`.
    Setup,
}

/// The protocol's first words of answers: a line starting otherwise is stray. `error` is the answer
/// to a command a program does not know (the cube's, `setup`).
const ANSWER_WORDS: [&str; 10] =
    ["ok", "illegal", "move", "position", "result", "double", "no", "take", "drop", "error"];

pub(super) struct BackgammonGame {
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
    /// The program's `position` before the grader's illegal play (illegal-plays case).
    snapshot: Option<String>,
    /// Games still to play after this one in the same program start (`new` between them).
    more_games: u32,
    /// The grader's turns so far (the illegal-plays case varies its dice by them).
    grader_turns: u32,
    /// Each situation is put on the board with `setup`, not waited for.
    setup: bool,
    /// The situations set up, in turn, and the next one's index (from the game's, so that games of one
    /// situation each take them in turn too).
    drills: Vec<Situation>,
    next_drill: usize,
    /// How the games of this program start went, for the outcome's `end`: played to the end (and
    /// won by the AI), stopped once judged enough, stopped at [`MAX_TURNS`], positions set up.
    finished: u32,
    ai_won: u32,
    stopped: u32,
    cut: u32,
    setups: u32,
    /// The game on the board has ended and its end was counted (and `result` asked).
    over: bool,
}

impl BackgammonGame {
    pub(super) fn new(m: &BackgammonMatch, index: usize) -> BackgammonGame {
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
            hitter: matches!(m.focus, Focus::Protocol | Focus::Quiet | Focus::Legal(Situation::Enter)),
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
            snapshot: None,
            more_games: m.games_per_start - 1,
            grader_turns: 0,
            setup: m.setup,
            drills: m.drills.clone(),
            next_drill: index,
            finished: 0,
            ai_won: 0,
            stopped: 0,
            cut: 0,
            setups: 0,
            over: false,
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
            None => self.done(),
        }
    }

    /// The end of this program start: its outcome, with how it ended when nothing went wrong.
    fn done(&mut self) -> Step {
        if self.outcome.problem.is_none() {
            self.outcome.end = Some(self.end_words());
        }
        Step::Done(std::mem::take(&mut self.outcome))
    }

    /// How this program start ended, when nothing went wrong: `ended at \`quit\`: 2 games played to
    /// the end (1 won by the AI), 3 positions set up and played`.
    fn end_words(&self) -> String {
        let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut parts = Vec::new();
        if self.finished > 0 {
            parts.push(format!(
                "{} played to the end ({} won by the AI)",
                plural(self.finished, "game", "games"),
                self.ai_won
            ));
        }
        if self.stopped > 0 {
            parts.push(format!(
                "{} stopped once the case had judged enough",
                plural(self.stopped, "game", "games")
            ));
        }
        if self.cut > 0 {
            parts.push(format!("{} stopped at turn {MAX_TURNS}", plural(self.cut, "game", "games")));
        }
        if self.setups > 0 {
            parts.push(format!("{} set up and played", plural(self.setups, "position", "positions")));
        }
        if parts.is_empty() {
            "answered `new` and ended at `quit`".to_owned()
        } else {
            format!("ended at `quit`: {}", parts.join(", "))
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

    /// A wrong answer this case grades: the end of the game, except where each situation is put on
    /// the board with `setup`, which sets a fresh state: there the first problem is kept, what was
    /// queued for the situation dropped, and the next one played.
    fn fault(&mut self, problem: String) -> Step {
        if !self.setup {
            return self.fail(problem);
        }
        self.outcome.problem.get_or_insert(problem);
        self.queue.clear();
        self.next()
    }

    /// Ends the game now with a problem that another case grades: `what` went wrong in words
    /// ("refusing a legal play"), and the id of the `category` that grades it. The game is left out of
    /// this case's score; the grader's report says why, once it knows whether that category charged it.
    fn leave_out(&mut self, problem: String, what: &'static str, category: &'static str) -> Step {
        self.outcome.add("left_out", 1);
        self.outcome.left_out = Some(LeftOut { what, category });
        self.fail(problem)
    }

    /// Ends the game after the program failed to answer: graded by the cases of the protocol (the
    /// quiet case meets every situation the others do), left out of the others, which cannot judge
    /// what they never saw.
    fn program_failed(&mut self, problem: String) -> Step {
        match self.focus {
            Focus::Starts | Focus::Protocol | Focus::Quiet => self.fail(problem),
            Focus::Illegal => {
                self.outcome.add("checks", 1);
                self.fail(problem)
            }
            _ => self.leave_out(problem, "a program that stops answering", "protocol"),
        }
    }

    /// Starts the next game of this program start: `new`, and the opening roll.
    fn begin_game(&mut self) {
        self.push(format!("new {}", self.ai.name()), Expect::Ok);
        if self.focus == Focus::Starts {
            self.finish();
            return;
        }
        let (first, (black, white)) = opening_roll(&mut self.rng);
        self.turn = first;
        if self.focus == Focus::Cube {
            self.next_double = 3 + self.rng.below(8) as u32;
        }
        self.first_roll = Some((black.max(white), black.min(white)));
    }

    /// Ends a game: `quit` after the last of this program start, else `new` for the next, the AI
    /// taking the other colour.
    fn end_game(&mut self) {
        if self.more_games == 0 {
            self.finish();
            return;
        }
        self.more_games -= 1;
        self.ai = self.ai.opponent();
        self.position = Position::start();
        self.turns = 0;
        self.judging = false;
        self.cube = 1;
        self.cube_owner = None;
        self.begin_game();
    }

    /// Queues the next turn (or the end of the game).
    fn plan(&mut self) {
        if let Some(result) = game_result(&self.position) {
            // First the game's end is counted and `result` asked; the plan after the answer (or after a
            // wrong one, which drops what was queued) goes on to the next game or set-up position.
            if !self.over {
                self.over = true;
                self.finished += 1;
                self.ai_won += u32::from(result.winner == self.ai);
                match self.focus {
                    Focus::Results => {
                        let line = format!(
                            "result {} {} {}",
                            result.winner.name(),
                            result.kind.name(),
                            result.points(1)
                        );
                        self.push("result".into(), Expect::Result(line));
                    }
                    Focus::Cube => self.push("result".into(), Expect::CubePoints(self.cube)),
                    Focus::Quiet => self.push("result".into(), Expect::Shape("result")),
                    Focus::Strength => {
                        self.outcome.add("counted", 1);
                        self.outcome.add("won", u32::from(result.winner == self.ai));
                    }
                    _ => {}
                }
                if !self.queue.is_empty() {
                    return;
                }
            }
            self.over = false;
            // A results case with set-up positions goes on to the next (it replaces the game).
            if self.setup && self.situations_left > 0 && self.turns < MAX_TURNS {
                self.plan_setup();
            } else {
                self.end_game();
            }
            return;
        }
        let steered = matches!(self.focus, Focus::Legal(s) if s != Situation::Any)
            || self.focus == Focus::Illegal
            || (self.focus == Focus::Results && self.setup);
        let done_judging = steered && self.situations_left == 0;
        if self.setup && !done_judging && self.turns < MAX_TURNS {
            self.plan_setup();
            return;
        }
        if self.turns >= MAX_TURNS || done_judging {
            if self.focus == Focus::Strength {
                // A game cut short counts by the race: fewer pips to go wins.
                self.outcome.add("counted", 1);
                let won = self.position.pip_count(self.ai) < self.position.pip_count(self.grader());
                self.outcome.add("won", u32::from(won));
            }
            if self.turns >= MAX_TURNS {
                self.cut += 1;
            } else if !self.setup {
                self.stopped += 1;
            }
            self.end_game();
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

    /// Puts the next situation on the board with `setup` and plays it: the AI's `go` (legal-play), or
    /// the grader's illegal play and its legal one (illegal-plays: the higher die, a double playable
    /// in part, one played in full), or the last turn of a game whose winner has a gammon or a
    /// backgammon at hand (results: the AI wins the first two, the grader the next two, in turn).
    fn plan_setup(&mut self) {
        self.turns += 1;
        let side = match self.focus {
            Focus::Legal(_) => self.ai,
            Focus::Results if (self.next_drill / 2) % 2 == 0 => self.ai,
            _ => self.grader(),
        };
        let situation = self.drills[self.next_drill % self.drills.len()];
        self.next_drill += 1;
        if self.focus == Focus::Results {
            self.situations_left = self.situations_left.saturating_sub(1);
        }
        let Some((position, dice)) = position_for(&mut self.rng, side, situation) else {
            self.end_game();
            return;
        };
        let wire = position.to_wire();
        let wire = wire.strip_prefix("position ").unwrap_or(&wire);
        self.push(format!("setup {wire} turn {}", side.name()), Expect::Setup);
        self.setups += 1;
        self.position = position;
        self.turn = side;
        self.first_roll = None;
        self.dice = dice;
        self.push(format!("roll {} {} {}", side.name(), dice.0, dice.1), Expect::Ok);
        if side == self.ai {
            // The AI's finishing move in results is legal-play's to judge, not this case's.
            self.judging = matches!(self.focus, Focus::Legal(_));
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
        self.end_game();
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
            // The grader's own rolls, where its plays are judged: plain ones, and in turn those where a
            // rule shows (four moves of a double, only the higher die, a double playable in part).
            (Focus::Illegal, false) => {
                self.grader_turns += 1;
                let wanted = [
                    None,
                    Some(Situation::Doubles),
                    Some(Situation::HigherDie),
                    Some(Situation::Doubles),
                    Some(Situation::PartialDouble),
                ][self.grader_turns as usize % 5];
                let steered: Vec<(u8, u8)> = wanted
                    .map(|situation| {
                        all.iter()
                            .copied()
                            .filter(|&d| is_situation(&self.position, colour, d, situation))
                            .collect()
                    })
                    .unwrap_or_default();
                if steered.is_empty() {
                    plain_rolls(&self.position, colour)
                } else {
                    steered
                }
            }
            // Fair dice: every situation a game brings, for a program's stray lines to show in.
            (Focus::Quiet, _) => Vec::new(),
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
        // The illegal-plays case tries an illegal play at every turn of the grader, the quiet case at
        // every other (a line printed only when refusing must show there too). The illegal-plays case
        // asks `position` before and after: a refused play leaves the state as it was.
        let tries = match self.focus {
            Focus::Illegal => true,
            Focus::Quiet => self.turns % 4 < 2,
            _ => false,
        };
        if tries {
            if let Some((attempt, reason)) = illegal_attempt(&self.position, colour, self.dice, self.attempt)
            {
                self.attempt += 1;
                let command = format!("play {}", format_play(&attempt)).trim_end().to_owned();
                if self.focus == Focus::Illegal {
                    self.situations_left = self.situations_left.saturating_sub(1);
                    self.outcome.add("attempts", 1);
                    if self.dice.0 == self.dice.1 {
                        self.outcome.add("double_attempts", 1);
                    }
                    self.push("position".into(), Expect::Snapshot);
                    self.push(command.clone(), Expect::Refuse(reason));
                    self.push("position".into(), Expect::Unchanged(command));
                } else {
                    self.push(command, Expect::Refuse(reason));
                }
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
        plays: &[LegalPlay],
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
        if self.focus == Focus::Quiet {
            self.push("position".into(), Expect::Shape("position"));
            if self.turns % 5 == 0 {
                self.push("result".into(), Expect::Shape("result"));
            }
        }
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
            Expect::Shape(word) => word,
            Expect::Setup => "ok",
            Expect::Snapshot | Expect::Unchanged(_) => "position",
        };
        // A stray line (debug output) is skipped and counted in every case; the quiet case of protocol
        // grades it, once.
        if !ANSWER_WORDS.contains(&first) && self.stray < MAX_STRAY_LINES {
            self.stray += 1;
            self.outcome.add_example("stray", line);
            self.waiting = Some((command, expect));
            return Step::Read;
        }
        match expect {
            Expect::Ok if line == "ok" => self.next(),
            Expect::Accept(moves, result) if line == "ok" => {
                self.position = result;
                if self.focus == Focus::Illegal {
                    self.outcome.add("checks", 1);
                    self.outcome.add("right", 1);
                    self.outcome.add("doubles", u32::from(moves.len() == 4));
                }
                self.after_turn();
                self.next()
            }
            Expect::Accept(moves, _) if first == "illegal" && self.focus == Focus::Illegal => {
                self.outcome.add("checks", 1);
                self.fault(format!("refused the legal play `{}` ({line})", format_play(&moves)))
            }
            Expect::Accept(moves, _) if first == "illegal" => self.leave_out(
                format!("refused the grader's legal play `{}` ({line})", format_play(&moves)),
                "refusing a legal play",
                "illegal-plays",
            ),
            // Judged with the position asked after it (illegal-plays), or not at all (quiet).
            Expect::Refuse(_) if first == "illegal" => self.next(),
            Expect::Refuse(reason) if self.focus == Focus::Quiet => self.leave_out(
                format!("answered `{line}` to `{command}`, which is illegal: {reason}"),
                "accepting an illegal play",
                "illegal-plays",
            ),
            Expect::Refuse(reason) => {
                self.outcome.add("checks", 1);
                self.fault(format!("answered `{line}` to `{command}`, which is illegal: {reason}"))
            }
            Expect::Snapshot => {
                self.snapshot = Some(line.to_owned());
                self.next()
            }
            Expect::Unchanged(refused) => {
                self.outcome.add("checks", 1);
                let before = self.snapshot.take().unwrap_or_default();
                if line == before {
                    self.outcome.add("right", 1);
                    self.next()
                } else {
                    self.fault(format!(
                        "refused `{refused}`, but the position changed: `{before}` before it, `{line}` after"
                    ))
                }
            }
            Expect::Shape(word) if first == word => self.next(),
            Expect::Setup if line == "ok" => self.next(),
            Expect::Setup => {
                // The situation it was to set up counts as judged, and wrong.
                let judged = match self.focus {
                    Focus::Illegal => "checks",
                    Focus::Results => "results",
                    _ => "situations",
                };
                self.outcome.add(judged, 1);
                self.fail(format!(
                    "answered `{line}` to `setup`, which the protocol requires (`setup POSITION turn COLOUR`): \
                     this case puts each situation on the board with it"
                ))
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
                self.fault(format!("expected `{wanted}` to `result`, got `{line}`"))
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
            Err(problem) if judged => self.fault(problem),
            Err(problem) => {
                match parse_play(text).ok().and_then(|m| self.position.apply_unchecked(self.ai, &m)) {
                    Some(result) => {
                        self.outcome.add("illegal_moves", 1);
                        self.position = result;
                        self.after_turn();
                        self.next()
                    }
                    None => self.leave_out(problem, "an illegal move of the AI", "legal-play"),
                }
            }
        }
    }
}

impl Game for BackgammonGame {
    fn start(&mut self) -> Step {
        self.begin_game();
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
            Answer::Ended if expect == Expect::Quit => self.done(),
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
