//! `grader similarity` as an instructor relies on it: a disguised copy ranks above two solutions that
//! share only the handout's template, the template is no evidence once the assignment names it, every
//! pair comes from the index (none is missed), every byte a student controls is escaped in the page,
//! and the command finds a class from a batch's output, which links the analysis from its class page.
//!
//! The class of `tests/similarity/`: `template.c` (the course's template: setup, drawing, main loop),
//! `alice.c` and `bob.c` (the template with `is_valid` and `apply` written independently), `carol.c`
//! (alice's, disguised: renamed, reformatted, re-commented, functions reordered, helpers moved behind
//! prototypes).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use grader::build::SourceFile;
use grader::similarity::tokens::{Language, Tokenizer};
use grader::similarity::{analyse, report, winnow, Analysis, Settings, Submission};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/similarity")
}

fn source(name: &str) -> Vec<u8> {
    std::fs::read(corpus().join(name)).unwrap()
}

fn submission(id: &str, files: &[(&str, Vec<u8>)]) -> Submission {
    Submission {
        id: id.to_owned(),
        name: None,
        files: files
            .iter()
            .map(|(name, content)| SourceFile { name: (*name).to_owned(), content: content.clone() })
            .collect(),
        unreadable: None,
    }
}

/// alice, bob and carol, each handing in `main.c`.
fn class() -> Vec<Submission> {
    ["alice", "bob", "carol"]
        .iter()
        .map(|s| submission(s, &[("main.c", source(&format!("{s}.c")))]))
        .collect()
}

fn template() -> Vec<SourceFile> {
    vec![SourceFile { name: "template.c".to_owned(), content: source("template.c") }]
}

/// The pair of `a` and `b`, if the analysis lists it.
fn pair<'a>(analysis: &'a Analysis, a: &str, b: &str) -> Option<&'a grader::similarity::Pair> {
    analysis.pairs.iter().find(|p| {
        let ids = (analysis.students[p.a].id.as_str(), analysis.students[p.b].id.as_str());
        ids == (a, b) || ids == (b, a)
    })
}

#[test]
fn a_disguised_copy_ranks_above_two_solutions_that_share_only_the_template() {
    let analysis = analyse(&class(), &template(), &Settings::default());
    let copy = pair(&analysis, "alice", "carol").expect("the copy is found");
    assert!(copy.look, "above the line: {copy:?}");
    assert!(copy.similarity > 0.9 && copy.a_fraction > 0.9 && copy.b_fraction > 0.9, "{copy:?}");
    assert!(std::ptr::eq(copy, &analysis.pairs[0]), "the copy ranks first");
    for (a, b) in [("alice", "bob"), ("bob", "carol")] {
        if let Some(independent) = pair(&analysis, a, b) {
            assert!(!independent.look, "{a} and {b} share only the template: {independent:?}");
            assert!(independent.similarity < copy.similarity / 4.0, "{independent:?}");
        }
    }
    assert!(analysis.clusters.is_empty(), "two students are no group of more than two");
}

#[test]
fn without_its_base_files_the_template_alone_puts_independent_solutions_above_the_line() {
    // What makes the difference in the test above is the base code left out, not the settings.
    let analysis = analyse(&class(), &[], &Settings::default());
    let independent = pair(&analysis, "alice", "bob").expect("the template is shared");
    assert!(independent.look, "{independent:?}");
    assert_eq!(analysis.clusters, [vec![0, 1, 2]], "the template joins the whole class");
}

#[test]
fn no_shared_region_lies_in_the_base_code_and_base_tokens_are_no_ones_own() {
    let analysis = analyse(&class(), &template(), &Settings::default());
    // alice.c's own code is lines 39-92 (her helpers, is_valid and apply); the rest is the template's.
    let copy = pair(&analysis, "alice", "carol").unwrap();
    let alice_side = |r: &grader::similarity::Region| {
        if analysis.students[copy.a].id == "alice" {
            r.a_lines
        } else {
            r.b_lines
        }
    };
    for region in &copy.regions {
        let (first, last) = alice_side(region);
        assert!((39..=92).contains(&first) && (39..=92).contains(&last), "{region:?}");
    }
    // Every token of the template is base code in alice's submission, and hardly anything else: only
    // a token of hers that continues a run of the template's (the `}` of `apply` before `main`).
    let template_tokens = Tokenizer::new().tokens(&source("template.c"), Language::C).len();
    let base = analysis.students[0].base_tokens;
    assert!((template_tokens..template_tokens + 4).contains(&base), "{base} of {template_tokens}");
    assert_eq!(analysis.base_kgrams, {
        let hashes: Vec<u32> =
            Tokenizer::new().tokens(&source("template.c"), Language::C).iter().map(|t| t.hash).collect();
        winnow::kgram_hashes(&hashes, Settings::default().kgram).into_iter().collect::<BTreeSet<_>>().len()
    });
}

