//! The case runners: threads kept for the whole process, that run the gradings' cases a few at a
//! time each and wait for work without spinning.
//!
//! A grading that made threads of its own (eight per core, one per case at most) had a batch of many
//! students on many cores start and end a thread for nearly every run, and those threads' stacks and
//! memory arenas, mapped and unmapped under the one lock of the grader's address space that every
//! run's start takes too, cost more than the runs (on 16 cores, 900 threads at once and a quarter
//! more CPU per case at `rlimits-only`). Rayon's pool, used next, kept its threads but had each one
//! that ran out of work call `sched_yield` 32 times before it slept: a hundred system calls per run,
//! an eighth of the grader's own CPU at `rlimits-only`. Here a runner with nothing to do sleeps on a
//! condition variable, and a grading's lane (a loop over its cases) is handed to one that sleeps, or
//! to a new one when none does. A grading starts a lane per CPU slot, and more only when its runs
//! have all gone idle or a slot is free: a lane keeps its slot from run to run (see
//! `run::keeping_slot`), so lanes started beyond the slots only waited, and each cost wake-ups
//! (sixteen per grading and phase were a sixth of the grader's own CPU at `rlimits-only`).
//!
//! Gradings at `rlimits-only` have runners of their own ([`Pool::Sealed`]), each under the seccomp
//! filter that keeps a run's processes in its group (see `run::seal_this_thread`): the processes
//! a runner starts inherit it, which costs the kernel nothing per run, where a filter installed by
//! each run was compiled and freed every time.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use crate::run;

/// Case runners per core or CPU slot (`--jobs`), whichever are more: most of them wait for a slot;
/// they are there for the runs that sleep and give theirs back, so that a sleeping submission does
/// not keep the cores idle.
const RUNNERS_PER_SLOT: usize = 8;

/// The case runners the gradings under way share: twice [`RUNNERS_PER_SLOT`] per core or CPU slot.
pub(super) fn runner_count() -> usize {
    2 * RUNNERS_PER_SLOT * run::cpu_slot_count().max(run::cores())
}

/// How often a grading looks whether to start one more lane (see [`run_all`]): a run is called idle
/// only after half a second.
const LANE_CHECK: std::time::Duration = std::time::Duration::from_millis(20);

/// Gradings under way in this process: a batch grades `--jobs` + 1 students at once.
static GRADINGS: AtomicUsize = AtomicUsize::new(0);

/// Counts a grading's runs under way while it lives.
struct Grading;

impl Grading {
    fn start() -> Grading {
        GRADINGS.fetch_add(1, Ordering::SeqCst);
        Grading
    }
}

