//! Malformed assignments and cases are errors naming the file and line, never panics or silent defaults.

use std::path::Path;

use grader::load::{load_assignment, LoadError};

const ASSIGNMENT: &str = r#"
id = "toy"
title = "Toy"

[submission]
files = ["*.c"]

[builds.program]
commands = [["gcc", "-o", "{out}", "{glob:*.c}"]]
run = ["{out}"]

[limits]
wall-seconds = 5

[[categories]]
id = "basics"
title = "Basics"
points = 10

[[categories]]
id = "style"
title = "Style"
points = 5
manual = true
"#;

/// Writes an assignment `toy` with the given files and loads it.
fn load_with(assignment: &str, files: &[(&str, &str)]) -> Result<grader::load::Assignment, LoadError> {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("toy");
    std::fs::create_dir_all(dir.join("basics")).unwrap();
    std::fs::write(dir.join("assignment.toml"), assignment).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    load_assignment(root.path(), "toy")
}

fn invalid(err: LoadError) -> (String, Option<usize>, String) {
    match err {
        LoadError::Invalid { path, line, message } => {
            (path.file_name().unwrap().to_string_lossy().into_owned(), line, message)
        }
        other => panic!("expected an Invalid error, got {other}"),
    }
}

#[test]
fn a_valid_assignment_loads_with_its_case() {
    let a =
        load_with(ASSIGNMENT, &[("basics/hello.toml", "title = \"hi\"\n"), ("basics/hello.stdout", "hi\n")])
            .unwrap();
    assert_eq!(a.cases.len(), 1);
    let case = &a.cases[0];
    assert_eq!((case.id.as_str(), case.category.as_str(), case.weight), ("basics/hello", "basics", 1.0));
    assert_eq!(case.limits.wall.as_secs(), 5);
    assert!(a.category("style").unwrap().manual);
}

#[test]
fn an_unknown_key_in_a_case_names_the_file_and_line() {
    let case = "title = \"hi\"\n\nweigth = 2\n";
    let err = load_with(ASSIGNMENT, &[("basics/hello.toml", case)]).unwrap_err();
    let (file, line, message) = invalid(err);
    assert_eq!((file.as_str(), line), ("hello.toml", Some(3)));
    assert!(message.contains("unknown field `weigth`"), "{message}");
}

#[test]
fn a_bad_value_names_the_file_and_line() {
    let case = "title = \"hi\"\nweight = -1\n[scenario]\nx = 1\n";
    let (file, line, message) = invalid(load_with(ASSIGNMENT, &[("basics/hello.toml", case)]).unwrap_err());
    assert_eq!((file.as_str(), line), ("hello.toml", Some(2)));
    assert!(message.contains("weight"), "{message}");
}

#[test]
fn an_unknown_category_lists_the_known_ones() {
    let case = "title = \"hi\"\ncategory = \"basic\"\n[scenario]\n";
    let (_, line, message) = invalid(load_with(ASSIGNMENT, &[("basics/hello.toml", case)]).unwrap_err());
    assert_eq!(line, Some(2));
    assert!(message.contains("unknown category `basic`") && message.contains("basics"), "{message}");
}

#[test]
fn cases_cannot_belong_to_a_category_graded_by_hand() {
    let case = "title = \"hi\"\ncategory = \"style\"\n[scenario]\n";
    let (_, _, message) = invalid(load_with(ASSIGNMENT, &[("basics/hello.toml", case)]).unwrap_err());
    assert!(message.contains("graded by hand"), "{message}");
}

#[test]
fn a_case_without_scenario_needs_its_transcript() {
    let (_, _, message) =
        invalid(load_with(ASSIGNMENT, &[("basics/hello.toml", "title = \"hi\"\n")]).unwrap_err());
    assert!(message.contains("no [scenario] and no expected transcript"), "{message}");
}

#[test]
fn rubric_mistakes_in_assignment_toml_name_their_line() {
    let typo = ASSIGNMENT.replace("points = 10", "points = \"ten\"");
    let (file, line, _) = invalid(load_with(&typo, &[]).unwrap_err());
    assert_eq!((file.as_str(), line), ("assignment.toml", Some(18)));

    let unknown_build = ASSIGNMENT.replace("points = 10", "points = 10\nbuild = \"driver\"");
    let (_, line, message) = invalid(load_with(&unknown_build, &[]).unwrap_err());
    assert_eq!(line, Some(19));
    assert!(message.contains("no build recipe named `driver`"), "{message}");

    let bad_limit = ASSIGNMENT.replace("wall-seconds = 5", "wall-seconds = 0");
    let (_, line, _) = invalid(load_with(&bad_limit, &[]).unwrap_err());
    assert_eq!(line, Some(13));

    let bad_lenient = format!("{ASSIGNMENT}\n[compare]\nlenient = {{ case = 2.0 }}\n");
    let (_, line, message) = invalid(load_with(&bad_lenient, &[]).unwrap_err());
    assert!(line.is_some() && message.contains("between 0 and 1"), "{message}");

    let not_toml = "id = \"toy\"\ntitle = [\n";
    let (_, line, _) = invalid(load_with(not_toml, &[]).unwrap_err());
    assert!(line.is_some());
}

