//! A gate that keeps two kinds of runs from overlapping in one grader: at `rlimits-only`, the runs of
//! hidden cases and the runs whose output someone may see.
//!
//! Without namespaces, programs that run at the same time share the machine's world-writable places,
//! its IPC and its network, and two programs can always talk there while both live: a hidden case's
//! run could hand its input to a visible run of another submission graded beside it. The scrub after
//! each run (see `users`) removes what a run leaves; this gate makes sure that no run of the other
//! kind is alive while it could be handed over. Kinds take turns: once a kind waits, the other kind
//! lets no new run in after the ones running end, so neither waits for ever.

use std::sync::{Condvar, Mutex, PoisonError};

/// Runs of one kind may overlap each other, never a run of the other kind.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// Runs inside, by kind (`false`, `true`).
    running: [usize; 2],
    /// Runs waiting to enter, by kind.
    waiting: [usize; 2],
    /// While the other kind waits, how many more runs of a kind may still enter: the ones that
    /// were waiting when its turn came.
    admit: [usize; 2],
}

/// A run inside the gate, until dropped.
#[derive(Debug)]
pub struct Pass<'a> {
    gate: &'a Gate,
    kind: bool,
}

impl Gate {
    /// A gate with no run inside.
    pub const fn new() -> Gate {
        Gate {
            state: Mutex::new(State { running: [0, 0], waiting: [0, 0], admit: [0, 0] }),
            changed: Condvar::new(),
        }
    }

    /// Waits until no run of the other kind is inside and, while the other kind waits, until this
    /// kind's turn, then lets the caller in.
    pub fn enter(&self, kind: bool) -> Pass<'_> {
        let (me, other) = (usize::from(kind), usize::from(!kind));
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.waiting[me] += 1;
        let must_wait = |s: &mut State| s.running[other] > 0 || (s.waiting[other] > 0 && s.admit[me] == 0);
        if must_wait(&mut state) {
            // The runs inside may be waiting for the CPU slot this thread keeps between its runs.
            super::slots::give_back_kept();
        }
        let mut state = self.changed.wait_while(state, must_wait).unwrap_or_else(PoisonError::into_inner);
        state.waiting[me] -= 1;
        if state.waiting[other] > 0 {
            state.admit[me] -= 1;
        }
        state.running[me] += 1;
        Pass { gate: self, kind }
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        let (me, other) = (usize::from(self.kind), usize::from(!self.kind));
        let mut state = self.gate.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.running[me] -= 1;
        // Only the last run of a kind to leave lets anyone in: while runs of this kind are inside,
        // the other kind still waits, and this kind's waiting runs wait for their turn. Waking every
        // waiting runner at every run's end cost eight futex calls per run.
        if state.running[me] > 0 {
            return;
        }
        if state.waiting[other] > 0 {
            // The other kind's turn: those waiting now, and no more of this kind meanwhile.
            state.admit = [0, 0];
            state.admit[other] = state.waiting[other];
        }
        drop(state);
        self.gate.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn runs_of_one_kind_overlap_each_other_but_never_the_other_kind() {
        let gate = Gate::new();
        let inside = [AtomicUsize::new(0), AtomicUsize::new(0)];
        let most_together = [AtomicUsize::new(0), AtomicUsize::new(0)];
        std::thread::scope(|scope| {
            for i in 0..16 {
                let (gate, inside, most_together) = (&gate, &inside, &most_together);
                scope.spawn(move || {
                    for round in 0..20 {
                        let kind = (i + round) % 3 == 0;
                        let _pass = gate.enter(kind);
                        let me = usize::from(kind);
                        let now = inside[me].fetch_add(1, Ordering::SeqCst) + 1;
                        most_together[me].fetch_max(now, Ordering::SeqCst);
                        assert_eq!(inside[1 - me].load(Ordering::SeqCst), 0, "both kinds inside");
                        std::thread::sleep(Duration::from_micros(200));
                        inside[me].fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        // Not one at a time: runs of a kind did share the gate.
        assert!(most_together.iter().any(|n| n.load(Ordering::SeqCst) >= 2));
    }

    #[test]
    fn a_kind_that_waits_gets_its_turn_while_the_other_keeps_coming() {
        let gate = Gate::new();
        let first = gate.enter(false);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| drop(gate.enter(true)));
            while gate.state.lock().unwrap().waiting[1] == 0 {
                std::thread::yield_now();
            }
            // The other kind waits: a newcomer of the running kind waits too, for its turn after
            // the waiter's, however long the running kind stays inside.
            let newcomer = scope.spawn(|| {
                let pass = gate.enter(false);
                assert_eq!(
                    gate.state.lock().unwrap().waiting[1],
                    0,
                    "entered before the waiter had its turn"
                );
                drop(pass);
            });
            while gate.state.lock().unwrap().waiting[0] == 0 {
                std::thread::yield_now();
            }
            // Seen waiting (it counts itself and checks in one hold of the lock): it did not enter.
            assert_eq!(gate.state.lock().unwrap().running, [1, 0]);
            drop(first);
            waiter.join().unwrap();
            newcomer.join().unwrap();
        });
    }
}
