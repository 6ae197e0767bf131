//! The guides in `docs/` run as written, so that none drifts from the program: each guide's shell
//! blocks (```` ```sh ````) run in order in a fresh folder, with this build's grader on PATH and the
//! repository's `cases/`, `examples/` and `fixtures/` linked in; every `$ grader ...` line of its
//! ```` ```console ```` blocks (commands that serve or wait: `grader review`, a cluster's job) parses
//! as the grader's command line. Each guide's module says what its commands must show.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;

#[path = "guides/contributors.rs"]
mod contributors;
#[path = "guides/course_authors.rs"]
mod course_authors;
#[path = "guides/instructors.rs"]
mod instructors;
#[path = "guides/operators.rs"]
mod operators;
#[path = "guides/students.rs"]
mod students;
#[path = "guides/tas.rs"]
mod tas;

/// What a guide's shell blocks did.
pub struct Ran {
    /// The folder they ran in (kept until this is dropped).
    pub dir: tempfile::TempDir,
    /// Their standard output, all blocks together.
    pub stdout: String,
    /// Their standard error.
    pub stderr: String,
}

impl Ran {
    /// A path in the folder the blocks ran in.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
}

/// The text of `docs/<name>.md`.
pub fn guide(name: &str) -> String {
    let path = common::repo().join("docs").join(format!("{name}.md"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The bodies of the guide's fenced blocks of `language`, in order.
pub fn blocks(text: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}\n");
    text.split(&fence).skip(1).map(|b| b.split("```").next().unwrap_or("").to_owned()).collect()
}

/// Runs the guide's shell blocks in order (`set -eu`: the first failing command fails the test) in a
/// fresh folder: this build's grader first on PATH (a `cargo build` or `export PATH=...target...`
/// line is that), `cases`, `examples` and `fixtures` linked to the repository's, a fresh build cache,
/// no colour. Checks the console blocks' grader commands parse, too.
pub fn run(name: &str) -> Ran {
    let text = guide(name);
    console_commands_parse(name, &text);
    let bin = Path::new(env!("CARGO_BIN_EXE_grader")).parent().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    for link in ["cases", "examples", "fixtures"] {
        std::os::unix::fs::symlink(common::repo().join(link), dir.path().join(link)).unwrap();
    }
    let mut script = format!("set -eu\nexport PATH=\"{}:$PATH\"\n", bin.display());
    for block in blocks(&text, "sh") {
        for line in block.lines() {
            // The guides build the grader first; the test has built it.
            if line.starts_with("cargo build") || line.starts_with("cargo install") {
                continue;
            }
            script.push_str(line);
            script.push('\n');
        }
    }
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("GRADER_CACHE_DIR", cache.path())
        .env("GRADER_CASES", common::repo().join("cases"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "docs/{name}.md:\n{script}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    Ran { dir, stdout, stderr }
}

/// Every `$ grader ...` line of the guide's console blocks is a command line the grader accepts
/// (a line ending in `\` goes on on the next).
fn console_commands_parse(name: &str, text: &str) {
    for block in blocks(text, "console") {
        let mut lines = block.lines().peekable();
        while let Some(line) = lines.next() {
            let Some(mut command) = line.strip_prefix("$ ").map(str::to_owned) else { continue };
            while command.ends_with('\\') {
                command.pop();
                command.push(' ');
                command.push_str(lines.next().unwrap_or("").trim());
            }
            if !command.starts_with("grader ") {
                continue;
            }
            let words = shlex::split(&command)
                .unwrap_or_else(|| panic!("docs/{name}.md: `{command}` does not split"));
            if let Err(e) = grader::cli::Cli::try_parse_from(&words) {
                panic!("docs/{name}.md: `{command}` is not a command line of the grader:\n{e}");
            }
        }
    }
}
