//! What runs leave for later runs (their cgroups): kept in a pool, cleared at exit.

use std::sync::{Mutex, OnceLock, PoisonError};

/// Items kept for reuse. Each pool is a `static`; its owner gives an `extern "C"` function that
/// clears it ([`Pool::drain`] and removes each item), which runs when the grader exits.
pub(super) struct Pool<T> {
    items: Mutex<Vec<T>>,
    clear_registered: OnceLock<()>,
}

impl<T> Pool<T> {
    pub(super) const fn new() -> Pool<T> {
        Pool { items: Mutex::new(Vec::new()), clear_registered: OnceLock::new() }
    }

    /// The item put back last, if any.
    pub(super) fn take(&self) -> Option<T> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    /// Keeps `item` for a later run; the first item registers `clear` to run at exit.
    pub(super) fn put(&self, item: T, clear: extern "C" fn()) {
        self.clear_registered.get_or_init(|| {
            // SAFETY: `clear` takes no arguments; the owners' functions do not unwind (they ignore
            // every error, and `drain` takes a poisoned lock as it is).
            unsafe { libc::atexit(clear) };
        });
        self.items.lock().unwrap_or_else(PoisonError::into_inner).push(item);
    }

    /// Every item kept, taken out of the pool.
    pub(super) fn drain(&self) -> Vec<T> {
        std::mem::take(&mut *self.items.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
