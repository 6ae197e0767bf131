//! Similarity across a class (`grader similarity`): which submissions share code beyond the base
//! code the assignment hands out, and where.
//!
//! [`tokens`] (a tree-sitter parse of each C, Java or Python file, normalised: renaming, comments and layout
//! change nothing) → [`winnow`] (fingerprints: the minimum k-gram hash of each window) → [`index`]
//! (one inverted index for the class; a single pass over it gives every pair that shares a
//! fingerprint, never a comparison of every pair of files) → [`matches`] (each such pair's shared runs
//! of tokens, laid as tiles) → [`report`] (`similarity.csv` and the self-contained
//! `similarity.html`).
//!
//! Base code is not evidence: every k-gram of the assignment's base files (`[similarity] base` in
//! `assignment.toml`) is left out of the index and out of every match, and a fingerprint held by more
//! than a share of the class is common code, left out as well (MOSS's `-b` and `-m`).

pub mod index;
pub mod matches;
pub mod report;
pub mod tokens;
pub mod winnow;

use std::collections::{BTreeMap, HashSet};

use crate::build::SourceFile;
use matches::{Tile, TokenRun};
use tokens::{Language, Tokenizer};
use winnow::Fingerprint;

/// How the analysis fingerprints and what it calls worth a look. The defaults are justified in the
/// README ("Similarity across a class").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Tokens in a k-gram: no match is shorter (the noise threshold).
    pub kgram: usize,
    /// k-grams in a winnowing window: any shared run of `window + kgram - 1` tokens is found.
    pub window: usize,
    /// A fingerprint held by more than this share of the class (and by more than
    /// [`Settings::common_floor`] students) is common code, not evidence.
    pub max_share: f64,
    /// However small the class, a fingerprint held by this many students or fewer is never common.
    pub common_floor: usize,
    /// The "look at this" line: a pair whose similarity reaches it is listed first, marked, and shown
    /// side by side.
    pub look_at: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { kgram: 30, window: 4, max_share: 0.1, common_floor: 10, look_at: 0.12 }
    }
}

impl Settings {
    /// The most students a fingerprint may be held by and still be evidence, in a class of `n`.
    pub fn most_students(&self, n: usize) -> usize {
        ((self.max_share * n as f64).floor() as usize).max(self.common_floor)
    }
}

/// One student's source files, as the class download gives them.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The student's id.
    pub id: String,
    /// The student's name, where the download gives one.
    pub name: Option<String>,
    /// The files the assignment takes (those that are not C, Java or Python are not compared).
    pub files: Vec<SourceFile>,
    /// Why the download's files could not be read, if so (an archive over the caps).
    pub unreadable: Option<String>,
}

/// The submissions of a class as [`roster::discover`](crate::roster::discover) found them (taken,
/// not copied: a class of Java projects is tens of megabytes of source).
pub fn submissions_of(entries: impl IntoIterator<Item = crate::roster::Entry>) -> Vec<Submission> {
    entries
        .into_iter()
        .map(|e| {
            let (files, unreadable) = match e.files {
                Ok(files) => (files, None),
                Err(why) => (Vec::new(), Some(why)),
            };
            Submission { id: e.id, name: e.name, files, unreadable }
        })
        .collect()
}

/// What [`write`] did, for the command's last line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Students in the class.
    pub students: usize,
    /// Of them, students with source compared.
    pub compared: usize,
    /// The numbers the class page shows.
    pub summary: report::Summary,
    /// Groups of more than two above the line.
    pub clusters: usize,
    /// The files written.
    pub files: Vec<std::path::PathBuf>,
}

/// Analyses the class's `submissions` against the assignment's base files and writes
/// `similarity.csv` and `similarity.html` into `out` (made if missing), each atomically.
pub fn write(
    assignment: &crate::load::Assignment,
    submissions: &[Submission],
    settings: &Settings,
    out: &std::path::Path,
) -> Result<Outcome, crate::batch::BatchError> {
    let base_files = assignment.similarity_base.files()?;
    let analysis = analyse(submissions, base_files, settings);
    let base: Vec<String> = base_files.iter().map(|f| f.name.clone()).collect();
    let csv_path = out.join(report::CSV_FILE);
    let html_path = out.join(report::HTML_FILE);
    crate::batch::write_atomic(&csv_path, report::to_csv(&analysis).as_bytes())?;
    let page = report::html::render(&analysis, submissions, &assignment.title, &base);
    crate::batch::write_atomic(&html_path, page.as_bytes())?;
    Ok(Outcome {
        students: analysis.students.len(),
        compared: analysis.students.iter().filter(|s| s.tokens > 0).count(),
        summary: report::Summary::of(&analysis),
        clusters: analysis.clusters.len(),
        files: vec![csv_path, html_path],
    })
}

