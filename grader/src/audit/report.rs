//! The audit's report: one serialisable struct made from the correct program's grading and each
//! mutant's (what killed it, what it cost, where), rendered as JSON here, as text by [`super::text`]
//! and as a self-contained page by [`super::html`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::marks::{FunctionCategories, MarkKind, Marks};
use super::mutate::{Mutant, Operator};
use super::run::{AuditLimit, Graded};
use crate::points::round;
use crate::report::{CaseStatus, Report};

/// Points below this are no difference (scores are rounded to hundredths).
const EPSILON: f64 = 1e-6;

/// A single defect costing more than this share of the total is listed on its own.
pub const LARGE_COST: f64 = 0.25;

/// Everything an audit found: the single source of its text, JSON and HTML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// The grader's version.
    pub grader_version: String,
    /// Assignment id.
    pub assignment: String,
    /// Assignment title.
    pub title: String,
    /// The correct submission the mutants were made from.
    pub fixture: String,
    /// Only the cases matching these patterns were run (`--case`); empty: all of them.
    pub only: Vec<String>,
    /// Mutants left out (before sampling) because only categories that `--case` does not run
    /// grade their function.
    #[serde(default)]
    pub left_out_by_case: usize,
    /// Functions nothing reaches from an entry point, a graded function or an initial value:
    /// sampled only once the others have no mutant left.
    #[serde(default)]
    pub unreached: Vec<String>,
    /// Where the mutants came from: `generated` (this grader's operators) or the folder of another
    /// tool's mutant files.
    pub source: String,
    /// The seed of the sample (`--seed`).
    pub seed: u64,
    /// Programs run at once (`--jobs`).
    pub jobs: usize,
    /// How the programs were contained.
    pub containment: String,
    /// Seconds the audit took, the correct program's grading included.
    pub seconds: f64,
    /// Whether the mutants and the correct program were built with sanitizers (`--sanitize`): a
    /// sanitizer's report in a case's run then kills a mutant whatever its output.
    #[serde(default)]
    pub sanitize: bool,
    /// The cases whose limits the audit tightened for the mutants (empty with `--own-limits`).
    pub audit_limits: Vec<AuditLimit>,
    /// Mutants graded again because a case timed out under the tighter limit without looping (it
    /// used less than half of the time in CPU): those cases then ran under their own limits.
    #[serde(default)]
    pub regraded: usize,
    /// The correct program's grading.
    pub baseline: Baseline,
    /// The counts over every mutant graded.
    pub totals: Totals,
    /// The counts per operator.
    pub operators: Vec<OperatorLine>,
    /// The counts per rubric category (those whose cases ran).
    pub categories: Vec<CategoryLine>,
    /// Every function of the fixture: its categories and its mutants.
    pub functions: Vec<FunctionLine>,
    /// Every case run: how many mutants it kills, and how many only it kills.
    pub cases: Vec<CaseLine>,
    /// What a single defect costs.
    pub cost: Cost,
    /// Ids (and `name()`s of functions) in the README's equivalent block that no mutant of this
    /// audit has (stale, or not sampled).
    pub equivalent_not_seen: Vec<String>,
    /// Mutants marked equivalent in the README that a case kills: the mark is wrong (of the wrong
    /// kind where only a sanitizer's report killed it: see [`Kill::sanitizer`]).
    pub equivalent_but_killed: Vec<String>,
    /// Ids (and `name()`s) in the README's unobservable block that no mutant of this audit has.
    #[serde(default)]
    pub unobservable_not_seen: Vec<String>,
    /// Mutants marked unobservable that a case kills in an audit without sanitizers: the mark is wrong.
    #[serde(default)]
    pub unobservable_but_killed: Vec<String>,
    /// Mutants marked unobservable that the sanitizer build kills (`--sanitize`): a sanitizer's
    /// report, or the pattern that build fills local variables with (a read before a variable is
    /// set then shows), tells their undefined behaviour; the mark is right.
    #[serde(default)]
    pub unobservable_killed_by_sanitizer: Vec<String>,
    /// Every mutant graded, in source order.
    pub mutants: Vec<MutantOutcome>,
}

