//! Score stage: judges each run (status and credit) and weighs cases into rubric points.

use std::time::Duration;

use crate::compare::{self, Comparison, Extent, Forgiven, Partial, PartialCredit, Unit};
use crate::load::{Assignment, Case};
use crate::points::round;
use crate::report::{CaseStatus, CategoryReport, PendingCategory};
use crate::run::{Limit, RunOutcome, Termination};

/// The judgement of one run: its status, the fraction of points earned, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What happened.
    pub status: CaseStatus,
    /// Fraction of the case's points, 0..=1.
    pub credit: f64,
    /// One line of explanation.
    pub note: Option<String>,
    /// The comparison of the output with the transcript.
    pub comparison: Comparison,
    /// A package case's verdict when its status alone does not say it (an interactor's rejection
    /// of a program that then died of the missing answer is a wrong answer, not a crash).
    pub judge: Option<crate::report::JudgeVerdict>,
}

/// Judges one run of a case against its expected transcript.
///
/// A case passes when its output matches and the program ended by itself with status 0. Programs of
/// assignments that never stop at end of input (`stops_at_end_of_input = false`: the handout says play
/// "continues forever") are compared up to the end of the transcript, which ends where their input
/// does: what they do after it (print on, loop until stopped, exit with a status, crash) is not held
/// against them; only a kill for memory, processes or file size stays the program's failure. Any other
/// ending earns only partial credit, and a right output with a wrong ending counts as all but its last
/// line.
pub fn judge(case: &Case, expected: &[u8], outcome: &RunOutcome, stops_at_end_of_input: bool) -> Verdict {
    let extent = if stops_at_end_of_input { Extent::Whole } else { Extent::MayContinue };
    let comparison = compare::compare(expected, &outcome.stdout, &case.compare, extent);

    let termination = held_to_time_limit(case, outcome);
    let (status, problem) = match &termination {
        Termination::Exited(0) => (CaseStatus::Failed, None),
        Termination::Exited(code) => (CaseStatus::Failed, Some(format!("exited with status {code}"))),
        Termination::Signaled { name, .. } => (CaseStatus::Crashed, Some(format!("crashed with {name}"))),
        Termination::Killed { limit } => (CaseStatus::of_limit(*limit), Some(limit_problem(case, *limit))),
    };

    // Exhausting the machine is a failure wherever it happens.
    let abusive =
        matches!(termination, Termination::Killed { limit: Limit::Memory | Limit::Processes | Limit::Disk });
    let forgiven = !stops_at_end_of_input && comparison.matched && !abusive;
    if comparison.matched && (problem.is_none() || forgiven) {
        let mut notes = Vec::new();
        if comparison.is_lenient() {
            notes.push(presentation_note(&comparison));
        }
        if let (true, Some(p)) = (forgiven, &problem) {
            notes.push(format!(
                "ended after the complete transcript ({p}), at end of input, which the handout says never comes"
            ));
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        return Verdict {
            status: CaseStatus::Passed,
            credit: comparison.credit,
            note,
            comparison,
            judge: None,
        };
    }

    // A right output with a wrong ending: the ending is one more difference.
    let credit = match (comparison.matched, case.compare.partial) {
        (false, _) => comparison.credit,
        (true, Partial::None) => 0.0,
        (true, Partial::Hunks | Partial::EachLine) => {
            comparison.credit * (1.0 - case.compare.hunk_cost).max(0.0)
        }
        (true, Partial::Lines | Partial::Prefix) => {
            let n = comparison.expected_lines as f64;
            comparison.credit * n / (n + 1.0)
        }
    };
    let mut notes: Vec<String> = Vec::new();
    match (problem, comparison.matched) {
        (Some(p), true) => notes.push(format!("the output was right but the program {p}")),
        (Some(p), false) => notes.push(p),
        (None, _) => {}
    }
    if let Some(message) = comparison.validator_message.as_ref().filter(|_| !comparison.matched) {
        notes.push(message.clone());
    }
    if let Some(partial) = comparison.partial.as_ref().filter(|_| credit > 0.0) {
        notes.push(partial_note(partial, &comparison, credit));
    }
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    Verdict { status, credit, note, comparison, judge: None }
}

/// How a run ended, with a package's time limit held to exactly: the kernel's CPU limit counts
/// whole seconds, so a run that ended on its own past the limit is stopped at it here.
fn held_to_time_limit(case: &Case, outcome: &RunOutcome) -> Termination {
    let over_time = case.package.as_ref().is_some_and(|p| outcome.cpu_time > p.time_limit)
        && !matches!(outcome.termination, Termination::Killed { .. });
    if over_time {
        Termination::Killed { limit: Limit::Cpu }
    } else {
        outcome.termination.clone()
    }
}

/// What a package's custom output validator said of one output (see `grade::validator`).
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    /// Exit 42: accepted, with the share of the case's points (`score_multiplier.txt`, or
    /// `score.txt` over the case's score; 1 without either).
    Accepted {
        /// Share of the case's points, 0..=1.
        credit: f64,
        /// Its `judgemessage.txt`.
        message: Option<String>,
    },
    /// Exit 43: a wrong answer.
    Rejected {
        /// Its `judgemessage.txt`.
        message: Option<String>,
    },
    /// Any other ending: the validator failed, never the submission's fault.
    Failed {
        /// What went wrong, in words.
        why: String,
    },
}

