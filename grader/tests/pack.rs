//! Publishing: a student pack holds the visible cases and nothing of the hidden ones, and self-checks
//! as the full cases do; a Gradescope bundle, unpacked in a folder laid out like /autograder, grades
//! for real through its own scripts and always leaves a valid results.json.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use common::{cache, repo};
use grader::grade::{grade, GradeOptions};
use grader::load::{assignment_ids, load_assignment, Assignment, Visibility};
use grader::pack::{self, BundleOptions, PackError, ReadmeFate};
use grader::report::HiddenVisibility;

fn cases_root() -> PathBuf {
    repo().join("cases")
}

/// Every file under a folder, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

fn ids_with(assignment: &Assignment, visibility: Visibility) -> BTreeSet<String> {
    assignment.cases.iter().filter(|c| c.visibility == visibility).map(|c| c.id.clone()).collect()
}

/// The longest line of a hidden case's expected output that no visible case's expected output has
/// (interactive cases have none: the referee plays them).
fn distinctive_line(assignment: &Assignment, hidden_stdout: &Path) -> Option<String> {
    let visible_lines: BTreeSet<String> = assignment
        .cases
        .iter()
        .filter(|c| c.visibility == Visibility::Visible)
        .flat_map(|c| {
            fs::read_to_string(c.stdout_path())
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let text = fs::read_to_string(hidden_stdout).ok()?;
    text.lines().filter(|l| !visible_lines.contains(*l)).max_by_key(|l| l.trim().len()).map(str::to_owned)
}

#[test]
fn every_pack_has_exactly_the_visible_cases_and_nothing_of_the_hidden_ones() {
    for id in assignment_ids(&cases_root()).unwrap() {
        let source = load_assignment(&cases_root(), &id).unwrap();
        let out = tempfile::tempdir().unwrap();
        let written = pack::write_student_pack(&cases_root(), &id, out.path(), false).unwrap();
        let packed = load_assignment(&out.path().join("cases"), &id).unwrap();

        assert_eq!(ids_with(&packed, Visibility::Visible), ids_with(&source, Visibility::Visible), "{id}");
        let hidden = ids_with(&source, Visibility::Hidden);
        assert!(!hidden.is_empty(), "{id} has hidden cases to withhold");
        let placeholders = ids_with(&packed, Visibility::Hidden);
        assert_eq!(placeholders.len(), hidden.len(), "{id}: one placeholder per hidden case");
        assert!(placeholders.iter().all(|p| p.starts_with("withheld/")), "{placeholders:?}");
        assert_eq!(written.visible_cases + written.withheld_cases, source.cases.len());
        assert!(matches!(written.readme, ReadmeFate::Filtered(ref s) if s == &["What each defect costs"]));

        // No file of a hidden case, under its own name or any other.
        for file in files_under(&source.dir) {
            let rel = file.strip_prefix(&source.dir).unwrap().to_string_lossy().into_owned();
            let of_hidden =
                hidden.iter().any(|h| rel.strip_prefix(h.as_str()).is_some_and(|r| r.starts_with('.')));
            assert_eq!(packed.dir.join(&rel).exists(), !of_hidden || rel == "README.md", "{id}: {rel}");
        }
        let pack_files: Vec<(PathBuf, String)> = files_under(out.path())
            .into_iter()
            .map(|f| {
                let text = String::from_utf8_lossy(&fs::read(&f).unwrap()).into_owned();
                (f, text)
            })
            .collect();
        let mut lines_searched = 0;
        for case in source.cases.iter().filter(|c| c.visibility == Visibility::Hidden) {
            let mut needles = vec![case.id.clone()];
            if let Some(line) = distinctive_line(&source, &case.stdout_path()) {
                needles.push(line);
                lines_searched += 1;
            }
            for needle in &needles {
                for (file, text) in &pack_files {
                    assert!(
                        !text.contains(needle.as_str()),
                        "{} holds {needle:?} of {}",
                        file.display(),
                        case.id
                    );
                }
            }
        }
        // An interactive case has no transcript to search for: its id is searched, and its scenario
        // lives only in its own .toml.
        let with_transcripts = source
            .cases
            .iter()
            .filter(|c| c.visibility == Visibility::Hidden && c.kind != grader::load::CaseKind::Interactive)
            .count();
        assert!(lines_searched * 2 >= with_transcripts, "{id}: most hidden cases have a line of their own");

        let readme = fs::read_to_string(out.path().join("README.md")).unwrap();
        assert!(readme.contains(&format!("grader check -a {id} ")) && readme.contains("--cases"), "{readme}");
        assert!(readme.contains("GRADER_CASES"));
        // Students install the grader alone: a repository of it would hold the hidden cases.
        assert!(!readme.contains("cargo install") && !readme.contains("repository"), "{readme}");
        let own_readme = fs::read_to_string(packed.dir.join("README.md")).unwrap();
        assert!(!own_readme.contains("defect-costs") && !own_readme.contains("bug-"), "{own_readme}");
    }
}

#[test]
fn a_self_check_on_the_pack_passes_the_correct_fixtures_and_counts_as_one_on_every_case() {
    let out = tempfile::tempdir().unwrap();
    for id in ["trouble", "backgammon", "checkers", "turkish-draughts"] {
        pack::write_student_pack(&cases_root(), id, out.path(), true).unwrap();
        let packed = load_assignment(&out.path().join("cases"), id).unwrap();
        let options = GradeOptions { visible_only: true, ..GradeOptions::new(cache()) };
        let submission = repo().join("fixtures").join(id).join("correct");
        let on_pack = grade(&packed, &submission, &options).unwrap();
        assert!(on_pack.all_passed(), "{id}: {}", common::plain_text(&on_pack));

        // The placeholders keep every visible case at its worth in the real grading, and the
        // self-check still says what it leaves out.
        let on_everything = grade(common::assignment(id), &submission, &options).unwrap();
        assert_eq!(on_pack.score, on_everything.score, "{id}");
        assert_eq!(on_pack.max_score, on_everything.max_score, "{id}");
        assert_eq!(on_pack.hidden, on_everything.hidden, "{id}");
        assert!(on_pack.hidden.as_ref().is_some_and(|h| h.cases > 0));
        let worth = |r: &grader::report::Report| -> Vec<(String, f64)> {
            r.cases.iter().map(|c| (c.id.clone(), c.max_score)).collect()
        };
        assert_eq!(worth(&on_pack), worth(&on_everything), "{id}");
    }
    let readme = fs::read_to_string(out.path().join("README.md")).unwrap();
    assert!(
        readme.contains("-a trouble ") && readme.contains("-a checkers "),
        "one README for every pack in DIR"
    );
}

/// Runs the grader binary.
fn grader(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("the grader runs")
}

#[test]
fn a_folder_that_is_not_empty_is_refused_unless_forced_and_forcing_replaces_the_old_pack() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    fs::write(out.path().join("notes.txt"), "the instructor's").unwrap();
    let refused = grader(&["pack", "-a", "trouble", "-o", dir]);
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("not empty") && message.contains("--force"), "{message}");

    // A case hidden since the last pack must not survive in the folder.
    let stale = out.path().join("cases/trouble/checkWin/prints-nothing.stdout");
    fs::create_dir_all(stale.parent().unwrap()).unwrap();
    fs::write(&stale, "from an older pack").unwrap();
    let forced = grader(&["pack", "-a", "trouble", "-o", dir, "--force"]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    assert!(!stale.exists());
    assert!(out.path().join("notes.txt").exists(), "what is not the pack's is kept");
    assert!(out.path().join("cases/trouble/assignment.toml").exists());
    let leftovers: Vec<_> = fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "no staging folder left: {leftovers:?}");

    let inside = grader(&["pack", "-a", "trouble", "-o", "cases/trouble/pack"]);
    assert_eq!(inside.status.code(), Some(2), "{}", String::from_utf8_lossy(&inside.stderr));
    assert!(!repo().join("cases/trouble/pack").exists());
}

