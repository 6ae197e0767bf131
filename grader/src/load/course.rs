//! What a course adds on top of a problem package: an `assignment.toml` beside `problem.yaml` with
//! the assignment's title, its categories' titles and points, categories graded by hand, a late
//! penalty and the similarity base, everything else coming from the package.

use super::*;

/// `assignment.toml` beside a `problem.yaml`: only what a course adds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CourseFile {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    handout: Option<String>,
    #[serde(default)]
    late: Option<LateFile>,
    #[serde(default)]
    similarity: Option<SimilarityFile>,
    #[serde(default)]
    categories: Vec<CourseCategory>,
}

/// A category of the package (a test group) retitled or reweighted, or one graded by hand.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CourseCategory {
    id: Spanned<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    points: Option<Spanned<f64>>,
    #[serde(default)]
    manual: bool,
}

/// Applies the `assignment.toml` beside the package, if there is one.
pub(super) fn apply(assignment: &mut Assignment) -> Result<(), LoadError> {
    let path = assignment.dir.join(ASSIGNMENT_FILE);
    if !path.is_file() {
        return Ok(());
    }
    let text = read(&path)?;
    let source = Source { path: &path, text: &text };
    let file: CourseFile = source.parse()?;
    if let Some(title) = file.title {
        assignment.title = title;
    }
    if file.handout.is_some() {
        assignment.handout = file.handout;
    }
    if let Some(late) = &file.late {
        let percent = *late.penalty.get_ref();
        if !(percent > 0.0 && percent <= 100.0) {
            return Err(source.error_at(
                late.penalty.span(),
                format!("late penalty `{percent}` is not a percentage above 0 and at most 100"),
            ));
        }
        assignment.late_penalty = Some(percent);
    }
    if let Some(similarity) = &file.similarity {
        assignment.similarity_base = similarity_base(&source, &assignment.dir, &similarity.base)?;
        assignment.similarity_look_at = similarity_line(&source, similarity.look_at.as_ref())?;
    }
    for category in file.categories {
        let id = category.id.get_ref().clone();
        let points = match &category.points {
            Some(p) if !(p.get_ref().is_finite() && *p.get_ref() >= 0.0) => {
                return Err(source.error_at(p.span(), "points must be a number >= 0"))
            }
            Some(p) => Some(*p.get_ref()),
            None => None,
        };
        match assignment.categories.iter_mut().find(|c| c.id == id) {
            Some(_) if category.manual => {
                return Err(source.error_at(
                    category.id.span(),
                    format!("category `{id}` is a test group of the package: it cannot be graded by hand"),
                ))
            }
            Some(existing) => {
                if let Some(title) = category.title {
                    existing.title = title;
                }
                if let Some(points) = points {
                    existing.points = points;
                }
            }
            None if category.manual => assignment.categories.push(Category {
                title: category.title.unwrap_or_else(|| id.clone()),
                id,
                points: points.ok_or_else(|| {
                    source.error_at(category.id.span(), "a category graded by hand needs its `points`")
                })?,
                manual: true,
                bonus: false,
                all_or_nothing: false,
            }),
            None => {
                let groups: Vec<&str> = assignment.categories.iter().map(|c| c.id.as_str()).collect();
                return Err(source.error_at(
                    category.id.span(),
                    format!(
                        "no test group `{id}` in the package (groups: {}); a category of the course's own needs `manual = true`",
                        groups.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}
