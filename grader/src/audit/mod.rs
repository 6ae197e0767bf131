//! `grader audit`: mutation analysis of an assignment's cases. Single-defect mutants of a correct
//! submission ([`mutate`]: tree-sitter, never text matching) are built and graded like any
//! submission ([`run`]: the build cache, the sandbox, the class machinery's CPU slots), and the
//! report ([`report`], [`text`], [`html`]) says which defects no case notices, which cases notice nothing new,
//! and what a single defect costs, and where.

pub mod command;
mod html;
pub mod marks;
pub mod mutate;
pub mod report;
pub mod run;
pub mod sanitize;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use command::AuditArgs;
pub use html::render_html;
pub use report::{render_json, AuditReport};
pub use text::render_text;

use crate::build::{BuildError, Submission};
use crate::grade::{self, GradeError, GradeOptions};
use crate::load::{Assignment, LoadError};
use crate::report::BuildStatus;
use marks::{FunctionCategories, Marks};
use mutate::{Function, Mutant, Operator};

/// Why an audit could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The fixture could not be read.
    #[error(transparent)]
    Fixture(#[from] BuildError),
    /// The fixture holds no C or Java source to mutate.
    #[error("{} holds no C or Java source the assignment takes: nothing to mutate", path.display())]
    NoSources {
        /// The fixture.
        path: PathBuf,
    },
    /// The README's marks are malformed.
    #[error(transparent)]
    Marks(#[from] LoadError),
    /// A folder of another tool's mutants could not be read.
    #[error("cannot read the mutant files in {}", path.display())]
    MutantFiles {
        /// The folder or file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A mutant file whose name names no file of the fixture.
    #[error("{}: {why}", path.display())]
    MutantFileName {
        /// The file.
        path: PathBuf,
        /// What is wrong with its name.
        why: String,
    },
    /// The correct program could not be graded.
    #[error("grading the correct program: {0}")]
    Baseline(#[from] GradeError),
    /// `--sanitize` on an assignment that no C compiler builds.
    #[error("{0}")]
    Sanitize(String),
    /// With `--sanitize`, a sanitizer reports an error in the correct program's run of a case:
    /// every mutant would be killed there.
    #[error(
        "--sanitize: the correct program {} is not sanitizer-clean: in case {case}, {line} \
         (fix it, or audit without --sanitize)",
        path.display()
    )]
    BaselineNotClean {
        /// The fixture.
        path: PathBuf,
        /// The case.
        case: String,
        /// The sanitizer's first line.
        line: String,
    },
    /// The correct program does not build: there is nothing to compare mutants with.
    #[error("the correct program {} does not build ({recipe}): {log}", path.display())]
    BaselineNotBuilt {
        /// The fixture.
        path: PathBuf,
        /// The recipe that failed.
        recipe: String,
        /// The compiler's first lines.
        log: String,
    },
}

/// What to audit and how.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// The correct submission the mutants are made from.
    pub fixture: PathBuf,
    /// Grade a sample of this many mutants (even over functions and operators); none: all.
    pub mutants: Option<usize>,
    /// The sample's seed.
    pub seed: u64,
    /// Programs run at once.
    pub jobs: usize,
    /// How each mutant is graded (cache, containment, `--case` patterns).
    pub grade: GradeOptions,
    /// Take the mutants from this folder of another tool's mutant files instead of making them.
    pub mutant_files: Option<PathBuf>,
    /// Grade the mutants under the cases' own limits, not the audit's tighter ones.
    pub own_limits: bool,
    /// Build the correct program and the mutants with sanitizers ([`sanitize::FLAGS`]): a
    /// sanitizer's report in a case's run kills a mutant whatever its output.
    pub sanitize: bool,
    /// Say nothing while grading.
    pub quiet: bool,
}

