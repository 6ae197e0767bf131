//! CPU slots: runs are admitted by cores, and a run that sleeps gives its slot back.
//!
//! A program that sleeps or blocks uses no CPU but used to hold a worker for its whole wall limit.
//! Each run takes a CPU slot (one per core, or `--jobs`) to start its program; while it runs,
//! [`IdleWatch`] samples its CPU time, and a run that has used almost none for a while releases its
//! slot, so another case starts beside it. Building a sandbox comes before, under a setup slot (two
//! per CPU slot): the kernel's work for it waits in places (grace periods, global locks), and a CPU
//! slot held meanwhile would leave a core idle. A sandboxed run gives its CPU slot back as soon as the
//! sandbox reports the program's end (see `run`). The callers keep more runner threads than cores
//! (see `grade`), so released slots are used.
//!
//! A case runner keeps its CPU slot from one run to the next ([`keeping_slot`]): through the
//! comparison of the output, which is CPU work too, and into its next run. A slot given back after
//! every run went to another runner each time: a futex wake, a sleep and a CPU migration per run,
//! a fifth of the grader's own CPU at `rlimits-only`.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// How long a run is watched before it may be called idle.
const IDLE_WINDOW: Duration = Duration::from_millis(500);

/// Below this share of one core over the window, a run is idle.
const IDLE_SHARE: f64 = 0.05;

/// How long a runner keeps a CPU slot from run to run before it gives it back once, so that the
/// runs waiting (another submission's, or one whose runs sleep and need a slot only to start) are
/// not held up for a whole grading: a hundred quick runs, or one run that uses its CPU limit.
const KEEP_AT_MOST: Duration = Duration::from_millis(100);

struct Slots {
    count: Mutex<Count>,
    freed: Condvar,
}

/// Slots in all and free ones; `free` is below zero while a lowered total waits for runs to end.
struct Count {
    total: usize,
    free: isize,
}

/// Slots for each kind, per core (or per `--jobs`): programs running, and sandboxes being built.
fn slots(kind: Kind) -> &'static Slots {
    static CPU: OnceLock<Slots> = OnceLock::new();
    static SETUP: OnceLock<Slots> = OnceLock::new();
    let cell = match kind {
        Kind::Cpu => &CPU,
        Kind::Setup => &SETUP,
    };
    cell.get_or_init(|| {
        let total = kind.per_cpu_slot() * cores();
        Slots { count: Mutex::new(Count { total, free: total as isize }), freed: Condvar::new() }
    })
}

/// What a slot is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Running a program.
    Cpu,
    /// Building a sandbox and waiting for a CPU slot: bounded too, so that waiting runs do not pile up
    /// sandboxes (and the kernel's work for them) beside the programs that run.
    Setup,
}

impl Kind {
    /// Slots of this kind for each CPU slot. Two sandboxes may be built per core: building one
    /// mostly waits for the kernel (grace periods, global locks), and a second one then uses the
    /// core (paired runs of a class: 3% less wall time with `--jobs 1` and with `--jobs 2`).
    fn per_cpu_slot(self) -> usize {
        match self {
            Kind::Cpu => 1,
            Kind::Setup => 2,
        }
    }
}

fn count(slots: &Slots) -> MutexGuard<'_, Count> {
    slots.count.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sets how many runs may use a CPU at once (`--jobs`; the default is one per core). Runs that hold
/// a slot keep it; the new total holds as they end.
pub fn set_slot_count(total: usize) {
    for kind in [Kind::Cpu, Kind::Setup] {
        let slots = slots(kind);
        let mut count = count(slots);
        let total = kind.per_cpu_slot() * total.max(1);
        count.free += total as isize - count.total as isize;
        count.total = total;
        slots.freed.notify_all();
    }
}

/// The cores this process may use, read once: `available_parallelism` reads the cgroup's files
/// each time it is asked (6% of the grader's own CPU at `rlimits-only` when asked for every run).
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How many runs may use a CPU at once (see [`set_slot_count`]).
pub fn cpu_slot_count() -> usize {
    count(slots(Kind::Cpu)).total
}

/// Whether a CPU slot is free that no run waits for: given back by a run gone idle, or by a runner
/// whose work ended.
pub fn cpu_slot_free() -> bool {
    count(slots(Kind::Cpu)).free > 0
}

/// Whether this thread keeps its CPU slot between runs (see [`keeping_slot`]), and whether it holds
/// one that no run uses now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keeping {
    Off,
    Empty,
    Holding,
}

thread_local! {
    static KEEPING: Cell<Keeping> = const { Cell::new(Keeping::Off) };
    /// When the slot this thread keeps was taken from the others (see [`KEEP_AT_MOST`]).
    static TAKEN_AT: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The runs of this thread's grading that went idle and still run (see [`keeping_slot`]).
    static IDLE_RUNS: RefCell<Option<Arc<AtomicUsize>>> = const { RefCell::new(None) };
}

