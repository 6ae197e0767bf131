//! Settings merged over their defaults, each value checked at its line: limits, comparison, base code.

use super::*;

/// Limits of a case (or a build): its own keys over the assignment's, over `defaults`. Every value is
/// checked against a range that the kernel and the grader can represent, so that a typo such as
/// `memory-mb = 17592186044416` is an error at its line instead of a limit that wraps to zero.
pub(super) fn limits_from(
    source: &Source,
    base: &LimitsFile,
    over: &LimitsFile,
    defaults: &Limits,
) -> Result<Limits, LoadError> {
    let seconds = |v: &Option<Spanned<f64>>, fallback: &Option<Spanned<f64>>, default: Duration| match v
        .as_ref()
        .or(fallback.as_ref())
    {
        Some(s) if !(s.get_ref().is_finite() && *s.get_ref() > 0.0 && *s.get_ref() <= 86_400.0) => {
            Err(source
                .error_at(s.span(), "a time limit must be a number of seconds above 0 and at most 86400"))
        }
        Some(s) => Ok(Duration::from_secs_f64(*s.get_ref())),
        None => Ok(default),
    };
    // (key, value, smallest, largest, unit in bytes): the largest values fit every unit conversion.
    let amount = |v: &Option<Spanned<u64>>,
                  fallback: &Option<Spanned<u64>>,
                  key: &str,
                  range: std::ops::RangeInclusive<u64>,
                  unit: u64,
                  default: u64|
     -> Result<u64, LoadError> {
        match v.as_ref().or(fallback.as_ref()) {
            Some(s) if !range.contains(s.get_ref()) => Err(source
                .error_at(s.span(), format!("{key} must be between {} and {}", range.start(), range.end()))),
            Some(s) => Ok(s.get_ref() * unit),
            None => Ok(default),
        }
    };
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    Ok(Limits {
        wall: seconds(&over.wall_seconds, &base.wall_seconds, defaults.wall)?,
        cpu: seconds(&over.cpu_seconds, &base.cpu_seconds, defaults.cpu)?,
        memory_bytes: amount(
            &over.memory_mb,
            &base.memory_mb,
            "memory-mb",
            1..=1 << 20,
            MIB,
            defaults.memory_bytes,
        )?,
        output_bytes: amount(
            &over.output_kb,
            &base.output_kb,
            "output-kb",
            1..=1 << 20,
            KIB,
            defaults.output_bytes as u64,
        )? as usize,
        processes: amount(&over.processes, &base.processes, "processes", 1..=1 << 16, 1, defaults.processes)?,
        file_size_bytes: amount(
            &over.file_size_kb,
            &base.file_size_kb,
            "file-size-kb",
            1..=1 << 30,
            KIB,
            defaults.file_size_bytes,
        )?,
        disk_bytes: amount(&over.disk_mb, &base.disk_mb, "disk-mb", 1..=1 << 20, MIB, defaults.disk_bytes)?,
        open_files: amount(
            &over.open_files,
            &base.open_files,
            "open-files",
            8..=1 << 20,
            1,
            defaults.open_files,
        )?,
        address_space_limit: over
            .address_space_limit
            .or(base.address_space_limit)
            .unwrap_or(defaults.address_space_limit),
        stack_bytes: defaults.stack_bytes,
    })
}

