//! The guides in `docs/` run as written, so that none drifts from the program: each guide's shell
//! blocks (```` ```sh ````) run in order in a fresh folder, with this build's grader on PATH and the
//! repository's `cases/`, `examples/` and `fixtures/` linked in; every `$ grader ...` line of its
//! ```` ```console ```` blocks (commands that serve or wait: `grader review`, a cluster's job) parses
//! as the grader's command line. Each guide's module says what its commands must show.

mod common;

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
pub type Ran = common::ShellRun;

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

/// Runs the guide's shell blocks in order (see [`common::run_shell_lines`]; a `cargo build` or
/// `cargo install` line is the grader this test built), after checking that its console blocks'
/// grader commands parse.
pub fn run(name: &str) -> Ran {
    let text = guide(name);
    console_commands_parse(name, &text);
    let lines: Vec<String> = blocks(&text, "sh")
        .iter()
        .flat_map(|block| block.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter(|line| !line.starts_with("cargo build") && !line.starts_with("cargo install"))
        .collect();
    common::run_shell_lines(&format!("docs/{name}.md"), &lines)
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
