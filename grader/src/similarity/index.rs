//! The class's inverted index of fingerprints: every student's fingerprints in one array sorted by
//! hash, so that the students holding a hash sit side by side. One pass over it finds every pair of
//! students that share a fingerprint, and how many they share, without comparing any two
//! submissions; a fingerprint that too many students hold is common code, not evidence, and is left
//! out of the pass (MOSS's `-m`).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::winnow::Fingerprint;

/// Where a fingerprint occurs: whose, in which of their files, at which token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Occurrence {
    /// The student's index in the class.
    pub student: u32,
    /// The file's index in the student's files.
    pub file: u32,
    /// The k-gram's first token in that file.
    pub position: u32,
}

/// One entry of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Posting {
    hash: u64,
    at: Occurrence,
}

/// The fingerprints of a whole class, sorted by hash.
#[derive(Debug, Default)]
pub struct Index {
    postings: Vec<Posting>,
    students: u32,
}

/// What one pass over the index finds.
#[derive(Debug, Default)]
pub struct Shared {
    /// For each pair of students (the lower index first) that share a fingerprint, how many distinct
    /// fingerprints they share.
    pub pairs: HashMap<(u32, u32), u32>,
    /// The hashes held by more students than the pass allowed: common code, left out.
    pub common: HashSet<u64>,
}

impl Index {
    /// An empty index.
    pub fn new() -> Index {
        Index::default()
    }

    /// Adds the fingerprints of one file of a student, except those `ignored` says to leave out (the
    /// base code's).
    pub fn add(&mut self, student: u32, file: u32, fingerprints: &[Fingerprint], ignored: &HashSet<u64>) {
        self.students = self.students.max(student + 1);
        self.postings.extend(fingerprints.iter().filter(|f| !ignored.contains(&f.hash)).map(|f| Posting {
            hash: f.hash,
            at: Occurrence { student, file, position: u32::try_from(f.position).unwrap_or(u32::MAX) },
        }));
    }

    /// Sorts the index: call once, after the last [`Index::add`] and before the pass.
    pub fn seal(&mut self) {
        self.postings.sort_unstable();
    }

    /// The number of fingerprints indexed.
    pub fn len(&self) -> usize {
        self.postings.len()
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.postings.is_empty()
    }

    /// One pass over the sealed index: for every hash, the distinct students holding it; a hash held
    /// by more than `most_students` is common and counted for no pair.
    pub fn shared(&self, most_students: usize) -> Shared {
        let mut shared = Shared::default();
        let mut holders: Vec<u32> = Vec::new();
        for run in self.runs() {
            holders.clear();
            holders.extend(run.iter().map(|p| p.at.student));
            holders.dedup();
            if holders.len() < 2 {
                continue;
            }
            if holders.len() > most_students {
                shared.common.insert(run[0].hash);
                continue;
            }
            for (i, &a) in holders.iter().enumerate() {
                for &b in &holders[i + 1..] {
                    *shared.pairs.entry((a, b)).or_insert(0) += 1;
                }
            }
        }
        shared
    }

    /// Each student's fingerprints that are evidence (held by another student, not common), sorted by
    /// hash: the seeds of a pair are where two of these lists meet.
    pub fn evidence(&self, shared: &Shared) -> Vec<Vec<(u64, Occurrence)>> {
        let mut by_student: Vec<Vec<(u64, Occurrence)>> = vec![Vec::new(); self.students as usize];
        for run in self.runs() {
            let first = run[0].at.student;
            if run.iter().all(|p| p.at.student == first) || shared.common.contains(&run[0].hash) {
                continue;
            }
            for p in run {
                by_student[p.at.student as usize].push((p.hash, p.at));
            }
        }
        by_student
    }

    /// How many distinct students hold each hash (for tests and for the report's numbers).
    pub fn holders(&self) -> BTreeMap<u64, usize> {
        self.runs()
            .map(|run| {
                let mut students: Vec<u32> = run.iter().map(|p| p.at.student).collect();
                students.dedup();
                (run[0].hash, students.len())
            })
            .collect()
    }

    /// The runs of postings of one hash.
    fn runs(&self) -> impl Iterator<Item = &[Posting]> {
        self.postings.chunk_by(|a, b| a.hash == b.hash)
    }
}