/// Tokens a student may have compared at most: a huge generated file would swamp memory and the
/// report, and no handwritten submission of these assignments comes near.
pub const MAX_TOKENS: usize = 200_000;

/// The tokens of one file, normalised, with their lines and which are base code.
#[derive(Debug, Clone, Default)]
pub struct FileTokens {
    /// The file's name in the submission.
    pub name: String,
    /// Each token's hash.
    pub hashes: Vec<u32>,
    /// Each token's first line, and in the top 8 bits how many lines further it ends (at most 255):
    /// see [`FileTokens::lines`].
    pub packed_lines: Vec<u32>,
    /// Whether each token is base code (inside a k-gram of a base file).
    pub base: Vec<bool>,
    /// Whether each token comes again right after itself (see [`winnow::echoes`]): a stretch of one
    /// pattern repeated is one copy of it, the others no evidence and nobody's own.
    pub repeated: Vec<bool>,
}

impl FileTokens {
    /// The first and last line of the token at `i`.
    pub fn lines(&self, i: usize) -> (u32, u32) {
        let packed = self.packed_lines[i];
        let first = packed & LINE_MASK;
        (first, first + (packed >> 24))
    }
}

/// The bits of a packed line that hold the first line: files of the roster's 8 MiB hold fewer lines.
const LINE_MASK: u32 = (1 << 24) - 1;

/// A token's first and last line in one `u32`.
fn pack_lines(line: u32, end_line: u32) -> u32 {
    line.min(LINE_MASK) | (end_line.saturating_sub(line).min(255) << 24)
}

impl TokenRun for FileTokens {
    fn hashes(&self) -> &[u32] {
        &self.hashes
    }

    fn is_base(&self, i: usize) -> bool {
        self.base[i] || self.repeated[i]
    }
}

/// What the analysis says of one student.
#[derive(Debug, Clone, PartialEq)]
pub struct Student {
    /// The student's id.
    pub id: String,
    /// The student's name, where known.
    pub name: Option<String>,
    /// The files compared (C and Java sources), by name.
    pub files: Vec<String>,
    /// Tokens compared.
    pub tokens: usize,
    /// Of them, tokens of base code.
    pub base_tokens: usize,
    /// Of the others, tokens of a pattern repeated in place beyond its last copy (see
    /// [`winnow::echoes`]).
    pub repeated_tokens: usize,
    /// Why some or all of the submission was not compared, if so.
    pub note: Option<String>,
}

impl Student {
    /// The tokens that are the student's own: what a shared fraction is a fraction of.
    pub fn own_tokens(&self) -> usize {
        self.tokens - self.base_tokens - self.repeated_tokens
    }
}

/// A region the two submissions of a pair share: one tile, located by file and lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The file of the first student (an index into their [`Student::files`]).
    pub a_file: usize,
    /// Its first and last line there.
    pub a_lines: (u32, u32),
    /// The file of the second student (an index into their [`Student::files`]).
    pub b_file: usize,
    /// Its first and last line there.
    pub b_lines: (u32, u32),
    /// Its length in tokens.
    pub tokens: usize,
}

/// Two students who share code, and how much.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The first student's index in [`Analysis::students`].
    pub a: usize,
    /// The second student's index.
    pub b: usize,
    /// Distinct fingerprints the two share (after base and common code are left out).
    pub fingerprints: u32,
    /// Tokens in the shared regions (the same count on both sides).
    pub shared_tokens: usize,
    /// The share of the first student's own tokens found in the second's submission.
    pub a_fraction: f64,
    /// The share of the second student's own tokens found in the first's submission.
    pub b_fraction: f64,
    /// Both ways at once: the shared tokens of both over the own tokens of both (Dolos's similarity).
    pub similarity: f64,
    /// The shared regions, longest first: every one for a pair at or above the line and for the
    /// [`FULL_REGIONS_BELOW_LINE`] most similar pairs, only the longest for the others (a class of
    /// 500 has 124 750 pairs, and only those are shown side by side).
    pub regions: Vec<Region>,
    /// Whether the pair reaches the "look at this" line.
    pub look: bool,
}

impl Pair {
    /// The longest shared region, if any.
    pub fn longest(&self) -> Option<&Region> {
        self.regions.first()
    }
}

/// The whole class's analysis.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The settings it ran with.
    pub settings: Settings,
    /// Every student, in the order given.
    pub students: Vec<Student>,
    /// Every pair that shares a region, from the most similar.
    pub pairs: Vec<Pair>,
    /// Groups of more than two students joined by pairs above the line, each sorted by index, the
    /// largest first.
    pub clusters: Vec<Vec<usize>>,
    /// The base files' distinct k-grams, left out everywhere.
    pub base_kgrams: usize,
    /// The most students a fingerprint could be held by and still count.
    pub most_students: usize,
    /// Fingerprints held by more students than that: common code, left out.
    pub common_fingerprints: usize,
}

