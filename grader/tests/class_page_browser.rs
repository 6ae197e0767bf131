//! The class page in a real browser: headless Chromium (Debian's `chromium`) loads `class.html` and
//! the feedback pages from disk with the network closed. The DOM it parsed holds every student,
//! linked and escaped; at 1400, 800 and 500 pixels the page does not run off the right edge and every
//! total stays on one line (the page's own script measures itself when its fragment says
//! `layout-check`); screenshots at both widths are decoded and looked at; sorting and filtering
//! run in the browser. Runs when a browser is installed (`/usr/bin/chromium`, or `$CHROMIUM`), and
//! says so when it is not.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use grader::batch::{self, BatchOptions};
use grader::grade::GradeOptions;
use grader::gradebook::ManualGrades;

/// Chromium with the flags a closed machine needs (no background connections, a fresh profile),
/// in a window of `width` x `height`.
fn chromium(browser: &Path, profile: &Path, (width, height): (u32, u32), args: &[&str]) -> String {
    let output = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .args(["--hide-scrollbars", "--force-device-scale-factor=1"])
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Students of the class: (folder or file in the class download, fixture of `trouble`). Their ids are
/// text a page must escape and link safely.
const STUDENTS: [(&str, &str); 5] = [
    ("Ada Lovelace_10017_assignsubmission_file_", "correct"),
    ("bob<script>", "bug-checkwin-zero"),
    ("c&d", "does-not-compile"),
    ("\" onmouseover=\"x", "bug-land-on-own"),
    ("eve", "stub-functions"),
];

/// The class graded once for all the tests of this binary: `trouble` (the widest rubric: nine
/// categories, two of them by hand), hand grades given to two of the five.
struct Class {
    dir: tempfile::TempDir,
    out: PathBuf,
}

fn class() -> &'static Class {
    static CLASS: OnceLock<Class> = OnceLock::new();
    CLASS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("class");
        for (folder, fixture) in STUDENTS {
            std::fs::create_dir_all(root.join(folder)).unwrap();
            let source = common::repo().join("fixtures/trouble").join(fixture).join("main.c");
            std::fs::copy(source, root.join(folder).join("main.c")).unwrap();
        }
        let grades = dir.path().join("grades.csv");
        std::fs::write(
            &grades,
            "id,category,points\n10017,style,9\n10017,survey,10\neve,style,4\neve,survey,0\n",
        )
        .unwrap();
        let assignment = common::assignment("trouble");
        let out = dir.path().join("out");
        let options = BatchOptions {
            out: out.clone(),
            jobs: 2,
            partition: None,
            manual: ManualGrades::read(&grades, assignment).unwrap(),
            force: false,
            only: Vec::new(),
            stop: batch::StopFlag::new(),
            caps: grader::roster::ArchiveCaps::default(),
            grade: GradeOptions::new(common::cache()),
            similarity: None,
        };
        batch::run_batch(assignment, &root, &options).unwrap();
        Class { dir, out }
    })
}

/// The class page's URL with a fragment.
fn page(fragment: &str) -> String {
    format!("file://{}#{fragment}", class().out.join("class.html").display())
}

/// A fresh browser profile's folder for one run.
fn profile(name: &str) -> PathBuf {
    class().dir.path().join(format!("profile-{name}"))
}

