//! A batch's progress on stderr: a bar on a terminal, one line per student otherwise.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::gradebook::Record;

/// Where progress goes: a bar on a terminal, plain lines otherwise.
pub(super) enum Progress {
    Bar(indicatif::ProgressBar),
    Lines { total: usize, done: AtomicUsize },
}

impl Progress {
    pub(super) fn new(total: usize) -> Progress {
        if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} students, {msg} ({eta} left)")
                    .expect("a valid template"),
            );
            Progress::Bar(bar)
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
            Progress::Bar(bar) => {
                bar.set_message(format!("{running} running, {failures} not graded"));
                bar.inc(1);
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
        if let Progress::Bar(bar) = self {
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
            Progress::Bar(bar) => bar.println(line),
            Progress::Lines { .. } => eprintln!("{line}"),
        }
    }

    pub(super) fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