/// The correct program's grading, which every mutant's is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// Its score.
    pub score: f64,
    /// The maximum over the cases run.
    pub max_score: f64,
    /// Cases it did not pass with every point: a mutant differing there still counts as killed,
    /// but the fixture is not what the audit assumes.
    pub not_full_marks: Vec<String>,
}

/// The counts over every mutant.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Mutants the operators made (before `--mutants` sampled them).
    pub generated: usize,
    /// Mutants graded.
    pub sampled: usize,
    /// Mutants that built.
    pub built: usize,
    /// Mutants that did not build (dropped from the scores).
    pub not_built: usize,
    /// Mutants the grader itself failed on (dropped from the scores).
    pub errors: usize,
    /// Built mutants some case noticed.
    pub killed: usize,
    /// Built mutants no case noticed, not marked equivalent.
    pub survived: usize,
    /// Built mutants no case noticed, marked equivalent in the README.
    pub equivalent: usize,
    /// Built mutants no case noticed, marked unobservable in the README: they differ from the
    /// correct program only through undefined behaviour or in what the handout leaves open.
    #[serde(default)]
    pub unobservable: usize,
    /// Killed mutants that a sanitizer's report killed in some case (`--sanitize`; counted in `killed`).
    #[serde(default)]
    pub killed_by_sanitizer: usize,
    /// killed / built, in percent (none when nothing built).
    pub score: Option<f64>,
    /// killed / (built - equivalent), in percent: the unobservable count as survivors here.
    pub score_without_equivalent: Option<f64>,
    /// killed / (built - equivalent - unobservable), that is killed / (killed + survived), in
    /// percent: over the mutants some case may show, the score the cases are held to.
    #[serde(default)]
    pub score_without_equivalent_or_unobservable: Option<f64>,
}

impl Totals {
    fn add(&mut self, outcome: &MutantOutcome) {
        self.sampled += 1;
        match outcome.status {
            MutantStatus::NotBuilt => self.not_built += 1,
            MutantStatus::Error => self.errors += 1,
            MutantStatus::Killed => self.killed += 1,
            MutantStatus::Survived => self.survived += 1,
            MutantStatus::Equivalent => self.equivalent += 1,
            MutantStatus::Unobservable => self.unobservable += 1,
        }
        if outcome.status == MutantStatus::Killed && outcome.killed_by.iter().any(|k| k.sanitizer.is_some()) {
            self.killed_by_sanitizer += 1;
        }
        self.built = self.killed + self.survived + self.equivalent + self.unobservable;
        self.score = percent(self.killed, self.built);
        self.score_without_equivalent = percent(self.killed, self.built - self.equivalent);
        self.score_without_equivalent_or_unobservable = percent(self.killed, self.killed + self.survived);
    }
}

fn percent(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| round(100.0 * part as f64 / whole as f64))
}

/// The counts of one operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperatorLine {
    /// The operator.
    pub operator: Operator,
    /// Its counts.
    #[serde(flatten)]
    pub totals: Totals,
}

/// One rubric category: the mutants its cases kill, and the mutation score of the functions it grades.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryLine {
    /// Category id.
    pub id: String,
    /// What it grades.
    pub title: String,
    /// Its points.
    pub points: f64,
    /// Its cases that ran.
    pub cases: usize,
    /// Built mutants that some case of this category kills.
    pub kills: usize,
    /// The functions it grades (see [`FunctionLine::categories`]).
    pub functions: Vec<String>,
    /// The counts over the mutants of those functions; none when it grades no known function.
    pub totals: Option<Totals>,
}

/// One function: the categories that grade it, and its mutants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionLine {
    /// Its categories, and how the audit knows them.
    #[serde(flatten)]
    pub categories: FunctionCategories,
    /// The counts over its mutants.
    pub totals: Totals,
}