/// Analyses a class: every pair of `submissions` that shares code beyond the `base` files.
pub fn analyse(submissions: &[Submission], base: &[SourceFile], settings: &Settings) -> Analysis {
    let k = settings.kgram.max(1);
    let mut tokenizer = Tokenizer::new();
    let mut base_kgrams: HashSet<u64> = HashSet::new();
    for file in base {
        if let Some(language) = Language::of(&file.name) {
            let hashes: Vec<u32> = tokenizer.tokens(&file.content, language).iter().map(|t| t.hash).collect();
            base_kgrams.extend(winnow::kgram_hashes(&hashes, k));
        }
    }
    let documents = parallel_map(submissions, |tokenizer: &mut Tokenizer, s| {
        tokenize(tokenizer, s, k, settings.window, &base_kgrams)
    });
    let mut students = Vec::with_capacity(documents.len());
    let mut files = Vec::with_capacity(documents.len());
    let mut index = index::Index::new();
    for (i, (student, tokens, fingerprints)) in documents.into_iter().enumerate() {
        for (file, prints) in fingerprints.iter().enumerate() {
            index.add(i as u32, file as u32, prints, &base_kgrams);
        }
        students.push(student);
        files.push(tokens);
    }
    index.seal();
    let most_students = settings.most_students(submissions.len());
    let shared = index.shared(most_students);
    let evidence = index.evidence(&shared);
    drop(index);

    let mut keys: Vec<((u32, u32), u32)> = shared.pairs.into_iter().collect();
    keys.sort_unstable();
    let pair = |a: u32, b: u32, fingerprints: u32| {
        let (a, b) = (a as usize, b as usize);
        let seeds = index::seeds(&evidence[a], &evidence[b], SEEDS_PER_HASH);
        let tiles = matches::tiles(&files[a], &files[b], &seeds, k);
        pair_of(a, b, fingerprints, &tiles, &files[a], &files[b], &students, settings)
    };
    let mut pairs: Vec<Pair> = parallel_map(&keys, |_: &mut (), &((a, b), fingerprints)| {
        pair(a, b, fingerprints).map(|mut p| {
            if !p.look {
                p.regions.truncate(1);
            }
            p
        })
    })
    .into_iter()
    .flatten()
    .collect();
    pairs.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then(y.shared_tokens.cmp(&x.shared_tokens))
            .then((&students[x.a].id, &students[x.b].id).cmp(&(&students[y.a].id, &students[y.b].id)))
    });
    for kept in pairs.iter_mut().take(FULL_REGIONS_BELOW_LINE).filter(|p| !p.look) {
        if let Some(again) = pair(kept.a as u32, kept.b as u32, kept.fingerprints) {
            *kept = again;
        }
    }
    let clusters = clusters(students.len(), &pairs);
    Analysis {
        settings: *settings,
        students,
        pairs,
        clusters,
        base_kgrams: base_kgrams.len(),
        most_students,
        common_fingerprints: shared.common.len(),
    }
}

/// The most similar pairs whose regions are all kept even below the line: shown side by side when
/// no pair reaches it.
pub const FULL_REGIONS_BELOW_LINE: usize = 3;

/// The longest pattern, in k-grams, whose copies repeated in place count as one (see
/// [`winnow::echoes`]): two k-grams, four to six lines of calls.
const ECHO_PERIOD_KGRAMS: usize = 2;

/// How many occurrences of one fingerprint on each side of a pair are taken as seeds.
const SEEDS_PER_HASH: usize = 8;

/// A student's report line, their files' tokens and their files' fingerprints (base k-grams
/// included: the index leaves them out).
type Document = (Student, Vec<FileTokens>, Vec<Vec<Fingerprint>>);

