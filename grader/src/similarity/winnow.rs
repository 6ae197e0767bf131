//! Fingerprints of a token sequence by winnowing (Schleimer, Wilkerson and Aiken, *Winnowing: Local
//! Algorithms for Document Fingerprinting*, SIGMOD 2003), the algorithm of MOSS and Dolos.
//!
//! Every run of `k` tokens (a k-gram) is hashed; of every `window` consecutive k-gram hashes the
//! smallest is kept, with its position, as a fingerprint. Two sequences that share a run of at least
//! `window + k - 1` tokens share a fingerprint from it; runs shorter than `k` never match (the noise
//! threshold). Robust winnowing breaks ties by keeping the hash the previous window kept, so a run of
//! equal hashes (a table of repeated statements) gives one fingerprint per window rather than one per
//! position.

/// The base of the k-gram hash: `h = t[0]·B^(k-1) + t[1]·B^(k-2) + ... + t[k-1]`, wrapping at 2^64.
pub const HASH_BASE: u64 = 0x0000_0100_0000_01b3;

/// A selected k-gram: its hash and where it starts (the index of its first token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fingerprint {
    /// The k-gram's hash.
    pub hash: u64,
    /// The index of the k-gram's first token in its file.
    pub position: usize,
}

/// The hash of every k-gram of `tokens`, in order (`tokens.len() - k + 1` of them; none when there
/// are fewer than `k` tokens). Computed rolling, in one pass.
pub fn kgram_hashes<T: Copy + Into<u64>>(tokens: &[T], k: usize) -> Vec<u64> {
    if k == 0 || tokens.len() < k {
        return Vec::new();
    }
    let t = |i: usize| -> u64 { tokens[i].into() };
    // B^(k-1): what the token leaving the k-gram weighed.
    let top = (1..k).fold(1u64, |p, _| p.wrapping_mul(HASH_BASE));
    let mut hash = (0..k).fold(0u64, |h, i| h.wrapping_mul(HASH_BASE).wrapping_add(t(i)));
    let mut hashes = Vec::with_capacity(tokens.len() - k + 1);
    hashes.push(hash);
    for i in k..tokens.len() {
        hash = hash.wrapping_sub(t(i - k).wrapping_mul(top)).wrapping_mul(HASH_BASE).wrapping_add(t(i));
        hashes.push(hash);
    }
    hashes
}

/// Which k-grams of `tokens` are one short pattern repeated: for each k-gram (by its first token),
/// whether it has a period of at most `max_period` tokens (`#define ID NUM` line after line, `printf`
/// after `printf`). Such a run says little of who wrote it, however long it is: a table of constants
/// or a drawing made of output calls looks the same in independent programs.
pub fn repetitive<T: PartialEq>(tokens: &[T], k: usize, max_period: usize) -> Vec<bool> {
    let count = (tokens.len() + 1).saturating_sub(k.max(1));
    let mut repetitive = vec![false; count];
    for period in 1..=max_period.min(k.saturating_sub(1)) {
        // equal[i]: how many tokens from i on equal the token `period` places further.
        let mut equal = vec![0usize; tokens.len() + 1];
        for i in (0..tokens.len().saturating_sub(period)).rev() {
            equal[i] = if tokens[i] == tokens[i + period] { equal[i + 1] + 1 } else { 0 };
        }
        for (i, flag) in repetitive.iter_mut().enumerate() {
            *flag |= equal[i] >= k - period;
        }
    }
    repetitive
}