impl Drop for Grading {
    fn drop(&mut self) {
        GRADINGS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How many of one grading's items may run at once: its share of the runners among the gradings
/// under way, and at least [`RUNNERS_PER_SLOT`] (a submission whose runs all sleep to their wall
/// limit must not take eight times as long as one that does not). With few at once per submission
/// its kept sandboxes are few, each serving many runs.
fn lanes() -> usize {
    let share = runner_count() / GRADINGS.load(Ordering::SeqCst).max(1);
    share.max(RUNNERS_PER_SLOT)
}

/// Runs `work` on every item on the case runners, at most [`lanes`] at once, in the items' order,
/// and gives the results in the items' order. Each of the grading's lanes is a runner that takes the
/// next item as soon as its last has ended, until none is left or the grading's share of the runners
/// has shrunk below it (more gradings began): so the gradings under way share the runners, and a
/// submission whose runs sleep holds no other's up. (Handing the runners one item at a time, from
/// this thread, cost two wake-ups per run.) There is a lane per CPU slot at first, and this thread
/// starts one more, while items wait, whenever the run of every lane has gone idle (a run that
/// sleeps gives its slot back, and the next item starts beside it) or a CPU slot is free. When the call
/// returns, every item has ended: a grading's visible and hidden cases are two calls (see
/// `grade::start`). A panic in an item ends the call with that panic once the other items have
/// ended. `pool` says which runners run the lanes.
pub(super) fn run_all<T: Sync, R: Send>(items: &[T], pool: Pool, work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let runners = match pool {
        Pool::Plain => &RUNNERS,
        Pool::Sealed => &SEALED_RUNNERS,
    };
    let _grading = Grading::start();
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let run_one = |at: usize| {
        let result = work(&items[at]);
        *lock(&results[at]) = Some(result);
    };
    let under_way = UnderWay::default();
    let idle_runs = std::sync::Arc::new(AtomicUsize::new(0));
    // The lanes borrow what this block holds; the block ends only once every lane has.
    {
        let (next, end) = (AtomicUsize::new(0), items.len());
        let lane = |index: usize| {
            // Lane 0 never leaves (there are always at least RUNNERS_PER_SLOT lanes): no item is
            // left behind.
            while index == 0 || index < lanes() {
                let at = next.fetch_add(1, Ordering::SeqCst);
                if at >= end {
                    break;
                }
                if let Err(panic) = panic::catch_unwind(AssertUnwindSafe(|| run_one(at))) {
                    lock(&under_way.panic).get_or_insert(panic);
                }
            }
        };
        {
            // Declared after everything the lanes borrow, so dropped (waiting) before any of it,
            // whether this block ends or unwinds.
            let all_ended = AllEnded(&under_way);
            let start_lane = |index: usize| {
                *lock(&all_ended.0.count) += 1;
                let (lane, under_way, idle_runs) = (&lane, &under_way, &idle_runs);
                // The grading's runs end at once where it is being discarded (a stopped batch).
                let cancel = run::cancel_of_this_thread();
                let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
                    // Counted as ended however the lane ends, so that this thread does not wait for
                    // ever.
                    let _ended = Ended(under_way);
                    run::cancelled_by(cancel, || run::keeping_slot(idle_runs, || lane(index)));
                });
                // SAFETY: `all_ended` waits, when dropped, until every lane of the call has
                // dropped its `Ended`, the lane's last use of anything it borrows; it is dropped
                // before what the lanes borrow, on return and on unwinding alike.
                let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
                runners.hand(job);
            };
            // As many lanes as CPU slots at first: each keeps its slot from run to run, so more
            // would only wait. Then one more whenever every lane's run has gone idle (and given its
            // slot back), or a slot is free that nobody waits for, while items wait; up to `lanes`.
            let mut started = 0;
            while started < lanes().min(end).min(run::cpu_slot_count()) {
                start_lane(started);
                started += 1;
            }
            let mut count = lock(&under_way.count);
            while *count > 0 {
                count = under_way
                    .one_ended
                    .wait_timeout(count, LANE_CHECK)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                let waiting = next.load(Ordering::SeqCst) < end;
                let all_idle = idle_runs.load(Ordering::SeqCst) >= *count;
                if waiting && started < lanes().min(end) && (all_idle || run::cpu_slot_free()) {
                    drop(count);
                    start_lane(started);
                    started += 1;
                    count = lock(&under_way.count);
                }
            }
        }
        if let Some(panic) = lock(&under_way.panic).take() {
            panic::resume_unwind(panic);
        }
    }
    results
        .into_iter()
        .map(|slot| {
            let result = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
            result.expect("every item was run: a runner that panicked ended the call with its panic")
        })
        .collect()
}

/// One grading's lanes under way, and the first panic among their items.
#[derive(Default)]
struct UnderWay {
    count: Mutex<usize>,
    one_ended: Condvar,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// One lane under way, counted as ended when dropped.
struct Ended<'a>(&'a UnderWay);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        let mut count = lock(&self.0.count);
        *count -= 1;
        // Notified under the lock: once it is released, the waiting thread may return and free the
        // `UnderWay`, which this runner must not touch again.
        self.0.one_ended.notify_all();
    }
}

/// Waits, when dropped, until no lane is under way.
struct AllEnded<'a>(&'a UnderWay);

