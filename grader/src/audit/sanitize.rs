//! `grader audit --sanitize`: the correct program and every mutant built with AddressSanitizer and
//! UndefinedBehaviorSanitizer, so that a mutant whose only difference is undefined behaviour (a
//! write out of bounds that no output shows) is killed by the sanitizer's report in a case's run.
//! Only the audit's copy of the assignment changes: its C compiler commands get [`FLAGS`], its cases
//! the environment and limits a sanitized program needs.

use crate::load::Assignment;
use crate::run::Containment;

/// Added after the compiler's name in every C compiler command of the recipes (those that make a
/// shared library aside: an `LD_PRELOAD` library of the assignment's is none of the student's).
/// `-ftrivial-auto-var-init=pattern` fills local variables with a non-zero pattern before they are
/// set, so that a read before a variable is set (which no sanitizer of gcc's reports) no longer
/// finds the 0 that gcc happens to leave there and shows in the output.
pub const FLAGS: [&str; 4] = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-ftrivial-auto-var-init=pattern",
];

/// What marks a sanitizer's report on stderr.
const REPORT_MARKERS: [&str; 4] =
    ["AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer", "runtime error:"];

/// ASan's options for every run: stop at the first error; no leak check (a program of the course
/// may end without freeing, as the correct one does); a huge allocation fails as it would without
/// ASan; crashes stay signals, as in an audit without sanitizers; no check that ASan's library
/// comes first (an assignment's `LD_PRELOAD` library comes before it); a small quarantine, so that
/// freed memory counts little against the memory limit.
const ASAN_OPTIONS: &str = "halt_on_error=1:abort_on_error=0:detect_leaks=0:allocator_may_return_null=1:\
    handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:\
    verify_asan_link_order=0:quarantine_size_mb=16:print_legend=0:color=never";

/// UBSan's: stop at the first error, without a stack trace (the first line says where).
const UBSAN_OPTIONS: &str = "halt_on_error=1:print_stacktrace=0:color=never";

/// Whether a command's program is a C compiler whose flags [`FLAGS`] are: `gcc`, `cc`, `clang`,
/// or a versioned one (`gcc-12`, `clang-16`), by its file name.
fn is_c_compiler(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    ["gcc", "cc", "clang"].iter().any(|c| {
        name == *c || name.strip_prefix(c).and_then(|rest| rest.strip_prefix('-')).is_some_and(is_version)
    })
}

fn is_version(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// The assignment as a `--sanitize` audit builds and runs it: [`FLAGS`] after the compiler in
/// every C compiler command; every case without an address-space limit (ASan reserves terabytes of
/// it for its shadow memory) and, where no cgroup bounds memory (`containment` below full), with
/// ASan's own bound on resident memory instead of the rlimit (`RLIMIT_DATA` counts the reservation
/// too); `ASAN_OPTIONS` and `UBSAN_OPTIONS` in every case's environment (before the case's own).
/// An error when no recipe compiles C with a compiler these flags are for.
pub fn sanitized(assignment: &Assignment, containment: Containment) -> Result<Assignment, String> {
    let mut out = assignment.clone();
    let mut changed = 0;
    for recipe in out.builds.values_mut().filter(|r| r.language.is_none()) {
        for command in &mut recipe.commands {
            let compiles_c = command.first().is_some_and(|p| is_c_compiler(p));
            if compiles_c && !command.iter().any(|a| a == "-shared") {
                command.splice(1..1, FLAGS.iter().map(|f| (*f).to_owned()));
                changed += 1;
            }
        }
    }
    if changed == 0 {
        return Err(format!(
            "--sanitize: no build recipe of `{}` compiles with gcc, cc or clang (sanitizers are for C programs)",
            assignment.id
        ));
    }
    let cgroup = containment == Containment::Full;
    for case in &mut out.cases {
        let mut asan = ASAN_OPTIONS.to_owned();
        case.limits.address_space_limit = false;
        if !cgroup {
            asan.push_str(&format!(":hard_rss_limit_mb={}", (case.limits.memory_bytes >> 20).max(1)));
            case.limits.memory_bytes = u64::MAX;
        }
        for (key, ours) in [("ASAN_OPTIONS", asan), ("UBSAN_OPTIONS", UBSAN_OPTIONS.to_owned())] {
            let value = match case.env.get(key) {
                Some(theirs) => format!("{ours}:{theirs}"),
                None => ours,
            };
            case.env.insert(key.to_owned(), value);
        }
    }
    Ok(out)
}

/// The first line of a sanitizer's report in a run's stderr, short and the same from run to run:
/// ASan's kind of error without its `==pid==` prefix and addresses (`AddressSanitizer:
/// global-buffer-overflow`), UBSan's line with the file's name but not the build folder
/// (`main.c:12:9: runtime error: index 4 out of bounds for type 'int [4]'`).
pub fn report_line(stderr: Option<&str>) -> Option<String> {
    let line = stderr?.lines().find(|l| REPORT_MARKERS.iter().any(|m| l.contains(m)))?.trim();
    let line = match line.find("AddressSanitizer") {
        Some(at) => line[at..].split(" on address ").next().unwrap_or_default(),
        None => line,
    };
    let line = match line.split_once(": runtime error:") {
        Some((place, what)) => format!("{}: runtime error:{what}", place.rsplit('/').next().unwrap_or(place)),
        None => line.to_owned(),
    };
    Some(match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_compilers_are_known_by_their_file_name() {
        for yes in ["gcc", "cc", "clang", "/usr/bin/gcc", "gcc-12", "clang-16", "clang-14.0"] {
            assert!(is_c_compiler(yes), "{yes}");
        }
        for no in ["sh", "javac", "g++", "gcc-ar", "x86_64-linux-gnu-gcc-nm", "clang-tidy", "ccache"] {
            assert!(!is_c_compiler(no), "{no}");
        }
    }

    #[test]
    fn a_sanitizer_report_is_found_by_its_first_line() {
        let asan = "Enter a seed: \n=================================================================\n\
            ==4711==ERROR: AddressSanitizer: global-buffer-overflow on address 0x55 at pc 0x56\n\
            WRITE of size 4 at 0x55 thread T0\n";
        assert_eq!(report_line(Some(asan)).as_deref(), Some("AddressSanitizer: global-buffer-overflow"));
        let ubsan =
            "/cache/.building-x1/main.c:12:9: runtime error: index 4 out of bounds for type 'int [4]'\n";
        assert_eq!(
            report_line(Some(ubsan)).as_deref(),
            Some("main.c:12:9: runtime error: index 4 out of bounds for type 'int [4]'")
        );
        assert_eq!(report_line(Some("Invalid move\n")), None);
        assert_eq!(report_line(None), None);
    }
}
