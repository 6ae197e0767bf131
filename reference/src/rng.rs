//! Random number generators of the course templates, reproduced bit for bit.
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

#[cfg(test)]
mod tests {
    use super::TroubleRng;

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
}