/// What the page's script measured, from `<pre id="layout-check">` of the DOM Chromium dumped.
fn layout_check(dom: &str) -> serde_json::Value {
    let start = dom.find("<pre id=\"layout-check\">").unwrap_or_else(|| panic!("no layout check in:\n{dom}"));
    let text = &dom[start + "<pre id=\"layout-check\">".len()..];
    let text = &text[..text.find("</pre>").unwrap()];
    // The DOM is serialised with `&`, `<`, `>` as entities in text; `&amp;` last.
    let json =
        text.replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u{a0}").replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

/// The students' ids the check lists, in the order shown.
fn shown_ids(check: &serde_json::Value) -> Vec<String> {
    check["rows"].as_array().unwrap().iter().map(|id| id.as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_class_page_renders_in_headless_chromium() {
    let Some(browser) = common::browser_or_skip() else { return };
    let dom = chromium(&browser, &profile("dom"), (1400, 900), &["--dump-dom", &page("")]);
    // What the browser parsed, not what we wrote: a tag left open would swallow what follows.
    assert!(dom.matches("<rect class=\"hist-bar\"").count() == 10, "ten bars of the histogram:\n{dom}");
    assert!(dom.contains("trouble"), "{dom}");
    for id in ["10017", "bob&lt;script&gt;", "c&amp;d", "\" onmouseover=\"x", "eve"] {
        assert!(dom.contains(&format!("\">{id}</a>")), "{id} not linked in:\n{dom}");
    }
    assert!(dom.contains("<td class=\"name\">Ada Lovelace</td>"), "{dom}");
    assert!(
        !dom.contains("<script>alert") && !dom.contains(" onmouseover=\"x\""),
        "an id became markup:\n{dom}"
    );
    assert_eq!(dom.matches("<script>").count(), 1, "the page's own script only");
    let students = &dom[dom.find("id=\"students-table\"").unwrap()..];
    let students = &students[..students.find("</table>").unwrap()];
    assert_eq!(students.matches("<tr ").count(), 5, "{students}");
    // The students come before the cases.
    assert!(dom.find("id=\"students-table\"") < dom.find("<table class=\"cases"));
    let cases = &dom[dom.find("<table class=\"cases").unwrap()..];
    let case_count = common::assignment("trouble").cases.len();
    assert_eq!(cases.matches("<tr").count(), 1 + case_count, "a row per case:\n{cases}");
    // The script showed the filters and made the headers buttons.
    assert!(dom.contains("<form class=\"filters\" id=\"student-filters\" role=\"search\" aria-label=\"Filter the students\">"), "{dom}");
    assert!(dom.contains("<button type=\"button\" class=\"sort\">Student</button>"), "{dom}");
    // Marked in words, not colour alone.
    assert!(dom.contains("<span class=\"badge badge-build-error\">build error</span>"), "{dom}");
    assert!(
        dom.contains(
            "<span class=\"badge badge-pending\" title=\"hand grades pending: style, survey\">pending</span>"
        ),
        "{dom}"
    );
    assert!(dom.contains("href=\"students/c_d/feedback.html\""), "{dom}");
}

#[test]
fn the_class_page_fits_1400_800_and_500_pixel_windows_with_totals_on_one_line() {
    let Some(browser) = common::browser_or_skip() else { return };
    // 500 pixels: the narrowest window headless Chromium opens, near a phone's.
    for (width, height) in [(1400, 900), (800, 900), (500, 800)] {
        let dom = chromium(
            &browser,
            &profile(&format!("layout-{width}")),
            (width, height),
            &["--dump-dom", &page("layout-check")],
        );
        let check = layout_check(&dom);
        let number = |key: &str| check[key].as_f64().unwrap_or_else(|| panic!("{key} in {check}"));
        assert_eq!(number("innerWidth"), f64::from(width), "{check}");
        assert!(number("scrollWidth") <= number("clientWidth"), "the page runs off the right edge: {check}");
        assert_eq!(number("totals"), 5.0, "{check}");
        assert_eq!(number("totalLines"), 1.0, "a total wraps: {check}");
        assert!(number("totalHeight") < 1.5 * number("lineHeight"), "a total is taller than a line: {check}");
        if width == 1400 {
            // The whole table fits; at 800 pixels (and 500) it scrolls inside its frame,
            // not the page.
            assert!(number("tableScrollWidth") <= number("tableClientWidth"), "{check}");
        }
        if width < 800 {
            continue;
        }

        let shot = class().dir.path().join(format!("class-{width}.png"));
        let screenshot = format!("--screenshot={}", shot.display());
        chromium(&browser, &profile(&format!("shot-{width}")), (width, height), &[&screenshot, &page("")]);
        let (size, pixels) = decode_png(&shot);
        assert_eq!(size, (width, height), "{}", shot.display());
        let background = pixels[0];
        let drawn = pixels.iter().filter(|p| **p != background).count();
        let share = drawn as f64 / pixels.len() as f64;
        assert!((0.02..0.6).contains(&share), "{:.1}% of the screenshot drawn", share * 100.0);
        let colours: std::collections::BTreeSet<[u8; 3]> = pixels.iter().copied().collect();
        assert!(colours.len() > 50, "{} colours: text and badges are drawn", colours.len());
        // Something is drawn on the right half too (the table's columns), but not to its very edge.
        let right_half = rows(&pixels, width).flat_map(|row| &row[width as usize / 2..]);
        assert!(right_half.filter(|p| **p != background).count() > 500);
    }
}

#[test]
fn the_students_sort_and_filter_in_the_browser() {
    let Some(browser) = common::browser_or_skip() else { return };
    let view = |name: &str, fragment: &str| {
        let dom = chromium(&browser, &profile(name), (1400, 900), &["--dump-dom", &page(fragment)]);
        layout_check(&dom)
    };
    let all = view("all", "layout-check");
    let ids = shown_ids(&all);
    assert_eq!(ids, ["\" onmouseover=\"x", "10017", "bob<script>", "c&d", "eve"], "id order: {all}");
    assert_eq!(all["shown"], "5 students");

    // Totals, highest first: the correct submission on top, the build error (0) last.
    let by_total = view("sort", "sort=-total&layout-check");
    let sorted = shown_ids(&by_total);
    assert_eq!(sorted.first().map(String::as_str), Some("10017"), "{by_total}");
    assert_eq!(sorted.last().map(String::as_str), Some("c&d"), "{by_total}");
    assert_eq!(by_total["sort"], "-total");
    let totals = totals_in_order(&browser, "sort=-total&layout-check");
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");

    let build_errors = view("status", "status=build-error&layout-check");
    assert_eq!(shown_ids(&build_errors), ["c&d"], "{build_errors}");
    assert_eq!(build_errors["shown"], "Showing 1 of 5 students");

    let pending = view("pending", "status=pending&sort=id&layout-check");
    assert_eq!(shown_ids(&pending), ["\" onmouseover=\"x", "bob<script>", "c&d"], "{pending}");

    let search = view("search", "q=LOVELACE&layout-check");
    assert_eq!(shown_ids(&search), ["10017"], "the name is searched, in any case: {search}");

    let lost = view("lost", "lost=checkWin&layout-check");
    let lost_ids = shown_ids(&lost);
    assert!(
        lost_ids.contains(&"bob<script>".to_owned()) && !lost_ids.contains(&"10017".to_owned()),
        "{lost}"
    );

    // The range keeps exactly the students whose percent is in it, as the unfiltered page gives them.
    let percents: Vec<f64> =
        all["percents"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().parse().unwrap()).collect();
    let in_range: Vec<String> = ids
        .iter()
        .zip(&percents)
        .filter(|(_, p)| (50.0..=100.0).contains(*p))
        .map(|(id, _)| id.clone())
        .collect();
    assert!(!in_range.is_empty() && in_range.len() < ids.len(), "{percents:?}");
    let range = view("range", "min=50&max=100&layout-check");
    assert_eq!(shown_ids(&range), in_range, "{range}");
    let nobody = view("nobody", "q=nobody-by-that-name&layout-check");
    assert_eq!(shown_ids(&nobody), Vec::<String>::new());
    assert_eq!(nobody["shown"], "Showing 0 of 5 students");
}

/// The students' totals as the table shows them after the view of `fragment`.
fn totals_in_order(browser: &Path, fragment: &str) -> Vec<f64> {
    let dom = chromium(browser, &profile("totals"), (1400, 900), &["--dump-dom", &page(fragment)]);
    let body = &dom[dom.find("id=\"students-table\"").unwrap()..];
    let body = &body[..body.find("</tbody>").unwrap()];
    body.split("<td class=\"num total\" data-sort=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].parse().unwrap())
        .collect()
}

#[test]
fn each_feedback_page_renders_inert_in_the_browser() {
    let Some(browser) = common::browser_or_skip() else { return };
    let feedback = class().out.join("students/bob_script_/feedback.html");
    assert!(class().out.join("students/bob_script_/feedback.md").is_file());
    let url = format!("file://{}", feedback.display());
    let dom = chromium(&browser, &profile("feedback"), (800, 900), &["--dump-dom", &url]);
    assert!(dom.contains("<h1>"), "{dom}");
    assert!(dom.contains("bob&lt;script&gt;"), "the id as text:\n{dom}");
    assert!(!dom.contains("<script"), "{dom}");
    assert!(dom.contains("<table>") && dom.contains("<code class=\"language-text\">"), "{dom}");
    assert!(dom.contains("checkWin"), "{dom}");
}

/// A PNG's size and its pixels as RGB.
fn decode_png(path: &Path) -> ((u32, u32), Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    let channels = frame.color_type.samples();
    assert_eq!(frame.bit_depth, png::BitDepth::Eight);
    let pixels = buffer[..frame.buffer_size()].chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    ((frame.width, frame.height), pixels)
}

/// The pixels by rows.
fn rows(pixels: &[[u8; 3]], width: u32) -> impl Iterator<Item = &[[u8; 3]]> {
    pixels.chunks(width as usize)
}
