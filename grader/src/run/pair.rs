//! Two confined programs talking to each other: a problem package's interactor and a submission,
//! each one's stdout the other's stdin, both contained and limited as any run.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use super::pipes::Capture;
use super::{
    slots, spawn, stderr_capture, termination_of, Limit, RunError, RunOutcome, Running, SpawnRequest,
};

/// How long a partner (the interactor) may go on once the program has ended, before it is stopped.
const AFTER_PROGRAM: Duration = Duration::from_secs(5);

/// The outcome of a pair's runs.
#[derive(Debug)]
pub struct PairOutcome {
    /// The program (the submission).
    pub program: RunOutcome,
    /// Its partner (the interactor).
    pub partner: RunOutcome,
    /// Which ended first: `true` when the partner did (its verdict was in before the program's end).
    pub partner_ended_first: bool,
}

/// Copies one program's output into the other's input until either side closes, keeping what
/// passed (up to `cap` bytes) for the report, and when the output closed (the program's end, to
/// the microsecond: which of two ended first is which closed first).
fn pump(mut from: std::fs::File, mut to: Option<std::fs::File>, cap: usize) -> (Capture, Instant) {
    let mut seen = Capture::new(cap, 0);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        seen.push(&buffer[..n]);
        if let Some(pipe) = to.as_mut() {
            // A partner that closed its input reads nothing more; the output is still drained.
            if pipe.write_all(&buffer[..n]).and_then(|()| pipe.flush()).is_err() {
                to = None;
            }
        }
    }
    (seen, Instant::now())
}

fn drain(mut from: std::fs::File, mut into: Capture) -> Capture {
    let mut buffer = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buffer) {
        if n == 0 {
            break;
        }
        into.push(&buffer[..n]);
    }
    into
}

/// Runs `program` and `partner` wired to each other, each under its own limits; ends both.
///
/// # Errors
///
/// Failures of the grader (see [`RunError`]); whatever the programs do is their outcome.
pub fn run_pair(program: &SpawnRequest, partner: &SpawnRequest) -> Result<PairOutcome, RunError> {
    let _slot = slots::Slot::acquire();
    let mut one = spawn(program)?;
    let mut two = spawn(partner)?;
    let take = |running: &mut Running| (running.stdin.take(), running.stdout.take(), running.stderr.take());
    let (one_in, one_out, one_err) = take(&mut one);
    let (two_in, two_out, two_err) = take(&mut two);
    let (one_cap, two_cap) = (program.limits.output_bytes, partner.limits.output_bytes);
    let started = Instant::now();
    std::thread::scope(|scope| -> Result<PairOutcome, RunError> {
        let one_to_two = one_out.map(|out| scope.spawn(move || pump(out, two_in, one_cap)));
        let two_to_one = two_out.map(|out| scope.spawn(move || pump(out, one_in, two_cap)));
        let one_err = one_err.map(|err| scope.spawn(move || drain(err, stderr_capture(program.limits))));
        let two_err = two_err.map(|err| scope.spawn(move || drain(err, stderr_capture(partner.limits))));

        let (one_deadline, two_deadline) = (started + program.limits.wall, started + partner.limits.wall);
        let (mut one_timed_out, mut two_timed_out) = (false, false);
        let mut one_ended: Option<Instant> = None;
        let mut two_ended: Option<Instant> = None;
        while one_ended.is_none() || two_ended.is_none() {
            let now = Instant::now();
            if one_ended.is_none() && one.has_ended() {
                one_ended = Some(now);
            }
            if two_ended.is_none() && two.has_ended() {
                two_ended = Some(now);
            }
            // The program runs to its own limits even once its partner has ended: one that goes on
            // after an accepted exchange is still too slow (the package tools say so too).
            // A grading being discarded (see `cancel`) ends both now.
            let cancelled = super::cancelled();
            if one_ended.is_none() && (now >= one_deadline || cancelled) {
                one_timed_out = true;
                one.kill();
                one_ended = Some(now);
            }
            if two_ended.is_none()
                && (now >= two_deadline || cancelled || one_ended.is_some_and(|at| now >= at + AFTER_PROGRAM))
            {
                two_timed_out = true;
                two.kill();
                two_ended = Some(now);
            }
            let mut polls = [
                libc::pollfd { fd: one.pidfd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: two.pidfd(), events: libc::POLLIN, revents: 0 },
            ];
            // SAFETY: a valid array of pollfd for the call.
            unsafe { libc::poll(polls.as_mut_ptr(), 2, 20) };
        }
        let one_end = one.wait()?;
        let two_end = two.wait()?;
        let join = |h: Option<std::thread::ScopedJoinHandle<'_, Capture>>| {
            h.map(|h| h.join().unwrap_or_else(|_| Capture::new(0, 0))).unwrap_or_else(|| Capture::new(0, 0))
        };
        let closed =
            |h: Option<std::thread::ScopedJoinHandle<'_, (Capture, Instant)>>| match h.map(|h| h.join()) {
                Some(Ok((seen, at))) => (seen, Some(at)),
                _ => (Capture::new(0, 0), None),
            };
        let ((one_seen, one_closed), (two_seen, two_closed)) = (closed(one_to_two), closed(two_to_one));
        let (one_errors, two_errors) = (join(one_err), join(two_err));
        // Which output closed first is which program ended first; else which end was seen first.
        let partner_ended_first = match (one_closed, two_closed, one_ended, two_ended) {
            (Some(a), Some(b), _, _) => b < a,
            (_, _, Some(a), Some(b)) => b < a,
            _ => false,
        };
        let outcome = |running: &Running,
                       ended: &spawn::Ended,
                       timed_out: bool,
                       seen: Capture,
                       errors: Capture| RunOutcome {
            termination: termination_of(running, ended, timed_out.then_some(Limit::Wall), seen.overflowed()),
            memory_exhausted: running.hit_memory_limit(),
            stdout: seen.into_head(),
            stderr: errors.into_bytes(),
            wall_time: ended.at.saturating_duration_since(running.started()),
            cpu_time: ended.cpu_time,
            peak_memory_kb: ended.peak_memory_kb,
        };
        Ok(PairOutcome {
            program: outcome(&one, &one_end, one_timed_out, one_seen, one_errors),
            partner: outcome(&two, &two_end, two_timed_out, two_seen, two_errors),
            partner_ended_first,
        })
    })
}
