//! The program's pipes: bounded captures that keep a head and a tail, and non-blocking helpers.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::{Deref, DerefMut};
use std::os::fd::AsRawFd;

/// Size of one read from an output pipe.
pub const CHUNK: usize = 64 * 1024;

thread_local! {
    static KEPT_BUFFER: Cell<Option<Box<[u8]>>> = const { Cell::new(None) };
}

/// A buffer of [`CHUNK`] bytes to read pipes into, kept by the thread between its runs: a fresh
/// one for every run cost an allocation and 64 KiB of zeroes, 3% of the grader's own CPU per run at
/// `rlimits-only`.
pub struct ReadBuffer(Option<Box<[u8]>>);

impl ReadBuffer {
    /// This thread's buffer, or a new one while another use of it holds it.
    pub fn take() -> ReadBuffer {
        let buffer = KEPT_BUFFER.take().unwrap_or_else(|| vec![0; CHUNK].into_boxed_slice());
        ReadBuffer(Some(buffer))
    }
}

impl Deref for ReadBuffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl DerefMut for ReadBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.0.as_deref_mut().unwrap_or_default()
    }
}

impl Drop for ReadBuffer {
    fn drop(&mut self) {
        // A thread that is ending keeps nothing (and must not panic here).
        let _ = KEPT_BUFFER.try_with(|kept| kept.set(self.0.take()));
    }
}

/// Bytes captured from one stream: the first `head_cap` bytes and the last `tail_cap` bytes, with
/// the count of everything written, so that a flood costs bounded memory whatever its size.
#[derive(Debug, Default)]
pub struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

impl Capture {
    /// A capture keeping `head_cap` bytes from the start and `tail_cap` from the end.
    pub fn new(head_cap: usize, tail_cap: usize) -> Capture {
        Capture { head_cap, tail_cap, ..Capture::default() }
    }

    /// Adds bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        if self.tail_cap == 0 {
            return;
        }
        let rest = &rest[rest.len().saturating_sub(self.tail_cap)..];
        let excess = (self.tail.len() + rest.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..excess);
        self.tail.extend(rest);
    }

    /// Bytes written to the stream in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// True when bytes beyond the head were written.
    pub fn overflowed(&self) -> bool {
        self.total > self.head_cap as u64
    }

    /// The head only (stdout: what the comparison sees).
    pub fn into_head(self) -> Vec<u8> {
        self.head
    }

    /// Head and tail, with a line saying how much was left out between them.
    pub fn into_bytes(self) -> Vec<u8> {
        let kept = self.head.len() + self.tail.len();
        let mut bytes = self.head;
        let omitted = self.total.saturating_sub(kept as u64);
        if omitted > 0 {
            bytes.extend_from_slice(format!("\n[... {omitted} bytes left out ...]\n").as_bytes());
        }
        bytes.extend(self.tail);
        bytes
    }
}

/// Puts one of our pipe ends (see `exec::pipe`) in non-blocking mode.
pub fn set_nonblocking(file: &File) -> io::Result<()> {
    // Our own pipe ends carry no other status flag (pipe2 with O_CLOEXEC only, a descriptor flag),
    // and F_SETFL ignores the access mode: one call, not a read of the flags and a write.
    // SAFETY: fcntl on a descriptor we own, with integer arguments only.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What a pipe holds unless asked for more.
pub const DEFAULT_PIPE_BYTES: usize = 64 * 1024;

/// Asks the kernel to let the pipe hold `bytes` (rounded up to pages, at most
/// `/proc/sys/fs/pipe-max-size`). A refusal (a user over its pipe allowance) keeps the size it had:
/// only the number of wake-ups depends on it.
pub fn set_pipe_size(pipe: &File, bytes: usize) {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let max = *MAX.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(1 << 20)
    });
    let bytes = libc::c_int::try_from(bytes.min(max)).unwrap_or(libc::c_int::MAX);
    // SAFETY: fcntl on a descriptor we own, with an integer argument.
    unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, bytes) };
}

/// What one non-blocking read gave.
pub enum Drained {
    /// Bytes were read (maybe not all that is there).
    Some,
    /// Nothing to read now.
    Empty,
    /// End of file (or an error, treated alike): the stream is done.
    Closed,
}

/// Reads what is available from a non-blocking pipe into `capture`, at most `budget` bytes.
pub fn drain(pipe: &mut File, capture: &mut Capture, buffer: &mut [u8]) -> Drained {
    let mut any = false;
    // Bounded rounds: a flood must not keep this loop from checking the clock.
    for _ in 0..16 {
        match pipe.read(buffer) {
            Ok(0) => return Drained::Closed,
            Ok(n) => {
                capture.push(&buffer[..n]);
                any = true;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => return Drained::Closed,
        }
    }
    if any {
        Drained::Some
    } else {
        Drained::Empty
    }
}

/// Writes as much of `bytes[*written..]` as the pipe takes now; true when the stream is done (all
/// written, or the program closed its end).
pub fn feed(pipe: &mut File, bytes: &[u8], written: &mut usize) -> bool {
    while *written < bytes.len() {
        match pipe.write(&bytes[*written..]) {
            Ok(0) => return true,
            Ok(n) => *written += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
            // EPIPE: the program does not read its input, which is its own business.
            Err(_) => return true,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_keeps_head_and_tail_and_counts_the_rest() {
        let mut capture = Capture::new(4, 3);
        capture.push(b"abcdefgh");
        capture.push(b"ij");
        assert_eq!(capture.total(), 10);
        assert!(capture.overflowed());
        assert_eq!(capture.into_bytes(), b"abcd\n[... 3 bytes left out ...]\nhij");

        let mut small = Capture::new(10, 3);
        small.push(b"abc");
        assert!(!small.overflowed());
        assert_eq!(small.into_bytes(), b"abc");

        let mut head_only = Capture::new(2, 0);
        head_only.push(b"xyz");
        assert_eq!(head_only.into_head(), b"xy");
    }
}
