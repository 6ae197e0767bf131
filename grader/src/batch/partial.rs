//! Class files that hold only part of the class (a batch stopped by a signal, or `--only` on an output
//! folder without the others' gradings) say so under their title.

use std::path::Path;

use super::{write_atomic, BatchError};

/// Says in `summary.md` and `class.html`, under their title, that the class files hold only part of
/// the class.
pub(super) fn mark_partial(out: &Path, banner: &str) -> Result<(), BatchError> {
    let summary_path = out.join("summary.md");
    let summary = std::fs::read_to_string(&summary_path)
        .map_err(|source| BatchError::Write { path: summary_path.clone(), source })?;
    let (title, rest) = summary.split_once('\n').unwrap_or((&summary, ""));
    write_atomic(&summary_path, format!("{title}\n\n**{banner}**\n{rest}").as_bytes())?;
    let page_path = out.join("class.html");
    let page = std::fs::read_to_string(&page_path)
        .map_err(|source| BatchError::Write { path: page_path.clone(), source })?;
    // The banner is our own text (numbers and a signal's name): nothing to escape.
    let marked = match page.split_once("</h1>\n") {
        Some((head, rest)) => {
            format!("{head}</h1>\n<p class=\"partial\" style=\"font-weight:bold;color:#a11\">{banner}</p>\n{rest}")
        }
        None => page,
    };
    write_atomic(&page_path, marked.as_bytes())
}