/// Judges a run of a package case by its custom validator; `judgement` is `None` when the program
/// did not end normally within its time, so that the validator was not asked.
pub fn judge_validated(case: &Case, outcome: &RunOutcome, judgement: Option<Judgement>) -> Verdict {
    let termination = held_to_time_limit(case, outcome);
    let failed = |status, note: String| Verdict {
        status,
        credit: 0.0,
        note: Some(note),
        comparison: Comparison::judged(false, 0.0, None),
        judge: None,
    };
    match (&termination, judgement) {
        (Termination::Exited(0), Some(Judgement::Accepted { credit, message })) => {
            let note = match (&message, credit < 1.0) {
                (_, true) => Some(format!(
                    "the output validator gave {:.0}% of the case's points{}",
                    credit * 100.0,
                    message.as_deref().map(|m| format!(": {m}")).unwrap_or_default()
                )),
                (Some(m), false) => Some(m.clone()),
                (None, false) => None,
            };
            Verdict {
                status: CaseStatus::Passed,
                credit,
                note,
                comparison: Comparison::judged(true, credit, message),
                judge: None,
            }
        }
        (Termination::Exited(0), Some(Judgement::Rejected { message })) => Verdict {
            status: CaseStatus::Failed,
            credit: 0.0,
            note: Some(
                message.clone().unwrap_or_else(|| "the output validator rejected the output".to_owned()),
            ),
            comparison: Comparison::judged(false, 0.0, message),
            judge: None,
        },
        (Termination::Exited(0), Some(Judgement::Failed { why })) => failed(
            CaseStatus::Error,
            format!("the output validator failed, which is the package's fault, not the program's: {why}"),
        ),
        (Termination::Exited(0), None) => {
            failed(CaseStatus::Error, "the output validator was not run".to_owned())
        }
        (Termination::Exited(code), _) => failed(CaseStatus::Failed, format!("exited with status {code}")),
        (Termination::Signaled { name, .. }, _) => {
            failed(CaseStatus::Crashed, format!("crashed with {name}"))
        }
        (Termination::Killed { limit }, _) => {
            failed(CaseStatus::of_limit(*limit), limit_problem(case, *limit))
        }
    }
}

/// Judges an interactive case of a package: a rejection by the interactor that came before the
/// program's end stands (the program may have died of its missing answer); otherwise the program's
/// own ending (time, crash: after an accepted exchange too) comes first, then the interactor's
/// judgement.
pub fn judge_interaction(
    case: &Case,
    program: &RunOutcome,
    judgement: Judgement,
    interactor_first: bool,
) -> Verdict {
    if let (true, Judgement::Rejected { message }) = (interactor_first, &judgement) {
        return Verdict {
            status: CaseStatus::Failed,
            credit: 0.0,
            note: Some(message.clone().unwrap_or_else(|| "the interactor rejected the exchange".to_owned())),
            comparison: Comparison::judged(false, 0.0, message.clone()),
            judge: Some(crate::report::JudgeVerdict::WA),
        };
    }
    judge_validated(case, program, Some(judgement))
}

