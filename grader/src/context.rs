//! Where a failing whole-program case stood at its first difference: which input lines a correct
//! program had read by then, found by replaying the reference's console.

use std::cell::Cell;
use std::io::{BufRead, Read, Write};

/// Lines of input shown before a first difference: enough to see the last moves typed.
pub const INPUT_LINES_SHOWN: usize = 4;

/// The reference's console replayed on `stdin`: for each input line it read, how many complete lines
/// it had printed by then (see [`lines_read_before`]). A case's replay is the same for every student,
/// so a grading keeps it (see `Sidecars::replay`).
///
/// `None` when the replay does not print exactly `expected` (a transcript that depends on more than
/// standard input, such as dice seeded by the environment): a guess would mislead more than silence.
pub fn replay_reads(solution: &dyn reference::Solution, stdin: &[u8], expected: &[u8]) -> Option<Vec<usize>> {
    let printed = Cell::new(0usize);
    let mut output =
        TracedOutput { bytes: Vec::with_capacity(expected.len()), lines: &printed, limit: expected.len() };
    let mut input = TracedInput { data: stdin, pos: 0, printed: &printed, read_at: Vec::new() };
    // The reference ends on its own at end of input; an error (output past the transcript's length)
    // only means that the replay is not this transcript.
    solution.run_console(&mut input, &mut output).ok()?;
    if output.bytes != expected {
        return None;
    }
    Some(input.read_at)
}

/// Of a replay's `reads`, the input lines read before line `expected_line` was complete: those typed
/// up to its prompt (input line k was read while `reads[k]` complete lines had been printed).
pub fn lines_read_before(reads: &[usize], expected_line: usize) -> usize {
    reads.iter().take_while(|&&printed| printed < expected_line).count()
}

/// The last `INPUT_LINES_SHOWN` of the first `consumed` lines of `stdin`, numbered from 1.
pub fn last_lines(stdin: &str, consumed: usize) -> Vec<(usize, String)> {
    let start = consumed.saturating_sub(INPUT_LINES_SHOWN);
    stdin.lines().enumerate().skip(start).take(consumed - start).map(|(i, l)| (i + 1, l.to_owned())).collect()
}

/// The reference's standard output: counts complete lines, and stops a replay that prints more than
/// the transcript it should reproduce.
struct TracedOutput<'a> {
    bytes: Vec<u8>,
    lines: &'a Cell<usize>,
    limit: usize,
}

impl Write for TracedOutput<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            return Err(std::io::Error::other("the replay printed more than the transcript"));
        }
        self.bytes.extend_from_slice(buf);
        self.lines.set(self.lines.get() + buf.iter().filter(|&&b| b == b'\n').count());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The reference's standard input: notes, for each line it consumes, how many lines had been printed.
struct TracedInput<'a> {
    data: &'a [u8],
    pos: usize,
    printed: &'a Cell<usize>,
    read_at: Vec<usize>,
}

impl Read for TracedInput<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for TracedInput<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.data[self.pos..])
    }

    fn consume(&mut self, amount: usize) {
        let end = (self.pos + amount).min(self.data.len());
        let newlines = self.data[self.pos..end].iter().filter(|&&b| b == b'\n').count();
        self.read_at.extend(std::iter::repeat_n(self.printed.get(), newlines));
        // A last line without a line break is read when the input ends.
        if end == self.data.len() && end > self.pos && self.data[end - 1] != b'\n' {
            self.read_at.push(self.printed.get());
        }
        self.pos = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lines_are_numbered_from_one() {
        let stdin = "a\nb\nc\nd\ne\nf\n";
        assert_eq!(
            last_lines(stdin, 5),
            vec![(2, "b".into()), (3, "c".into()), (4, "d".into()), (5, "e".into())]
        );
        assert_eq!(last_lines(stdin, 0), Vec::<(usize, String)>::new());
        assert_eq!(last_lines(stdin, 1), vec![(1, "a".to_owned())]);
    }

    #[test]
    fn a_trouble_replay_finds_the_lines_read_before_a_prompt() {
        let solution = reference::solution("trouble").unwrap();
        let case = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases/trouble/playerTurn/illegal-entries");
        let stdin = std::fs::read(format!("{case}.stdin")).unwrap();
        let expected = std::fs::read(format!("{case}.stdout")).unwrap();
        let lines = String::from_utf8_lossy(&expected).lines().count();
        let reads = replay_reads(solution, &stdin, &expected).unwrap();
        let read = |line| lines_read_before(&reads, line);
        // The seed and the player count come before the first board; line 73 is the prompt answered by
        // the third line, `H`.
        assert_eq!(read(73), 3);
        assert_eq!(read(72), 2);
        let counts: Vec<usize> = (1..=lines + 1).map(read).collect();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
        assert_eq!(counts[lines], String::from_utf8_lossy(&stdin).lines().count());
        // A transcript the replay does not reproduce gives no answer.
        assert_eq!(replay_reads(solution, &stdin, b"something else\n"), None);
    }
}
