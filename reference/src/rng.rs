//! Random number generators of the course templates and of the C library, reproduced bit for bit.
//!
//! A transcript is only predictable if the reference rolls exactly the dice a student's program rolls,
//! so each generator here copies its template's arithmetic, overflow and sign included.

/// The Trouble template's die (`seedRandom`, `pop_o_matic`): an xorshift on one signed 32-bit C `int`.
///
/// The shifts right are arithmetic (they copy the sign bit), the shift left wraps, exactly as the
/// template's C does on every platform the course uses. See `shared/specs/trouble.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TroubleRng {
    state: i32,
}

impl TroubleRng {
    /// A generator in the template's initial state: 0, which yields a roll of 1 for ever until seeded.
    pub fn new() -> Self {
        Self { state: 0 }
    }

    /// The template's `seedRandom`: sets the state to `seed`, except that a seed of 0 is ignored.
    pub fn seed(&mut self, seed: i32) {
        if seed != 0 {
            self.state = seed;
        }
    }

    /// The current state (the template's global `int`).
    pub fn state(&self) -> i32 {
        self.state
    }

    /// One xorshift step; returns the new state with its sign bit cleared (`s & INT_MAX`).
    pub fn step(&mut self) -> i32 {
        let mut s = self.state;
        s ^= s >> 7;
        s ^= s.wrapping_shl(9);
        s ^= s >> 13;
        self.state = s;
        s & i32::MAX
    }

    /// The template's `pop_o_matic`: one die roll, `step() % 6 + 1`, in 1..=6.
    pub fn roll(&mut self) -> u8 {
        // step() is non-negative, so the remainder is 0..=5 and the cast cannot truncate.
        (self.step() % 6 + 1) as u8
    }
}

/// Degree of glibc's default generator (`TYPE_3`): the number of 32-bit words of state.
const GLIBC_DEGREE: usize = 31;
/// Separation of glibc's two pointers into the state (`SEP_3`).
const GLIBC_SEPARATION: usize = 3;
/// Outputs `srandom` throws away after filling the state (`10 * degree`).
const GLIBC_DISCARD: usize = 10 * GLIBC_DEGREE;

/// glibc's `random()` with its default state size (`TYPE_3`), seeded as `srandom` seeds it.
///
/// An unseeded C program draws the sequence of `srandom(1)`, which [`GlibcRandom::default`] gives.
/// The backgammon handout's `roll_die` is `random() % 6 + 1` ([`GlibcRandom::roll_die`]); see
/// `shared/specs/backgammon.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlibcRandom {
    /// `r[0..31]`, as signed words: `srandom` stores them as `int32_t`.
    state: [i32; GLIBC_DEGREE],
    /// Index of glibc's `fptr`, the word that receives each sum.
    front: usize,
    /// Index of glibc's `rptr`, the word added to it.
    rear: usize,
}

impl Default for GlibcRandom {
    /// The generator of a program that never calls `srandom`: the same as `srandom(1)`.
    fn default() -> Self {
        Self::new(1)
    }
}