/// What a kill at `limit` means, in the words of a report: "used more than 2 s of CPU time".
fn limit_problem(case: &Case, limit: Limit) -> String {
    let limits = &case.limits;
    match limit {
        Limit::Cpu => format!("used more than {} of CPU time", seconds(limits.cpu)),
        Limit::Wall => format!("still running after {}", seconds(limits.wall)),
        Limit::Output => "printed far more than the expected output, and was stopped".to_owned(),
        Limit::Memory => {
            format!("used more than {} MiB of memory, and was killed", limits.memory_bytes >> 20)
        }
        Limit::Processes => format!(
            "reached the limit of {} processes, and was still running after {}",
            limits.processes,
            seconds(limits.wall)
        ),
        Limit::Disk => {
            format!("wrote a file larger than {} KiB, and was killed", limits.file_size_bytes >> 10)
        }
    }
}

/// What a lenient match forgave and what it cost: "presentation error, 90% of the case's points: ...".
/// A rewrite is named with the lines it changed ("ignoring the board's labels (9 lines, first at
/// ...)"), the normalisations with the places they forgave after a colon.
fn presentation_note(comparison: &Comparison) -> String {
    let (lines, places): (Vec<&Forgiven>, Vec<&Forgiven>) =
        comparison.forgiven.iter().partition(|f| f.unit == Unit::Line);
    let mut ignored: Vec<String> = comparison.leniency.iter().map(|n| n.describe().to_owned()).collect();
    match (&comparison.lenient_rewrite, lines.is_empty()) {
        (_, false) => ignored.extend(lines.iter().map(|f| f.describe())),
        (Some(what), true) => ignored.push(what.clone()),
        (None, true) => {}
    }
    let mut note = format!(
        "presentation error, {:.0}% of the case's points: matched only when ignoring {}",
        comparison.credit * 100.0,
        ignored.join(" and ")
    );
    let details: Vec<String> = places.iter().map(|f| f.describe()).collect();
    if !details.is_empty() {
        note.push_str(": ");
        note.push_str(&details.join("; "));
    }
    note
}

