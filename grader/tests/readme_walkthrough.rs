//! The README's table of assignments agrees with the code (the instructor's day it once walked through
//! is now `docs/instructors.md`, run by the guides' tests).

mod common;

/// The README's table of assignments gives each one's case count as the code loads it (interactive
/// cases where the row counts those), so that the figure cannot drift.
#[test]
fn the_readmes_case_counts_are_the_assignments_own() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let mut rows = 0;
    for row in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let Some(id) = cells[0].strip_prefix("| `").and_then(|c| c.strip_suffix('`')) else { continue };
        let Some(cases) = cells.get(2) else { continue };
        let Ok(assignment) = grader::load::load_assignment(&common::repo().join("cases"), id) else {
            continue;
        };
        let said: usize = cases.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
        let interactive = cases.starts_with(&format!("{said} interactive"));
        let counted = assignment
            .cases
            .iter()
            .filter(|c| !interactive || c.kind == grader::load::CaseKind::Interactive)
            .count();
        assert_eq!(said, counted, "{id}: the README says {said}");
        rows += 1;
    }
    assert_eq!(rows, 5, "a row per assignment");
}

/// The README is short (at most 300 lines: what, install, the two commands, the assignments, where to
/// read on) and points each reader to their guide.
#[test]
fn the_readme_is_short_and_names_every_guide() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    assert!(readme.lines().count() <= 300, "{} lines", readme.lines().count());
    for guide in ["instructors", "tas", "students", "course-authors", "operators", "contributors"] {
        assert!(readme.contains(&format!("](docs/{guide}.md)")), "the README links docs/{guide}.md");
    }
}

/// The README's commands run as written: its shell blocks in order in a fresh folder (the grader
/// built by the test in place of `cargo build` and `cargo run --release -p grader --`; `cargo test`
/// is what this is), and the grader command of its console block is one the grader takes.
#[test]
fn the_readmes_commands_run_as_written() {
    use clap::Parser;
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let mut lines = Vec::new();
    for block in readme.split("```sh\n").skip(1).map(|b| b.split("```").next().unwrap()) {
        for line in block.lines() {
            if !["cargo build", "cargo install", "cargo test"].iter().any(|skip| line.starts_with(skip)) {
                lines.push(line.replace("cargo run --release -p grader --", "grader"));
            }
        }
    }
    let common::ShellRun { dir, stdout, stderr } = common::run_shell_lines("README.md", &lines);
    assert!(stdout.contains("Score: 80.00 / 80.00"), "the correct Trouble submission: {stdout}");
    assert!(stderr.contains("6 students: 6 graded now"), "{stderr}");
    assert!(dir.path().join("graded/moodle-grades.csv").is_file(), "{stderr}");
    let review = readme.split("```console\n$ ").nth(1).and_then(|b| b.lines().next()).unwrap();
    assert_eq!(review, "grader review graded");
    grader::cli::Cli::try_parse_from(review.split_whitespace()).unwrap();
}

/// Every relative link of the README and the guides reaches a file of the repository, and every
/// `#anchor` a heading of its page (as GitHub makes anchors of headings).
#[test]
fn links_between_the_readme_and_the_guides_reach_their_pages_and_headings() {
    let repo = common::repo();
    let mut pages = vec![repo.join("README.md")];
    for entry in std::fs::read_dir(repo.join("docs")).unwrap() {
        pages.push(entry.unwrap().path());
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() { page.clone() } else { page.parent().unwrap().join(path) };
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", page.display()));
                continue;
            }
            if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let headings = anchors(&std::fs::read_to_string(&target).unwrap());
                if !headings.contains(&anchor.to_owned()) {
                    broken.push(format!("{}: {link} (no such heading)", page.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The targets of a Markdown page's inline links `[text](target)`, outside code blocks and spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Code spans hold no links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}

/// The anchors GitHub gives a page's headings: lowercased, spaces to `-`, all but letters, digits,
/// `-` and `_` dropped; a repeated one gets `-1`, `-2`...
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => {
                    Some(c.to_lowercase().next().unwrap_or(c))
                }
                _ => None,
            })
            .collect();
        let repeats = out.iter().filter(|s| **s == slug || s.starts_with(&format!("{slug}-"))).count();
        out.push(if repeats == 0 { slug.clone() } else { format!("{slug}-{repeats}") });
        out.push(slug);
    }
    out
}