/// A copy of the repository's Trouble folder (and `cases/common`) to spoil.
fn trouble_copy() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for dir in ["trouble", "common"] {
        for file in files_under(&cases_root().join(dir)) {
            let target = root.path().join(dir).join(file.strip_prefix(cases_root().join(dir)).unwrap());
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::copy(&file, target).unwrap();
        }
    }
    root
}

#[test]
fn a_readme_naming_a_hidden_case_is_left_out_and_a_driver_quoting_one_is_refused() {
    let root = trouble_copy();
    let readme = root.path().join("trouble/README.md");
    let mut text = fs::read_to_string(&readme).unwrap();
    text.push_str("\n## Notes\n\n`checkWin/prints-nothing` is the case students fail most.\n");
    fs::write(&readme, text).unwrap();
    let out = tempfile::tempdir().unwrap();
    let written = pack::write_student_pack(root.path(), "trouble", out.path(), false).unwrap();
    assert!(
        matches!(&written.readme, ReadmeFate::Dropped(why) if why.contains("checkWin/prints-nothing")),
        "{:?}",
        written.readme
    );
    assert!(!out.path().join("cases/trouble/README.md").exists());

    // A hidden transcript's line pasted into a file students get: refused, nothing written.
    let assignment = load_assignment(root.path(), "trouble").unwrap();
    let hidden = assignment.cases.iter().find(|c| c.id == "playerTurn/four-players-to-a-win").unwrap();
    let line = distinctive_line(&assignment, &hidden.stdout_path()).unwrap();
    let driver = root.path().join("trouble/driver.c");
    let mut source = fs::read_to_string(&driver).unwrap();
    source.push_str(&format!("/* expected: {line} */\n"));
    fs::write(&driver, source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let refused = pack::write_student_pack(root.path(), "trouble", out.path(), false).unwrap_err();
    assert!(
        matches!(&refused, PackError::Leak { path, .. } if path.ends_with("trouble/driver.c")),
        "{refused}"
    );
    assert!(refused.to_string().contains("playerTurn/four-players-to-a-win"), "{refused}");
    assert_eq!(fs::read_dir(out.path()).unwrap().count(), 0, "a leaking pack is not left behind");
}

/// The Trouble bundle, written once per test binary with the grader built beside this test.
fn bundle() -> &'static Path {
    static BUNDLE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = BUNDLE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("autograder.zip");
        let options = BundleOptions {
            grader_binary: PathBuf::from(env!("CARGO_BIN_EXE_grader")),
            require_containment: None,
            hidden_visibility: HiddenVisibility::AfterPublished,
        };
        let written = pack::write_gradescope_bundle(&cases_root(), "trouble", &path, &options).unwrap();
        assert_eq!(written.bytes, fs::metadata(&path).unwrap().len());
        assert_eq!(written.packages, ["gcc", "libc6-dev"], "no JDK for a C assignment");
        (dir, path)
    });
    path
}