#[test]
fn a_bonus_category_loads_and_cannot_be_graded_by_hand() {
    let with_bonus =
        format!("{ASSIGNMENT}\n[[categories]]\nid = \"cube\"\ntitle = \"Cube\"\npoints = 5\nbonus = true\n");
    let a = load_with(&with_bonus, &[]).unwrap();
    assert!(a.category("cube").unwrap().bonus);
    assert!(!a.category("basics").unwrap().bonus && !a.category("style").unwrap().bonus);

    // `style` is `manual = true` at line 24: the error is at the `bonus` line that follows it.
    let by_hand = ASSIGNMENT.replace("manual = true", "manual = true\nbonus = true");
    let (file, line, message) = invalid(load_with(&by_hand, &[]).unwrap_err());
    assert_eq!((file.as_str(), line), ("assignment.toml", Some(25)));
    assert!(message.contains("`style`") && message.contains("bonus"), "{message}");

    // Saying so explicitly is no bonus, and no error.
    let not_bonus = ASSIGNMENT.replace("manual = true", "manual = true\nbonus = false");
    assert!(!load_with(&not_bonus, &[]).unwrap().category("style").unwrap().bonus);
}

#[test]
fn a_late_penalty_loads_and_its_mistakes_name_their_line() {
    assert_eq!(load_with(ASSIGNMENT, &[]).unwrap().late_penalty, None);
    let with_late = format!("{ASSIGNMENT}\n[late]\npenalty = 10\n");
    assert_eq!(load_with(&with_late, &[]).unwrap().late_penalty, Some(10.0));

    // The `[late]` table starts at line 26 of these files, its key at line 27.
    for (value, says) in [("0", "above 0"), ("150", "at most 100"), ("-5", "above 0"), ("nan", "percentage")]
    {
        let bad = format!("{ASSIGNMENT}\n[late]\npenalty = {value}\n");
        let (file, line, message) = invalid(load_with(&bad, &[]).unwrap_err());
        assert_eq!((file.as_str(), line), ("assignment.toml", Some(27)), "{value}");
        assert!(message.contains(says), "{value}: {message}");
    }
    let typo = format!("{ASSIGNMENT}\n[late]\npenalty = 10\npenalti-days = 1\n");
    let (_, line, message) = invalid(load_with(&typo, &[]).unwrap_err());
    assert_eq!(line, Some(28));
    assert!(message.contains("unknown field `penalti-days`"), "{message}");
    let text = format!("{ASSIGNMENT}\n[late]\npenalty = \"10%\"\n");
    let (_, line, _) = invalid(load_with(&text, &[]).unwrap_err());
    assert_eq!(line, Some(27));
}

#[test]
fn similarity_base_files_load_and_their_mistakes_name_their_line() {
    assert!(load_with(ASSIGNMENT, &[]).unwrap().similarity_base.files().unwrap().is_empty());
    let template = "int main(void) { return 0; }\n";
    let with_base = format!("{ASSIGNMENT}\n[similarity]\nbase = [\"template.c\"]\n");
    let loaded = load_with(&with_base, &[("template.c", template)]).unwrap();
    let base = loaded.similarity_base.files().unwrap();
    assert_eq!(base.len(), 1);
    assert_eq!(base[0].name, "template.c");
    assert_eq!(base[0].content, template.as_bytes());

    // The `[similarity]` table starts at line 26 of these files, its key at line 27.
    for (value, says) in [
        ("\"../toy/template.c\"", "inside the assignment's folder"),
        ("\"/etc/passwd\"", "inside the assignment's folder"),
        ("\"\"", "inside the assignment's folder"),
        ("\"README.md\"", "not C, Java or Python source"),
    ] {
        let bad = format!("{ASSIGNMENT}\n[similarity]\nbase = [{value}]\n");
        let (file, line, message) =
            invalid(load_with(&bad, &[("template.c", template), ("README.md", "hi\n")]).unwrap_err());
        assert_eq!((file.as_str(), line), ("assignment.toml", Some(27)), "{value}");
        assert!(message.contains(says), "{value}: {message}");
    }
    let typo = format!("{ASSIGNMENT}\n[similarity]\nbases = [\"template.c\"]\n");
    let (_, line, message) = invalid(load_with(&typo, &[("template.c", template)]).unwrap_err());
    assert_eq!(line, Some(27));
    assert!(message.contains("unknown field `bases`"), "{message}");

    // The assignment's own line: a similarity above 0, at most 1.
    assert_eq!(load_with(ASSIGNMENT, &[]).unwrap().similarity_look_at, None);
    let line = format!("{ASSIGNMENT}\n[similarity]\nlook-at = 0.3\n");
    assert_eq!(load_with(&line, &[]).unwrap().similarity_look_at, Some(0.3));
    for value in ["0", "1.5", "-0.1"] {
        let bad = format!("{ASSIGNMENT}\n[similarity]\nlook-at = {value}\n");
        let (file, line, message) = invalid(load_with(&bad, &[]).unwrap_err());
        assert_eq!((file.as_str(), line), ("assignment.toml", Some(27)), "{value}");
        assert!(message.contains("not a similarity above 0 and at most 1"), "{value}: {message}");
    }
}