#[test]
fn every_pair_the_analysis_reports_is_every_pair_that_comparing_all_pairs_finds() {
    // Twelve students, each a mix of functions from the three solutions: many pairs share something.
    let template_text = String::from_utf8(source("template.c")).unwrap();
    let functions: Vec<String> = ["alice.c", "bob.c", "carol.c"]
        .iter()
        .flat_map(|f| {
            let text = String::from_utf8(source(f)).unwrap();
            text.split("\n\n").map(str::to_owned).collect::<Vec<_>>()
        })
        .filter(|chunk| !template_text.contains(chunk.as_str()))
        .collect();
    let mut rng = fastrand::Rng::with_seed(27);
    let class: Vec<Submission> = (0..12)
        .map(|i| {
            let picked: Vec<&str> =
                (0..rng.usize(3..9)).map(|_| functions[rng.usize(..functions.len())].as_str()).collect();
            submission(&format!("s{i:02}"), &[("main.c", picked.join("\n\n").into_bytes())])
        })
        .collect();
    let settings = Settings::default();
    let analysis = analyse(&class, &template(), &settings);
    let found: BTreeSet<(usize, usize)> = analysis.pairs.iter().map(|p| (p.a, p.b)).collect();

    // The same fingerprints, compared pair by pair.
    let k = settings.kgram;
    let base: BTreeSet<u64> = {
        let hashes: Vec<u32> =
            Tokenizer::new().tokens(&source("template.c"), Language::C).iter().map(|t| t.hash).collect();
        winnow::kgram_hashes(&hashes, k).into_iter().collect()
    };
    let prints: Vec<BTreeSet<u64>> = class
        .iter()
        .map(|s| {
            let hashes: Vec<u32> =
                Tokenizer::new().tokens(&s.files[0].content, Language::C).iter().map(|t| t.hash).collect();
            let repetitive = winnow::repetitive(&hashes, k, k / 3);
            winnow::winnow(&winnow::kgram_hashes(&hashes, k), settings.window)
                .into_iter()
                .filter(|f| !repetitive[f.position] && !base.contains(&f.hash))
                .map(|f| f.hash)
                .collect()
        })
        .collect();
    let mut compared = BTreeSet::new();
    for a in 0..class.len() {
        for b in a + 1..class.len() {
            if !prints[a].is_disjoint(&prints[b]) {
                compared.insert((a, b));
            }
        }
    }
    assert!(compared.len() > 20, "the class is a real test: {compared:?}");
    assert_eq!(found, compared);
}

#[test]
fn the_side_by_side_view_highlights_each_shared_region_on_both_sides_and_links_it_to_its_match() {
    let students = class();
    let analysis = analyse(&students, &template(), &Settings::default());
    let page = report::html::render(&analysis, &students, "Toy", &["template.c".to_owned()]);
    let copy = &analysis.pairs[0];
    assert!(copy.regions.len() >= 2, "reordered functions make several regions: {copy:?}");
    let view = &page[page.find("<section class=\"pair\" id=\"pair-1\">").expect("the copy is shown")..];
    for n in 1..=copy.regions.len() {
        for (side, other) in [("a", "b"), ("b", "a")] {
            assert_eq!(
                view.matches(&format!("id=\"p1-{side}-r{n}\"")).count(),
                1,
                "region {n} starts once on {side}"
            );
            assert!(
                view.contains(&format!("href=\"#p1-{other}-r{n}\"")),
                "region {n} on {side} links to {other}"
            );
        }
    }
    // Each highlighted line of a region is one link; the lines of the regions on the first side.
    let lines: usize = copy.regions.iter().map(|r| (r.a_lines.1 - r.a_lines.0 + 1) as usize).sum();
    let side_a = &view[..view
        .find("<div class=\"side\">")
        .and_then(|i| view[i + 1..].find("<div class=\"side\">").map(|j| i + 1 + j))
        .unwrap()];
    assert!(side_a.matches("href=\"#p1-b-r").count() <= lines);
    assert!(side_a.matches("href=\"#p1-b-r").count() >= lines / 2, "{lines} lines in regions");
    assert!(!page.contains("id=\"pair-2\""), "only pairs above the line are shown side by side");
}