impl GlibcRandom {
    /// The generator after `srandom(seed)`; a seed of 0 behaves as 1, as in glibc.
    pub fn new(seed: u32) -> Self {
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = [0; GLIBC_DEGREE];
        // glibc keeps the seed in an int32_t, so seeds past i32::MAX start negative (a deliberate
        // wrap), and fills the state with Schrage's form of 16807 * word mod (2^31 - 1) on signed
        // values: C's `/` and `%` truncate toward zero, exactly as Rust's do.
        let mut word = seed as i32;
        state[0] = word;
        for slot in state.iter_mut().skip(1) {
            let (hi, lo) = (word / 127_773, word % 127_773);
            // lo and hi share the sign of word, so the two terms have opposite signs and the
            // difference is no larger than |16807 * lo| <= 16807 * 127772 < 2^31: no overflow.
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += i32::MAX;
            }
            *slot = word;
        }
        let mut rng = Self { state, front: GLIBC_SEPARATION, rear: 0 };
        for _ in 0..GLIBC_DISCARD {
            rng.next();
        }
        rng
    }

    /// One `random()` call: a number in `0..=i32::MAX`.
    #[allow(clippy::should_implement_trait)] // not an Iterator: the sequence never ends
    pub fn next(&mut self) -> i32 {
        let sum = (self.state[self.front] as u32).wrapping_add(self.state[self.rear] as u32);
        self.state[self.front] = sum as i32;
        self.front = (self.front + 1) % GLIBC_DEGREE;
        self.rear = (self.rear + 1) % GLIBC_DEGREE;
        // The lowest bit is dropped ("chucking least random bit"), so the result fits an i32.
        (sum >> 1) as i32
    }

    /// The backgammon handout's `roll_die()`: `random() % 6 + 1`, in 1..=6.
    pub fn roll_die(&mut self) -> u8 {
        // next() is non-negative, so the remainder is 0..=5 and the cast cannot truncate.
        (self.next() % 6 + 1) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::{GlibcRandom, TroubleRng};

    #[test]
    fn seed_1234_rolls_the_dice_of_the_handout_sample_run() {
        let expected =
            [5, 2, 6, 5, 3, 1, 4, 4, 5, 6, 1, 2, 3, 6, 1, 5, 4, 2, 1, 3, 3, 3, 5, 1, 3, 4, 2, 5, 6, 4, 6, 1];
        let mut rng = TroubleRng::new();
        rng.seed(1234);
        let rolls: Vec<u8> = (0..expected.len()).map(|_| rng.roll()).collect();
        assert_eq!(rolls, expected);
    }

    #[test]
    fn seed_0_is_ignored_and_every_roll_is_1() {
        let mut rng = TroubleRng::new();
        rng.seed(0);
        assert_eq!(rng.state(), 0);
        assert!((0..100).all(|_| rng.roll() == 1));
    }

    #[test]
    fn negative_states_shift_arithmetically() {
        let mut rng = TroubleRng::new();
        rng.seed(-2);
        // -2 >> 7 is -1 (sign-extended), so the first xor flips every bit: -2 ^ -1 = 1.
        // Then 1 ^ (1 << 9) = 513, and 513 >> 13 = 0.
        assert_eq!(rng.step(), 513);
    }
    #[test]
    fn an_unseeded_glibc_random_gives_the_c_library_sequence() {
        let mut rng = GlibcRandom::default();
        let first: Vec<i32> = (0..6).map(|_| rng.next()).collect();
        assert_eq!(first, [1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335]);
    }

    #[test]
    fn the_default_sequence_rolls_the_dice_of_an_unmodified_backgammon_program() {
        let mut rng = GlibcRandom::default();
        let dice: Vec<(u8, u8)> = (0..4).map(|_| (rng.roll_die(), rng.roll_die())).collect();
        assert_eq!(dice, [(2, 5), (4, 2), (6, 2), (5, 1)]);
    }

    #[test]
    fn srandom_0_behaves_as_srandom_1() {
        assert_eq!(GlibcRandom::new(0), GlibcRandom::new(1));
        assert_eq!(GlibcRandom::new(1), GlibcRandom::default());
    }

    #[test]
    fn seeds_match_glibc_including_those_past_i32_max() {
        // Printed by glibc 2.x: srandom(seed), then random() three times.
        let cases: [(u32, [i32; 3]); 6] = [
            (2, [1505335290, 1738766719, 190686788]),
            (12345, [383100999, 858300821, 357768173]),
            (2147483647, [1065668062, 2142264300, 1066566375]),
            (2147483648, [1336741213, 1210407648, 1447044896]),
            (3000000000, [2058147116, 854483408, 922419988]),
            (4294967295, [254925627, 1205188300, 366127624]),
        ];
        for (seed, expected) in cases {
            let mut rng = GlibcRandom::new(seed);
            let got = [rng.next(), rng.next(), rng.next()];
            assert_eq!(got, expected, "srandom({seed})");
        }
    }

    #[test]
    fn the_ring_buffer_agrees_with_the_recurrence_of_the_spec() {
        // shared/specs/backgammon.md: r[i] = r[i-31] + r[i-3] from i = 34, output k is r[k + 344] >> 1.
        for seed in [1u32, 7, 2147483648, 4294967295] {
            // The seed as glibc's int32_t, then 16807 * r mod (2^31 - 1) with C's signed remainder.
            let mut r: Vec<u32> = vec![seed as i32 as u32];
            for i in 1..31 {
                let mut word = (16_807 * i64::from(r[i - 1] as i32)) % 2_147_483_647;
                if word < 0 {
                    word += 2_147_483_647;
                }
                r.push(word as u32);
            }
            for i in 31..34 {
                r.push(r[i - 31]);
            }
            for i in 34..344 + 100 {
                r.push(r[i - 31].wrapping_add(r[i - 3]));
            }
            let mut rng = GlibcRandom::new(seed);
            for k in 0..100 {
                assert_eq!(rng.next() as u32, r[k + 344] >> 1, "seed {seed}, output {k}");
            }
        }
    }
}