/// One case: the mutants it kills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseLine {
    /// Case id.
    pub id: String,
    /// Its category.
    pub category: String,
    /// Built mutants it kills.
    pub kills: usize,
    /// Mutants only it kills.
    pub only_it_kills: usize,
}

/// What single defects cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Killed mutants by the share of the total they lose.
    pub bins: Vec<CostBin>,
    /// Median points lost per killed mutant.
    pub median: Option<f64>,
    /// Mean points lost per killed mutant.
    pub mean: Option<f64>,
    /// The largest loss.
    pub max: Option<f64>,
    /// The mutants that lose more than a quarter of the total.
    pub over_a_quarter: Vec<String>,
    /// The mutants charged in a category that does not grade their function.
    pub outside_their_category: Vec<String>,
    /// Killed mutants in functions no category is known to grade (not checked for the above).
    pub killed_in_unmapped_functions: usize,
}

/// A range of points lost, as a share of the total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostBin {
    /// `5-10%`.
    pub label: String,
    /// Killed mutants losing a share in this range.
    pub mutants: usize,
}

/// The ranges of [`Cost::bins`]: upper ends in percent of the total (a loss of exactly 0 is the first).
const COST_BINS: [(f64, &str); 7] = [
    (1.0, "0-1%"),
    (2.5, "1-2.5%"),
    (5.0, "2.5-5%"),
    (10.0, "5-10%"),
    (25.0, "10-25%"),
    (50.0, "25-50%"),
    (f64::INFINITY, "over 50%"),
];

/// How a mutant came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MutantStatus {
    /// Some case noticed it.
    Killed,
    /// No case noticed it: a defect the cases miss, or an equivalent mutant not marked yet.
    Survived,
    /// No case noticed it, and the README marks it equivalent.
    Equivalent,
    /// No case noticed it, and the README marks it unobservable: it differs only through undefined
    /// behaviour or in what the handout leaves open, which no case may grade.
    Unobservable,
    /// It did not build.
    NotBuilt,
    /// The grader failed on it.
    Error,
}

impl MutantStatus {
    /// The word in reports.
    pub fn word(self) -> &'static str {
        match self {
            MutantStatus::Killed => "killed",
            MutantStatus::Survived => "survived",
            MutantStatus::Equivalent => "equivalent",
            MutantStatus::Unobservable => "unobservable",
            MutantStatus::NotBuilt => "not built",
            MutantStatus::Error => "grader error",
        }
    }
}

/// A category's points lost to a mutant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Charge {
    /// Category id.
    pub category: String,
    /// Points lost there.
    pub points: f64,
}

/// A case that noticed a mutant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kill {
    /// Case id.
    pub case: String,
    /// The case's status for the mutant.
    pub status: CaseStatus,
    /// Points lost on it.
    pub points: f64,
    /// The first line of a sanitizer's report in its stderr (`--sanitize`): undefined behaviour,
    /// a kill whatever the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanitizer: Option<String>,
}

/// One mutant and what the cases made of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MutantOutcome {
    /// The mutant.
    #[serde(flatten)]
    pub mutant: Mutant,
    /// How it came out.
    pub status: MutantStatus,
    /// Why it is equivalent or unobservable (the README's reason), why it did not build, or the
    /// grader's error.
    pub reason: Option<String>,
    /// Points lost against the correct program.
    pub points_lost: f64,
    /// The same as a percentage of the total.
    pub percent_lost: f64,
    /// The categories that lost points.
    pub charged: Vec<Charge>,
    /// The cases that noticed it.
    pub killed_by: Vec<Kill>,
    /// Categories charged that do not grade its function (none when its function's are unknown).
    pub outside: Vec<String>,
}