/// Checks that every element is closed, in order, and that no `<` hides inside a tag.
fn assert_well_formed(html: &str) {
    const VOID: [&str; 3] = ["meta", "br", "link"];
    let mut open: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("unterminated tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        let name: String =
            tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect::<String>();
        if VOID.contains(&name.as_str()) {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(open.pop().as_deref(), Some(name.as_str()), "closing {name} out of order");
        } else {
            open.push(name);
        }
    }
    assert!(open.is_empty(), "never closed: {open:?}");
}

#[test]
fn the_page_escapes_every_byte_a_student_controls() {
    let hostile = "<img src=x onerror=alert(1)>";
    let alice = String::from_utf8(source("alice.c")).unwrap();
    // A comment and a string that close the code block and open a script; a bidirectional override
    // (the "Trojan Source" trick) and an escape sequence in the copy.
    let sneaky = alice
        .replace("/* Alice:", "/* </pre><script>alert('pre')</script> \u{202e}evil\u{202c} \x1b[31m Alice:")
        .replace("\"INVALID MOVE. TRY AGAIN!!\\n\"", "\"</a><script>alert(\\\"a\\\")</script>\"");
    let mut students = vec![
        submission(hostile, &[("main.c", alice.into_bytes())]),
        submission("\"quoted\" & 'single'", &[("<b>x</b>.c", sneaky.into_bytes())]),
    ];
    students[0].name = Some("Zoë <script>alert(2)</script>".to_owned());
    let analysis = analyse(&students, &[], &Settings::default());
    assert!(analysis.pairs[0].look, "the two are shown side by side: {:?}", analysis.pairs[0]);
    let page =
        report::html::render(&analysis, &students, "Checkers <b>bold</b>", &["t<e>mplate.c".to_owned()]);

    for raw in ["<script", "<img", "<b>", "</a><script", "onerror=alert(1)>", "\u{202e}", "\x1b"] {
        assert!(!page.contains(raw), "{raw:?} reaches the page unescaped");
    }
    for shown in [
        "&lt;img src=x onerror=alert(1)&gt;",
        "Zoë &lt;script&gt;alert(2)&lt;/script&gt;",
        "&quot;quoted&quot; &amp; &#39;single&#39;",
        "&lt;b&gt;x&lt;/b&gt;.c",
        "&lt;/pre&gt;&lt;script&gt;alert(&#39;pre&#39;)&lt;/script&gt; \\u{202e}evil\\u{202c} \\e[31m Alice:",
        "Checkers &lt;b&gt;bold&lt;/b&gt;",
        "t&lt;e&gt;mplate.c",
    ] {
        assert!(page.contains(shown), "{shown:?} is not in the page");
    }
    // Nothing runs and nothing loads: no script at all, and a policy that forbids both.
    assert!(page.contains("default-src 'none'") && page.contains("script-src 'none'"), "{page}");
    assert_well_formed(&page);
}

#[test]
fn the_csv_keeps_a_formula_in_an_id_or_a_name_from_running() {
    let mut students = class();
    students[0].id = "=HYPERLINK(\"http://x\")".to_owned();
    students[2].name = Some("+1 carol".to_owned());
    let analysis = analyse(&students, &template(), &Settings::default());
    let csv = report::to_csv(&analysis);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "rank",
            "a",
            "a_name",
            "b",
            "b_name",
            "similarity",
            "a_shared",
            "b_shared",
            "shared_tokens",
            "longest_run_tokens",
            "longest_run_a",
            "longest_run_b",
            "look"
        ]
    );
    let first = reader.records().next().unwrap().unwrap();
    assert_eq!(&first[1], "'=HYPERLINK(\"http://x\")");
    assert_eq!(&first[4], "'+1 carol");
    assert_eq!(&first[12], "yes");
    assert!(first[10].starts_with("main.c:"), "{first:?}");
}

