//! A problem package's time limit when it states none, as the package tools compute it: the
//! accepted submissions run on every case under generous limits, and the slowest run's CPU time
//! times the package's multiplier (legacy: `time_multiplier`, 5; 2023-07: `ac_to_time_limit`, 2),
//! rounded up to a multiple of `time_resolution` (a second), at least one, as problemtools does.
//! Computed once per package content (kept in the build cache); `grader bless` writes it beside
//! the package (`.timelimit`), where every later grading reads it.

use std::path::PathBuf;
use std::time::Duration;

use crate::build::BuildCache;
use crate::grade::{self, GradeError, GradeOptions};
use crate::load::package::{INFERRED, TIME_LIMIT_FILE};
use crate::load::Assignment;
use crate::report::{CaseStatus, JudgeVerdict};
use crate::run::Containment;
use crate::verify::{self, Expectation};

/// Limits of the runs that measure: the package tools' (problemtools runs them under 5 minutes).
const MEASURING_LIMIT: Duration = Duration::from_secs(60);

/// What inferring found.
#[derive(Debug, Clone, PartialEq)]
pub struct Inferred {
    /// The time limit.
    pub time_limit: Duration,
    /// The slowest accepted run's CPU time.
    pub slowest: Duration,
    /// The submission that ran it.
    pub submission: String,
}

/// The time limit from the slowest accepted run, as problemtools computes it: the smallest multiple
/// of the resolution (a second unless the package says otherwise) at or above `t × multiplier`,
/// and at least one resolution.
pub fn from_slowest(slowest: Duration, multiplier: f64, resolution: Option<f64>) -> Duration {
    let exact = slowest.as_secs_f64() * multiplier;
    let r = resolution.unwrap_or(1.0);
    Duration::from_secs_f64((exact / r).ceil().max(1.0) * r)
}

/// Sets the package's time limit when it states none: from the build cache when this package's
/// content was measured before, else by running its accepted submissions now.
///
/// # Errors
///
/// When a grading cannot be done at all (a missing compiler, an unwritable cache).
pub fn settle(
    assignment: &mut Assignment,
    cache: &BuildCache,
    containment: Containment,
) -> Result<Option<Inferred>, GradeError> {
    let Some(package) = &assignment.package else { return Ok(None) };
    if package.time_limit_source != INFERRED {
        return Ok(None);
    }
    let kept = kept_path(assignment, cache);
    if let Some(seconds) = std::fs::read_to_string(&kept).ok().and_then(|t| t.trim().parse::<f64>().ok()) {
        assignment.set_time_limit(Duration::from_secs_f64(seconds), INFERRED);
        return Ok(None);
    }
    let Some(inferred) = infer(assignment, cache, containment)? else {
        assignment.warnings.push(format!(
            "{}: no time limit, and no accepted submission ran to infer one: {} s of CPU time per run",
            assignment.dir.display(),
            package.time_limit.as_secs_f64()
        ));
        return Ok(None);
    };
    let _ = std::fs::create_dir_all(cache.dir());
    let _ = std::fs::write(&kept, format!("{}\n", inferred.time_limit.as_secs_f64()));
    assignment.set_time_limit(inferred.time_limit, INFERRED);
    Ok(Some(inferred))
}

/// Runs every accepted submission on every case under generous limits; `None` when none ran
/// (none given, or none in a language this machine has).
///
/// # Errors
///
/// As [`grade::grade`], but a submission whose compiler is missing is passed over.
pub fn infer(
    assignment: &Assignment,
    cache: &BuildCache,
    containment: Containment,
) -> Result<Option<Inferred>, GradeError> {
    let Some(package) = &assignment.package else { return Ok(None) };
    let mut measuring = assignment.clone();
    measuring.set_time_limit(MEASURING_LIMIT, INFERRED);
    let options = GradeOptions { containment, ..GradeOptions::new(cache.clone()) };
    let mut slowest: Option<(Duration, String)> = None;
    for example in verify::examples(assignment).into_iter().filter(|e| e.expectation == Expectation::Accepted)
    {
        let report = match grade::grade(&measuring, &example.path, &options) {
            Ok(report) => report,
            Err(GradeError::Build(crate::build::BuildError::NotFound { .. })) => continue,
            Err(e) => return Err(e),
        };
        // A submission that does not build or is not accepted measures nothing.
        if report
            .cases
            .iter()
            .any(|c| c.status == CaseStatus::BuildError || c.verdict != Some(JudgeVerdict::AC))
        {
            continue;
        }
        let time = report.cases.iter().filter_map(|c| c.cpu_ms).max().unwrap_or(0);
        let time = Duration::from_millis(time);
        if slowest.as_ref().is_none_or(|(t, _)| time > *t) {
            slowest = Some((time, example.name.clone()));
        }
    }
    Ok(slowest.map(|(slowest, submission)| Inferred {
        time_limit: from_slowest(slowest, package.time_multiplier, package.time_resolution),
        slowest,
        submission,
    }))
}

/// Where the build cache keeps the limit inferred for this package's content: its inputs, its
/// accepted submissions and its multipliers.
fn kept_path(assignment: &Assignment, cache: &BuildCache) -> PathBuf {
    let mut hasher = blake3::Hasher::new();
    let mut field = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(b"timelimit-v1");
    if let Some(package) = &assignment.package {
        field(&package.time_multiplier.to_le_bytes());
        field(&package.time_resolution.unwrap_or(0.0).to_le_bytes());
    }
    for case in &assignment.cases {
        field(case.id.as_bytes());
        field(&std::fs::read(case.stdin_path()).unwrap_or_default());
    }
    for example in verify::examples(assignment).iter().filter(|e| e.expectation == Expectation::Accepted) {
        for entry in walkdir::WalkDir::new(&example.path).sort_by_file_name().into_iter().flatten() {
            field(entry.path().to_string_lossy().as_bytes());
            field(&std::fs::read(entry.path()).unwrap_or_default());
        }
    }
    cache.dir().join(format!("timelimit-{}", &hasher.finalize().to_hex()[..32]))
}

/// Writes the inferred time limit beside the package (`.timelimit`), or says it is stale.
pub fn write_beside(
    assignment: &Assignment,
    inferred: Duration,
    check_only: bool,
) -> std::io::Result<Option<PathBuf>> {
    let path = assignment.dir.join(TIME_LIMIT_FILE);
    let wanted = format!("{}\n", inferred.as_secs_f64());
    if std::fs::read_to_string(&path).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(None);
    }
    if !check_only {
        std::fs::write(&path, wanted)?;
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_the_slowest_accepted_run_times_the_multiplier_rounded() {
        let ms = Duration::from_millis;
        // problemtools: max(1, ceil(t * multiplier / resolution)) * resolution.
        assert_eq!(from_slowest(ms(40), 5.0, None), Duration::from_secs(1));
        assert_eq!(from_slowest(ms(500), 5.0, None), Duration::from_secs(3));
        assert_eq!(from_slowest(ms(300), 5.0, None), Duration::from_secs(2));
        // Up, not to the nearest: 1.01 s is 2 s (problemtools set wordcount's to 2 s from 0.202 s).
        assert_eq!(from_slowest(ms(202), 5.0, None), Duration::from_secs(2));
        // 2023-07: the smallest multiple of the resolution at or above t * 2.
        assert_eq!(from_slowest(ms(1200), 2.0, Some(1.0)), Duration::from_secs(3));
        assert_eq!(from_slowest(ms(40), 2.0, Some(0.5)), Duration::from_millis(500));
        assert_eq!(from_slowest(ms(700), 2.0, Some(0.5)), Duration::from_millis(1500));
    }
}