/// Compares a mutant's grading with the correct program's: the cases that differ (another status,
/// fewer points or, when `sanitize`, a sanitizer's report on stderr) and the categories that lost
/// points.
pub fn compare(baseline: &Report, report: &Report, sanitize: bool) -> (Vec<Kill>, Vec<Charge>) {
    let mut kills = Vec::new();
    for case in &report.cases {
        let Some(base) = baseline.cases.iter().find(|b| b.id == case.id) else { continue };
        let sanitizer = if sanitize { super::sanitize::report_line(case.stderr.as_deref()) } else { None };
        if case.status != base.status || case.score < base.score - EPSILON || sanitizer.is_some() {
            kills.push(Kill {
                case: case.id.clone(),
                status: case.status,
                points: round((base.score - case.score).max(0.0)),
                sanitizer,
            });
        }
    }
    let mut charges = Vec::new();
    for category in &report.categories {
        let Some(base) = baseline.categories.iter().find(|b| b.id == category.id) else { continue };
        if category.score < base.score - EPSILON {
            charges
                .push(Charge { category: category.id.clone(), points: round(base.score - category.score) });
        }
    }
    (kills, charges)
}

/// Whether no case noticed the mutant.
pub fn survives(baseline: &Report, graded: &Graded, sanitize: bool) -> bool {
    matches!(graded, Graded::Report(report) if compare(baseline, report, sanitize).0.is_empty())
}

/// What the audit ran on, for the report's header.
pub struct Setting<'a> {
    /// The fixture's path as given.
    pub fixture: String,
    /// `generated`, or another tool's folder.
    pub source: String,
    /// `--seed`.
    pub seed: u64,
    /// `--jobs`.
    pub jobs: usize,
    /// `--case` patterns.
    pub only: Vec<String>,
    /// Mutants made before sampling.
    pub generated: usize,
    /// Mutants left out by `--case`.
    pub left_out_by_case: usize,
    /// Functions nothing reaches.
    pub unreached: Vec<String>,
    /// Built with sanitizers (`--sanitize`).
    pub sanitize: bool,
    /// The tightened limits.
    pub audit_limits: Vec<AuditLimit>,
    /// Mutants graded twice (see [`AuditReport::regraded`]).
    pub regraded: usize,
    /// Seconds taken.
    pub seconds: f64,
    /// The README's marks.
    pub marks: &'a Marks,
    /// Their categories.
    pub function_categories: Vec<FunctionCategories>,
}

