//! Stopping a batch part-way: SIGINT (Ctrl-C) or SIGTERM asks it to start no new student, to end the
//! runs of those under way at once (their gradings are discarded; the next run grades them again),
//! and to write the class files of the students graded so far, marked as partial.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Exit code of a batch stopped by a signal: 128 plus the signal's number, as a shell reports a
/// process the signal ended (130 for SIGINT, 143 for SIGTERM).
pub fn exit_code_of(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// The name of a signal a batch stops at.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        signal_hook::consts::SIGINT => "SIGINT",
        signal_hook::consts::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// A request to stop a batch: the signal that asked, set from a signal handler or by [`StopFlag::raise`].
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicUsize>);

impl StopFlag {
    /// A flag that only [`StopFlag::raise`] sets.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// A flag that SIGINT and SIGTERM set. A second one of either ends the process at once, as if
    /// no handler were installed (whole files stay whole: every output is written atomically).
    ///
    /// # Errors
    ///
    /// The handlers could not be installed.
    pub fn on_signals() -> std::io::Result<StopFlag> {
        let flag = StopFlag::new();
        let stopping = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Run in the order registered: the default action only once `stopping` was set by an
            // earlier signal.
            signal_hook::flag::register_conditional_default(signal, Arc::clone(&stopping))?;
            signal_hook::flag::register_usize(signal, Arc::clone(&flag.0), signal as usize)?;
            signal_hook::flag::register(signal, Arc::clone(&stopping))?;
        }
        Ok(flag)
    }

    /// Asks the batch to stop, as `signal` would.
    pub fn raise(&self, signal: i32) {
        self.0.store(usize::try_from(signal).unwrap_or(usize::MAX), Ordering::SeqCst);
    }

    /// The request that ends the runs of the students under way when the batch is asked to stop:
    /// their gradings are discarded (see `student::finish_student`), so they need not go on.
    pub fn runs(&self) -> crate::run::CancelRuns {
        crate::run::CancelRuns::new(Arc::clone(&self.0))
    }

    /// The signal that asked the batch to stop, if one did.
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(i32::try_from(signal).unwrap_or(i32::MAX)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_gives_the_shells_exit_code() {
        assert_eq!(exit_code_of(signal_hook::consts::SIGINT), 130);
        assert_eq!(exit_code_of(signal_hook::consts::SIGTERM), 143);
    }

    #[test]
    fn a_flag_remembers_the_signal_raised() {
        let flag = StopFlag::new();
        assert_eq!(flag.signal(), None);
        flag.clone().raise(signal_hook::consts::SIGTERM);
        assert_eq!(flag.signal(), Some(signal_hook::consts::SIGTERM));
    }
}