fn tokenize(
    tokenizer: &mut Tokenizer,
    submission: &Submission,
    k: usize,
    window: usize,
    base_kgrams: &HashSet<u64>,
) -> Document {
    let mut student = Student {
        id: submission.id.clone(),
        name: submission.name.clone(),
        files: Vec::new(),
        tokens: 0,
        base_tokens: 0,
        repeated_tokens: 0,
        note: None,
    };
    if let Some(why) = &submission.unreadable {
        student.note = Some(format!("nothing compared: {why}"));
        return (student, Vec::new(), Vec::new());
    }
    let mut files = Vec::new();
    let mut prints = Vec::new();
    let mut skipped = Vec::new();
    for file in &submission.files {
        let Some(language) = Language::of(&file.name) else {
            skipped.push(file.name.clone());
            continue;
        };
        if student.tokens >= MAX_TOKENS {
            skipped.push(file.name.clone());
            continue;
        }
        let mut tokens = tokenizer.tokens(&file.content, language);
        tokens.truncate(MAX_TOKENS - student.tokens);
        let hashes: Vec<u32> = tokens.iter().map(|t| t.hash).collect();
        let kgrams = winnow::kgram_hashes(&hashes, k);
        let mut base = vec![false; hashes.len()];
        for (i, h) in kgrams.iter().enumerate() {
            if base_kgrams.contains(h) {
                base[i..i + k].iter_mut().for_each(|b| *b = true);
            }
        }
        let repeated = winnow::echoes(&hashes, ECHO_PERIOD_KGRAMS * k, k);
        student.tokens += hashes.len();
        student.base_tokens += base.iter().filter(|&&b| b).count();
        student.repeated_tokens += base.iter().zip(&repeated).filter(|(&b, &r)| r && !b).count();
        student.files.push(file.name.clone());
        let repetitive = winnow::repetitive(&hashes, k, k / 3);
        let mut fingerprints = winnow::winnow(&kgrams, window);
        fingerprints.retain(|f| !repetitive[f.position] && !repeated[f.position]);
        prints.push(fingerprints);
        files.push(FileTokens {
            name: file.name.clone(),
            packed_lines: tokens.iter().map(|t| pack_lines(t.line, t.end_line)).collect(),
            hashes,
            base,
            repeated,
        });
    }
    if !skipped.is_empty() {
        let what = if student.files.is_empty() { "nothing compared" } else { "not compared" };
        let why = if student.tokens >= MAX_TOKENS {
            format!(" (over {MAX_TOKENS} tokens, or not C, Java or Python source)")
        } else {
            " (not C, Java or Python source)".to_owned()
        };
        student.note = Some(format!("{what}: {}{why}", skipped.join(", ")));
    } else if student.files.is_empty() {
        student.note = Some("nothing compared: no C, Java or Python source".to_owned());
    }
    (student, files, prints)
}

#[allow(clippy::too_many_arguments)]
fn pair_of(
    a: usize,
    b: usize,
    fingerprints: u32,
    tiles: &[Tile],
    a_files: &[FileTokens],
    b_files: &[FileTokens],
    students: &[Student],
    settings: &Settings,
) -> Option<Pair> {
    if tiles.is_empty() {
        return None;
    }
    let shared_tokens: usize = tiles.iter().map(|t| t.len as usize).sum();
    let (own_a, own_b) = (students[a].own_tokens(), students[b].own_tokens());
    let fraction = |own: usize| if own == 0 { 0.0 } else { (shared_tokens as f64 / own as f64).min(1.0) };
    let similarity =
        if own_a + own_b == 0 { 0.0 } else { (2 * shared_tokens) as f64 / (own_a + own_b) as f64 };
    let lines = |file: &FileTokens, start: u32, len: u32| {
        (file.lines(start as usize).0, file.lines((start + len - 1) as usize).1)
    };
    let regions = tiles
        .iter()
        .map(|t| {
            let (fa, fb) = (&a_files[t.a_file as usize], &b_files[t.b_file as usize]);
            Region {
                a_file: t.a_file as usize,
                a_lines: lines(fa, t.a_start, t.len),
                b_file: t.b_file as usize,
                b_lines: lines(fb, t.b_start, t.len),
                tokens: t.len as usize,
            }
        })
        .collect();
    Some(Pair {
        a,
        b,
        fingerprints,
        shared_tokens,
        a_fraction: fraction(own_a),
        b_fraction: fraction(own_b),
        similarity: similarity.min(1.0),
        regions,
        look: similarity >= settings.look_at,
    })
}

/// The groups of more than two students that pairs above the line join (connected components).
fn clusters(students: usize, pairs: &[Pair]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..students).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for pair in pairs.iter().filter(|p| p.look) {
        let (ra, rb) = (root(&mut parent, pair.a), root(&mut parent, pair.b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..students {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut clusters: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 2).collect();
    clusters.sort_by(|x, y| y.len().cmp(&x.len()).then(x.cmp(y)));
    clusters
}

/// `f` over `items` on every core, in order; each thread has its own `S` (a tokenizer).
fn parallel_map<T: Sync, S: Default, R: Send>(items: &[T], f: impl Fn(&mut S, &T) -> R + Sync) -> Vec<R> {
    let threads = crate::run::cores().min(items.len()).max(1);
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let f = &f;
                scope.spawn(move || {
                    let mut state = S::default();
                    part.iter().map(|item| f(&mut state, item)).collect::<Vec<R>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("the analysis does not panic")).collect()
    })
}
