//! Points as reports show them: rounded to hundredths, bonus points in words. Shared by the score
//! stage, the report and the gradebook, so that none of them imports another for it.

/// Rounds points for reports: two decimals.
pub fn round(points: f64) -> f64 {
    (points * 100.0).round() / 100.0
}

/// The words after a total with bonus points in it, for reports and gradebooks alike.
pub fn bonus_phrase(earned: f64, available: f64) -> String {
    format!("including {:.2} of {:.2} bonus points", round(earned), round(available))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_round_to_hundredths_half_away_from_zero() {
        assert_eq!(round(2.345_000_1), 2.35);
        assert_eq!(round(-1.005_1), -1.01);
        assert_eq!(round(7.0), 7.0);
    }

    #[test]
    fn a_bonus_phrase_shows_both_numbers_to_two_decimals() {
        assert_eq!(bonus_phrase(3.0, 5.0), "including 3.00 of 5.00 bonus points");
    }
}
