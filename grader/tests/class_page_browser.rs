//! The class page in a real browser: headless Chromium (Debian's `chromium`) loads `class.html` from
//! disk with the network closed, and its DOM holds the histogram, the case table and a linked row
//! per student; a screenshot is drawn. Runs when a browser is installed (`/usr/bin/chromium`, or
//! `$CHROMIUM`), and says so when it is not.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use grader::batch::{self, BatchOptions};
use grader::grade::GradeOptions;
use grader::gradebook::ManualGrades;

fn browser() -> Option<PathBuf> {
    let path =
        std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    path.is_file().then_some(path)
}

/// Chromium with the flags a closed machine needs (no background connections, a fresh profile).
fn chromium(browser: &Path, profile: &Path, args: &[&str]) -> std::process::Output {
    Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs")
}

#[test]
fn the_class_page_renders_in_headless_chromium() {
    let Some(browser) = browser() else {
        eprintln!("skipped: no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    // Ids a page must escape and link safely.
    for (id, fixture) in [("ada", "correct"), ("bob<script>", "bug-no-kings"), ("c&d", "bug-step-two")] {
        std::fs::create_dir_all(class.join(id)).unwrap();
        let source = common::repo().join("fixtures/checkers").join(fixture).join("checkers.c");
        std::fs::copy(source, class.join(id).join("checkers.c")).unwrap();
    }
    let out = dir.path().join("out");
    let options = BatchOptions {
        out: out.clone(),
        jobs: 2,
        partition: None,
        manual: ManualGrades::default(),
        force: false,
        only: Vec::new(),
        stop: batch::StopFlag::new(),
        caps: grader::roster::ArchiveCaps::default(),
        grade: GradeOptions::new(common::cache()),
    };
    batch::run_batch(common::assignment("checkers"), &class, &options).unwrap();
    let page = format!("file://{}", out.join("class.html").display());

    let dom = chromium(&browser, &dir.path().join("profile-dom"), &["--dump-dom", &page]);
    assert!(dom.status.success(), "{}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    // What the browser parsed, not what we wrote: a tag left open would swallow what follows.
    assert!(dom.matches("<rect").count() >= 10, "ten bars of the histogram:\n{dom}");
    assert!(dom.contains("checkers"), "{dom}");
    for id in ["ada", "bob&lt;script&gt;", "c&amp;d"] {
        assert!(dom.contains(&format!(">{id}</a>")), "{id} not linked in:\n{dom}");
    }
    assert!(!dom.contains("<script>"), "an id became markup:\n{dom}");
    assert!(dom.matches("<tr").count() >= 3 + 36, "a row per student and per case:\n{dom}");

    let shot = dir.path().join("class.png");
    let screenshot = format!("--screenshot={}", shot.display());
    let drawn = chromium(
        &browser,
        &dir.path().join("profile-shot"),
        &[&screenshot, "--window-size=1200,1600", &page],
    );
    assert!(drawn.status.success(), "{}", String::from_utf8_lossy(&drawn.stderr));
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{} bytes", png.len());
}