#[test]
fn the_bundle_has_executable_scripts_every_case_and_no_path_that_climbs() {
    let mut zip = zip::ZipArchive::new(fs::File::open(bundle()).unwrap()).unwrap();
    let mut names = BTreeSet::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).unwrap();
        let name = entry.name().to_owned();
        assert!(
            !name.starts_with('/') && !name.split('/').any(|part| part == ".." || part.is_empty()),
            "{name}"
        );
        assert!(entry.enclosed_name().is_some(), "{name}");
        let mode = entry.unix_mode().unwrap() & 0o777;
        let executable = ["setup.sh", "run_autograder", "grader"].contains(&name.as_str());
        assert_eq!(mode, if executable { 0o755 } else { 0o644 }, "{name}");
        names.insert(name);
    }
    for expected in ["setup.sh", "run_autograder", "grader", "README.md", "cases/trouble/assignment.toml"] {
        assert!(names.contains(expected), "{expected} in {names:?}");
    }
    // Every file of the assignment, hidden cases included, and the shared driver loop.
    for file in files_under(&cases_root().join("trouble"))
        .into_iter()
        .chain(files_under(&cases_root().join("common")))
    {
        let rel = file.strip_prefix(cases_root()).unwrap().to_string_lossy().into_owned();
        assert!(names.contains(&format!("cases/{rel}")), "{rel}");
    }
}

/// A folder laid out like /autograder with the bundle unpacked in `source/` and set up (without
/// apt-get), the grader installed in `bin/`.
struct Autograder {
    root: tempfile::TempDir,
}

impl Autograder {
    fn new() -> Autograder {
        Autograder::with(bundle())
    }

