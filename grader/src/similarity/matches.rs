//! What two submissions share, token by token: each seed (a fingerprint both hold) grown into the
//! longest run of equal tokens around it, then the runs laid as tiles that overlap nowhere on either
//! side, longest first (greedy string tiling, as JPlag does). Each tile is one highlighted region of
//! the side-by-side view, and what the tiles cover is the shared fraction of each submission.

use super::index::Occurrence;

/// The tokens of one file as the matching sees them.
pub trait TokenRun {
    /// The tokens' hashes.
    fn hashes(&self) -> &[u32];
    /// Whether the token at `i` is base code (never part of a match).
    fn is_base(&self, i: usize) -> bool;
}

/// A run of tokens found in both submissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    /// The file of the first submission.
    pub a_file: u32,
    /// Its first token there.
    pub a_start: u32,
    /// The file of the second submission.
    pub b_file: u32,
    /// Its first token there.
    pub b_start: u32,
    /// Its length in tokens.
    pub len: u32,
}

/// The tiles two submissions share, longest first, none shorter than `min_len` tokens: `seeds` are
/// the places where both hold the same fingerprint (a k-gram of `min_len` tokens).
pub fn tiles<F: TokenRun>(a: &[F], b: &[F], seeds: &[(Occurrence, Occurrence)], min_len: usize) -> Vec<Tile> {
    let min_len = min_len.max(1);
    let equal = |fa: usize, i: usize, fb: usize, j: usize| {
        a[fa].hashes()[i] == b[fb].hashes()[j] && !a[fa].is_base(i) && !b[fb].is_base(j)
    };
    // Seeds by diagonal: a run grown from one seed swallows the later seeds of its diagonal.
    let mut seeds: Vec<(u32, u32, i64, u32, u32)> = seeds
        .iter()
        .map(|(x, y)| (x.file, y.file, i64::from(x.position) - i64::from(y.position), x.position, y.position))
        .collect();
    seeds.sort_unstable();
    let mut runs: Vec<Tile> = Vec::new();
    let mut covered: Option<(u32, u32, i64, u32)> = None;
    for (fa, fb, diagonal, pa, pb) in seeds {
        if covered.is_some_and(|(cf, cg, cd, end)| (cf, cg, cd) == (fa, fb, diagonal) && pa < end) {
            continue;
        }
        let (fa_i, fb_i) = (fa as usize, fb as usize);
        let (na, nb) = (a[fa_i].hashes().len(), b[fb_i].hashes().len());
        let (pa, pb) = (pa as usize, pb as usize);
        if pa >= na || pb >= nb || !equal(fa_i, pa, fb_i, pb) {
            continue;
        }
        let mut start = 0;
        while pa > start && pb > start && equal(fa_i, pa - start - 1, fb_i, pb - start - 1) {
            start += 1;
        }
        let mut end = 1;
        while pa + end < na && pb + end < nb && equal(fa_i, pa + end, fb_i, pb + end) {
            end += 1;
        }
        let len = start + end;
        covered = Some((fa, fb, diagonal, (pa + end) as u32));
        if len >= min_len {
            runs.push(Tile {
                a_file: fa,
                a_start: (pa - start) as u32,
                b_file: fb,
                b_start: (pb - start) as u32,
                len: len as u32,
            });
        }
    }
    lay_tiles(runs, min_len)
}

