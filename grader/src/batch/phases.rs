//! The class's two phases: every student's visible cases, then every student's hidden ones, each
//! phase on a few worker threads that take the next student as soon as they are free.
//!
//! A run can leave state behind through channels not yet found (a counter, a cache, a keyring): it
//! can reach a student only through a run that starts after it ended. So no hidden case of anyone
//! runs until every visible case of everyone has ended (`grade::start` ends a student's visible
//! runs; `Started::finish` runs the hidden ones): one student's hidden inputs cannot reach another's
//! visible output, nor their own.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{signal_name, BatchOptions, Progress};

/// The worker threads of one phase, and what they share with the batch.
pub(super) struct Workers<'a> {
    options: &'a BatchOptions,
    progress: &'a Progress,
    /// Students under way, for what a signal's message says.
    pub running: AtomicUsize,
    /// Whether a signal was announced (once per batch).
    announced: AtomicBool,
}

impl<'a> Workers<'a> {
    pub fn new(options: &'a BatchOptions, progress: &'a Progress) -> Workers<'a> {
        Workers { options, progress, running: AtomicUsize::new(0), announced: AtomicBool::new(false) }
    }

    /// True once the batch was asked to stop: said once, at once, even while every worker is busy
    /// with a long grading.
    fn stopping(&self) -> bool {
        let Some(signal) = self.options.stop.signal() else { return false };
        if !self.announced.swap(true, Ordering::SeqCst) {
            let under_way = match self.running.load(Ordering::SeqCst) {
                0 => String::new(),
                n => format!("; the {n} under way are stopped now and graded again by the next run"),
            };
            self.progress.say(&format!("{}: starting no new student{under_way}", signal_name(signal)));
        }
        true
    }

    /// Calls `work` with each index below `count`, on `--jobs` + 1 threads (one student more than
    /// the CPU slots: a student's own work between runs, building or writing files, leaves no slot
    /// idle), until every index is taken or the batch is asked to stop. A worker whose `work`
    /// returns false takes no further student. Returns when every call has ended.
    pub fn each(&self, count: usize, work: impl Fn(usize) -> bool + Sync) {
        let next = AtomicUsize::new(0);
        let workers = AtomicUsize::new(self.options.jobs.max(1) + 1);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while workers.load(Ordering::SeqCst) > 0 && !self.stopping() {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            });
            for _ in 0..=self.options.jobs.max(1) {
                scope.spawn(|| {
                    while !self.stopping() {
                        let at = next.fetch_add(1, Ordering::SeqCst);
                        if at >= count {
                            break;
                        }
                        self.running.fetch_add(1, Ordering::SeqCst);
                        let go_on = work(at);
                        self.running.fetch_sub(1, Ordering::SeqCst);
                        if !go_on {
                            break;
                        }
                    }
                    workers.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
    }
}
