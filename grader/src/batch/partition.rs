//! Shares of a class for grading on several machines: `--partition hash:K/N` or `slice:K/N`, as
//! cargo-nextest shards its tests.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A stable share of a class: `hash:K/N` (by a hash of the id: stable as students come and go) or
/// `slice:K/N` (the K-th of N runs of the sorted ids). K counts from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Partition {
    /// Students whose id hashes to K modulo N.
    Hash {
        /// This share, 1..=n.
        k: usize,
        /// Shares in all.
        n: usize,
    },
    /// The K-th of N contiguous runs of the sorted ids.
    Slice {
        /// This share, 1..=n.
        k: usize,
        /// Shares in all.
        n: usize,
    },
}

impl std::str::FromStr for Partition {
    type Err = String;

    fn from_str(text: &str) -> Result<Partition, String> {
        let usage = || format!("`{text}` is not hash:K/N or slice:K/N with 1 <= K <= N");
        let (kind, share) = text.split_once(':').ok_or_else(usage)?;
        let (k, n) = share.split_once('/').ok_or_else(usage)?;
        let (k, n): (usize, usize) = (k.parse().map_err(|_| usage())?, n.parse().map_err(|_| usage())?);
        if !(1..=n).contains(&k) {
            return Err(usage());
        }
        match kind {
            "hash" => Ok(Partition::Hash { k, n }),
            "slice" => Ok(Partition::Slice { k, n }),
            _ => Err(usage()),
        }
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Partition::Hash { k, n } => write!(f, "hash:{k}/{n}"),
            Partition::Slice { k, n } => write!(f, "slice:{k}/{n}"),
        }
    }
}

impl Partition {
    /// Whether the student with this id, at this place among `of` sorted ids, is in the share.
    pub fn contains(self, id: &str, index: usize, of: usize) -> bool {
        match self {
            Partition::Hash { k, n } => {
                let hash = blake3::hash(id.as_bytes());
                let value = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
                (value % n as u64) as usize == k - 1
            }
            Partition::Slice { k, n } => index * n / of.max(1) == k - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_and_print_back() {
        for text in ["hash:1/4", "slice:3/3"] {
            assert_eq!(text.parse::<Partition>().unwrap().to_string(), text);
        }
        for bad in ["hash:0/4", "slice:5/4", "hash:1", "mod:1/2", "hash:a/b"] {
            assert!(bad.parse::<Partition>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_shares_of_a_partition_cover_the_class_once() {
        let ids: Vec<String> = (0..103).map(|i| format!("student{i}")).collect();
        for kind in ["hash", "slice"] {
            let mut seen = vec![0; ids.len()];
            for k in 1..=4 {
                let p: Partition = format!("{kind}:{k}/4").parse().unwrap();
                for (i, id) in ids.iter().enumerate() {
                    seen[i] += usize::from(p.contains(id, i, ids.len()));
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{kind}: {seen:?}");
        }
    }
}