/// Builds the report from the correct program's grading and each mutant's.
pub fn build(
    assignment: &crate::load::Assignment,
    setting: Setting<'_>,
    baseline: &Report,
    mutants: Vec<Mutant>,
    graded: Vec<Graded>,
) -> AuditReport {
    let total = baseline.max_score;
    let categories_of: BTreeMap<&str, &FunctionCategories> =
        setting.function_categories.iter().map(|f| (f.function.as_str(), f)).collect();
    let mut outcomes = Vec::new();
    let mut equivalent_but_killed = Vec::new();
    let mut unobservable_but_killed = Vec::new();
    let mut unobservable_killed_by_sanitizer = Vec::new();
    for (mutant, graded) in mutants.into_iter().zip(graded) {
        let marked =
            setting.marks.mark(&mutant.id, &mutant.function).map(|(kind, why)| (kind, why.to_owned()));
        let mut outcome = MutantOutcome {
            status: MutantStatus::Error,
            reason: None,
            points_lost: 0.0,
            percent_lost: 0.0,
            charged: Vec::new(),
            killed_by: Vec::new(),
            outside: Vec::new(),
            mutant,
        };
        match graded {
            Graded::NotBuilt(why) => {
                outcome.status = MutantStatus::NotBuilt;
                outcome.reason = Some(why);
            }
            Graded::Error(why) => outcome.reason = Some(why),
            Graded::Report(report) => {
                let (kills, charges) = compare(baseline, &report, setting.sanitize);
                if kills.is_empty() {
                    outcome.status = match &marked {
                        None => MutantStatus::Survived,
                        Some((MarkKind::Equivalent, _)) => MutantStatus::Equivalent,
                        Some((MarkKind::Unobservable, _)) => MutantStatus::Unobservable,
                    };
                    outcome.reason = marked.map(|(_, why)| why);
                } else {
                    let id = outcome.mutant.id.clone();
                    match marked.map(|(kind, _)| kind) {
                        None => {}
                        Some(MarkKind::Equivalent) => equivalent_but_killed.push(id),
                        Some(MarkKind::Unobservable) if setting.sanitize => {
                            unobservable_killed_by_sanitizer.push(id)
                        }
                        Some(MarkKind::Unobservable) => unobservable_but_killed.push(id),
                    }
                    outcome.status = MutantStatus::Killed;
                    outcome.points_lost = round((baseline.score - report.score).max(0.0));
                    outcome.percent_lost =
                        if total > 0.0 { round(100.0 * outcome.points_lost / total) } else { 0.0 };
                    if let Some(known) = categories_of.get(outcome.mutant.function.as_str()) {
                        if !known.categories.is_empty() {
                            outcome.outside = charges
                                .iter()
                                .filter(|c| !known.categories.contains(&c.category))
                                .map(|c| c.category.clone())
                                .collect();
                        }
                    }
                    outcome.killed_by = kills;
                    outcome.charged = charges;
                }
            }
        }
        outcomes.push(outcome);
    }

    let mut totals = Totals { generated: setting.generated, ..Totals::default() };
    let mut by_operator: BTreeMap<Operator, Totals> = BTreeMap::new();
    let mut by_function: BTreeMap<&str, Totals> = BTreeMap::new();
    for outcome in &outcomes {
        totals.add(outcome);
        by_operator.entry(outcome.mutant.operator).or_default().add(outcome);
        by_function.entry(outcome.mutant.function.as_str()).or_default().add(outcome);
    }
    let operators =
        by_operator.into_iter().map(|(operator, totals)| OperatorLine { operator, totals }).collect();

    let functions: Vec<FunctionLine> = setting
        .function_categories
        .iter()
        .map(|f| FunctionLine {
            categories: f.clone(),
            totals: by_function.get(f.function.as_str()).cloned().unwrap_or_default(),
        })
        .collect();

    // Cases: what each kills, and what only it kills.
    let mut case_kills: BTreeMap<&str, usize> = baseline.cases.iter().map(|c| (c.id.as_str(), 0)).collect();
    let mut case_only: BTreeMap<&str, usize> = BTreeMap::new();
    for outcome in outcomes.iter().filter(|o| o.status == MutantStatus::Killed) {
        for kill in &outcome.killed_by {
            *case_kills.entry(kill.case.as_str()).or_default() += 1;
        }
        if let [only] = outcome.killed_by.as_slice() {
            *case_only.entry(only.case.as_str()).or_default() += 1;
        }
    }
    let cases: Vec<CaseLine> = baseline
        .cases
        .iter()
        .map(|c| CaseLine {
            id: c.id.clone(),
            category: c.category.clone(),
            kills: case_kills.get(c.id.as_str()).copied().unwrap_or(0),
            only_it_kills: case_only.get(c.id.as_str()).copied().unwrap_or(0),
        })
        .collect();

    let categories = baseline
        .categories
        .iter()
        .map(|category| {
            let kills = outcomes
                .iter()
                .filter(|o| o.status == MutantStatus::Killed)
                .filter(|o| {
                    o.killed_by.iter().any(|k| case_category(baseline, &k.case) == Some(&category.id))
                })
                .count();
            let graded: Vec<String> = setting
                .function_categories
                .iter()
                .filter(|f| f.categories.contains(&category.id))
                .map(|f| f.function.clone())
                .collect();
            let totals = (!graded.is_empty()).then(|| {
                let mut totals = Totals::default();
                for outcome in outcomes.iter().filter(|o| graded.contains(&o.mutant.function)) {
                    totals.add(outcome);
                }
                totals
            });
            CategoryLine {
                id: category.id.clone(),
                title: category.title.clone(),
                points: category.max_score,
                cases: category.cases,
                kills,
                functions: graded,
                totals,
            }
        })
        .collect();

    let killed: Vec<&MutantOutcome> = outcomes.iter().filter(|o| o.status == MutantStatus::Killed).collect();
    let mut losses: Vec<f64> = killed.iter().map(|o| o.points_lost).collect();
    losses.sort_by(f64::total_cmp);
    let bins = COST_BINS
        .iter()
        .enumerate()
        .map(|(i, &(upper, label))| {
            let lower = if i == 0 { f64::NEG_INFINITY } else { COST_BINS[i - 1].0 };
            let mutants = killed.iter().filter(|o| o.percent_lost > lower && o.percent_lost <= upper).count();
            CostBin { label: label.to_owned(), mutants }
        })
        .collect();
    let unmapped: BTreeSet<&str> = setting
        .function_categories
        .iter()
        .filter(|f| f.categories.is_empty())
        .map(|f| f.function.as_str())
        .collect();
    let cost = Cost {
        bins,
        median: median(&losses),
        mean: (!losses.is_empty()).then(|| round(losses.iter().sum::<f64>() / losses.len() as f64)),
        max: losses.last().copied(),
        over_a_quarter: killed
            .iter()
            .filter(|o| o.points_lost > LARGE_COST * total + EPSILON)
            .map(|o| o.mutant.id.clone())
            .collect(),
        outside_their_category: killed
            .iter()
            .filter(|o| !o.outside.is_empty())
            .map(|o| o.mutant.id.clone())
            .collect(),
        killed_in_unmapped_functions: killed
            .iter()
            .filter(|o| {
                unmapped.contains(o.mutant.function.as_str())
                    || !categories_of.contains_key(o.mutant.function.as_str())
            })
            .count(),
    };
    let seen: BTreeSet<&str> = outcomes.iter().map(|o| o.mutant.id.as_str()).collect();
    let functions_seen: BTreeSet<&str> = outcomes
        .iter()
        .flat_map(|o| [o.mutant.function.as_str(), o.mutant.function.rsplit('.').next().unwrap_or("")])
        .collect();
    let not_seen = |ids: &BTreeMap<String, String>, functions: &BTreeMap<String, String>| -> Vec<String> {
        ids.keys()
            .filter(|id| !seen.contains(id.as_str()))
            .cloned()
            .chain(
                functions.keys().filter(|f| !functions_seen.contains(f.as_str())).map(|f| format!("{f}()")),
            )
            .collect()
    };
    let marks = setting.marks;
    let equivalent_not_seen = not_seen(&marks.equivalent, &marks.equivalent_functions);
    let unobservable_not_seen = not_seen(&marks.unobservable, &marks.unobservable_functions);

    AuditReport {
        grader_version: env!("CARGO_PKG_VERSION").to_owned(),
        assignment: assignment.id.clone(),
        title: assignment.title.clone(),
        fixture: setting.fixture,
        only: setting.only,
        left_out_by_case: setting.left_out_by_case,
        unreached: setting.unreached,
        source: setting.source,
        seed: setting.seed,
        jobs: setting.jobs,
        containment: baseline.containment.to_string(),
        seconds: round(setting.seconds),
        sanitize: setting.sanitize,
        audit_limits: setting.audit_limits,
        regraded: setting.regraded,
        baseline: Baseline {
            score: baseline.score,
            max_score: baseline.max_score,
            not_full_marks: baseline.cases.iter().filter(|c| !c.full_marks()).map(|c| c.id.clone()).collect(),
        },
        totals,
        operators,
        categories,
        functions,
        cases,
        cost,
        equivalent_not_seen,
        equivalent_but_killed,
        unobservable_not_seen,
        unobservable_but_killed,
        unobservable_killed_by_sanitizer,
        mutants: outcomes,
    }
}