/// The mutants an audit grades.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The correct submission.
    pub submission: Submission,
    /// Its functions.
    pub functions: Vec<Function>,
    /// How many mutants were made before sampling.
    pub generated: usize,
    /// The mutants to grade, in source order.
    pub mutants: Vec<Mutant>,
    /// `generated`, or the folder of another tool's mutants.
    pub source: String,
    /// The categories of every function (the README's marks, the rubric, the callers).
    pub function_categories: Vec<FunctionCategories>,
    /// Mutants left out because only categories that `--case` does not run grade their function.
    pub left_out_by_case: usize,
    /// Functions that no entry point, category or initial value reaches (see
    /// [`unreached_functions`]): sampled only once the others have no mutant left.
    pub unreached: BTreeSet<String>,
}

/// Reads the fixture and makes its mutants (or reads another tool's), sampled as `options` says:
/// with `--case`, only the mutants of functions that the categories of the matched cases grade, or
/// that no category is known to grade; functions nothing reaches come last.
pub fn plan(assignment: &Assignment, options: &AuditOptions, marks: &Marks) -> Result<Plan, AuditError> {
    let submission = Submission::collect(&options.fixture, &assignment.submission_files)?;
    let mut functions = Vec::new();
    let mut all = Vec::new();
    let mut mentioned_outside = BTreeSet::new();
    for file in &submission.files {
        if mutate::Language::of(&file.name).is_none() {
            continue;
        }
        let made = mutate::mutate_file(&file.name, &file.content);
        functions.extend(made.functions);
        all.extend(made.mutants);
        mentioned_outside.extend(made.mentioned_outside);
    }
    if functions.is_empty() && all.is_empty() {
        return Err(AuditError::NoSources { path: options.fixture.clone() });
    }
    let source = match &options.mutant_files {
        Some(dir) => {
            all = external_mutants(dir, &submission, &functions)?;
            dir.display().to_string()
        }
        None => "generated".to_owned(),
    };
    let generated = all.len();
    let function_categories = marks::function_categories(assignment, &functions, marks);
    let before = all.len();
    if !options.grade.only.is_empty() {
        let run: BTreeSet<&str> = assignment
            .cases
            .iter()
            .filter(|c| !c.withheld && options.grade.only.iter().any(|p| p.matches(&c.id)))
            .map(|c| c.category.as_str())
            .collect();
        let graded_elsewhere: BTreeSet<&str> = function_categories
            .iter()
            .filter(|f| !f.categories.is_empty() && !f.categories.iter().any(|c| run.contains(c.as_str())))
            .map(|f| f.function.as_str())
            .collect();
        all.retain(|m| !graded_elsewhere.contains(m.function.as_str()));
    }
    let left_out_by_case = before - all.len();
    let unreached = unreached_functions(&functions, &mentioned_outside, &function_categories, marks);
    let mutants = match options.mutants {
        Some(n) => sample(all, n, options.seed, &unreached),
        None => all,
    };
    Ok(Plan {
        submission,
        functions,
        generated,
        mutants,
        source,
        function_categories,
        left_out_by_case,
        unreached,
    })
}

/// The functions that nothing the cases run can reach, by the names each function's body mentions:
/// the roots are the entry points (`main`, Java's constructors and `@Override` methods), the
/// functions some category grades (the driver calls them), and what the initial values of globals
/// and fields name; a function the README marks wholly equivalent (`name()`: code no case can
/// reach, or runs only where the handout leaves the behaviour open, marked in either block) is
/// neither a root nor reached through. Trouble's `pieceAt`, which nothing calls, is one.
pub fn unreached_functions(
    functions: &[Function],
    mentioned_outside: &BTreeSet<String>,
    categories: &[FunctionCategories],
    marks: &Marks,
) -> BTreeSet<String> {
    let marked = |f: &Function| marks.marks_function(&f.name) || marks.marks_function(f.bare_name());
    let placed: BTreeSet<&str> =
        categories.iter().filter(|f| !f.categories.is_empty()).map(|f| f.function.as_str()).collect();
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    let mut queue: Vec<&Function> = functions
        .iter()
        .filter(|f| !marked(f))
        .filter(|f| f.entry || placed.contains(f.name.as_str()) || mentioned_outside.contains(f.bare_name()))
        .collect();
    while let Some(function) = queue.pop() {
        if !reached.insert(function.name.as_str()) {
            continue;
        }
        queue.extend(functions.iter().filter(|g| {
            !marked(g) && !reached.contains(g.name.as_str()) && function.mentions.contains(g.bare_name())
        }));
    }
    functions.iter().filter(|f| !reached.contains(f.name.as_str())).map(|f| f.name.clone()).collect()
}

