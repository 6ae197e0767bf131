//! The Slurm example (`examples/slurm/`) as a cluster would run it: each script under bash with
//! `set -u` (the scripts set `-euo pipefail`), `sbatch` and the grader replaced by stubs that record
//! how they were called, so that what each script asks of them is checked without a cluster.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn slurm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/slurm")
}

/// A stub program at `dir/name` that appends its arguments, one per line and then `--`, to `dir/calls`
/// and prints `say`.
fn stub(dir: &Path, name: &str, say: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/bash\nfor arg in \"$@\"; do printf '%s\\n' \"$arg\"; done >> '{calls}'\necho -- >> '{calls}'\n{say}\n",
        calls = dir.join("calls").display()
    );
    fs::write(&path, script).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The calls the stubs recorded, each as its arguments.
fn calls(dir: &Path) -> Vec<Vec<String>> {
    let text = fs::read_to_string(dir.join("calls")).unwrap_or_default();
    let mut calls = vec![Vec::new()];
    for line in text.lines() {
        if line == "--" {
            calls.push(Vec::new());
        } else {
            calls.last_mut().unwrap().push(line.to_owned());
        }
    }
    calls.pop();
    calls
}

/// Runs `bash -u SCRIPT ARGS` with a cleared environment but PATH (the stubs first) and `env`.
fn run(script: &str, args: &[&str], stubs: &Path, env: &[(&str, &str)]) -> Output {
    let path = format!("{}:{}", stubs.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("bash")
        .arg("-u")
        .arg(slurm_dir().join(script))
        .args(args)
        .env_clear()
        .env("PATH", path)
        .envs(env.iter().copied())
        .current_dir(stubs)
        .output()
        .expect("bash runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_merge_passes_hand_grades_only_when_grades_csv_is_set() {
    let stubs = tempfile::tempdir().unwrap();
    let grader = stub(stubs.path(), "grader", "");
    let grader = grader.to_str().unwrap();
    for grades in [None, Some(""), Some("/course/grades.csv")] {
        fs::remove_file(stubs.path().join("calls")).ok();
        let mut env = vec![("GRADER", grader)];
        if let Some(grades) = grades {
            env.push(("GRADES_CSV", grades));
        }
        let out = run("merge.sbatch", &["trouble", "/scratch/out"], stubs.path(), &env);
        assert!(out.status.success(), "GRADES_CSV={grades:?}: {}", text(&out.stderr));
        let mut expected =
            vec!["merge", "/scratch/out/part-*", "--assignment", "trouble", "--out", "/scratch/out/class"];
        if let Some(grades @ "/course/grades.csv") = grades {
            expected.extend(["--manual", grades]);
        }
        assert_eq!(calls(stubs.path()), [expected], "GRADES_CSV={grades:?}");
    }
}

#[test]
fn an_array_task_grades_its_share_and_a_task_outside_an_array_is_refused() {
    let stubs = tempfile::tempdir().unwrap();
    let grader = stub(stubs.path(), "grader", "");
    let grader = grader.to_str().unwrap();
    let array = [
        ("GRADER", grader),
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
        ("SLURM_CPUS_PER_TASK", "4"),
    ];
    let out = run("grade-class.sbatch", &["/class", "checkers", "/scratch/out"], stubs.path(), &array);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = [
        "batch",
        "/class",
        "--assignment",
        "checkers",
        "--partition",
        "hash:2/3",
        "--jobs",
        "4",
        "--out",
        "/scratch/out/part-2",
    ];
    assert_eq!(calls(stubs.path()), [expected]);

    // Run as a plain job: a message naming the fix, not "unbound variable", and no grading.
    fs::remove_file(stubs.path().join("calls")).unwrap();
    let plain = run("grade-class.sbatch", &["/class", "checkers", "/scratch/out"], stubs.path(), &array[..1]);
    assert!(!plain.status.success());
    assert!(
        text(&plain.stderr).contains("run as a job array: sbatch --array=1-N"),
        "{}",
        text(&plain.stderr)
    );
    assert!(calls(stubs.path()).is_empty());
}

#[test]
fn submit_queues_the_array_and_a_merge_that_waits_for_it() {
    let stubs = tempfile::tempdir().unwrap();
    stub(stubs.path(), "sbatch", "echo 4242");
    let class = stubs.path().join("class");
    fs::create_dir(&class).unwrap();
    let out_dir = stubs.path().join("out");
    let (class_arg, out_arg) = (class.to_str().unwrap(), out_dir.to_str().unwrap());
    let out = run("submit.sh", &[class_arg, "trouble", out_arg, "3"], stubs.path(), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("array job 4242 (3 shares), merge job 4242"), "{}", text(&out.stdout));
    let slurm = slurm_dir().canonicalize().unwrap();
    let chdir = format!("--chdir={out_arg}");
    let common = ["--parsable", "--export=ALL", chdir.as_str()];
    let sbatch = |script: &str| slurm.join(script).to_string_lossy().into_owned();
    let mut array: Vec<String> = common.iter().map(|s| s.to_string()).collect();
    array.extend([
        "--array=1-3".into(),
        sbatch("grade-class.sbatch"),
        class_arg.into(),
        "trouble".into(),
        out_arg.into(),
    ]);
    let mut merge: Vec<String> = common.iter().map(|s| s.to_string()).collect();
    merge.extend([
        "--dependency=afterok:4242".into(),
        sbatch("merge.sbatch"),
        "trouble".into(),
        out_arg.into(),
    ]);
    assert_eq!(calls(stubs.path()), [array, merge]);
    assert!(out_dir.is_dir(), "the output folder is made for the jobs' logs");
}

/// Arrays a script makes empty (`name=()`), each expanded only as `${name[@]+"${name[@]}"}`: bash
/// before 4.4 (CentOS 7's 4.2, still on clusters) stops with "unbound variable" at `"${name[@]}"` of
/// an empty array under `set -u`, which every script here sets. (No such bash is at hand to run them
/// under, so this reads them.)
#[test]
fn no_script_expands_an_array_that_may_be_empty_as_old_bash_refuses() {
    let empty = regex::Regex::new(r"(?m)\b([A-Za-z_][A-Za-z0-9_]*)=\(\)").unwrap();
    let mut scripts: Vec<(PathBuf, String)> = fs::read_dir(slurm_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    let bundle = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pack");
    for name in ["run_autograder.sh", "setup.sh"] {
        let path = bundle.join(name);
        scripts.push((path.clone(), fs::read_to_string(&path).unwrap()));
    }
    let mut checked = 0;
    for (path, script) in &scripts {
        assert!(
            script.starts_with("#!/bin/bash") || script.starts_with("#!/usr/bin/env bash"),
            "{}",
            path.display()
        );
        for name in empty.captures_iter(script).map(|c| c[1].to_owned()) {
            let bare = format!("\"${{{name}[@]}}\"");
            let guarded = format!("${{{name}[@]+\"${{{name}[@]}}\"}}");
            let unguarded = script.matches(&bare).count() - script.matches(&guarded).count();
            assert_eq!(
                unguarded,
                0,
                "{}: {bare} of an array that may be empty; write {guarded}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 3, "the scripts' empty arrays were found ({checked})");
}