#[test]
fn a_missing_base_file_does_not_keep_the_assignment_from_loading_but_is_an_error_for_similarity() {
    // Grading needs no base code: an assignment.toml copied alone still loads and grades.
    let missing = format!("{ASSIGNMENT}\n[similarity]\nbase = [\"template.c\", \"missing.c\"]\n");
    let loaded = load_with(
        &missing,
        &[
            ("template.c", "int x;\n"),
            ("basics/hello.toml", "title = \"hi\"\n"),
            ("basics/hello.stdout", "hi\n"),
        ],
    )
    .unwrap();
    assert_eq!(loaded.cases.len(), 1);
    let (file, line, message) = invalid(loaded.similarity_base.files().unwrap_err());
    assert_eq!((file.as_str(), line), ("assignment.toml", Some(27)));
    assert!(message.contains("cannot read the base file `missing.c`"), "{message}");
}

#[test]
fn a_missing_assignment_lists_the_known_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let err = load_assignment(&root, "monopoly").unwrap_err();
    assert!(err.to_string().contains("trouble"), "{err}");
}

#[test]
fn a_case_says_how_much_of_its_failure_students_see() {
    let a = load_with(
        ASSIGNMENT,
        &[
            ("basics/open.toml", "title = \"open\"\n"),
            ("basics/open.stdout", "hi\n"),
            ("basics/closed.toml", "title = \"closed\"\ndisclosure = \"output\"\n"),
            ("basics/closed.stdout", "hi\n"),
        ],
    )
    .unwrap();
    let disclosure = |id: &str| a.cases.iter().find(|c| c.id.ends_with(id)).unwrap().disclosure;
    assert_eq!(disclosure("open"), grader::load::Disclosure::Diff);
    assert_eq!(disclosure("closed"), grader::load::Disclosure::Output);

    let err = load_with(
        ASSIGNMENT,
        &[
            ("basics/bad.toml", "title = \"bad\"\n\ndisclosure = \"everything\"\n"),
            ("basics/bad.stdout", "hi\n"),
        ],
    )
    .unwrap_err();
    let (file, line, message) = invalid(err);
    assert_eq!((file.as_str(), line), ("bad.toml", Some(3)));
    assert!(message.contains("diff") && message.contains("verdict"), "{message}");
}

#[test]
fn an_interactive_case_needs_a_scenario_and_a_referee() {
    let err = load_with(ASSIGNMENT, &[("basics/game.toml", "title = \"g\"\nkind = \"interactive\"\n")])
        .unwrap_err();
    let (file, _, message) = invalid(err);
    assert_eq!(file, "game.toml");
    assert!(message.contains("needs a [scenario]"), "{message}");

    let err = load_with(
        ASSIGNMENT,
        &[("basics/game.toml", "title = \"g\"\nkind = \"interactive\"\n\n[scenario]\ngames = 2\n")],
    )
    .unwrap_err();
    let (file, line, message) = invalid(err);
    assert_eq!((file.as_str(), line), ("game.toml", Some(4)));
    assert!(message.contains("no assignment `toy` to referee"), "{message}");
}

/// The 1-based line of `text` on which `needle` first appears.
fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).expect(needle)].matches('\n').count() + 1
}

