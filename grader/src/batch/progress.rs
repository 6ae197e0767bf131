//! A batch's progress on stderr: a bar on a terminal, one line per student otherwise.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::gradebook::Record;

/// Where progress goes: a bar on a terminal, plain lines otherwise.
pub(super) enum Progress {
    Bar { bar: indicatif::ProgressBar, pace: Pace },
    Lines { total: usize, done: AtomicUsize },
}

/// How fast students are being finished, for a time left from the work done: students finish only
/// in the second phase (every visible case runs first), and those already up to date take no time,
/// so a rate over the whole batch (indicatif's) said `44m left` of a three-minute batch.
#[derive(Default)]
pub(super) struct Pace {
    /// When the first student was finished by grading (not found up to date).
    since: Mutex<Option<Instant>>,
    /// Students finished by grading since then.
    graded: AtomicUsize,
}

/// The time left when `graded` students took `elapsed` and `remaining` are left: `None` until two
/// have been graded (one says nothing of a pace).
pub(super) fn time_left(elapsed: Duration, graded: usize, remaining: usize) -> Option<Duration> {
    (graded >= 2).then(|| elapsed.mul_f64(remaining as f64 / (graded - 1) as f64))
}

/// `about 3 min left`, `about 40 s left`.
fn say_left(left: Duration) -> String {
    let seconds = left.as_secs();
    if seconds >= 90 {
        format!("about {} min left", (seconds + 30) / 60)
    } else {
        format!("about {} s left", seconds.max(1))
    }
}

impl Progress {
    pub(super) fn new(total: usize) -> Progress {
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} students, {msg}")
                    .expect("a valid template"),
            );
            Progress::Bar { bar, pace: Pace::default() }
        } else {
            Progress::Lines { total, done: AtomicUsize::new(0) }
        }
    }

    pub(super) fn finished(
        &self,
        record: &Record,
        reused: bool,
        running: usize,
        failures: usize,
        seconds: f64,
    ) {
        match self {
            Progress::Bar { bar, pace } => {
                bar.inc(1);
                let mut message = format!("{running} running, {failures} not graded");
                if !reused {
                    let mut since = pace.since.lock().unwrap_or_else(|e| e.into_inner());
                    let first = *since.get_or_insert_with(Instant::now);
                    let graded = pace.graded.fetch_add(1, Ordering::SeqCst) + 1;
                    let remaining = bar.length().unwrap_or(0).saturating_sub(bar.position()) as usize;
                    if let Some(left) = time_left(first.elapsed(), graded, remaining) {
                        message.push_str(&format!(", {}", say_left(left)));
                    }
                }
                bar.set_message(message);
            }
            Progress::Lines { total, done } => {
                let done = done.fetch_add(1, Ordering::SeqCst) + 1;
                let how = if reused { "up to date".to_owned() } else { format!("{seconds:.1} s") };
                // The id comes from a file name of the class: shown, never run by the terminal.
                eprintln!(
                    "[{done}/{total}] {}: {:.2} / {:.2} {} ({how})",
                    crate::report::escape::inert(&record.id, &[]),
                    record.total(),
                    record.max(),
                    record.status.word()
                );
            }
        }
    }

    /// One more student through the first phase (their visible cases), `begun` so far: a bar says
    /// so, as no student is finished before the class's barrier; plain lines wait for the barrier's
    /// own line.
    pub(super) fn begun(&self, begun: usize) {
        if let Progress::Bar { bar, .. } = self {
            bar.set_message(format!(
                "visible cases run for {begun} of {} students",
                bar.length().unwrap_or(0)
            ));
            bar.tick();
        }
    }

    /// A line of its own on stderr, above the bar if there is one.
    pub(super) fn say(&self, line: &str) {
        match self {
            Progress::Bar { bar, .. } => bar.println(line),
            Progress::Lines { .. } => eprintln!("{line}"),
        }
    }

    pub(super) fn finish(&self) {
        if let Progress::Bar { bar, .. } = self {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_comes_from_the_students_graded_and_none_before_two() {
        let s = Duration::from_secs;
        assert_eq!(time_left(s(10), 1, 50), None);
        // Two graded in 10 s (one interval): 10 s a student, 18 left.
        assert_eq!(time_left(s(10), 2, 18), Some(s(180)));
        assert_eq!(time_left(s(30), 4, 0), Some(s(0)));
        assert_eq!(say_left(s(180)), "about 3 min left");
        assert_eq!(say_left(s(40)), "about 40 s left");
    }
}
