//! One case file read into a validated [`Case`]: its category, kind, scenario, limits and comparison.

use super::*;

pub(super) type CategoryDefaults = BTreeMap<String, (String, CaseKind, CompareSpec)>;

pub(super) fn load_case(
    assignment: &Assignment,
    defaults: &CategoryDefaults,
    assignment_limits: &LimitsFile,
    path: &Path,
) -> Result<Case, LoadError> {
    let text = read(path)?;
    let source = Source { path, text: &text };
    let file: CaseFile = source.parse()?;
    let rel = path.strip_prefix(&assignment.dir).unwrap_or(path).with_extension("");
    let id = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
    let folder = rel
        .parent()
        .and_then(|p| p.components().next())
        .map(|c| c.as_os_str().to_string_lossy().into_owned());

    let category = match (&file.category, folder) {
        (Some(c), _) => {
            if !defaults.contains_key(c.get_ref()) {
                return Err(source.error_at(c.span(), unknown_category(assignment, c.get_ref())));
            }
            c.get_ref().clone()
        }
        (None, Some(folder)) if defaults.contains_key(&folder) => folder,
        (None, _) => {
            return Err(LoadError::Invalid {
                path: path.to_owned(),
                line: None,
                message: format!(
                    "the case names no `category` and its folder is not one; {}",
                    unknown_category(assignment, "")
                ),
            })
        }
    };
    if assignment.category(&category).is_some_and(|c| c.manual) {
        return Err(LoadError::Invalid {
            path: path.to_owned(),
            line: None,
            message: format!("category `{category}` is graded by hand and cannot have cases"),
        });
    }
    let (default_build, default_kind, default_compare) = defaults[&category].clone();

    let weight = match &file.weight {
        Some(w) if !(w.get_ref().is_finite() && *w.get_ref() > 0.0) => {
            return Err(source.error_at(w.span(), "weight must be a number > 0"))
        }
        Some(w) => *w.get_ref(),
        None => 1.0,
    };
    let build = match &file.build {
        Some(b) if !assignment.builds.contains_key(b.get_ref()) => {
            return Err(source.error_at(b.span(), format!("no build recipe named `{}`", b.get_ref())))
        }
        Some(b) => b.get_ref().clone(),
        None => default_build,
    };
    let limits = limits_from(&source, assignment_limits, &file.limits, &Limits::default())?;
    let compare = compare_from(&source, &file.compare, default_compare)?;
    let (scenario, scenario_line) = match file.scenario {
        Some(s) => {
            let line = source.line_of(s.span().start);
            (Some(s.into_inner()), Some(line))
        }
        None => (None, None),
    };

    let mut case = Case {
        id,
        title: file.title,
        path: path.to_owned(),
        category,
        weight,
        visibility: file.visibility.unwrap_or(Visibility::Visible),
        disclosure: file.disclosure.unwrap_or_default(),
        withheld: file.withheld.as_ref().is_some_and(|w| *w.get_ref()),
        kind: file.kind.unwrap_or(default_kind),
        build,
        compare,
        limits,
        scenario,
        scenario_line,
        env: file.env,
        referee: None,
        sidecars: SidecarsOnce::default(),
        package: None,
        generate: None,
        args: file.args.clone(),
    };
    if let Some(command) = &file.generate {
        if case.scenario.is_some() {
            return Err(source.error_at(command.span(), "a case is generated or has a [scenario], not both"));
        }
        let name = command.get_ref().split_whitespace().next().unwrap_or_default();
        if name.is_empty() || !assignment.dir.join("generators").join(name).exists() {
            return Err(source.error_at(
                command.span(),
                format!("no generator `{name}` in {}", assignment.dir.join("generators").display()),
            ));
        }
        case.generate = Some(command.get_ref().trim().to_owned());
    }
    if let Some(withheld) = file.withheld.as_ref().filter(|w| *w.get_ref()) {
        if case.visibility != Visibility::Hidden {
            return Err(source.error_at(withheld.span(), "only a hidden case can be withheld"));
        }
        return Ok(case);
    }
    if case.kind == CaseKind::Interactive {
        let invalid =
            |message: String| LoadError::Invalid { path: path.to_owned(), line: case.scenario_line, message };
        let scenario = case
            .scenario
            .as_ref()
            .ok_or_else(|| invalid("an interactive case needs a [scenario] for its referee".to_owned()))?;
        let solution = reference::solution(&assignment.id).ok_or_else(|| {
            invalid(format!("the reference has no assignment `{}` to referee the case", assignment.id))
        })?;
        let referee = solution.interactive(scenario).map_err(|e| invalid(format!("scenario: {e}")))?;
        case.referee = Some(Referee(referee.into()));
        return Ok(case);
    }
    // With a reference program, `grader bless` writes the transcript.
    if case.scenario.is_none()
        && !case.stdout_path().is_file()
        && assignment.reference.is_none()
        && case.generate.is_none()
    {
        return Err(LoadError::Invalid {
            path: path.to_owned(),
            line: None,
            message: format!(
                "the case has no [scenario] and no expected transcript {}",
                case.stdout_path().display()
            ),
        });
    }
    let env_path = case.env_path();
    if env_path.is_file() {
        let env_text = read(&env_path)?;
        for (n, line) in env_text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let (key, value) = line.split_once('=').ok_or_else(|| LoadError::Invalid {
                path: env_path.clone(),
                line: Some(n + 1),
                message: "expected KEY=VALUE".to_owned(),
            })?;
            case.env.entry(key.to_owned()).or_insert_with(|| value.to_owned());
        }
    }
    Ok(case)
}

pub(super) fn unknown_category(assignment: &Assignment, id: &str) -> String {
    let known: Vec<&str> =
        assignment.categories.iter().filter(|c| !c.manual).map(|c| c.id.as_str()).collect();
    format!("unknown category `{id}` (automated categories: {})", known.join(", "))
}