    fn with(bundle: &Path) -> Autograder {
        let root = tempfile::tempdir().unwrap();
        // As /autograder is: open to every user, as its parents are.
        fs::set_permissions(root.path(), fs::Permissions::from_mode(0o755)).unwrap();
        for dir in ["source", "submission", "results", "tmp"] {
            fs::create_dir(root.path().join(dir)).unwrap();
        }
        // The scripts' temp folder (TMPDIR), as /tmp is, so that what they leave there shows.
        fs::set_permissions(root.path().join("tmp"), fs::Permissions::from_mode(0o1777)).unwrap();
        zip::ZipArchive::new(fs::File::open(bundle).unwrap())
            .unwrap()
            .extract(root.path().join("source"))
            .unwrap();
        let setup = Command::new(root.path().join("source/setup.sh"))
            .current_dir(root.path())
            .env("AUTOGRADER_ROOT", root.path())
            .env("GRADER_SKIP_APT", "1")
            .env("GRADER_BIN_DIR", root.path().join("bin"))
            .output()
            .unwrap();
        assert!(setup.status.success(), "{}", String::from_utf8_lossy(&setup.stderr));
        Autograder { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// Runs `run_autograder` with the grader at `grader`, builds cached for the whole test binary,
    /// and returns results.json, parsed.
    fn run(&self, grader: &Path) -> serde_json::Value {
        static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
        self.run_with_cache(grader, Some(CACHE.get_or_init(|| tempfile::tempdir().unwrap()).path()))
    }

    /// Runs `run_autograder` with the grader at `grader`, with `GRADER_CACHE_DIR` set to `cache` or
    /// unset, and returns results.json, parsed. Whatever the run, it leaves nothing in its TMPDIR.
    fn run_with_cache(&self, grader: &Path, cache: Option<&Path>) -> serde_json::Value {
        let mut command = Command::new(self.path("source/run_autograder"));
        command
            .current_dir(self.root.path())
            .env("AUTOGRADER_ROOT", self.root.path())
            .env("GRADER_BIN", grader)
            .env("TMPDIR", self.path("tmp"))
            .env_remove("GRADER_CACHE_DIR");
        if let Some(cache) = cache {
            command.env("GRADER_CACHE_DIR", cache);
        }
        let run = command.output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let left: Vec<PathBuf> = fs::read_dir(self.path("tmp")).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(left.is_empty(), "run_autograder left {left:?} in its TMPDIR");
        let text =
            fs::read_to_string(self.path("results/results.json")).expect("results.json is always written");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("results.json is JSON ({e}):\n{text}"))
    }

    fn submit(&self, files: &Path, into: &str) {
        let submission = self.path("submission");
        fs::remove_dir_all(&submission).unwrap();
        fs::create_dir_all(submission.join(into)).unwrap();
        for file in files_under(files) {
            fs::copy(&file, submission.join(into).join(file.file_name().unwrap())).unwrap();
        }
    }
}

fn full_marks(results: &serde_json::Value) {
    let tests = results["tests"].as_array().unwrap();
    assert!(tests.len() >= 50, "a test per case: {results:#}");
    let max: i64 = tests.iter().map(|t| (t["max_score"].as_f64().unwrap() * 100.0).round() as i64).sum();
    assert_eq!(max, 8000, "the tests are worth the 80 automated points exactly");
    assert_eq!(results["score"].as_f64(), Some(80.0), "{results:#}");
    assert!(tests.iter().all(|t| t["status"] == "passed"));
    // The bundle was written with `--hidden-visibility after_published`.
    for test in tests {
        let hidden = test["name"].as_str().unwrap().contains("/hidden-");
        assert_eq!(test["visibility"], if hidden { "after_published" } else { "visible" }, "{test}");
    }
}

fn no_points(results: &serde_json::Value, why: &str) {
    assert_eq!(results["score"].as_f64(), Some(0.0), "{results:#}");
    assert_eq!(results["tests"].as_array().map(Vec::len), Some(0));
    let output = results["output"].as_str().unwrap();
    assert!(output.contains("could not grade") && output.contains(why), "{output}");
}

#[test]
fn run_autograder_grades_a_correct_submission_for_full_marks_and_an_empty_one_for_zero_with_the_reason() {
    let autograder = Autograder::new();
    let installed = autograder.path("bin/grader");
    assert!(installed.is_file());
    // The cases are root's alone; the files the compilers read inside the sandbox are not.
    let mode = |rel: &str| fs::metadata(autograder.path(rel)).unwrap().permissions().mode() & 0o777;
    // Folders may be entered, not listed or written; the expected outputs are root's alone.
    assert_eq!(mode("source/cases") & 0o077, 0o011);
    assert_eq!(mode("source/cases/trouble/checkWin/prints-nothing.stdout") & 0o077, 0);
    assert_eq!(mode("source/cases/trouble/driver.c") & 0o044, 0o044);
    assert_eq!(mode("source/cases/common") & 0o055, 0o055);

    autograder.submit(&repo().join("fixtures/trouble/correct"), "");
    full_marks(&autograder.run(&installed));

    // Uploaded as a folder (a zip of it): graded from inside it.
    autograder.submit(&repo().join("fixtures/trouble/correct"), "my-trouble");
    full_marks(&autograder.run(&installed));

    // A folder in a folder, beside the __MACOSX/ folder that macOS adds to a zip: graded from inside.
    autograder.submit(&repo().join("fixtures/trouble/correct"), "handin/trouble/src");
    fs::create_dir_all(autograder.path("submission/__MACOSX/handin")).unwrap();
    full_marks(&autograder.run(&installed));

    // No source at all: the grader's own results.json, no points and why, in a student's words.
    let empty = tempfile::tempdir().unwrap();
    fs::write(empty.path().join("notes.txt"), "forgot the code").unwrap();
    autograder.submit(empty.path(), "");
    let results = autograder.run(&installed);
    no_points(&results, "the submission holds no file matching *.c or *.h: upload the source files");
    // Two folders of sources: which one is the submission is the student's to say.
    autograder.submit(&repo().join("fixtures/trouble/correct"), "one");
    let two = autograder.path("submission/two");
    fs::create_dir(&two).unwrap();
    for file in files_under(&repo().join("fixtures/trouble/correct")) {
        fs::copy(&file, two.join(file.file_name().unwrap())).unwrap();
    }
    let results = autograder.run(&installed);
    no_points(&results, "upload the source files themselves, or one folder");
    let output = results["output"].as_str().unwrap();
    assert!(
        !output.contains("grader batch") && !output.contains("is it the submission's folder"),
        "{output}"
    );
}

#[test]
fn a_bundle_goes_into_a_folder_that_does_not_exist_yet_and_a_visibility_gradescope_lacks_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let zip = out.path().join("gs/trouble.zip");
    let written = grader(&["gradescope-bundle", "-a", "trouble", "-o", zip.to_str().unwrap()]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    assert!(zip.is_file());
    let leftovers: Vec<_> =
        fs::read_dir(out.path().join("gs")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, ["trouble.zip"], "no temporary file left beside it");

    let other = out.path().join("other.zip");
    let refused = grader(&[
        "gradescope-bundle",
        "-a",
        "trouble",
        "-o",
        other.to_str().unwrap(),
        "--hidden-visibility",
        "later",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("visible, hidden, after_due_date, after_published"), "{message}");
    assert!(!other.exists());
    let not_gradescope = grader(&[
        "grade",
        "fixtures/trouble/correct",
        "-a",
        "trouble",
        "--format",
        "json",
        "--hidden-visibility",
        "hidden",
    ]);
    assert_eq!(not_gradescope.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&not_gradescope.stderr).contains("is for --format gradescope"));
}

#[test]
fn run_autograder_writes_results_itself_when_the_grader_is_missing_or_killed() {
    let autograder = Autograder::new();
    autograder.submit(&repo().join("fixtures/trouble/correct"), "");
    no_points(&autograder.run(&autograder.path("bin/no-grader-here")), "not installed");

    // A grader killed before it writes anything (out of memory, say), after printing junk.
    let killed = autograder.path("bin/killed-grader");
    fs::write(&killed, "#!/bin/sh\nprintf 'half a line \\\"quoted\\\" \\001\\n' >&2\nkill -9 $$\n").unwrap();
    fs::set_permissions(&killed, fs::Permissions::from_mode(0o755)).unwrap();
    no_points(&autograder.run(&killed), "killed by signal 9");

    // One that writes half a file and dies.
    let cut = autograder.path("bin/cut-grader");
    let script = "#!/bin/sh\n\
                  while [ $# -gt 0 ]; do [ \"$1\" = --output ] && printf '{\"score\": 8' > \"$2\"; shift; done\n\
                  exit 3\n";
    fs::write(&cut, script).unwrap();
    fs::set_permissions(&cut, fs::Permissions::from_mode(0o755)).unwrap();
    no_points(&autograder.run(&cut), "status 3");
}

#[test]
fn run_autograder_grades_at_rlimits_only_in_a_cache_of_its_own_that_programs_enter_but_cannot_list() {
    let autograder = Autograder::new();
    autograder.submit(&repo().join("fixtures/trouble/correct"), "");
    // The installed grader kept from namespaces, as in a container that forbids them; it notes the
    // mode and owner of the cache it is given, and of the folder that holds it.
    let rlimits_only = autograder.path("bin/rlimits-only-grader");
    let script = format!(
        "#!/bin/sh\n\
         [ \"$1\" = doctor ] || stat -c '%a %u' \"$GRADER_CACHE_DIR\" \"$(dirname \"$GRADER_CACHE_DIR\")\" >{modes}\n\
         exec {grader} --containment rlimits-only \"$@\"\n",
        modes = autograder.path("cache-modes").display(),
        grader = autograder.path("bin/grader").display(),
    );
    fs::write(&rlimits_only, script).unwrap();
    fs::set_permissions(&rlimits_only, fs::Permissions::from_mode(0o755)).unwrap();

    full_marks(&autograder.run_with_cache(&rlimits_only, None));

    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let modes = fs::read_to_string(autograder.path("cache-modes")).unwrap();
    assert_eq!(modes, format!("711 {me}\n711 {me}\n"), "the run's cache, then $AUTOGRADER_ROOT/cache");
    let caches = autograder.path("cache");
    assert_eq!(fs::metadata(&caches).unwrap().permissions().mode() & 0o7777, 0o711);
    assert_eq!(fs::read_dir(&caches).unwrap().count(), 0, "the run's cache is removed at its end");
    if me == 0 {
        let listing = Command::new("/bin/ls").arg(&caches).uid(65534).output().unwrap();
        assert!(!listing.status.success(), "nobody lists the caches: {listing:?}");
    }
}

#[test]
fn without_namespaces_a_root_autograders_programs_cannot_read_the_cases_but_compilers_reach_the_recipes() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only a root grader runs programs as nobody");
        return;
    }
    let autograder = Autograder::new();
    let hidden = common::assignment("trouble")
        .cases
        .iter()
        .find(|c| c.visibility == Visibility::Hidden)
        .map(|c| c.id.clone())
        .unwrap();
    let cat = |rel: String| {
        let argv = [std::ffi::OsString::from("/bin/cat"), autograder.path(&rel).into_os_string()];
        let request = grader::run::RunRequest {
            argv: &argv,
            env: &Default::default(),
            stdin: b"",
            limits: &grader::run::Limits::default(),
            mounts: &[],
            containment: grader::run::Containment::RlimitsOnly,
            keep: None,
        };
        grader::run::run(&request).unwrap()
    };
    let answer = cat(format!("source/cases/trouble/{hidden}.stdout"));
    assert_eq!(answer.termination, grader::run::Termination::Exited(1));
    assert!(
        answer.stdout.is_empty() && String::from_utf8_lossy(&answer.stderr).contains("Permission denied")
    );
    let listing = std::process::Command::new("/bin/ls")
        .arg(autograder.path("source/cases/trouble"))
        .uid(65534)
        .output()
        .unwrap();
    assert!(
        !listing.status.success(),
        "nobody lists the cases: {}",
        String::from_utf8_lossy(&listing.stdout)
    );
    let driver = cat("source/cases/trouble/driver.c".to_owned());
    assert_eq!(driver.termination, grader::run::Termination::Exited(0));
    assert!(!driver.stdout.is_empty());
}

