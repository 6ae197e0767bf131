//! What the reference's integration tests share: the committed case files of an assignment.

use std::path::{Path, PathBuf};

/// Every case file `cases/<assignment>/<category>/<name>.toml`, sorted; at least `at_least` of them.
pub fn case_files(assignment: &str, at_least: usize) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases").join(assignment);
    let mut paths = Vec::new();
    for category in std::fs::read_dir(&root).unwrap() {
        let category = category.unwrap().path();
        if !category.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&category).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "toml") {
                paths.push(file);
            }
        }
    }
    paths.sort();
    assert!(paths.len() >= at_least, "{} case files under {}", paths.len(), root.display());
    paths
}