/// Which tokens come again right after themselves: token `i` is flagged when the `period` tokens
/// from it are followed at once by the same `period` tokens, for some period of at most
/// `max_period`, in a periodic stretch of at least `min_run` tokens. In a stretch of one pattern
/// repeated (a sample game written as `move(b, 5, 3, 4, 3, white); display_board(b);` forty times
/// over: 20 tokens a period, the numbers one token class) all but the last copy or two is flagged,
/// so the stretch counts about once, however many times it repeats: independent programs written to
/// one handout repeat the same calls.
pub fn echoes<T: PartialEq>(tokens: &[T], max_period: usize, min_run: usize) -> Vec<bool> {
    let mut echoes = vec![false; tokens.len()];
    let mut equal = vec![0usize; tokens.len() + 1];
    for period in 1..=max_period.min(tokens.len() / 2) {
        // equal[i]: how many tokens from i on equal the token `period` places further.
        equal[tokens.len() - period..].iter_mut().for_each(|e| *e = 0);
        for i in (0..tokens.len() - period).rev() {
            equal[i] = if tokens[i] == tokens[i + period] { equal[i + 1] + 1 } else { 0 };
        }
        for (i, flag) in echoes.iter_mut().enumerate() {
            // From i, a whole period comes again, in a stretch at least `min_run` long.
            *flag |= equal[i] >= period && equal[i] + period >= min_run;
        }
    }
    echoes
}