#[test]
fn at_rlimits_only_in_gradescopes_layout_no_hostile_program_shows_a_student_a_hidden_answer_or_input() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: only a root grader keeps programs from the cases without namespaces");
        return;
    }
    let autograder = Autograder::new();
    let rlimits_only = autograder.path("bin/rlimits-only-grader");
    let script = format!(
        "#!/bin/sh\nexec {} --containment rlimits-only \"$@\"\n",
        autograder.path("bin/grader").display()
    );
    fs::write(&rlimits_only, script).unwrap();
    fs::set_permissions(&rlimits_only, fs::Permissions::from_mode(0o755)).unwrap();
    let assignment = common::assignment("trouble");
    let hidden: Vec<_> = assignment.cases.iter().filter(|c| c.visibility == Visibility::Hidden).collect();
    let answers: Vec<String> = hidden
        .iter()
        .filter_map(|c| {
            distinctive_line(assignment, &autograder.path(&format!("source/cases/trouble/{}.stdout", c.id)))
        })
        .filter(|line| line.trim().len() >= 12)
        .collect();
    assert!(answers.len() >= 5, "distinctive hidden lines: {answers:?}");
    let inputs = common::hidden_input_names(assignment);
    // On Gradescope the bundle holds the only copy of the cases; on this machine this checkout's and
    // other tests' copies are readable by all, and `reads-answers` searches from /. The bundle's hidden
    // answers begin with a line of their own: a hidden case passes only where they were read.
    let marker = "an answer of this bundle alone";
    for case in &hidden {
        let path = autograder.path(&format!("source/cases/trouble/{}.stdout", case.id));
        let answer = fs::read(&path).unwrap();
        fs::write(&path, [format!("{marker}\n").into_bytes(), answer].concat()).unwrap();
    }

    for name in ["reads-answers", "includes-answers", "saves-input"] {
        let submission = tempfile::tempdir().unwrap();
        for file in files_under(&repo().join("fixtures/hostile").join(name)) {
            // Gradescope's /autograder is this test's folder.
            let text = fs::read_to_string(&file).unwrap();
            let text = text.replace("/autograder/", &format!("{}/", autograder.root.path().display()));
            fs::write(submission.path().join(file.file_name().unwrap()), text).unwrap();
        }
        autograder.submit(submission.path(), "");
        let results = autograder.run(&rlimits_only);
        let shown = results.to_string();
        // Another copy's answer, printed, lacks the marker: at most partial credit for one hunk.
        let hidden_passed: Vec<&serde_json::Value> = results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["name"].as_str().is_some_and(|n| n.contains("/hidden-")) && t["status"] == "passed")
            .collect();
        assert!(hidden_passed.is_empty(), "{name} passed hidden cases: {hidden_passed:#?}");
        assert!(!shown.contains(marker), "{name} showed a hidden answer");
        if name != "reads-answers" {
            // The copies elsewhere give `reads-answers` answers; the others earn nothing.
            assert_eq!(results["score"].as_f64(), Some(0.0), "{name}: {results:#}");
        }
        for answer in &answers {
            assert!(!shown.contains(answer.as_str()), "{name} showed the hidden answer line {answer:?}");
        }
        for input in &inputs {
            assert!(!shown.contains(input.as_str()), "{name} showed a hidden case's input ({input})");
        }
        if name == "includes-answers" {
            assert!(shown.contains("Permission denied"), "the compiler could open the answer: {results:#}");
        }
    }
}