impl Drop for AllEnded<'_> {
    fn drop(&mut self) {
        let mut count = lock(&self.0.count);
        while *count > 0 {
            count = self.0.one_ended.wait(count).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A lane handed to a runner: its borrows outlive it (see [`run_all`]); it never panics.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// Which runners a grading's lanes go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pool {
    /// Runners as they are.
    Plain,
    /// Runners whose threads are sealed (`run::seal_this_thread`), so that the runs they start
    /// without namespaces inherit the seal rather than each install it: for gradings at
    /// `rlimits-only`, and nothing else. (Where no thread can be started, the grading's own thread
    /// runs its lanes, unsealed: each run then installs the filter itself.)
    Sealed,
}

/// The runners of the whole process.
static RUNNERS: Runners = Runners::new(Pool::Plain);
/// The sealed runners of the whole process.
static SEALED_RUNNERS: Runners = Runners::new(Pool::Sealed);

struct Runners {
    queue: Mutex<Queue>,
    job_ready: Condvar,
    pool: Pool,
}

/// Jobs not yet taken, and runners waiting for one.
struct Queue {
    jobs: VecDeque<Job>,
    idle: usize,
}

impl Runners {
    const fn new(pool: Pool) -> Runners {
        Runners {
            queue: Mutex::new(Queue { jobs: VecDeque::new(), idle: 0 }),
            job_ready: Condvar::new(),
            pool,
        }
    }

    /// Hands `job` to a waiting runner, or to a new one when every runner is busy. Where the system
    /// refuses a thread, this thread runs the jobs waiting (its own among them) itself.
    fn hand(&'static self, job: Job) {
        let mut queue = lock(&self.queue);
        queue.jobs.push_back(job);
        if queue.idle >= queue.jobs.len() {
            self.job_ready.notify_one();
            return;
        }
        drop(queue);
        let started = std::thread::Builder::new().name("case-runner".to_owned()).spawn(move || self.serve());
        if started.is_err() {
            loop {
                // Taken out under the lock, run without it.
                let job = lock(&self.queue).jobs.pop_front();
                let Some(job) = job else { break };
                job();
            }
        }
    }

    /// A runner's life: the jobs, one after another, and a sleep while there are none.
    fn serve(&self) {
        // Where the seal cannot be had, the runs install it each (or go unsealed, as they would).
        if self.pool == Pool::Sealed {
            run::seal_this_thread();
        }
        let mut queue = lock(&self.queue);
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                drop(queue);
                job();
                queue = lock(&self.queue);
                continue;
            }
            queue.idle += 1;
            queue = self.job_ready.wait(queue).unwrap_or_else(PoisonError::into_inner);
            queue.idle -= 1;
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gradings_runs_do_not_queue_behind_another_gradings_sleeping_ones() {
        // A submission whose runs each sleep, eight times as many as there are runners, and one whose
        // runs end at once, graded together: the second ends while the first has run fewer than half
        // of its runs (at least four rounds of every runner, 0.4 s, however busy the machine: the
        // margin for a starved test thread).
        let sleepy: Vec<usize> = (0..8 * runner_count()).collect();
        let quick: Vec<usize> = (0..10).collect();
        let slept = AtomicUsize::new(0);
        let slept_when_quick_ended = std::thread::scope(|scope| {
            scope.spawn(|| {
                run_all(&sleepy, Pool::Plain, |_| {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    slept.fetch_add(1, Ordering::SeqCst);
                })
            });
            std::thread::sleep(std::time::Duration::from_millis(20));
            run_all(&quick, Pool::Plain, |_| ());
            slept.load(Ordering::SeqCst)
        });
        let half = sleepy.len() / 2;
        assert!(
            slept_when_quick_ended < half,
            "{slept_when_quick_ended} of {} sleeping runs ended first",
            sleepy.len()
        );
    }

    #[test]
    fn runs_that_give_their_cpu_slot_back_to_sleep_get_more_lanes_so_that_their_sleeps_overlap() {
        // Each item takes a CPU slot, gives it back as an idle run does, and sleeps: the grading
        // starts with a lane per slot, and one more each time its runs have all gone idle (or a
        // slot is free).
        let slots = run::cpu_slot_count();
        let items: Vec<usize> = (0..8 * slots).collect();
        let asleep = AtomicUsize::new(0);
        let most_asleep = AtomicUsize::new(0);
        let sleepy = |_: &usize| {
            // A run holds its slot until it is found idle, then sleeps on without it.
            let mut slot = run::Slot::acquire();
            std::thread::sleep(std::time::Duration::from_millis(20));
            slot.release_idle();
            let now = asleep.fetch_add(1, Ordering::SeqCst) + 1;
            most_asleep.fetch_max(now, Ordering::SeqCst);
            // Long beside the 20 ms with a slot: under the load of the tests run beside this one,
            // taking a slot from the busy gradings below may take a while, and the sleeps must
            // still be under way when the next lanes' runs go idle.
            std::thread::sleep(std::time::Duration::from_millis(300));
            asleep.fetch_sub(1, Ordering::SeqCst);
        };
        run_all(&items, Pool::Plain, sleepy);
        let most = most_asleep.load(Ordering::SeqCst);
        assert!(most >= slots + 2, "at most {most} of {} sleeps overlapped on {slots} slots", items.len());

        // The same beside two gradings whose runs keep the slots busy and whose lanes compete for
        // them: the sleeping runs still overlap (the busy runners give their slots back now and
        // then, and the sleepy grading adds lanes once its runs have all gone idle).
        most_asleep.store(0, Ordering::SeqCst);
        let busy_items: Vec<usize> = (0..400 * slots).collect();
        let sleepy_done = std::sync::atomic::AtomicBool::new(false);
        let busy = |_: &usize| {
            if !sleepy_done.load(Ordering::SeqCst) {
                let _slot = run::Slot::acquire();
                let until = std::time::Instant::now() + std::time::Duration::from_millis(2);
                while std::time::Instant::now() < until {}
            }
        };
        std::thread::scope(|scope| {
            scope.spawn(|| run_all(&busy_items, Pool::Plain, busy));
            scope.spawn(|| run_all(&busy_items, Pool::Plain, busy));
            std::thread::sleep(std::time::Duration::from_millis(50));
            run_all(&items, Pool::Plain, sleepy);
            sleepy_done.store(true, Ordering::SeqCst);
        });
        let most = most_asleep.load(Ordering::SeqCst);
        assert!(most >= slots + 2, "beside busy runs, at most {most} sleeps overlapped on {slots} slots");
    }

    #[test]
    fn a_panic_in_an_item_ends_the_grading_instead_of_hanging_it() {
        let items: Vec<usize> = (0..20).collect();
        let outcome =
            std::panic::catch_unwind(|| run_all(&items, Pool::Plain, |&i| assert_ne!(i, 2, "planted")));
        assert!(outcome.is_err());
    }

    #[test]
    fn a_panic_ends_the_call_only_once_the_other_items_have_ended() {
        // The items borrow `ended`: were the call to return before they end, they would touch it
        // after it is gone (and the count below would be short).
        let items: Vec<usize> = (0..30).collect();
        let ended = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            run_all(&items, Pool::Plain, |&i| {
                std::thread::sleep(std::time::Duration::from_millis(if i == 0 { 0 } else { 20 }));
                ended.fetch_add(1, Ordering::SeqCst);
                assert_ne!(i, 0, "planted");
            })
        }));
        assert!(outcome.is_err());
        assert_eq!(ended.load(Ordering::SeqCst), items.len());
    }

    #[test]
    fn runners_are_kept_between_gradings_rather_than_started_for_each() {
        let items: Vec<usize> = (0..4).collect();
        let names = |_: &usize| std::thread::current().id();
        let first: std::collections::HashSet<_> = run_all(&items, Pool::Plain, names).into_iter().collect();
        let mut later = std::collections::HashSet::new();
        for _ in 0..20 {
            later.extend(run_all(&items, Pool::Plain, names));
        }
        // Other tests' gradings share the runners, so new ones may start meanwhile: but twenty
        // gradings of four items each on threads of their own would be eighty.
        assert!(later.len() < 80, "{} threads ran 80 items", later.len());
        assert!(!first.is_empty());
    }

    /// What the kernel says of the calling thread's seccomp filters: its mode (2 under a filter, 0
    /// without) and, from Linux 5.9, how many filters (the container's own included).
    fn seccomp() -> (String, Option<String>) {
        let status = std::fs::read_to_string("/proc/thread-self/status").expect("/proc is mounted");
        let field = |name: &str| {
            status.lines().find_map(|line| line.strip_prefix(name)).map(|value| value.trim().to_owned())
        };
        (field("Seccomp:").expect("a Seccomp line"), field("Seccomp_filters:"))
    }

    #[test]
    fn the_lanes_of_sealed_runners_run_on_sealed_threads_and_the_others_do_not() {
        let items: Vec<usize> = (0..12).collect();
        let seen = |pool| -> std::collections::HashSet<(String, Option<String>)> {
            run_all(&items, pool, |_| seccomp()).into_iter().collect()
        };
        // This thread is as the grader's are: under a container's filters, if any.
        let (mode, filters) = seccomp();
        let one_more = filters.as_ref().map(|n| (n.parse::<u32>().expect("a count") + 1).to_string());
        assert_eq!(seen(Pool::Sealed), [("2".to_owned(), one_more)].into(), "sealed runners");
        assert_eq!(seen(Pool::Plain), [(mode, filters)].into(), "plain runners");
    }
}