/// Up to `n` mutants, spread evenly: functions take turns (in an order shuffled by `seed`), and each
/// function's operators take turns within it, each operator's mutants in a shuffled order. The
/// functions in `unreached` (code no case can run) take their turns only once the others have no
/// mutant left; the order is shuffled over every function all the same, so that marking a function
/// unreached only hands its turns to the others and keeps the rest of the sample. The result is in
/// source order.
pub fn sample(mutants: Vec<Mutant>, n: usize, seed: u64, unreached: &BTreeSet<String>) -> Vec<Mutant> {
    if n >= mutants.len() {
        return mutants;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    // function -> operator -> indices of its mutants
    let mut groups: BTreeMap<&str, BTreeMap<Operator, Vec<usize>>> = BTreeMap::new();
    for (i, m) in mutants.iter().enumerate() {
        groups.entry(&m.function).or_default().entry(m.operator).or_default().push(i);
    }
    let mut queues: Vec<FunctionQueue> = groups
        .into_iter()
        .map(|(function, by_operator)| {
            let mut operators: Vec<Vec<usize>> = by_operator.into_values().collect();
            for queue in &mut operators {
                rng.shuffle(queue);
            }
            rng.shuffle(&mut operators);
            FunctionQueue { unreached: unreached.contains(function), operators, next: 0 }
        })
        .collect();
    rng.shuffle(&mut queues);
    let mut chosen = Vec::with_capacity(n);
    take_turns(&mut queues, false, n, &mut chosen);
    take_turns(&mut queues, true, n, &mut chosen);
    chosen.sort_unstable();
    let mut keep = vec![false; mutants.len()];
    for i in chosen {
        keep[i] = true;
    }
    mutants.into_iter().zip(keep).filter_map(|(m, k)| k.then_some(m)).collect()
}

/// One function's mutants waiting to be sampled.
struct FunctionQueue {
    /// Whether nothing reaches the function.
    unreached: bool,
    /// Its mutants by operator, each a stack in shuffled order.
    operators: Vec<Vec<usize>>,
    /// The operator whose turn is next.
    next: usize,
}

/// Adds mutants to `chosen` until it holds `n`, the queues whose `unreached` is as given taking
/// turns, and in each its operators.
fn take_turns(queues: &mut [FunctionQueue], unreached: bool, n: usize, chosen: &mut Vec<usize>) {
    while chosen.len() < n {
        let mut took = false;
        for queue in queues.iter_mut().filter(|q| q.unreached == unreached) {
            if chosen.len() == n {
                break;
            }
            // The function's next operator that has mutants left.
            for _ in 0..queue.operators.len() {
                let at = queue.next % queue.operators.len();
                queue.next += 1;
                if let Some(index) = queue.operators[at].pop() {
                    chosen.push(index);
                    took = true;
                    break;
                }
            }
        }
        if !took {
            break;
        }
    }
}

/// Another tool's mutants: each file of `dir` named `<stem>.mutant.<n>.<ext>` (universalmutator's
/// names) is a whole mutated copy of the fixture's file `<stem>.<ext>`.
fn external_mutants(
    dir: &Path,
    submission: &Submission,
    functions: &[Function],
) -> Result<Vec<Mutant>, AuditError> {
    let err = |path: &Path| {
        let path = path.to_owned();
        move |source| AuditError::MutantFiles { path, source }
    };
    let mut found: Vec<(String, usize, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(err(dir))? {
        let path = entry.map_err(err(dir))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with('.') || !path.is_file() {
            continue;
        }
        let parsed = name.split_once(".mutant.").and_then(|(stem, rest)| {
            let (number, ext) = rest.split_once('.')?;
            Some((format!("{stem}.{ext}"), number.parse::<usize>().ok()?))
        });
        let Some((original, number)) = parsed else {
            return Err(AuditError::MutantFileName {
                path,
                why: "not a mutant file: expected <name>.mutant.<n>.<ext> (universalmutator's names)"
                    .to_owned(),
            });
        };
        let matching: Vec<&str> = submission
            .files
            .iter()
            .map(|f| f.name.as_str())
            .filter(|f| f.rsplit('/').next() == Some(original.as_str()))
            .collect();
        match matching.as_slice() {
            [file] => found.push(((*file).to_owned(), number, path)),
            [] => {
                return Err(AuditError::MutantFileName {
                    path,
                    why: format!("the fixture has no file {original}"),
                })
            }
            _ => {
                return Err(AuditError::MutantFileName {
                    path,
                    why: format!("the fixture has several files named {original}: {}", matching.join(", ")),
                })
            }
        }
    }
    found.sort();
    let mut mutants = Vec::new();
    for (file, _, path) in found {
        let mutated = std::fs::read(&path).map_err(err(&path))?;
        let original = &submission.files.iter().find(|f| f.name == file).expect("matched above").content;
        let label = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        mutants.extend(mutate::external_mutant(&file, original, mutated, functions, &label));
    }
    Ok(mutants)
}

/// Audits the assignment's cases: grades the correct program, then every planned mutant, and
/// reports. With `--sanitize`, both are built and run as [`sanitize::sanitized`] says, and the
/// correct program must run sanitizer-clean.
pub fn audit(assignment: &Assignment, options: &AuditOptions) -> Result<AuditReport, AuditError> {
    let started = Instant::now();
    let marks = Marks::read(assignment)?;
    let plan = plan(assignment, options, &marks)?;
    let sanitized;
    let assignment = if options.sanitize {
        sanitized =
            sanitize::sanitized(assignment, options.grade.containment).map_err(AuditError::Sanitize)?;
        &sanitized
    } else {
        assignment
    };
    crate::run::set_slot_count(options.jobs);
    let baseline = grade::grade_submission(assignment, &plan.submission, &options.grade)?;
    if let Some(build) = baseline.builds.iter().find(|b| b.status == BuildStatus::Error) {
        return Err(AuditError::BaselineNotBuilt {
            path: options.fixture.clone(),
            recipe: build.recipe.clone(),
            log: build.log.lines().take(5).collect::<Vec<_>>().join("\n"),
        });
    }
    if options.sanitize {
        let reported =
            baseline.cases.iter().find_map(|c| Some((c, sanitize::report_line(c.stderr.as_deref())?)));
        if let Some((case, line)) = reported {
            return Err(AuditError::BaselineNotClean {
                path: options.fixture.clone(),
                case: case.id.clone(),
                line,
            });
        }
    }
    let (graded_with, audit_limits) = if options.own_limits {
        (assignment.clone(), Vec::new())
    } else {
        run::audit_limits(assignment, &baseline)
    };
    let progress = run::Progress::new(plan.mutants.len(), options.quiet);
    let on_done = |mutant: &Mutant, graded: &run::Graded| {
        let status = match graded {
            run::Graded::NotBuilt(_) => report::MutantStatus::NotBuilt,
            run::Graded::Error(_) => report::MutantStatus::Error,
            _ if !report::survives(&baseline, graded, options.sanitize) => report::MutantStatus::Killed,
            _ => match marks.mark(&mutant.id, &mutant.function) {
                Some((marks::MarkKind::Equivalent, _)) => report::MutantStatus::Equivalent,
                Some((marks::MarkKind::Unobservable, _)) => report::MutantStatus::Unobservable,
                None => report::MutantStatus::Survived,
            },
        };
        progress.done(mutant, status);
    };
    let with = run::GradedWith { tightened: &graded_with, own: assignment, limits: &audit_limits };
    let run::GradedMutants { graded, regraded } =
        run::grade_mutants(&with, &plan.submission, &plan.mutants, &options.grade, options.jobs, &on_done);
    progress.finish();
    let setting = report::Setting {
        fixture: options.fixture.display().to_string(),
        source: plan.source.clone(),
        seed: options.seed,
        jobs: options.jobs,
        only: options.grade.only.iter().map(|p| p.as_str().to_owned()).collect(),
        generated: plan.generated,
        audit_limits,
        regraded,
        seconds: started.elapsed().as_secs_f64(),
        sanitize: options.sanitize,
        marks: &marks,
        function_categories: plan.function_categories.clone(),
        left_out_by_case: plan.left_out_by_case,
        unreached: plan.unreached.iter().cloned().collect(),
    };
    Ok(report::build(assignment, setting, &baseline, plan.mutants, graded))
}

#[cfg(test)]
mod tests {
    use super::mutate::Change;
    use super::*;

    /// Mutants of functions and operators as given: `(function, operator, how many)`.
    fn mutants(spec: &[(&str, Operator, usize)]) -> Vec<Mutant> {
        let mut all = Vec::new();
        for &(function, operator, count) in spec {
            for i in 0..count {
                all.push(Mutant {
                    id: format!("{}-{:08x}", operator.short(), all.len()),
                    file: "main.c".to_owned(),
                    line: all.len() + 1,
                    column: 1,
                    function: function.to_owned(),
                    operator,
                    original: format!("{i}"),
                    replacement: format!("{}", i + 1),
                    diff: String::new(),
                    made_by: None,
                    change: Change::default(),
                });
            }
        }
        all
    }

    fn count<'m>(sample: &'m [Mutant], key: impl Fn(&'m Mutant) -> &'m str) -> BTreeMap<&'m str, usize> {
        let mut counts = BTreeMap::new();
        for m in sample {
            *counts.entry(key(m)).or_default() += 1;
        }
        counts
    }

    #[test]
    fn a_sample_takes_turns_over_functions_then_over_their_operators() {
        let all = mutants(&[
            ("big", Operator::Constant, 200),
            ("big", Operator::Relational, 20),
            ("small", Operator::Relational, 3),
            ("medium", Operator::Arithmetic, 10),
            ("medium", Operator::Logical, 10),
        ]);
        let sample = sample(all, 13, 7, &BTreeSet::new());
        assert_eq!(sample.len(), 13);
        // Three functions: `small` gives all 3 it has, the others 5 each.
        let by_function = count(&sample, |m| m.function.as_str());
        assert_eq!(by_function, BTreeMap::from([("big", 5), ("medium", 5), ("small", 3)]));
        // Within a function its operators alternate: big's 200 constants do not crowd out its relationals.
        let big: Vec<&Mutant> = sample.iter().filter(|m| m.function == "big").collect();
        let relational = big.iter().filter(|m| m.operator == Operator::Relational).count();
        assert!((2..=3).contains(&relational), "{relational} of 5");
        // In source order.
        assert!(sample.windows(2).all(|w| w[0].line < w[1].line));
    }

    #[test]
    fn the_same_seed_samples_the_same_mutants_and_another_seed_others() {
        let all = mutants(&[("f", Operator::Constant, 50), ("g", Operator::Relational, 50)]);
        let ids = |s: Vec<Mutant>| s.into_iter().map(|m| m.id).collect::<Vec<_>>();
        let none = BTreeSet::new();
        assert_eq!(ids(sample(all.clone(), 10, 1, &none)), ids(sample(all.clone(), 10, 1, &none)));
        assert_ne!(ids(sample(all.clone(), 10, 1, &none)), ids(sample(all, 10, 2, &none)));
    }

    #[test]
    fn a_sample_as_large_as_the_mutants_is_all_of_them() {
        let all = mutants(&[("f", Operator::Constant, 4)]);
        assert_eq!(sample(all.clone(), 4, 1, &BTreeSet::new()), all);
        assert_eq!(sample(all.clone(), 10, 1, &BTreeSet::new()), all);
    }

    #[test]
    fn functions_nothing_reaches_get_no_share_of_a_sample_until_the_others_run_out() {
        let all = mutants(&[("used", Operator::Constant, 6), ("dead", Operator::Relational, 6)]);
        let dead = BTreeSet::from(["dead".to_owned()]);
        let by_function = |s: Vec<Mutant>| {
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for m in s {
                *counts.entry(m.function).or_default() += 1;
            }
            counts.into_iter().collect::<Vec<_>>()
        };
        let used = |n: usize| ("used".to_owned(), n);
        let dead_ones = |n: usize| ("dead".to_owned(), n);
        assert_eq!(by_function(sample(all.clone(), 6, 1, &dead)), [used(6)]);
        assert_eq!(by_function(sample(all.clone(), 8, 1, &dead)), [dead_ones(2), used(6)]);
        // Without it, each takes its turn.
        assert_eq!(by_function(sample(all, 6, 1, &BTreeSet::new())), [dead_ones(3), used(3)]);
    }

    #[test]
    fn marking_a_function_unreached_hands_its_turns_to_the_others_and_keeps_their_picks() {
        let all = mutants(&[
            ("a", Operator::Constant, 30),
            ("b", Operator::Relational, 30),
            ("c", Operator::Logical, 30),
            ("dead", Operator::Arithmetic, 30),
        ]);
        let ids = |s: Vec<Mutant>| s.into_iter().map(|m| m.id).collect::<BTreeSet<_>>();
        let before = ids(sample(all.clone(), 20, 3, &BTreeSet::new()));
        let after = ids(sample(all.clone(), 20, 3, &BTreeSet::from(["dead".to_owned()])));
        let dead: BTreeSet<String> =
            all.iter().filter(|m| m.function == "dead").map(|m| m.id.clone()).collect();
        // Every mutant of the others sampled before is sampled still; dead's five turns went to them.
        assert!(before.difference(&dead).all(|id| after.contains(id)));
        assert!(after.is_disjoint(&dead));
        assert_eq!(after.len(), 20);
    }

    /// The categories of `functions` as the audit would find them: `graded` are placed.
    fn placed(functions: &[Function], graded: &[&str]) -> Vec<FunctionCategories> {
        functions
            .iter()
            .map(|f| FunctionCategories {
                function: f.name.clone(),
                categories: if graded.contains(&f.name.as_str()) { vec!["rules".to_owned()] } else { vec![] },
                how: String::new(),
            })
            .collect()
    }

    fn unreached_in(file: &str, source: &str, graded: &[&str], marks: &Marks) -> Vec<String> {
        let made = mutate::mutate_file(file, source.as_bytes());
        let categories = placed(&made.functions, graded);
        unreached_functions(&made.functions, &made.mentioned_outside, &categories, marks)
            .into_iter()
            .collect()
    }

    #[test]
    fn a_function_is_reached_from_main_from_a_graded_function_or_from_an_initial_value() {
        let source = "static int helper(int x) { return x + 1; }
            int graded(int x) { return helper(x); }
            static int by_pointer(const void *a, const void *b) { return 0; }
            static int in_table(void) { return 1; }
            static int (*table[])(void) = { in_table };
            static void sort(int *a) { qsort(a, 3, sizeof *a, by_pointer); }
            static void game(void) { int a[3]; sort(a); }
            static int only_from_dead(void) { return 2; }
            static int dead(void) { return only_from_dead(); }
            static void samples(void) { game(); }
            int main(void) { samples(); return 0; }
";
        assert_eq!(unreached_in("a.c", source, &["graded"], &Marks::default()), ["dead", "only_from_dead"]);
        // A function marked wholly equivalent in the README (`main()`: no case runs it) is no root,
        // and what only it reaches is unreached too.
        let marks = Marks {
            equivalent_functions: BTreeMap::from([("main".to_owned(), "no case runs main".to_owned())]),
            ..Marks::default()
        };
        assert_eq!(
            unreached_in("a.c", source, &["graded"], &marks),
            ["by_pointer", "dead", "game", "main", "only_from_dead", "samples", "sort"]
        );
    }

    #[test]
    fn java_constructors_overrides_and_field_initializers_are_reached() {
        let source = "class Ai implements Comparable<Ai> {
            private final int depth = start();
            static int start() { return 2; }
            Ai() { setUp(); }
            private void setUp() {}
            @Override public int compareTo(Ai other) { return 0; }
            @java.lang.Override public String toString() { return name(); }
            private String name() { return \"ai\"; }
            private int unused() { return 1; }
            public static void main(String[] args) { new Ai(); }
            }
";
        assert_eq!(unreached_in("Ai.java", source, &[], &Marks::default()), ["Ai.unused"]);
    }
}
