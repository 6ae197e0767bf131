//! A class split between teaching assistants: `--tas alice,bob` (contiguous shares in the class
//! page's order) or `--split FILE` (`alice = ["a01..a20", "b07"]`: ids and inclusive ranges).

use std::collections::BTreeMap;
use std::path::Path;

use crate::gradebook::natural_order;

/// Which teaching assistant grades which student.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Split {
    by_id: BTreeMap<String, String>,
}

impl Split {
    /// The teaching assistant `id` is given to.
    pub fn ta_of(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(String::as_str)
    }

    /// Whether the class is split at all.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// `ids` (the class) in even contiguous shares, one per name, in the class page's order.
    pub fn even(tas: &[String], ids: &[String]) -> Split {
        let mut ids = ids.to_vec();
        ids.sort_by(|a, b| natural_order(a, b));
        let mut by_id = BTreeMap::new();
        if tas.is_empty() {
            return Split { by_id };
        }
        for (i, id) in ids.iter().enumerate() {
            by_id.insert(id.clone(), tas[i * tas.len() / ids.len()].clone());
        }
        Split { by_id }
    }

    /// A split file: a TOML table of names, each a list of ids and inclusive ranges `first..last` (in
    /// the class page's order). An id the class lacks, or given twice, is an error naming it.
    pub fn read(path: &Path, ids: &[String]) -> Result<Split, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let table: BTreeMap<String, Vec<String>> = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", path.display(), e.message()))
            .map_err(|e| format!("{e} (expected lines like `alice = [\"a01..a20\", \"b07\"]`)"))?;
        let mut ordered = ids.to_vec();
        ordered.sort_by(|a, b| natural_order(a, b));
        let position = |id: &str| {
            ordered
                .iter()
                .position(|known| known == id)
                .ok_or_else(|| format!("{}: no student `{id}` in the class", path.display()))
        };
        let mut by_id: BTreeMap<String, String> = BTreeMap::new();
        for (ta, shares) in &table {
            for share in shares {
                let (first, last) = share.split_once("..").unwrap_or((share, share));
                let (from, to) = (position(first.trim())?, position(last.trim())?);
                if from > to {
                    return Err(format!("{}: the range `{share}` of {ta} is empty", path.display()));
                }
                for id in &ordered[from..=to] {
                    if let Some(other) = by_id.insert(id.clone(), ta.clone()) {
                        return Err(format!("{}: {id} is given to both {other} and {ta}", path.display()));
                    }
                }
            }
        }
        Ok(Split { by_id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> Vec<String> {
        ["s10", "s2", "s1", "s3", "s4"].map(str::to_owned).to_vec()
    }

    #[test]
    fn names_share_the_class_evenly_in_its_order() {
        let split = Split::even(&["ann".into(), "bo".into()], &ids());
        let shares: Vec<&str> =
            ["s1", "s2", "s3", "s4", "s10"].iter().map(|id| split.ta_of(id).unwrap()).collect();
        assert_eq!(shares, ["ann", "ann", "ann", "bo", "bo"]);
    }

    #[test]
    fn a_split_file_gives_ranges_and_ids_and_refuses_what_the_class_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("split.toml");
        std::fs::write(&path, "ann = [\"s1..s3\"]\nbo = [\"s10\"]\n").unwrap();
        let split = Split::read(&path, &ids()).unwrap();
        assert_eq!(split.ta_of("s2"), Some("ann"));
        assert_eq!(split.ta_of("s10"), Some("bo"));
        assert_eq!(split.ta_of("s4"), None);
        std::fs::write(&path, "ann = [\"s1..s3\"]\nbo = [\"s3\"]\n").unwrap();
        assert!(Split::read(&path, &ids()).unwrap_err().ends_with("s3 is given to both ann and bo"));
        std::fs::write(&path, "ann = [\"s1..s99\"]\n").unwrap();
        assert!(Split::read(&path, &ids()).unwrap_err().ends_with("no student `s99` in the class"));
    }
}