/// Runs `work` with this thread keeping the CPU slot of each run once the run is done with it, for
/// its next run, for up to [`KEEP_AT_MOST`] at a time (a run that goes idle still gives its slot
/// back, and so does a thread that is about to wait for a setup slot, whose holders may wait for
/// this one). The slot kept last is given back when `work` ends, or unwinds. `idle_runs` counts the
/// runs of `work` that went idle and gave their slot back, while they run.
pub fn keeping_slot<R>(idle_runs: &Arc<AtomicUsize>, work: impl FnOnce() -> R) -> R {
    if KEEPING.get() != Keeping::Off {
        return work();
    }
    struct GiveBack;
    impl Drop for GiveBack {
        fn drop(&mut self) {
            IDLE_RUNS.set(None);
            TAKEN_AT.set(None);
            if KEEPING.replace(Keeping::Off) == Keeping::Holding {
                give_back(Kind::Cpu);
            }
        }
    }
    KEEPING.set(Keeping::Empty);
    IDLE_RUNS.set(Some(idle_runs.clone()));
    let _give_back = GiveBack;
    work()
}

/// Gives back the CPU slot this thread keeps between runs, if it keeps one: before it waits for
/// something that a run waiting for that slot may hold.
pub(crate) fn give_back_kept() {
    if KEEPING.get() == Keeping::Holding {
        KEEPING.set(Keeping::Empty);
        give_back(Kind::Cpu);
    }
}

/// Frees one slot of `kind` for the runs that wait.
fn give_back(kind: Kind) {
    let slots = slots(kind);
    count(slots).free += 1;
    slots.freed.notify_one();
}

/// A held slot, given back when dropped (or kept by its thread, see [`keeping_slot`]) or, a CPU
/// slot, when the run turns out to be idle.
pub struct Slot {
    kind: Kind,
    held: bool,
    /// Given back because the run went idle, and counted so while it runs (see [`keeping_slot`]).
    idle: bool,
}

impl Slot {
    /// Waits for a free CPU slot.
    pub fn acquire() -> Slot {
        Slot::acquire_kind(Kind::Cpu)
    }

    /// Waits for a free slot to build a sandbox in (held until its program has a CPU slot).
    pub fn acquire_setup() -> Slot {
        Slot::acquire_kind(Kind::Setup)
    }

    fn acquire_kind(kind: Kind) -> Slot {
        match (kind, KEEPING.get()) {
            (Kind::Cpu, Keeping::Holding) => {
                KEEPING.set(Keeping::Empty);
                return Slot { kind, held: true, idle: false };
            }
            // The setup slots' holders may be waiting for this CPU slot.
            (Kind::Setup, _) => give_back_kept(),
            _ => {}
        }
        let slots = slots(kind);
        let mut count = count(slots);
        while count.free <= 0 {
            count = slots.freed.wait(count).unwrap_or_else(PoisonError::into_inner);
        }
        count.free -= 1;
        drop(count);
        if kind == Kind::Cpu && KEEPING.get() != Keeping::Off {
            TAKEN_AT.set(Some(Instant::now()));
        }
        Slot { kind, held: true, idle: false }
    }

    /// Gives the slot back early (a sandbox's program has ended); idempotent.
    pub fn release(&mut self) {
        if std::mem::take(&mut self.held) {
            give_back(self.kind);
        }
    }

    /// Gives the slot back because the run is idle, counting the run among its grading's idle
    /// ones until it ends (see [`keeping_slot`]).
    pub fn release_idle(&mut self) {
        if self.held && !self.idle {
            self.idle = true;
            IDLE_RUNS.with_borrow(|runs| runs.as_ref().map(|runs| runs.fetch_add(1, Ordering::SeqCst)));
        }
        self.release();
    }

    /// True while the slot is held.
    pub fn is_held(&self) -> bool {
        self.held
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.idle {
            IDLE_RUNS.with_borrow(|runs| runs.as_ref().map(|runs| runs.fetch_sub(1, Ordering::SeqCst)));
        }
        let kept_long = TAKEN_AT.get().is_some_and(|at| at.elapsed() >= KEEP_AT_MOST);
        if self.held && self.kind == Kind::Cpu && KEEPING.get() == Keeping::Empty && !kept_long {
            KEEPING.set(Keeping::Holding);
            self.held = false;
        }
        self.release();
    }
}

/// Watches one run's CPU use to tell when it is idle.
pub struct IdleWatch {
    pid: libc::pid_t,
    sandboxed: bool,
    since: Instant,
    /// The run's CPU time when the window began (zero for the first window: the run's start).
    cpu_at_start: Duration,
}

