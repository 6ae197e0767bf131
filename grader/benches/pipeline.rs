//! Benchmarks of the grading pipeline: comparison of large outputs, scenario expansion, and whole
//! gradings of the correct fixtures with a warm and a cold build cache.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use grader::build::BuildCache;
use grader::compare::{compare, CompareSpec, Extent, LinePattern, Normalization, Partial};
use grader::grade::{grade, GradeOptions};
use grader::load::load_assignment;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn compare_large_outputs(c: &mut Criterion) {
    let expected: String = (0..20_000).map(|i| format!("  Line {i}: R5 to G{}\n", i % 7)).collect();
    let mut actual = expected.clone();
    actual.insert_str(expected.len() / 2, "an extra line\n");
    let spec = CompareSpec {
        normalize: vec![Normalization::WhitespaceRuns, Normalization::BlankLines],
        partial: Partial::Hunks,
        lenient: vec![(Normalization::AllWhitespace, 0.9), (Normalization::Case, 0.5)],
        unordered: Some(LinePattern(regex::Regex::new(r"^\s*\S+ to \S+\s*$").unwrap())),
        ..CompareSpec::default()
    };
    c.bench_function("compare 20000 lines, one inserted in the middle", |b| {
        b.iter(|| compare(expected.as_bytes(), actual.as_bytes(), &spec, Extent::Whole))
    });
}

fn expand_long_game(c: &mut Criterion) {
    let table: toml::Table =
        "seed = 8080\nplayers = 4\npolicy = { seed = 8, illegal-every = 5 }\n".parse().unwrap();
    let trouble = reference::solution("trouble").unwrap();
    c.bench_function("expand a four-player Trouble game to a win", |b| {
        b.iter(|| trouble.expand_transcript(&table).unwrap())
    });
}

fn grade_correct_fixtures(c: &mut Criterion) {
    for id in ["trouble", "backgammon"] {
        let assignment = load_assignment(&repo().join("cases"), id).unwrap();
        let submission = repo().join("fixtures").join(id).join("correct");
        let mut group =
            c.benchmark_group(format!("grade fixtures/{id}/correct ({} cases)", assignment.cases.len()));
        group.sample_size(10);
        let warm = tempfile::tempdir().unwrap();
        let options = GradeOptions::new(BuildCache::new(warm.path()));
        grade(&assignment, &submission, &options).unwrap();
        group.bench_function("warm build cache", |b| {
            b.iter(|| grade(&assignment, &submission, &options).unwrap())
        });
        group.bench_function("cold build cache", |b| {
            b.iter(|| {
                let cold = tempfile::tempdir().unwrap();
                let options = GradeOptions::new(BuildCache::new(cold.path()));
                grade(&assignment, &submission, &options).unwrap()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, compare_large_outputs, expand_long_game, grade_correct_fixtures);
criterion_main!(benches);