/// Greedy tiling: the runs from the longest, each cut to the parts where neither side is taken yet,
/// the parts of at least `min_len` tokens kept. What is taken is the tiles laid so far, compared as
/// intervals: a pair has tens of runs, not thousands, and files have thousands of tokens.
fn lay_tiles(mut runs: Vec<Tile>, min_len: usize) -> Vec<Tile> {
    runs.sort_by(|x, y| {
        y.len
            .cmp(&x.len)
            .then((x.a_file, x.a_start, x.b_file, x.b_start).cmp(&(y.a_file, y.a_start, y.b_file, y.b_start)))
    });
    let mut tiles: Vec<Tile> = Vec::new();
    let mut blocked: Vec<(u32, u32)> = Vec::new();
    for run in runs {
        // The offsets of the run that a tile already laid takes, on either side.
        blocked.clear();
        for tile in &tiles {
            let overlap = |file: u32, start: u32, tile_file: u32, tile_start: u32| {
                let (from, to) = (start.max(tile_start), (start + run.len).min(tile_start + tile.len));
                (file == tile_file && from < to).then(|| (from - start, to - start))
            };
            blocked.extend(overlap(run.a_file, run.a_start, tile.a_file, tile.a_start));
            blocked.extend(overlap(run.b_file, run.b_start, tile.b_file, tile.b_start));
        }
        blocked.sort_unstable();
        let mut free_from = 0;
        let mut parts = Vec::new();
        for &(from, to) in blocked.iter().chain(std::iter::once(&(run.len, run.len))) {
            if from > free_from && (from - free_from) as usize >= min_len {
                parts.push(Tile {
                    a_start: run.a_start + free_from,
                    b_start: run.b_start + free_from,
                    len: from - free_from,
                    ..run
                });
            }
            free_from = free_from.max(to);
        }
        tiles.extend(parts);
    }
    tiles.sort_by(|x, y| y.len.cmp(&x.len).then((x.a_file, x.a_start).cmp(&(y.a_file, y.a_start))));
    tiles
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain(Vec<u32>, Vec<bool>);

    impl TokenRun for Plain {
        fn hashes(&self) -> &[u32] {
            &self.0
        }
        fn is_base(&self, i: usize) -> bool {
            self.1[i]
        }
    }

    fn file(tokens: &[u32]) -> Plain {
        Plain(tokens.to_vec(), vec![false; tokens.len()])
    }

    fn seed(a: u32, b: u32) -> (Occurrence, Occurrence) {
        (Occurrence { student: 0, file: 0, position: a }, Occurrence { student: 1, file: 0, position: b })
    }

    #[test]
    fn a_seed_grows_into_the_whole_run_of_equal_tokens() {
        let a = [file(&[9, 1, 2, 3, 4, 5, 8])];
        let b = [file(&[7, 7, 1, 2, 3, 4, 5, 6])];
        let tiles = tiles(&a, &b, &[seed(3, 4), seed(2, 3)], 3);
        assert_eq!(tiles, [Tile { a_file: 0, a_start: 1, b_file: 0, b_start: 2, len: 5 }]);
    }

    #[test]
    fn tiles_never_overlap_and_the_longest_is_laid_first() {
        // b repeats a's run: a's tokens are matched once, to the longer copy.
        let a = [file(&[1, 2, 3, 4, 5, 6])];
        let b = [file(&[1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6])];
        let tiles = tiles(&a, &b, &[seed(0, 0), seed(0, 5)], 3);
        assert_eq!(tiles, [Tile { a_file: 0, a_start: 0, b_file: 0, b_start: 5, len: 6 }]);
    }

    #[test]
    fn base_tokens_end_a_run_and_a_seed_on_them_is_no_seed() {
        let mut a = file(&[1, 2, 3, 4, 5, 6, 7, 8]);
        a.1[4] = true;
        let b = [file(&[1, 2, 3, 4, 5, 6, 7, 8])];
        let tiles = tiles(&[a], &b, &[seed(0, 0), seed(4, 4), seed(5, 5)], 3);
        assert_eq!(
            tiles,
            [
                Tile { a_file: 0, a_start: 0, b_file: 0, b_start: 0, len: 4 },
                Tile { a_file: 0, a_start: 5, b_file: 0, b_start: 5, len: 3 }
            ]
        );
    }

    #[test]
    fn a_run_that_overlaps_laid_tiles_keeps_its_free_parts_long_enough() {
        let tile = |a_start, b_start, len| Tile { a_file: 0, a_start, b_file: 0, b_start, len };
        let runs = vec![
            tile(100, 200, 20),
            // Side a overlaps the first tile in its last 6 tokens: the first 10 are kept.
            tile(90, 0, 16),
            // Side b overlaps the first tile from its 6th token: 5 are kept.
            tile(300, 195, 12),
            // Overlaps nothing.
            tile(500, 500, 9),
            // Side a lies inside the first tile, side b inside the second: nothing is kept.
            tile(105, 3, 6),
            // Free, but for 2 tokens at its start: 3 left, too few.
            tile(118, 600, 5),
        ];
        assert_eq!(
            lay_tiles(runs, 4),
            [tile(100, 200, 20), tile(90, 0, 10), tile(500, 500, 9), tile(300, 195, 5)]
        );
    }

    #[test]
    fn runs_shorter_than_the_minimum_are_no_tiles() {
        let a = [file(&[1, 2, 9, 3])];
        let b = [file(&[1, 2, 8, 3])];
        assert!(tiles(&a, &b, &[seed(0, 0)], 3).is_empty());
    }
}
