//! Line-by-line access to a running, confined program: what a referee needs to play a game with it.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::pipes::{drain, set_nonblocking, Capture, Drained, ReadBuffer};
use super::procs::{RunQueueWaits, MOST_EXTENSION};
use super::{spawn, Limit, RunError, RunOutcome, Running, SpawnRequest};

/// How long an answer may take before the wait for it starts counting the program's time waiting
/// for a CPU.
const QUICK_ANSWER: Duration = Duration::from_millis(50);

/// What reading a line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineRead {
    /// A complete line, without its `\n` (and without a `\r` before it).
    Line(Vec<u8>),
    /// The program closed its stdout (or ended); `partial` holds an unterminated last line, if any.
    Closed {
        /// Bytes after the last newline.
        partial: Vec<u8>,
    },
    /// No complete line within the time allowed.
    TimedOut,
    /// The program printed more than the output limit in all.
    OutputLimit,
}

/// A program spoken to line by line. Dropping it kills the program.
pub struct Interactive {
    running: Running,
    stdin: Option<File>,
    stdout: Option<File>,
    stderr: Option<File>,
    pending: Vec<u8>,
    out: Capture,
    err: Capture,
    buffer: ReadBuffer,
}

impl Interactive {
    /// Starts a program for a line-by-line exchange.
    ///
    /// # Errors
    ///
    /// As [`spawn`].
    pub fn start(request: &SpawnRequest) -> Result<Interactive, RunError> {
        let mut running = spawn(request)?;
        let stdin = running.stdin.take();
        let stdout = running.stdout.take();
        let stderr = running.stderr.take();
        for pipe in [&stdout, &stderr].into_iter().flatten() {
            set_nonblocking(pipe).map_err(|source| RunError::Wait { pid: 0, source })?;
        }
        Ok(Interactive {
            running,
            stdin,
            stdout,
            stderr,
            pending: Vec::new(),
            out: Capture::new(request.limits.output_bytes, 0),
            err: super::stderr_capture(request.limits),
            buffer: ReadBuffer::take(),
        })
    }

    /// Sends one line (a `\n` is added). A program that has closed its input or ended makes this
    /// fail with `BrokenPipe`.
    ///
    /// # Errors
    ///
    /// When the program does not take the line (closed stdin, ended).
    pub fn send_line(&mut self, line: &[u8]) -> io::Result<()> {
        let stdin = self.stdin.as_mut().ok_or_else(|| io::Error::from(io::ErrorKind::BrokenPipe))?;
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        stdin.write_all(&bytes)
    }

    /// Closes the program's stdin: it sees end-of-file.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Reads the next line of stdout, waiting at most `timeout` of the program's own time: the time
    /// its threads spent ready but waiting for a CPU (a loaded machine) is added to the wait.
    pub fn read_line(&mut self, timeout: Duration) -> LineRead {
        let started = Instant::now();
        let mut deadline = started + timeout;
        // Read once the answer is not immediate: most answers come before, and reading /proc costs.
        let mut waits_before: Option<RunQueueWaits> = None;
        loop {
            if let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.pending.drain(..=at).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return LineRead::Line(line);
            }
            if self.out.overflowed() {
                self.running.kill();
                return LineRead::OutputLimit;
            }
            if super::cancelled() {
                // Its grading is being discarded (see `cancel`): the game ends here.
                self.running.kill();
                return LineRead::TimedOut;
            }
            let Some(stdout) = self.stdout.as_mut() else {
                return LineRead::Closed { partial: std::mem::take(&mut self.pending) };
            };
            let now = Instant::now();
            if waits_before.is_none() && now >= started + QUICK_ANSWER {
                waits_before = Some(RunQueueWaits::read(self.running.pid(), self.running.is_sandboxed()));
            }
            if now >= deadline {
                let waited = waits_before.as_ref().map_or(Duration::ZERO, |before| {
                    RunQueueWaits::read(self.running.pid(), self.running.is_sandboxed()).starved_since(before)
                });
                let extended = started + timeout + waited.min(timeout * MOST_EXTENSION);
                if extended <= now {
                    return LineRead::TimedOut;
                }
                deadline = extended;
            }
            let mut fds = vec![libc::pollfd { fd: stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 }];
            if let Some(stderr) = &self.stderr {
                fds.push(libc::pollfd { fd: stderr.as_raw_fd(), events: libc::POLLIN, revents: 0 });
            }
            let wake = if waits_before.is_none() { deadline.min(started + QUICK_ANSWER) } else { deadline };
            let millis = wake.saturating_duration_since(now).as_millis().clamp(1, 1000) as libc::c_int;
            // SAFETY: `fds` is a valid array of pollfd for the duration of the call.
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
            let before = self.out.total();
            let mut fresh = Capture::new(usize::MAX, 0);
            if let Drained::Closed = drain(stdout, &mut fresh, &mut self.buffer) {
                self.stdout = None;
            }
            let bytes = fresh.into_head();
            self.out.push(&bytes);
            if self.out.total() > before {
                self.pending.extend_from_slice(&bytes);
            }
            if let Some(stderr) = self.stderr.as_mut() {
                if let Drained::Closed = drain(stderr, &mut self.err, &mut self.buffer) {
                    self.stderr = None;
                }
            }
        }
    }

    /// Ends the exchange: closes stdin, waits up to `grace` for the program to end by itself, kills
    /// it otherwise, and reports the run (stdout as exchanged, stderr captured).
    ///
    /// # Errors
    ///
    /// Failures of the grader (see [`RunError`]).
    pub fn finish(mut self, grace: Duration) -> Result<RunOutcome, RunError> {
        self.stdin = None;
        let give_up = Instant::now() + grace;
        while !self.running.has_ended() && Instant::now() < give_up {
            if self.stdout.is_some() {
                // Keep reading, or a program blocked on a full pipe would never end.
                let _ = self.read_line(Duration::from_millis(50));
            } else {
                let mut poll = libc::pollfd { fd: self.running.pidfd(), events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut poll, 1, 50) };
            }
        }
        // Only a program still running is killed: killing a sandbox whose program has just ended
        // could lose the report of that end.
        let timed_out = !self.running.has_ended();
        if timed_out {
            self.running.kill();
        }
        let ended = self.running.wait()?;
        let termination = super::termination_of(
            &self.running,
            &ended,
            timed_out.then_some(Limit::Wall),
            self.out.overflowed(),
        );
        Ok(RunOutcome {
            termination,
            stdout: std::mem::take(&mut self.out).into_head(),
            stderr: std::mem::take(&mut self.err).into_bytes(),
            wall_time: ended.at.saturating_duration_since(self.running.started()),
            cpu_time: ended.cpu_time,
            peak_memory_kb: ended.peak_memory_kb,
            memory_exhausted: self.running.hit_memory_limit(),
        })
    }
}