/// A problem package, named by its folder's path, in a Gradescope bundle: packed under its id, the
/// languages' compilers installed, a Python submission graded on every case as a single file.
#[test]
fn a_problem_package_grades_on_gradescope_in_any_language() {
    let out = tempfile::tempdir().unwrap();
    let zip = out.path().join("wordcount.zip");
    let options = BundleOptions {
        grader_binary: PathBuf::from(env!("CARGO_BIN_EXE_grader")),
        require_containment: None,
        hidden_visibility: HiddenVisibility::Visible,
    };
    let package = repo().join("examples/packages/wordcount");
    let written =
        pack::write_gradescope_bundle(&cases_root(), package.to_str().unwrap(), &zip, &options).unwrap();
    for needed in ["gcc", "g++", "default-jdk-headless", "python3", "nodejs"] {
        assert!(written.packages.contains(&needed), "{:?}", written.packages);
    }
    let autograder = Autograder::with(&zip);
    assert!(autograder.path("source/cases/wordcount/problem.yaml").is_file());
    let solution = tempfile::tempdir().unwrap();
    fs::copy(package.join("submissions/accepted/count.py"), solution.path().join("count.py")).unwrap();
    autograder.submit(solution.path(), "");
    let results = autograder.run(&autograder.path("bin/grader"));
    assert_eq!(results["score"].as_f64(), Some(100.0), "{results:#}");
    assert_eq!(results["tests"].as_array().map(Vec::len), Some(7), "{results:#}");
    fs::copy(package.join("submissions/wrong_answer/case_blind.py"), solution.path().join("count.py"))
        .unwrap();
    autograder.submit(solution.path(), "");
    let results = autograder.run(&autograder.path("bin/grader"));
    assert_eq!(results["score"].as_f64(), Some(57.14), "{results:#}");
}