#[test]
fn a_lenient_rewrite_loads_into_every_case_and_its_mistakes_name_their_line() {
    let rung = "[compare.lenient-rewrite]\ncredit = 0.6\nwhat = \"the board's labels\"\n\
                rules = [\n    ['[ |]', ''],\n    ['^[0-9]+ ?([-wb]{8})$', '$1'],\n]\n";
    let with = |rung: &str| format!("{ASSIGNMENT}\n{rung}");
    let case = [("basics/hello.toml", "title = \"hi\"\n"), ("basics/hello.stdout", "hi\n")];
    let a = load_with(&with(rung), &case).unwrap();
    let rewrite = a.cases[0].compare.lenient_rewrite.as_ref().expect("inherited from [compare]");
    assert_eq!((rewrite.credit, rewrite.what.as_str(), rewrite.rules.len()), (0.6, "the board's labels", 2));
    assert_eq!(rewrite.rules[1].1, "$1");

    // Each mistake is an error at its line of assignment.toml.
    for (mistake, fixed, at, words) in [
        ("'[ |]'", "'[ |'", "'[ |'", "bad lenient-rewrite pattern"),
        ("credit = 0.6", "credit = 1.5", "credit = 1.5", "between 0 and 1"),
        ("credit = 0.6", "credit = -0.1", "credit = -0.1", "between 0 and 1"),
        ("what = \"the board's labels\"", "what = \" \"", "what = \" \"", "the words reports name it with"),
        ("what = \"the board's labels\"\n", "", "[compare.lenient-rewrite]", "missing field `what`"),
        ("credit = 0.6", "credits = 0.6", "credits = 0.6", "unknown field `credits`"),
    ] {
        let text = with(&rung.replace(mistake, fixed));
        let (file, line, message) = invalid(load_with(&text, &case).unwrap_err());
        assert_eq!(
            (file.as_str(), line),
            ("assignment.toml", Some(line_of(&text, at))),
            "{fixed}: {message}"
        );
        assert!(message.contains(words), "{fixed}: {message}");
    }
    let empty = with("[compare]\nlenient-rewrite = { credit = 0.5, what = \"labels\", rules = [] }\n");
    let (_, line, message) = invalid(load_with(&empty, &case).unwrap_err());
    assert_eq!(line, Some(line_of(&empty, "lenient-rewrite")));
    assert!(message.contains("at least one rule"), "{message}");

    // A case's own rung replaces the inherited one, and its mistakes name the case file.
    let own = "title = \"hi\"\n\n[compare]\nlenient-rewrite = { credit = 0.4, what = \"x\", rules = [['(', '']] }\n";
    let (file, line, message) = invalid(
        load_with(&with(rung), &[("basics/hello.toml", own), ("basics/hello.stdout", "hi\n")]).unwrap_err(),
    );
    assert_eq!((file.as_str(), line), ("hello.toml", Some(4)));
    assert!(message.contains("bad lenient-rewrite pattern"), "{message}");
}

#[test]
fn a_cases_sidecars_are_read_once_and_a_missing_transcript_again_until_it_is_there() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("toy");
    std::fs::create_dir_all(dir.join("basics")).unwrap();
    std::fs::write(dir.join("assignment.toml"), ASSIGNMENT).unwrap();
    std::fs::write(dir.join("basics/hello.toml"), "title = \"hi\"\n").unwrap();
    std::fs::write(dir.join("basics/hello.stdout"), "hi\n").unwrap();
    std::fs::write(dir.join("basics/hello.stdin"), "go\n").unwrap();
    let assignment = grader::load::load_assignment(root.path(), "toy").unwrap();
    let case = &assignment.cases[0];
    let first = case.sidecars().unwrap();
    assert_eq!(
        (first.stdin.as_slice(), first.stdin_is_file, first.stdout.as_slice()),
        (&b"go\n"[..], true, &b"hi\n"[..])
    );
    // A class's gradings share what the first read, as do the case's clones.
    std::fs::write(dir.join("basics/hello.stdout"), "changed\n").unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &case.sidecars().unwrap()));
    assert!(std::sync::Arc::ptr_eq(&first, &case.clone().sidecars().unwrap()));
    // A new load reads the files again.
    let reloaded = grader::load::load_assignment(root.path(), "toy").unwrap();
    assert_eq!(reloaded.cases[0].sidecars().unwrap().stdout, b"changed\n");

    // A transcript that goes missing before the first read is an error naming the case, kept for no
    // later call; no `.stdin` is an empty input.
    std::fs::remove_file(dir.join("basics/hello.stdin")).unwrap();
    std::fs::remove_file(dir.join("basics/hello.stdout")).unwrap();
    let fresh = reloaded.cases[0].clone();
    let unread = grader::load::Case { sidecars: Default::default(), ..fresh };
    let (file, line, message) = invalid(unread.sidecars().unwrap_err());
    assert_eq!((file.as_str(), line), ("hello.toml", None));
    assert!(message.contains("run `grader bless`"), "{message}");
    std::fs::write(dir.join("basics/hello.stdout"), "hi\n").unwrap();
    let read = unread.sidecars().unwrap();
    assert_eq!(
        (read.stdin.is_empty(), read.stdin_is_file, read.stdout.as_slice()),
        (true, false, &b"hi\n"[..])
    );
}