/// How partial credit was reached: "partial credit 74%: 1 distinct difference, 399 of 400 lines equal".
fn partial_note(partial: &PartialCredit, comparison: &Comparison, credit: f64) -> String {
    let how = match partial.rule {
        Partial::Prefix => format!(
            "{} of {} expected lines before the first difference",
            partial.equal_lines, partial.expected_lines
        ),
        Partial::Lines => format!(
            "{} of {} lines equal",
            partial.equal_lines,
            partial.expected_lines.max(partial.actual_lines)
        ),
        Partial::EachLine => format!(
            "{} line{} differing, each costing a share",
            partial.differences,
            if partial.differences == 1 { "" } else { "s" }
        ),
        Partial::Hunks | Partial::None => format!(
            "{} distinct difference{}, {} of {} lines equal",
            partial.differences,
            if partial.differences == 1 { "" } else { "s" },
            partial.equal_lines,
            partial.expected_lines.max(partial.actual_lines)
        ),
    };
    let mut note = format!("partial credit {:.0}%: {how}", credit * 100.0);
    if comparison.is_lenient() {
        let mut ignored: Vec<&str> = comparison.leniency.iter().map(|n| n.describe()).collect();
        ignored.extend(comparison.lenient_rewrite.as_deref());
        note.push_str(&format!(" when ignoring {}", ignored.join(" and ")));
    }
    note
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Points each selected case is worth: its category's points shared by weight among *all* the
/// category's cases, so that a self-check on the visible cases never re-weights them into a grade.
pub fn case_points(assignment: &Assignment, cases: &[&Case]) -> Vec<f64> {
    cases
        .iter()
        .map(|case| {
            let total: f64 =
                assignment.cases.iter().filter(|c| c.category == case.category).map(|c| c.weight).sum();
            let points = assignment.category(&case.category).map_or(0.0, |c| c.points);
            points * case.weight / total
        })
        .collect()
}

/// Category scores and the totals over automated categories that had cases selected.
///
/// `earned[i]`, `available[i]` and `passed[i]` belong to `cases[i]`; a category is worth what its
/// selected cases are worth (all its points when every case ran). A bonus category's points earned
/// count in the total score but its points available not in the maximum: a submission without the
/// optional part can reach full marks, and one with it can score above the maximum. Sums are taken
/// before rounding so that a full-marks submission scores exactly the rubric's points.
pub fn tally(
    assignment: &Assignment,
    cases: &[&Case],
    earned: &[f64],
    available: &[f64],
    passed: &[bool],
) -> (Vec<CategoryReport>, Vec<PendingCategory>, f64, f64) {
    let mut categories = Vec::new();
    let mut pending = Vec::new();
    let (mut score, mut max_score) = (0.0, 0.0);
    for category in &assignment.categories {
        if category.manual {
            pending.push(PendingCategory {
                id: category.id.clone(),
                title: category.title.clone(),
                points: category.points,
                given: None,
            });
            continue;
        }
        let members: Vec<usize> = (0..cases.len()).filter(|&i| cases[i].category == category.id).collect();
        if members.is_empty() {
            continue;
        }
        let earned_here: f64 = members.iter().map(|&i| earned[i]).sum();
        let available_here: f64 = members.iter().map(|&i| available[i]).sum();
        score += earned_here;
        if !category.bonus {
            max_score += available_here;
        }
        categories.push(CategoryReport {
            id: category.id.clone(),
            title: category.title.clone(),
            score: round(earned_here),
            max_score: round(available_here),
            passed: members.iter().filter(|&&i| passed[i]).count(),
            cases: members.len(),
            bonus: category.bonus,
        });
    }
    (categories, pending, round(score), round(max_score))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::compare::{CompareSpec, Normalization};
    use crate::load::{CaseKind, Visibility};
    use crate::run::Limits;

    fn case(partial: Partial) -> Case {
        Case {
            id: "c".into(),
            title: "c".into(),
            path: PathBuf::from("c.toml"),
            category: "cat".into(),
            weight: 1.0,
            visibility: Visibility::Visible,
            disclosure: crate::load::Disclosure::Diff,
            withheld: false,
            kind: CaseKind::Transcript,
            build: "program".into(),
            compare: CompareSpec {
                normalize: vec![Normalization::TrailingWhitespace],
                partial,
                ..CompareSpec::default()
            },
            limits: Limits::default(),
            scenario: None,
            scenario_line: None,
            env: BTreeMap::new(),
            referee: None,
            sidecars: Default::default(),
            package: None,
            generate: None,
            args: Vec::new(),
        }
    }

    fn outcome(termination: Termination, stdout: &str) -> RunOutcome {
        RunOutcome {
            termination,
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            wall_time: Duration::ZERO,
            cpu_time: Duration::ZERO,
            peak_memory_kb: 0,
            memory_exhausted: false,
        }
    }

    const BOARD: &str = "board\nEnter move: ";

    #[test]
    fn a_kill_after_the_complete_transcript_is_forgiven_only_for_programs_that_never_stop() {
        let looping = outcome(Termination::Killed { limit: Limit::Wall }, "board\nEnter move: Enter move: ");
        let v = judge(&case(Partial::None), BOARD.as_bytes(), &looping, false);
        assert_eq!((v.status, v.credit), (CaseStatus::Passed, 1.0));
        assert!(v.note.unwrap().contains("ended after the complete transcript (still running after"));

        let v = judge(&case(Partial::None), BOARD.as_bytes(), &looping, true);
        assert_eq!((v.status, v.credit), (CaseStatus::Timeout, 0.0));
    }

    #[test]
    fn any_ending_at_end_of_input_is_forgiven_for_programs_that_never_stop() {
        for termination in [
            Termination::Exited(1),
            Termination::Signaled { signal: 11, name: "SIGSEGV".into() },
            Termination::Killed { limit: Limit::Output },
        ] {
            // The rest of the last prompt's line is past the transcript too.
            let run = outcome(termination.clone(), "board\nEnter move: INVALID\nEnter move: ");
            let v = judge(&case(Partial::None), BOARD.as_bytes(), &run, false);
            assert_eq!((v.status, v.credit), (CaseStatus::Passed, 1.0), "{termination:?}");
            let v = judge(&case(Partial::None), BOARD.as_bytes(), &run, true);
            assert_eq!(v.credit, 0.0, "{termination:?} is a failure where the program must stop");
        }
        // A program that stops too early is not forgiven anything.
        let early = outcome(Termination::Exited(1), "board\n");
        assert_eq!(judge(&case(Partial::None), BOARD.as_bytes(), &early, false).credit, 0.0);
    }

    #[test]
    fn a_kill_before_the_transcript_is_complete_is_never_forgiven() {
        let flood = outcome(Termination::Killed { limit: Limit::Output }, "board\nboard\nboard\n");
        let v = judge(&case(Partial::None), BOARD.as_bytes(), &flood, false);
        assert_eq!(v.status, CaseStatus::OutputLimit);
    }

    #[test]
    fn a_kill_for_memory_after_the_complete_transcript_is_the_programs_failure() {
        let hog = outcome(Termination::Killed { limit: Limit::Memory }, "board\nEnter move: Enter move: ");
        let v = judge(&case(Partial::None), BOARD.as_bytes(), &hog, false);
        assert_eq!((v.status, v.credit), (CaseStatus::LimitExceeded, 0.0));
        assert!(v.note.unwrap().contains("memory"));
    }

    #[test]
    fn a_crash_keeps_partial_credit_for_what_came_before_it() {
        let expected = "1\n2\n3\n4\n";
        let crash = outcome(Termination::Signaled { signal: 11, name: "SIGSEGV".into() }, "1\n2\n");
        let v = judge(&case(Partial::Prefix), expected.as_bytes(), &crash, true);
        assert_eq!((v.status, v.credit), (CaseStatus::Crashed, 0.5));
        assert_eq!(
            v.note.as_deref(),
            Some(
                "crashed with SIGSEGV; partial credit 50%: 2 of 4 expected lines before the first difference"
            )
        );

        // All four lines right, then the crash: all but the last "line", the ending.
        let late_crash = outcome(Termination::Signaled { signal: 6, name: "SIGABRT".into() }, expected);
        let v = judge(&case(Partial::Prefix), expected.as_bytes(), &late_crash, true);
        assert_eq!((v.status, v.credit), (CaseStatus::Crashed, 0.8));
        let v = judge(&case(Partial::None), expected.as_bytes(), &late_crash, true);
        assert_eq!(v.credit, 0.0);
        // Counting differences, the wrong ending is one more difference.
        let v = judge(&case(Partial::Hunks), expected.as_bytes(), &late_crash, true);
        assert_eq!(v.credit, 0.75);
    }

    /// A case whose board may be drawn with row labels, at 60% of its points.
    fn labelled_board_case(partial: Partial) -> Case {
        let mut case = case(partial);
        let rule =
            |p: &str, r: &str| (crate::compare::LinePattern(regex::Regex::new(p).unwrap()), r.to_owned());
        case.compare.lenient_rewrite = Some(crate::compare::LenientRewrite {
            credit: 0.6,
            what: "the board's row labels".into(),
            rules: vec![rule(r"^[0-9] ", "")],
        });
        case
    }

    #[test]
    fn a_match_after_the_costly_rewrite_is_a_presentation_error_that_names_it() {
        let expected = "> show\n-b\nw-\n";
        let labelled = outcome(Termination::Exited(0), "> show\n0 -b\n1 w-\n");
        let v = judge(&labelled_board_case(Partial::None), expected.as_bytes(), &labelled, true);
        assert_eq!((v.status, v.credit), (CaseStatus::Passed, 0.6));
        assert_eq!(
            v.note.as_deref(),
            Some(
                "presentation error, 60% of the case's points: matched only when ignoring the board's row \
                 labels (2 lines, first at expected line 2: \"-b\")"
            )
        );

        // Beside a normalisation, each is named, and the places that one forgave follow.
        let mut case = labelled_board_case(Partial::None);
        case.compare.lenient = vec![(Normalization::Case, 0.5)];
        let shouting = outcome(Termination::Exited(0), "> SHOW\n0 -b\n1 w-\n");
        let v = judge(&case, expected.as_bytes(), &shouting, true);
        assert_eq!(v.credit, 0.5);
        assert_eq!(
            v.note.as_deref(),
            Some(
                "presentation error, 50% of the case's points: matched only when ignoring letter case and the \
                 board's row labels (2 lines, first at expected line 2: \"-b\"): letter case (4 places, first \
                 at expected line 1: \"> show\")"
            )
        );

        // Partial credit under the rung says so too.
        let wrong = outcome(Termination::Exited(0), "> show\n0 -b\n1 ww\n");
        let v = judge(&labelled_board_case(Partial::Lines), expected.as_bytes(), &wrong, true);
        assert_eq!(
            v.note.as_deref(),
            Some("partial credit 40%: 2 of 3 lines equal when ignoring the board's row labels")
        );
    }

    fn category(id: &str, points: f64, bonus: bool) -> crate::load::Category {
        crate::load::Category {
            id: id.into(),
            title: id.into(),
            points,
            manual: false,
            bonus,
            all_or_nothing: false,
        }
    }

    fn assignment(categories: Vec<crate::load::Category>, cases: Vec<Case>) -> Assignment {
        Assignment {
            id: "a".into(),
            title: "a".into(),
            handout: None,
            dir: PathBuf::new(),
            submission_files: vec![],
            builds: BTreeMap::new(),
            stops_at_end_of_input: true,
            probe: None,
            categories,
            cases,
            late_penalty: None,
            similarity_base: crate::load::SimilarityBase::default(),
            similarity_look_at: None,
            warnings: Vec::new(),
            package: None,
            reference: None,
        }
    }

    /// A 95-point rubric (`play`, one case) with a 5-point bonus `cube` of two cases.
    fn with_cube() -> Assignment {
        let play = Case { id: "play/a".into(), category: "play".into(), ..case(Partial::None) };
        let cube = |id: &str| Case { id: id.into(), category: "cube".into(), ..case(Partial::None) };
        assignment(
            vec![category("play", 95.0, false), category("cube", 5.0, true)],
            vec![play, cube("cube/a"), cube("cube/b")],
        )
    }

    #[test]
    fn a_bonus_category_adds_to_the_score_but_not_to_the_maximum() {
        let a = with_cube();
        let cases: Vec<&Case> = a.cases.iter().collect();
        let available = case_points(&a, &cases);
        assert_eq!(available, vec![95.0, 2.5, 2.5]);

        // Everything, the optional part too: above the maximum.
        let (categories, _, score, max) =
            tally(&a, &cases, &[95.0, 2.5, 2.5], &available, &[true, true, true]);
        assert_eq!((score, max), (100.0, 95.0));
        let cube = &categories[1];
        assert_eq!((cube.bonus, cube.score, cube.max_score), (true, 5.0, 5.0));
        assert!(!categories[0].bonus);

        // Without the optional part: full marks, 100%.
        let (_, _, score, max) = tally(&a, &cases, &[95.0, 0.0, 0.0], &available, &[true, false, false]);
        assert_eq!((score, max), (95.0, 95.0));

        // Part of it, with a lost point elsewhere: 2.5 of 5 bonus points make up for more than that.
        let (_, _, score, max) = tally(&a, &cases, &[93.0, 2.5, 0.0], &available, &[false, true, false]);
        assert_eq!((score, max), (95.5, 95.0));
    }

    #[test]
    fn a_grading_of_only_bonus_cases_has_no_maximum() {
        let a = with_cube();
        let cases: Vec<&Case> = a.cases.iter().filter(|c| c.category == "cube").collect();
        let available = case_points(&a, &cases);
        let (categories, _, score, max) = tally(&a, &cases, &[2.5, 0.0], &available, &[true, false]);
        assert_eq!((score, max), (2.5, 0.0));
        assert_eq!((categories.len(), categories[0].max_score), (1, 5.0));
    }

    #[test]
    fn case_points_share_the_category_by_weight() {
        let mut heavy = case(Partial::None);
        heavy.weight = 3.0;
        let light = case(Partial::None);
        let assignment = assignment(vec![category("cat", 8.0, false)], vec![heavy.clone(), light.clone()]);
        assert_eq!(case_points(&assignment, &[&heavy, &light]), vec![6.0, 2.0]);
        // A self-check of the light case alone: still 2 points of 8, not 8.
        assert_eq!(case_points(&assignment, &[&light]), vec![2.0]);
    }
}