impl IdleWatch {
    /// Watches the run whose top process (a sandbox's PID 1, or the program) is `pid`.
    /// `not_its_own`: CPU time /proc counts for the top process that is not the run's (see
    /// `Running::reaped_before`).
    pub fn new(pid: libc::pid_t, sandboxed: bool, not_its_own: Duration) -> IdleWatch {
        IdleWatch { pid, sandboxed, since: Instant::now(), cpu_at_start: not_its_own }
    }

    /// True once the run has used less than [`IDLE_SHARE`] of a core over [`IDLE_WINDOW`].
    pub fn is_idle(&mut self) -> bool {
        // /proc is read only once a window has passed: most runs end well before, and reading it at
        // every wake-up of the run's loop cost more CPU than some of the programs.
        let elapsed = self.since.elapsed();
        if elapsed < IDLE_WINDOW {
            return false;
        }
        let Some(cpu) = self.cpu_time() else { return false };
        let used = cpu.saturating_sub(self.cpu_at_start).as_secs_f64();
        if used < elapsed.as_secs_f64() * IDLE_SHARE {
            return true;
        }
        // Busy: start a new window.
        self.since = Instant::now();
        self.cpu_at_start = cpu;
        false
    }

    /// CPU time of every process of the run (see `procs::run_cpu_time`): a parent that sleeps while
    /// its children spin is busy.
    fn cpu_time(&self) -> Option<Duration> {
        Some(super::procs::run_cpu_time(self.pid, self.sandboxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Child, Command};

    /// A shell in a process group of its own, so that its children can be killed with it.
    fn shell(script: &str) -> Child {
        use std::os::unix::process::CommandExt;
        Command::new("/bin/sh").args(["-c", script]).process_group(0).spawn().expect("sh starts")
    }

    fn idle_after_a_window(child: &Child) -> bool {
        let mut watch = IdleWatch::new(child.id() as libc::pid_t, false, Duration::ZERO);
        std::thread::sleep(IDLE_WINDOW + Duration::from_millis(300));
        watch.is_idle()
    }

    #[test]
    fn a_runner_keeps_its_cpu_slot_for_its_next_run_but_not_past_an_idle_run_a_setup_slot_or_its_end() {
        let idle_runs = Arc::new(AtomicUsize::new(0));
        keeping_slot(&idle_runs, || {
            drop(Slot::acquire());
            assert_eq!(KEEPING.get(), Keeping::Holding, "kept once its run is done");
            let next = Slot::acquire();
            assert_eq!(KEEPING.get(), Keeping::Empty, "taken again by the next run");
            drop(next);
            let mut idle = Slot::acquire();
            idle.release_idle();
            idle.release_idle();
            assert_eq!(idle_runs.load(Ordering::SeqCst), 1, "counted once while it runs");
            drop(idle);
            assert_eq!(idle_runs.load(Ordering::SeqCst), 0, "not once it has ended");
            assert_eq!(KEEPING.get(), Keeping::Empty, "an idle run's slot goes to the runs that wait");
            drop(Slot::acquire());
            let setup = Slot::acquire_setup();
            assert_eq!(KEEPING.get(), Keeping::Empty, "given back before waiting for a setup slot");
            drop(setup);
            assert_eq!(KEEPING.get(), Keeping::Empty, "a setup slot is never kept");
            drop(Slot::acquire());
            give_back_kept();
            assert_eq!(KEEPING.get(), Keeping::Empty);
            let long = Slot::acquire();
            std::thread::sleep(KEEP_AT_MOST);
            drop(long);
            assert_eq!(KEEPING.get(), Keeping::Empty, "given back once kept for long");
            drop(Slot::acquire());
        });
        assert_eq!(KEEPING.get(), Keeping::Off, "given back at the end");
        drop(Slot::acquire());
        assert_eq!(KEEPING.get(), Keeping::Off, "not kept outside a runner");
        let unwound = std::panic::catch_unwind(|| {
            keeping_slot(&Arc::new(AtomicUsize::new(0)), || {
                drop(Slot::acquire());
                panic!("planted");
            })
        });
        assert!(unwound.is_err());
        assert_eq!(KEEPING.get(), Keeping::Off, "given back when the runner unwinds");
    }

    #[test]
    fn a_parent_that_waits_while_its_child_spins_is_busy() {
        let mut spinning = shell("while :; do :; done & wait");
        let idle = idle_after_a_window(&spinning);
        // SAFETY: kill takes integers; the shell's process group holds its child too.
        unsafe { libc::kill(-(spinning.id() as libc::pid_t), libc::SIGKILL) };
        let _ = spinning.kill();
        let _ = spinning.wait();
        assert!(!idle, "a spinning child was not counted");
    }

    #[test]
    fn a_run_whose_processes_all_sleep_is_idle() {
        let mut sleeping = shell("sleep 30 & wait");
        let idle = idle_after_a_window(&sleeping);
        let _ = sleeping.kill();
        let _ = sleeping.wait();
        assert!(idle);
    }
}