/// Robust winnowing of `hashes` with windows of `window` hashes: in each window the minimum, ties
/// broken by keeping the previous window's choice while it is in the window, else by the rightmost.
/// A sequence shorter than a window is one window. Fingerprints come out in position order, each
/// position once.
pub fn winnow(hashes: &[u64], window: usize) -> Vec<Fingerprint> {
    let window = window.max(1).min(hashes.len());
    let mut fingerprints = Vec::new();
    if window == 0 {
        return fingerprints;
    }
    let rightmost_minimum = |from: usize, to: usize| {
        (from..=to).fold(from, |best, i| if hashes[i] <= hashes[best] { i } else { best })
    };
    let mut chosen = rightmost_minimum(0, window - 1);
    fingerprints.push(Fingerprint { hash: hashes[chosen], position: chosen });
    for end in window..hashes.len() {
        let start = end + 1 - window;
        let before = chosen;
        if chosen < start {
            chosen = rightmost_minimum(start, end);
        } else if hashes[end] < hashes[chosen] {
            // Strictly smaller: an equal hash keeps the previous choice (the robust rule).
            chosen = end;
        }
        if chosen != before {
            fingerprints.push(Fingerprint { hash: hashes[chosen], position: chosen });
        }
    }
    fingerprints
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(fingerprints: &[Fingerprint]) -> Vec<(u64, usize)> {
        fingerprints.iter().map(|f| (f.hash, f.position)).collect()
    }

    #[test]
    fn the_papers_example_gives_the_papers_fingerprints() {
        // Schleimer, Wilkerson and Aiken 2003, figure 2: hashes of the 5-grams of "A do run run run,
        // a do run run", windows of 4; fingerprints {17 17 8 39 17} at positions [3, 6, 8, 11, 15].
        let hashes = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98];
        assert_eq!(positions(&winnow(&hashes, 4)), [(17, 3), (17, 6), (8, 8), (39, 11), (17, 15)]);
    }

    #[test]
    fn robust_winnowing_keeps_one_fingerprint_per_window_of_a_run_of_equal_hashes() {
        // Plain winnowing (rightmost minimum) would take positions 2, 3, 4, 5, 6, 7.
        let hashes = [5; 8];
        assert_eq!(positions(&winnow(&hashes, 3)), [(5, 2), (5, 5)]);
        // A strictly smaller hash is taken as soon as it enters the window.
        let hashes = [9, 4, 7, 3, 8];
        assert_eq!(positions(&winnow(&hashes, 3)), [(4, 1), (3, 3)]);
    }

    #[test]
    fn a_sequence_shorter_than_a_window_is_one_window() {
        assert_eq!(positions(&winnow(&[6, 2, 9], 10)), [(2, 1)]);
        assert!(winnow(&[], 4).is_empty());
    }

    #[test]
    fn a_pattern_repeated_in_place_counts_once_its_last_copy_kept() {
        // Forty copies of a 20-token pattern, between other tokens.
        let pattern: Vec<u32> = (100..120).collect();
        let mut tokens: Vec<u32> = (0..10).collect();
        tokens.extend(pattern.iter().cycle().take(20 * 40));
        tokens.extend(200..210);
        let flags = echoes(&tokens, 60, 30);
        let flagged: Vec<usize> = (0..tokens.len()).filter(|&i| flags[i]).collect();
        // Every token from which a whole copy comes again: all but the last copy and a period less
        // one token (10 to 770 of the copies' 10 to 809).
        assert_eq!(flagged, (10..=770).collect::<Vec<_>>());
        // A pattern that comes twice in a stretch shorter than the run asked for is no echo, nor is a
        // period longer than allowed.
        let twice: Vec<u32> = (0..5).chain(0..5).chain(50..60).collect();
        assert!(echoes(&twice, 60, 30).iter().all(|&f| !f));
        assert!(echoes(&tokens, 19, 30)[10..790].iter().all(|&f| !f));
    }

    #[test]
    fn a_kgram_made_of_one_short_pattern_repeated_is_repetitive() {
        // `#define ID NUM ;`-like: one pattern of four tokens four times, then other tokens.
        let tokens = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 9, 8, 7, 6, 5];
        let flags = repetitive(&tokens, 8, 4);
        // The k-grams starting at 0..=8 lie inside the repeats; from 9 on they reach the other tokens.
        assert_eq!(
            flags,
            [true, true, true, true, true, true, true, true, true, false, false, false, false, false]
        );
        // A longer period than allowed is not repetitive.
        assert!(repetitive(&tokens, 8, 3).iter().all(|&f| !f));
        assert!(repetitive(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4, 3).iter().all(|&f| !f));
    }

    #[test]
    fn kgram_hashes_are_the_polynomial_of_their_tokens() {
        let b = HASH_BASE;
        assert_eq!(kgram_hashes(&[1u64, 2, 3], 2), [b + 2, 2 * b + 3]);
        assert_eq!(kgram_hashes(&[1u64, 2, 3], 3), [b.wrapping_mul(b) + 2 * b + 3]);
        assert!(kgram_hashes(&[1u64, 2], 3).is_empty());
    }

    #[test]
    fn rolling_hashes_equal_hashes_computed_afresh() {
        let tokens: Vec<u64> =
            (0..200u64).map(|i| crate::similarity::tokens::fnv1a(&i.to_le_bytes())).collect();
        for k in [1, 2, 7, 25] {
            let rolled = kgram_hashes(&tokens, k);
            let afresh: Vec<u64> = tokens
                .windows(k)
                .map(|w| w.iter().fold(0u64, |h, &t| h.wrapping_mul(HASH_BASE).wrapping_add(t)))
                .collect();
            assert_eq!(rolled, afresh, "k = {k}");
        }
    }

    #[test]
    fn a_shared_run_of_window_plus_k_minus_one_tokens_shares_a_fingerprint() {
        let noise = |seed: u64, n: u64| -> Vec<u64> {
            (0..n).map(|i| crate::similarity::tokens::fnv1a(&(seed * 1000 + i).to_le_bytes())).collect()
        };
        let (k, window) = (5, 4);
        let shared = noise(7, (window + k - 1) as u64);
        for (before_a, before_b) in [(0, 0), (3, 11), (17, 2)] {
            let a: Vec<u64> = [noise(1, before_a), shared.clone(), noise(2, 9)].concat();
            let b: Vec<u64> = [noise(3, before_b), shared.clone(), noise(4, 13)].concat();
            let fa: Vec<u64> = winnow(&kgram_hashes(&a, k), window).iter().map(|f| f.hash).collect();
            let fb: Vec<u64> = winnow(&kgram_hashes(&b, k), window).iter().map(|f| f.hash).collect();
            assert!(fa.iter().any(|h| fb.contains(h)), "offsets {before_a}, {before_b}");
        }
    }
}
