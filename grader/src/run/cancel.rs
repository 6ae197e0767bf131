//! Ending the runs of a grading at once: a batch stopped by a signal discards the gradings under way
//! (their programs may have had the signal too), so their runs need not go on to their limits.
//!
//! The request is held per thread: a batch's worker sets it around a student's grading, and the case
//! runners a grading hands its cases to take it with each lane (see `grade::runners`). Other
//! gradings of the process (a test binary's, side by side) are not touched.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A request to end runs: set (to a signal's number, or any value but zero) by whoever stops them.
#[derive(Debug, Clone, Default)]
pub struct CancelRuns(Arc<AtomicUsize>);

impl CancelRuns {
    /// The runs end once `flag` is not zero.
    pub fn new(flag: Arc<AtomicUsize>) -> CancelRuns {
        CancelRuns(flag)
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst) != 0
    }
}

thread_local! {
    static CANCEL: RefCell<Option<CancelRuns>> = const { RefCell::new(None) };
}

/// Runs `work` with `cancel` over every run it makes on this thread (and, through the case runners,
/// on theirs); the thread's earlier request is back afterwards, also when `work` unwinds.
pub fn cancelled_by<R>(cancel: Option<CancelRuns>, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<CancelRuns>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let earlier = self.0.take();
            CANCEL.with(|c| *c.borrow_mut() = earlier);
        }
    }
    let _restore = Restore(CANCEL.with(|c| c.replace(cancel)));
    work()
}

/// The request over this thread's runs, to hand to the threads that run for it.
pub fn current() -> Option<CancelRuns> {
    CANCEL.with(|c| c.borrow().clone())
}

/// True once this thread's runs are asked to end.
pub fn cancelled() -> bool {
    CANCEL.with(|c| c.borrow().as_ref().is_some_and(CancelRuns::is_set))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_holds_on_its_thread_while_its_work_lasts() {
        let flag = Arc::new(AtomicUsize::new(0));
        let cancel = CancelRuns::new(Arc::clone(&flag));
        assert!(!cancelled());
        cancelled_by(Some(cancel.clone()), || {
            assert!(!cancelled());
            flag.store(2, Ordering::SeqCst);
            assert!(cancelled());
            // Another thread has none of its own until handed this one.
            std::thread::scope(|scope| {
                assert!(!scope.spawn(cancelled).join().unwrap());
                let handed = current();
                assert!(scope.spawn(move || cancelled_by(handed, cancelled)).join().unwrap());
            });
        });
        assert!(!cancelled(), "gone with its work");
    }
}
