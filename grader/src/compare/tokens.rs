//! The problem package format's default output validator: the output and the answer compared token
//! by token (any whitespace separates; letter case, and numbers within a tolerance, as its flags say).

use super::Divergence;

/// The default validator's flags (`validator_flags` / `output_validator_args` of a package).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TokenRules {
    /// `case_sensitive`: tokens must match byte for byte (else ASCII letters match up to case).
    pub case_sensitive: bool,
    /// `space_change_sensitive`: the whitespace between tokens must be the answer's.
    pub space_change_sensitive: bool,
    /// `float_absolute_tolerance ε` (or `float_tolerance ε`).
    pub float_absolute: Option<f64>,
    /// `float_relative_tolerance ε` (or `float_tolerance ε`).
    pub float_relative: Option<f64>,
}

impl TokenRules {
    /// Reads the flags as a package gives them.
    ///
    /// # Errors
    ///
    /// An unknown flag, a tolerance without a number, or one given twice (the format's errors).
    pub fn parse(flags: &[String]) -> Result<TokenRules, String> {
        let mut rules = TokenRules::default();
        let mut given = Vec::new();
        let mut args = flags.iter();
        while let Some(flag) = args.next() {
            let mut number = |flag: &str| -> Result<f64, String> {
                if given.contains(&flag.to_owned()) {
                    return Err(format!("`{flag}` is given twice"));
                }
                given.push(flag.to_owned());
                let value = args.next().ok_or_else(|| format!("`{flag}` needs a number"))?;
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| format!("`{flag} {value}`: the tolerance must be a number >= 0"))
            };
            match flag.as_str() {
                "case_sensitive" => rules.case_sensitive = true,
                "space_change_sensitive" => rules.space_change_sensitive = true,
                "float_tolerance" => {
                    let v = number(flag)?;
                    rules.float_absolute = Some(v);
                    rules.float_relative = Some(v);
                }
                "float_absolute_tolerance" => rules.float_absolute = Some(number(flag)?),
                "float_relative_tolerance" => rules.float_relative = Some(number(flag)?),
                other => {
                    return Err(format!(
                        "unknown flag `{other}` of the default output validator (case_sensitive, \
                         space_change_sensitive, float_tolerance, float_absolute_tolerance, \
                         float_relative_tolerance)"
                    ))
                }
            }
        }
        if given.iter().any(|f| f == "float_tolerance") && given.len() > 1 {
            return Err("`float_tolerance` cannot be given with another tolerance".to_owned());
        }
        Ok(rules)
    }

    /// Whether the default validator accepts `output` against `answer` under these rules.
    pub fn judge(&self, answer: &[u8], output: &[u8]) -> bool {
        judge(answer, output, self).is_none()
    }

    /// The flags in words for a report: "tokens, letter case ignored, numbers within 1e-6".
    pub fn describe(&self) -> String {
        let mut words = vec!["token by token".to_owned()];
        if !self.case_sensitive {
            words.push("letter case ignored".to_owned());
        }
        if self.space_change_sensitive {
            words.push("whitespace exact".to_owned());
        }
        match (self.float_absolute, self.float_relative) {
            (Some(a), Some(r)) if a == r => words.push(format!("numbers within {a}")),
            (Some(a), Some(r)) => words.push(format!("numbers within {a} or {r} relative")),
            (Some(a), None) => words.push(format!("numbers within {a}")),
            (None, Some(r)) => words.push(format!("numbers within {r} relative")),
            (None, None) => {}
        }
        words.join(", ")
    }
}

/// A token and where it lies: its 1-based line and the whitespace before it.
struct Token<'a> {
    text: &'a [u8],
    line: usize,
    space_before: &'a [u8],
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0b | 0x0c)
}

fn tokens(text: &[u8]) -> (Vec<Token<'_>>, &[u8]) {
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    loop {
        let start = i;
        while i < text.len() && is_space(text[i]) {
            i += 1;
        }
        let space = &text[start..i];
        line += space.iter().filter(|&&b| b == b'\n').count();
        if i == text.len() {
            return (out, space);
        }
        let begin = i;
        while i < text.len() && !is_space(text[i]) {
            i += 1;
        }
        out.push(Token { text: &text[begin..i], line, space_before: space });
    }
}

fn parse_number(token: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(token).ok()?;
    // `inf` and `nan` are words here, as the answer's tokens a tolerance is for are numbers.
    let number: f64 = text.parse().ok()?;
    number.is_finite().then_some(number)
}

/// Why two tokens differ, or `None` when the rules accept the output's.
fn token_mismatch(rules: &TokenRules, answer: &[u8], output: &[u8]) -> Option<String> {
    if rules.float_absolute.is_some() || rules.float_relative.is_some() {
        if let Some(a) = parse_number(answer) {
            let Some(s) = parse_number(output) else {
                return Some("a number was expected".to_owned());
            };
            let within_absolute = rules.float_absolute.is_some_and(|e| (s - a).abs() <= e);
            let within_relative = rules.float_relative.is_some_and(|e| (s - a).abs() <= e * a.abs());
            return (!within_absolute && !within_relative).then(|| format!("off by {:e}", (s - a).abs()));
        }
    }
    let equal = if rules.case_sensitive { answer == output } else { answer.eq_ignore_ascii_case(output) };
    (!equal).then(|| "a different token".to_owned())
}