/// The occurrences two students' evidence lists have in common, hash by hash: every pairing of an
/// occurrence in `a` with one in `b`, at most `per_hash` of each side (a line repeated fifty times
/// is not fifty times the evidence).
pub fn seeds(
    a: &[(u64, Occurrence)],
    b: &[(u64, Occurrence)],
    per_hash: usize,
) -> Vec<(Occurrence, Occurrence)> {
    let mut seeds = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let hash = a[i].0;
                let a_end = i + a[i..].iter().take_while(|x| x.0 == hash).count();
                let b_end = j + b[j..].iter().take_while(|x| x.0 == hash).count();
                for x in a[i..a_end].iter().take(per_hash) {
                    for y in b[j..b_end].iter().take(per_hash) {
                        seeds.push((x.1, y.1));
                    }
                }
                (i, j) = (a_end, b_end);
            }
        }
    }
    seeds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprints(hashes: &[u64]) -> Vec<Fingerprint> {
        hashes.iter().enumerate().map(|(position, &hash)| Fingerprint { hash, position }).collect()
    }

    /// Every pair of students and the fingerprints they share, by comparing every pair of
    /// submissions: what the index must find without doing so.
    fn every_pair_compared(class: &[Vec<u64>], most_students: usize) -> HashMap<(u32, u32), u32> {
        let holders = |h: u64| class.iter().filter(|s| s.contains(&h)).count();
        let mut pairs = HashMap::new();
        for (a, fa) in class.iter().enumerate() {
            for (b, fb) in class.iter().enumerate().skip(a + 1) {
                let mut common: Vec<u64> =
                    fa.iter().copied().filter(|h| fb.contains(h) && holders(*h) <= most_students).collect();
                common.sort();
                common.dedup();
                if !common.is_empty() {
                    pairs.insert((a as u32, b as u32), common.len() as u32);
                }
            }
        }
        pairs
    }

    #[test]
    fn one_pass_over_the_index_finds_every_pair_that_comparing_all_pairs_finds() {
        // Twelve students drawing fingerprints from a small pool: many pairs, some hashes held by
        // many students, repeats within a student.
        let mut rng = fastrand::Rng::with_seed(27);
        let class: Vec<Vec<u64>> =
            (0..12).map(|_| (0..rng.usize(0..30)).map(|_| rng.u64(0..60)).collect()).collect();
        for most in [2, 4, 12] {
            let mut index = Index::new();
            for (student, hashes) in class.iter().enumerate() {
                index.add(student as u32, 0, &fingerprints(hashes), &HashSet::new());
            }
            index.seal();
            let shared = index.shared(most);
            assert_eq!(shared.pairs, every_pair_compared(&class, most), "at most {most} students");
            for hash in &shared.common {
                assert!(class.iter().filter(|s| s.contains(hash)).count() > most);
            }
        }
    }

    #[test]
    fn ignored_hashes_are_never_indexed() {
        let mut index = Index::new();
        let ignored: HashSet<u64> = [1, 2].into_iter().collect();
        index.add(0, 0, &fingerprints(&[1, 2, 3]), &ignored);
        index.add(1, 0, &fingerprints(&[1, 2, 4]), &ignored);
        index.seal();
        assert_eq!(index.len(), 2);
        assert!(index.shared(10).pairs.is_empty());
    }

    #[test]
    fn seeds_pair_the_occurrences_of_each_shared_hash() {
        let at = |student, position| Occurrence { student, file: 0, position };
        let a = [(1, at(0, 0)), (5, at(0, 3)), (5, at(0, 9)), (8, at(0, 4))];
        let b = [(2, at(1, 0)), (5, at(1, 7)), (8, at(1, 1)), (8, at(1, 2))];
        assert_eq!(
            seeds(&a, &b, 8),
            [(at(0, 3), at(1, 7)), (at(0, 9), at(1, 7)), (at(0, 4), at(1, 1)), (at(0, 4), at(1, 2))]
        );
        assert_eq!(seeds(&a, &b, 1), [(at(0, 3), at(1, 7)), (at(0, 4), at(1, 1))]);
    }
}