// The command line.

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn grader(cases: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("--cases")
        .arg(cases)
        .args(args)
        .env("GRADER_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .output()
        .expect("the grader runs")
}

/// A cases root with the assignment `toy` (one visible case; the template as its base code) and a
/// class of alice, bob and carol in Moodle's and plain folders.
fn toy(dir: &Path) -> (PathBuf, PathBuf) {
    let cases = dir.join("cases");
    let assignment = cases.join("toy");
    std::fs::create_dir_all(assignment.join("basics")).unwrap();
    std::fs::write(
        assignment.join("assignment.toml"),
        "id = \"toy\"\ntitle = \"Toy checkers\"\n\n[submission]\nfiles = [\"*.c\"]\n\n[builds.program]\n\
         commands = [[\"gcc\", \"-o\", \"{out}\", \"{glob:*.c}\"]]\nrun = [\"{out}\"]\n\n[limits]\nwall-seconds = 5\n\n\
         [[categories]]\nid = \"basics\"\ntitle = \"Basics\"\npoints = 10\n\n[similarity]\nbase = [\"template.c\"]\n",
    )
    .unwrap();
    std::fs::write(assignment.join("template.c"), source("template.c")).unwrap();
    std::fs::write(assignment.join("basics/quit.toml"), "title = \"no move at all\"\n").unwrap();
    std::fs::write(assignment.join("basics/quit.stdin"), "").unwrap();
    let board = "   0   1   2   3   4   5   6   7\n";
    std::fs::write(assignment.join("basics/quit.stdout"), board).unwrap();
    let class = dir.join("class");
    for (folder, student) in [
        ("Alice Liddell_1001_assignsubmission_file_", "alice"),
        ("bob", "bob"),
        ("Carol Ann_1003_assignsubmission_file_", "carol"),
    ] {
        std::fs::create_dir_all(class.join(folder)).unwrap();
        std::fs::write(class.join(folder).join("main.c"), source(&format!("{student}.c"))).unwrap();
    }
    (cases, class)
}

#[test]
fn batch_similarity_writes_the_analysis_beside_the_class_files_and_the_class_page_links_it() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = toy(dir.path());
    let cache = dir.path().join("cache");
    let out = dir.path().join("graded");
    let batch = grader(
        &cases,
        &cache,
        &["batch", class.to_str().unwrap(), "-a", "toy", "-o", out.to_str().unwrap(), "--similarity"],
    );
    assert!(batch.status.success(), "{}", text(&batch.stderr));
    let csv = std::fs::read_to_string(out.join("similarity.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 2, "only the copy shares code beyond the template: {csv}");
    assert!(rows[1].starts_with("1,1001,Alice Liddell,1003,Carol Ann,"), "{csv}");
    assert!(rows[1].ends_with(",yes"), "{csv}");
    let page = std::fs::read_to_string(out.join("class.html")).unwrap();
    assert!(
        page.contains("<a href=\"similarity.html\">1 pair at or above the \u{201c}look at this\u{201d} line, among 2 students</a>"),
        "{page}"
    );
    let similarity = std::fs::read_to_string(out.join("similarity.html")).unwrap();
    assert!(similarity.contains("<code>template.c</code>"), "the page names the base code");

    // The batch's output folder names its class: the analysis runs again from it, anywhere.
    let again = dir.path().join("again");
    let from_output = grader(
        &cases,
        &cache,
        &["similarity", out.to_str().unwrap(), "-a", "toy", "-o", again.to_str().unwrap()],
    );
    assert!(from_output.status.success(), "{}", text(&from_output.stderr));
    assert_eq!(std::fs::read_to_string(again.join("similarity.csv")).unwrap(), csv);
    assert!(
        text(&from_output.stderr).contains("3 students, 3 compared: 1 pair shares code"),
        "{}",
        text(&from_output.stderr)
    );
}

#[test]
fn similarity_refuses_an_output_inside_the_class_and_a_batch_of_another_assignment() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = toy(dir.path());
    let cache = dir.path().join("cache");
    let inside = class.join("similarity");
    let refused = grader(
        &cases,
        &cache,
        &["similarity", class.to_str().unwrap(), "-a", "toy", "-o", inside.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("inside the class folder"), "{}", text(&refused.stderr));
    assert!(!inside.exists());

    // A batch's output of another assignment.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("batch.json"),
        format!(
            "{{\"assignment\": \"checkers\", \"partition\": null, \"roster\": [], \"grader_version\": \"0\", \"root\": {:?}}}",
            class
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let refused = grader(
        &cases,
        &cache,
        &["similarity", other.to_str().unwrap(), "-a", "toy", "-o", out.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains("is a grading of `checkers`, not `toy`"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn batch_refuses_similarity_with_a_partition() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = toy(dir.path());
    let out = dir.path().join("out");
    let refused = grader(
        &cases,
        &dir.path().join("cache"),
        &[
            "batch",
            class.to_str().unwrap(),
            "-a",
            "toy",
            "-o",
            out.to_str().unwrap(),
            "--similarity",
            "--partition",
            "hash:1/2",
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
}

#[test]
fn two_trouble_submissions_that_share_only_the_course_template_score_below_the_line() {
    // `stub-functions` is the template as handed out; `correct` is the template with the six required
    // functions written in. What they share is the template, which Trouble names as its base code.
    let trouble = grader::load::load_assignment(&common_repo().join("cases"), "trouble").unwrap();
    let base = trouble.similarity_base.files().unwrap();
    assert_eq!(base.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["template.c"]);
    let fixture =
        |name: &str| std::fs::read(common_repo().join("fixtures/trouble").join(name).join("main.c")).unwrap();
    let class = [
        submission("correct", &[("main.c", fixture("correct"))]),
        submission("stub-functions", &[("main.c", fixture("stub-functions"))]),
    ];
    let analysis = analyse(&class, base, &Settings::default());
    if let Some(shared) = pair(&analysis, "correct", "stub-functions") {
        assert!(!shared.look, "the template alone is no evidence: {shared:?}");
    }
    // Without the base code the template puts them far above the line.
    let without_base = analyse(&class, &[], &Settings::default());
    let shared = pair(&without_base, "correct", "stub-functions").expect("the template is shared");
    assert!(
        shared.look && shared.a_fraction.max(shared.b_fraction) > 0.8,
        "the template is most of the stubs: {shared:?}"
    );
}

#[test]
fn a_missing_base_file_is_an_error_naming_its_line_for_similarity_and_batch_similarity_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, class) = toy(dir.path());
    std::fs::remove_file(cases.join("toy/template.c")).unwrap();
    let cache = dir.path().join("cache");
    let out = dir.path().join("out");
    let class_arg = class.to_str().unwrap();
    let out_arg = out.to_str().unwrap();
    // The key `base` is on line 20 of the toy's assignment.toml.
    let says = "assignment.toml:20: cannot read the base file `template.c`";
    for args in [
        &["similarity", class_arg, "-a", "toy", "-o", out_arg][..],
        &["batch", class_arg, "-a", "toy", "-o", out_arg, "--similarity"][..],
    ] {
        let refused = grader(&cases, &cache, args);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {}", text(&refused.stderr));
        assert!(text(&refused.stderr).contains(says), "{args:?}: {}", text(&refused.stderr));
        assert!(!out.join("similarity.csv").exists() && !out.join("gradebook.csv").exists(), "{args:?}");
    }
    // Grading needs no base code.
    let graded = grader(&cases, &cache, &["batch", class_arg, "-a", "toy", "-o", out_arg]);
    assert!(graded.status.success(), "{}", text(&graded.stderr));
}

/// The planted pairs of a corpus's `PAIRS.md`: every table row (`| plant-1 | sol-1 | ...`) and list
/// item (`- plant-1 ~ plant-8`) names a pair by the first two student folders in it, as
/// `bench/dolos.sh` reads it.
fn planted_pairs(text: &str, students: &BTreeSet<String>) -> BTreeSet<(String, String)> {
    let mut pairs = BTreeSet::new();
    for line in text.lines().map(str::trim).filter(|l| l.starts_with(['|', '-', '*'])) {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
            .filter(|w| students.contains(*w))
            .collect();
        if let [a, b, ..] = words[..] {
            if a != b {
                pairs.insert((a.min(b).to_owned(), a.max(b).to_owned()));
            }
        }
    }
    pairs
}

#[test]
fn in_each_corpus_every_planted_pair_ranks_above_every_independent_pair_and_the_line_lies_between_them() {
    // `fixtures/similarity/<assignment>/`: one folder per submission and PAIRS.md, the planted pairs
    // (without it, every pair is independent).
    let root = std::env::var_os("GRADER_SIMILARITY_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| common_repo().join("fixtures/similarity"));
    let Ok(corpora) = std::fs::read_dir(&root) else {
        eprintln!("skipped: no corpus at {}", root.display());
        return;
    };
    let mut checked = 0;
    for corpus in corpora.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let id = corpus.file_name().unwrap().to_string_lossy().into_owned();
        let assignment = grader::load::load_assignment(&common_repo().join("cases"), &id).unwrap();
        let entries = grader::roster::discover(
            &corpus,
            &assignment.submission_files,
            grader::roster::ArchiveCaps::default(),
        )
        .unwrap();
        let class = grader::similarity::submissions_of(entries);
        let students: BTreeSet<String> = class.iter().map(|s| s.id.clone()).collect();
        let planted = match std::fs::read_to_string(corpus.join("PAIRS.md")) {
            Ok(text) => planted_pairs(&text, &students),
            Err(_) => BTreeSet::new(),
        };
        assert!(students.len() >= 4, "{id}: a corpus of {} submissions", students.len());
        // The assignment's own line where it sets one.
        let settings = Settings {
            look_at: assignment.similarity_look_at.unwrap_or(Settings::default().look_at),
            ..Settings::default()
        };
        let analysis = analyse(&class, assignment.similarity_base.files().unwrap(), &settings);
        let score = |a: &str, b: &str| pair(&analysis, a, b).map_or(0.0, |p| p.similarity);
        let (mut lowest_planted, mut highest_independent) = ((1.0, String::new()), (0.0, String::new()));
        for a in &students {
            for b in students.iter().filter(|b| a < *b) {
                let s = score(a, b);
                if planted.contains(&(a.clone(), b.clone())) {
                    assert!(
                        pair(&analysis, a, b).is_some_and(|p| p.look),
                        "{id}: {a}~{b} ({s:.3}) is under the line"
                    );
                    if s < lowest_planted.0 {
                        lowest_planted = (s, format!("{a}~{b}"));
                    }
                } else {
                    if s > highest_independent.0 {
                        highest_independent = (s, format!("{a}~{b}"));
                    }
                    assert!(
                        !pair(&analysis, a, b).is_some_and(|p| p.look),
                        "{id}: {a}~{b} is above the line"
                    );
                }
            }
        }
        assert!(
            planted.is_empty() || lowest_planted.0 > highest_independent.0,
            "{id}: the planted pair {} ({:.3}) is not above the independent pair {} ({:.3})",
            lowest_planted.1,
            lowest_planted.0,
            highest_independent.1,
            highest_independent.0
        );
        checked += 1;
    }
    eprintln!("{checked} corpora checked under {}", root.display());
}

fn common_repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `--base FILE`: code the course handed out that `assignment.toml` does not name (a course's own
/// `main()`, a helper module) is no evidence: two students who share only it are not a pair to
/// look at.
#[test]
fn code_the_course_handed_out_named_by_base_is_no_evidence() {
    let handout = "def read_words(stream):\n    words = []\n    for line in stream:\n        for part in line.split():\n            \
        cleaned = ''.join(c for c in part if c.isalpha())\n            if cleaned:\n                words.append(cleaned)\n    \
        return words\n\n\ndef report(count, distinct, out):\n    out.write(str(count))\n    out.write(' ')\n    \
        out.write(str(distinct))\n    out.write('\\n')\n\n\ndef check(words):\n    for w in words:\n        \
        assert w.isalpha(), w\n    return len(words)\n";
    let own = [
        "import sys\n\nwords = read_words(sys.stdin)\nseen = set()\nfor w in words:\n    seen.add(w)\nreport(check(words), len(seen), sys.stdout)\n",
        "import sys\n\ndef main():\n    items = read_words(sys.stdin)\n    table = {}\n    while items:\n        table[items.pop()] = True\n    \
         print(len(table) * 2 - len(table), end='')\n\nmain()\n",
    ];
    let dir = tempfile::tempdir().unwrap();
    for (student, code) in ["ada", "bob"].iter().zip(own) {
        let folder = dir.path().join("class").join(student);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("main.py"), format!("{handout}\n\n{code}")).unwrap();
    }
    let base = dir.path().join("handout.py");
    std::fs::write(&base, handout).unwrap();
    let package = common_repo().join("examples/packages/wordcount");
    let compare = |out: &str, extra: &[&std::ffi::OsStr]| {
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
            .arg("similarity")
            .arg(dir.path().join("class"))
            .arg("-a")
            .arg(&package)
            .arg("--out")
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .unwrap();
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
        std::fs::read_to_string(dir.path().join(out).join("similarity.csv")).unwrap()
    };
    let without = compare("without", &[]);
    assert!(
        without.lines().nth(1).is_some_and(|row| row.starts_with("1,ada,,bob,") && row.ends_with(",yes")),
        "{without}"
    );
    let with = compare("with", &["--base".as_ref(), base.as_os_str()]);
    assert!(with.lines().skip(1).all(|row| !row.ends_with(",yes")), "{with}");

    // A batch with --similarity says who is in a pair above the line, and the class page flags them.
    let out = dir.path().join("graded");
    let batch = std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("batch")
        .arg(dir.path().join("class"))
        .arg("-a")
        .arg(&package)
        .arg("--out")
        .arg(&out)
        .arg("--similarity")
        .env("GRADER_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&batch.stderr);
    assert!(batch.status.success(), "{stderr}");
    assert!(
        stderr
            .contains("similarity: 1 pair at or above the \"look at this\" line, among 2 students: ada, bob"),
        "{stderr}"
    );
    let page = std::fs::read_to_string(out.join("class.html")).unwrap();
    assert_eq!(page.matches("badge badge-similar").count(), 2, "both students' rows are flagged");
}

/// Independent programs written to one handout repeat its calls: a sample game replayed as
/// `move(b, 5, 3, 4, 3, white); display_board(b);` forty times over is one pattern of 20 tokens (the
/// numbers are one token class), and two students who both write one share 800 tokens of it. Such a
/// stretch counts once: two independent checkers solutions (fixtures/similarity) each given such a
/// game of their own stay as far apart as without it.
#[test]
fn a_sample_game_written_call_after_call_counts_once_not_once_per_call() {
    let solution = |name: &str| {
        std::fs::read_to_string(common_repo().join("fixtures/similarity/checkers").join(name).join("main.c"))
            .unwrap()
    };
    let game = |seed: usize| -> String {
        let mut body = String::from("\nvoid sample_game(void)\n{\n    int b[8][8];\n");
        for i in 0..44 {
            let n = |k: usize| (seed * 7 + i * 3 + k) % 8;
            body.push_str(&format!(
                "    move(b, {}, {}, {}, {}, white);\n    display_board(b);\n",
                n(0),
                n(1),
                n(2),
                n(3)
            ));
        }
        body + "}\n"
    };
    let class = |with_games: bool| -> Vec<Submission> {
        [("sol-1", 1), ("sol-2", 2)]
            .iter()
            .map(|&(name, seed)| {
                let mut text = solution(name);
                if with_games {
                    text.push_str(&game(seed));
                }
                submission(name, &[("main.c", text.into_bytes())])
            })
            .collect()
    };
    let similarity = |with_games: bool| {
        let analysis = analyse(&class(with_games), &[], &Settings::default());
        pair(&analysis, "sol-1", "sol-2").map_or((0.0, 0), |p| (p.similarity, p.shared_tokens))
    };
    let (apart, apart_tokens) = similarity(false);
    let (with_games, with_games_tokens) = similarity(true);
    assert!(with_games < Settings::default().look_at, "{with_games:.3} (without the games {apart:.3})");
    // The games add at most one copy of their pattern and its tail to what is shared, not 880 tokens.
    assert!(
        with_games_tokens <= apart_tokens + 60,
        "{with_games_tokens} shared tokens, {apart_tokens} without the games"
    );
    // Far under the line: what stays of the games is one copy's tail of a few dozen tokens.
    assert!(with_games < Settings::default().look_at / 3.0, "{with_games:.3} against {apart:.3}");
}