/// The verdict of the default validator: `None` when it accepts the output, else where and why it
/// rejects it (the lines of the first token that differs, in both texts).
pub fn judge(answer: &[u8], output: &[u8], rules: &TokenRules) -> Option<(Divergence, String)> {
    let (expected, expected_tail) = tokens(answer);
    let (actual, actual_tail) = tokens(output);
    let line_text = |text: &[u8], line: usize| -> Option<String> {
        text.split(|&b| b == b'\n').nth(line - 1).map(|l| String::from_utf8_lossy(l).into_owned())
    };
    let at = |expected_line: usize, actual_line: usize| Divergence {
        line: actual_line,
        expected_line,
        expected: line_text(answer, expected_line),
        actual: line_text(output, actual_line),
    };
    for (n, (e, a)) in expected.iter().zip(&actual).enumerate() {
        if let Some(why) = token_mismatch(rules, e.text, a.text) {
            let shown = |t: &[u8]| String::from_utf8_lossy(t).into_owned();
            let message =
                format!("token {}: expected `{}`, got `{}` ({why})", n + 1, shown(e.text), shown(a.text));
            return Some((at(e.line, a.line), message));
        }
        if rules.space_change_sensitive && e.space_before != a.space_before {
            return Some((at(e.line, a.line), format!("the whitespace before token {} differs", n + 1)));
        }
    }
    // Lines a text has: its line breaks, and one more for a last line without one.
    let last_line = |text: &[u8]| {
        text.iter().filter(|&&b| b == b'\n').count() + usize::from(text.last().is_some_and(|&b| b != b'\n'))
    };
    match expected.len().cmp(&actual.len()) {
        std::cmp::Ordering::Greater => {
            let missing = &expected[actual.len()];
            let message = format!(
                "the output ended after {} tokens; expected {} (next `{}`)",
                actual.len(),
                expected.len(),
                String::from_utf8_lossy(missing.text)
            );
            let mut divergence = at(missing.line, last_line(output) + 1);
            divergence.actual = None;
            Some((divergence, message))
        }
        std::cmp::Ordering::Less => {
            let extra = &actual[expected.len()];
            let more = actual.len() - expected.len();
            let message = format!(
                "{more} token{} more than the {} expected (first `{}`)",
                if more == 1 { "" } else { "s" },
                expected.len(),
                String::from_utf8_lossy(extra.text)
            );
            let mut divergence = at(last_line(answer) + 1, extra.line);
            divergence.expected = None;
            Some((divergence, message))
        }
        std::cmp::Ordering::Equal if rules.space_change_sensitive && expected_tail != actual_tail => {
            let divergence = at(last_line(answer).max(1), last_line(output).max(1));
            Some((divergence, "the whitespace at the end differs".to_owned()))
        }
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(flags: &[&str]) -> TokenRules {
        TokenRules::parse(&flags.iter().map(|f| f.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn whitespace_and_letter_case_are_free_by_default() {
        let r = rules(&[]);
        assert_eq!(judge(b"Yes 3\n4\n", b"  yes\n3 4", &r), None);
        let (divergence, why) = judge(b"1 2\n3\n", b"1 2\n4\n", &r).unwrap();
        assert_eq!((divergence.line, divergence.expected_line), (2, 2));
        assert_eq!(why, "token 3: expected `3`, got `4` (a different token)");
        // Two tokens are never one: "12" is not "1 2".
        assert!(judge(b"1 2\n", b"12\n", &r).is_some());
    }

    #[test]
    fn flags_make_case_and_space_count() {
        assert!(judge(b"Yes\n", b"yes\n", &rules(&["case_sensitive"])).is_some());
        let spaces = rules(&["space_change_sensitive"]);
        assert!(judge(b"1 2\n", b"1  2\n", &spaces).is_some());
        assert!(judge(b"1 2\n", b"1 2", &spaces).is_some(), "the final line break counts too");
        assert_eq!(judge(b"1 2\n", b"1 2\n", &spaces), None);
    }

    #[test]
    fn numbers_match_within_a_tolerance_in_any_notation() {
        let r = rules(&["float_tolerance", "1e-6"]);
        assert_eq!(judge(b"0.0314\n", b"3.14000000e-2\n", &r), None);
        assert_eq!(judge(b"2.5\n", b"2.5000004\n", &r), None);
        assert!(judge(b"2.5\n", b"2.51\n", &r).unwrap().1.contains("off by"));
        assert!(judge(b"2.5\n", b"two\n", &r).unwrap().1.contains("a number was expected"));
        // Relative: 1e-6 of a million is one.
        let relative = rules(&["float_relative_tolerance", "1e-6"]);
        assert_eq!(judge(b"1000000\n", b"1000000.9\n", &relative), None);
        // Without a tolerance a number is a word.
        assert!(judge(b"1.0\n", b"1\n", &rules(&[])).is_some());
    }

    #[test]
    fn a_short_or_long_output_is_named() {
        let r = rules(&[]);
        let (short, why) = judge(b"1\n2\n3\n", b"1\n2\n", &r).unwrap();
        assert_eq!((short.line, short.expected_line, short.actual.as_deref()), (3, 3, None));
        let (empty, _) = judge(b"1\n", b"", &r).unwrap();
        assert_eq!((empty.line, empty.expected_line), (1, 1));
        assert!(why.contains("ended after 2 tokens; expected 3"), "{why}");
        let (_, why) = judge(b"1\n", b"1\n2\n", &r).unwrap();
        assert!(why.contains("1 token more than the 1 expected (first `2`)"), "{why}");
    }

    #[test]
    fn bad_flags_are_errors() {
        let parse = |f: &[&str]| TokenRules::parse(&f.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(parse(&["float_tolerance"]).unwrap_err().contains("needs a number"));
        assert!(parse(&["float_tolerance", "x"]).unwrap_err().contains("must be a number"));
        assert!(parse(&["ignore_me"]).unwrap_err().contains("unknown flag `ignore_me`"));
        assert!(parse(&["float_tolerance", "1", "float_absolute_tolerance", "2"]).is_err());
    }
}