fn case_category<'r>(baseline: &'r Report, case: &str) -> Option<&'r String> {
    baseline.cases.iter().find(|c| c.id == case).map(|c| &c.category)
}

fn median(sorted: &[f64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some(round((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0)),
    }
}

impl AuditReport {
    /// The mutants with this status, grouped by function (in the order of the functions' first
    /// mutant in the source).
    pub fn by_function(&self, status: MutantStatus) -> Vec<(&str, Vec<&MutantOutcome>)> {
        let mut groups: Vec<(&str, Vec<&MutantOutcome>)> = Vec::new();
        for outcome in self.mutants.iter().filter(|o| o.status == status) {
            match groups.iter_mut().find(|(f, _)| *f == outcome.mutant.function) {
                Some((_, list)) => list.push(outcome),
                None => groups.push((&outcome.mutant.function, vec![outcome])),
            }
        }
        groups
    }

    /// The mutant with this id.
    pub fn mutant(&self, id: &str) -> Option<&MutantOutcome> {
        self.mutants.iter().find(|o| o.mutant.id == id)
    }

    /// Cases that kill no mutant.
    pub fn cases_killing_nothing(&self) -> Vec<&CaseLine> {
        self.cases.iter().filter(|c| c.kills == 0).collect()
    }

    /// Cases that kill mutants, every one of which another case kills too.
    pub fn cases_killing_only_what_others_kill(&self) -> Vec<&CaseLine> {
        self.cases.iter().filter(|c| c.kills > 0 && c.only_it_kills == 0).collect()
    }

    /// The function lines with no category known.
    pub fn unmapped_functions(&self) -> Vec<&FunctionLine> {
        self.functions.iter().filter(|f| f.categories.categories.is_empty()).collect()
    }
}

/// `84.2%`, or `-` for none.
pub fn show_percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}%"))
}