/// A comparison spec: each key given here replaces the one inherited.
pub(super) fn compare_from(
    source: &Source,
    file: &CompareFile,
    inherited: CompareSpec,
) -> Result<CompareSpec, LoadError> {
    let mut spec = inherited;
    if let Some(n) = &file.normalize {
        spec.normalize = n.iter().copied().collect::<BTreeSet<_>>().into_iter().collect();
    }
    if let Some(p) = file.partial {
        spec.partial = p;
    }
    let line_pattern = |pattern: &Spanned<String>, key: &str| {
        regex::Regex::new(pattern.get_ref())
            .map(LinePattern)
            .map_err(|e| source.error_at(pattern.span(), format!("bad {key} pattern: {e}")))
    };
    if let Some(pattern) = &file.loose_lines {
        spec.loose_lines = Some(line_pattern(pattern, "loose-lines")?);
    }
    if let Some(pattern) = &file.unordered {
        spec.unordered = Some(line_pattern(pattern, "unordered")?);
    }
    if let Some(pattern) = &file.ignore_lines {
        spec.ignore_lines = Some(line_pattern(pattern, "ignore-lines")?);
    }
    let rules = |rules: &[(Spanned<String>, String)], key: &str| {
        rules
            .iter()
            .map(|(pattern, replacement)| Ok((line_pattern(pattern, key)?, replacement.clone())))
            .collect::<Result<Vec<_>, LoadError>>()
    };
    if let Some(rewrites) = &file.rewrite {
        spec.rewrite = rules(rewrites, "rewrite")?;
    }
    if let Some(cost) = &file.hunk_cost {
        if !(cost.get_ref().is_finite() && *cost.get_ref() > 0.0 && *cost.get_ref() <= 1.0) {
            return Err(source.error_at(cost.span(), "hunk-cost must be a number above 0 and at most 1"));
        }
        spec.hunk_cost = *cost.get_ref();
    }
    if let Some(lenient) = &file.lenient {
        let mut ladder = Vec::new();
        for (norm, credit) in lenient {
            if !(credit.get_ref().is_finite() && (0.0..=1.0).contains(credit.get_ref())) {
                return Err(source.error_at(credit.span(), "a lenient credit must be between 0 and 1"));
            }
            ladder.push((*norm, *credit.get_ref()));
        }
        spec.lenient = ladder;
    }
    if let Some(rewrite) = &file.lenient_rewrite {
        let (span, rewrite) = (rewrite.span(), rewrite.get_ref());
        let credit = *rewrite.credit.get_ref();
        if !(credit.is_finite() && (0.0..=1.0).contains(&credit)) {
            return Err(
                source.error_at(rewrite.credit.span(), "a lenient-rewrite credit must be between 0 and 1")
            );
        }
        if rewrite.what.get_ref().trim().is_empty() {
            return Err(
                source.error_at(rewrite.what.span(), "lenient-rewrite needs the words reports name it with")
            );
        }
        if rewrite.rules.is_empty() {
            return Err(source.error_at(span, "lenient-rewrite needs at least one rule"));
        }
        spec.lenient_rewrite = Some(LenientRewrite {
            credit,
            what: rewrite.what.get_ref().trim().to_owned(),
            rules: rules(&rewrite.rules, "lenient-rewrite")?,
        });
    }
    Ok(spec)
}

/// The base files `[similarity] base` names, read: each a C, Java or Python file inside the assignment's
/// folder (or it is an error now); one that cannot be read is an error only for what needs it.
/// `[similarity] look-at`, checked: a similarity above 0 and at most 1.
pub(super) fn similarity_line(
    source: &Source,
    look_at: Option<&Spanned<f64>>,
) -> Result<Option<f64>, LoadError> {
    let Some(line) = look_at else { return Ok(None) };
    let value = *line.get_ref();
    if !(value > 0.0 && value <= 1.0) {
        return Err(source
            .error_at(line.span(), format!("look-at `{value}` is not a similarity above 0 and at most 1")));
    }
    Ok(Some(value))
}

pub(super) fn similarity_base(
    source: &Source,
    dir: &Path,
    names: &[Spanned<String>],
) -> Result<SimilarityBase, LoadError> {
    let mut files = Vec::new();
    let mut unreadable = None;
    for name in names {
        let text = name.get_ref();
        let relative = Path::new(text);
        let inside =
            !text.is_empty() && relative.components().all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(source.error_at(
                name.span(),
                format!("base file `{text}` must be a path inside the assignment's folder (no `..`, not absolute)"),
            ));
        }
        if crate::similarity::tokens::Language::of(text).is_none() {
            return Err(source.error_at(
                name.span(),
                format!(
                    "base file `{text}` is not C, Java or Python source (.c, .h, .java, .py): similarity reads only those"
                ),
            ));
        }
        match std::fs::read(dir.join(relative)) {
            Ok(content) => files.push(crate::build::SourceFile { name: text.clone(), content }),
            Err(e) => {
                let message = format!("cannot read the base file `{text}` in {}: {e}", dir.display());
                unreadable.get_or_insert((
                    source.path.to_owned(),
                    source.line_of(name.span().start),
                    message,
                ));
            }
        }
    }
    Ok(SimilarityBase { files, unreadable })
}