/// Renders the report as JSON (pretty-printed, control characters escaped as in every JSON report).
pub fn render_json(report: &AuditReport) -> String {
    let json = serde_json::to_string_pretty(report).expect("the report serialises");
    crate::report::escape::json(&json) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: MutantStatus, sanitizer: bool) -> MutantOutcome {
        let kill = Kill {
            case: "c".to_owned(),
            status: CaseStatus::Failed,
            points: 1.0,
            sanitizer: sanitizer.then(|| "AddressSanitizer: global-buffer-overflow".to_owned()),
        };
        MutantOutcome {
            mutant: Mutant {
                id: "ror-00000000".to_owned(),
                file: "main.c".to_owned(),
                line: 1,
                column: 1,
                function: "f".to_owned(),
                operator: Operator::Relational,
                original: "<".to_owned(),
                replacement: "<=".to_owned(),
                diff: String::new(),
                made_by: None,
                change: Default::default(),
            },
            status,
            reason: None,
            points_lost: 0.0,
            percent_lost: 0.0,
            charged: Vec::new(),
            killed_by: if status == MutantStatus::Killed { vec![kill] } else { Vec::new() },
            outside: Vec::new(),
        }
    }

    #[test]
    fn the_three_scores_set_aside_the_equivalent_then_the_unobservable_too() {
        let mut totals = Totals::default();
        let statuses = [
            (MutantStatus::Killed, 5, false),
            (MutantStatus::Killed, 1, true),
            (MutantStatus::Survived, 1, false),
            (MutantStatus::Equivalent, 2, false),
            (MutantStatus::Unobservable, 1, false),
            (MutantStatus::NotBuilt, 1, false),
        ];
        for (status, count, sanitizer) in statuses {
            for _ in 0..count {
                totals.add(&outcome(status, sanitizer));
            }
        }
        assert_eq!((totals.sampled, totals.built, totals.killed, totals.killed_by_sanitizer), (11, 10, 6, 1));
        assert_eq!((totals.equivalent, totals.unobservable), (2, 1));
        // 6 of 10 built; 6 of the 8 not equivalent (the unobservable one a survivor); 6 of 7.
        assert_eq!(totals.score, Some(60.0));
        assert_eq!(totals.score_without_equivalent, Some(75.0));
        assert_eq!(totals.score_without_equivalent_or_unobservable, Some(85.71));
    }
}
