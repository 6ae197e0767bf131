//! What an instructor writes about an audit in the assignment's `README.md`: the survivors judged
//! equivalent (an `audit-equivalent` block), those that differ only where no case may look (an
//! `audit-unobservable` block: undefined behaviour, or what the handout leaves open) and, where the
//! cases do not name them, the rubric categories of functions (an `audit-functions` block); and the
//! map of functions to categories that the audit derives from the rubric and the cases where the
//! README says nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::mutate::Function;
use crate::load::{Assignment, LoadError};

/// The fenced block (info string) that lists equivalent mutants: `<id> <reason>` a line, or
/// `<function>() <reason>` for every mutant of a function.
pub const EQUIVALENT_BLOCK: &str = "audit-equivalent";
/// The fenced block that lists unobservable mutants, in the lines of [`EQUIVALENT_BLOCK`]: mutants
/// that differ from the correct program on some input the handout allows, but only through
/// undefined behaviour (a write out of bounds, a read before a variable is set) or in what the
/// handout leaves open and no case may grade (an exit status, end of input, free spacing).
pub const UNOBSERVABLE_BLOCK: &str = "audit-unobservable";
/// The fenced block that maps functions to categories: `<function>: <category> <category>...`.
pub const FUNCTIONS_BLOCK: &str = "audit-functions";

/// The audit's marks from an assignment's README.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// The README read (none when the assignment has none).
    pub path: Option<PathBuf>,
    /// Equivalent mutants: id → the one-line reason.
    pub equivalent: BTreeMap<String, String>,
    /// Functions whose every surviving mutant is equivalent (code no case can reach, such as a
    /// function nothing calls): name → the reason.
    pub equivalent_functions: BTreeMap<String, String>,
    /// Unobservable mutants (see [`UNOBSERVABLE_BLOCK`]): id → the one-line reason.
    pub unobservable: BTreeMap<String, String>,
    /// Functions whose every surviving mutant is unobservable (code that runs only where the
    /// handout leaves the behaviour open): name → the reason.
    pub unobservable_functions: BTreeMap<String, String>,
    /// Categories of functions the instructor named: function → categories.
    pub functions: BTreeMap<String, Vec<String>>,
}

/// The two kinds of survivors the README sets aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// No input the handout allows tells it from the correct program ([`EQUIVALENT_BLOCK`]).
    Equivalent,
    /// It differs only through undefined behaviour or in what no case may grade ([`UNOBSERVABLE_BLOCK`]).
    Unobservable,
}

impl Marks {
    /// How the README marks this mutant (by its id in either block, else by its function), and why.
    pub fn mark(&self, id: &str, function: &str) -> Option<(MarkKind, &str)> {
        let bare = function.rsplit('.').next().unwrap_or(function);
        let by_id = [(MarkKind::Equivalent, &self.equivalent), (MarkKind::Unobservable, &self.unobservable)];
        let by_function = [
            (MarkKind::Equivalent, &self.equivalent_functions),
            (MarkKind::Unobservable, &self.unobservable_functions),
        ];
        by_id.iter().find_map(|(kind, marks)| marks.get(id).map(|r| (*kind, r.as_str()))).or_else(|| {
            by_function.iter().find_map(|(kind, marks)| {
                marks.get(function).or_else(|| marks.get(bare)).map(|r| (*kind, r.as_str()))
            })
        })
    }

    /// Whether either block marks every mutant of the function (`name()`): code no case runs, or
    /// runs only where the handout leaves the behaviour open.
    pub fn marks_function(&self, name: &str) -> bool {
        self.equivalent_functions.contains_key(name) || self.unobservable_functions.contains_key(name)
    }

    /// Reads `README.md` of the assignment's folder; a missing README marks nothing. A malformed
    /// line (an id without a reason, a category the rubric lacks) is an error naming the file and line.
    pub fn read(assignment: &Assignment) -> Result<Marks, LoadError> {
        let path = assignment.dir.join("README.md");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Marks::default()),
            Err(source) => return Err(LoadError::Io { path, source }),
        };
        Marks::parse(&text, &path, assignment)
    }

    /// Reads the marks from a README's text (`path` for messages).
    pub fn parse(text: &str, path: &Path, assignment: &Assignment) -> Result<Marks, LoadError> {
        let invalid = |line: usize, message: String| LoadError::Invalid {
            path: path.to_owned(),
            line: Some(line),
            message,
        };
        let mut marks = Marks { path: Some(path.to_owned()), ..Marks::default() };
        let mut block: Option<(&str, usize)> = None;
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if let Some(info) = line.strip_prefix("```") {
                block = match block {
                    Some(_) => None,
                    None => Some((info.trim(), number)),
                };
                continue;
            }
            let Some((info, _)) = block else { continue };
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match info {
                EQUIVALENT_BLOCK | UNOBSERVABLE_BLOCK => {
                    let kind =
                        if info == EQUIVALENT_BLOCK { MarkKind::Equivalent } else { MarkKind::Unobservable };
                    let (id, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                    // `name()`: every mutant of that function (code no case can reach).
                    let function = id.strip_suffix("()").filter(|f| !f.is_empty());
                    if function.is_none() && !is_mutant_id(id) {
                        return Err(invalid(
                            number,
                            format!(
                                "`{id}` is not a mutant id (like `ror-3fa2c1d0`, as `grader audit` names them) \
                                 nor a function (`pieceAt()`)"
                            ),
                        ));
                    }
                    let reason = reason.trim();
                    if reason.is_empty() {
                        let why = match kind {
                            MarkKind::Equivalent => "why it is equivalent",
                            MarkKind::Unobservable => {
                                "why no case may show it (undefined behaviour, or what the handout leaves open)"
                            }
                        };
                        return Err(invalid(number, format!("{id} needs a reason: {why}, in one line")));
                    }
                    let key = function.unwrap_or(id).to_owned();
                    let (this, other) = match (kind, function.is_some()) {
                        (MarkKind::Equivalent, true) => {
                            (&mut marks.equivalent_functions, &marks.unobservable_functions)
                        }
                        (MarkKind::Equivalent, false) => (&mut marks.equivalent, &marks.unobservable),
                        (MarkKind::Unobservable, true) => {
                            (&mut marks.unobservable_functions, &marks.equivalent_functions)
                        }
                        (MarkKind::Unobservable, false) => (&mut marks.unobservable, &marks.equivalent),
                    };
                    if other.contains_key(&key) {
                        return Err(invalid(
                            number,
                            format!(
                                "{id} is marked in both `{EQUIVALENT_BLOCK}` and `{UNOBSERVABLE_BLOCK}`: a \
                                 mutant is one or the other"
                            ),
                        ));
                    }
                    if this.insert(key, reason.to_owned()).is_some() {
                        return Err(invalid(number, format!("{id} is marked twice")));
                    }
                }
                FUNCTIONS_BLOCK => {
                    let Some((function, categories)) = line.split_once(':') else {
                        return Err(invalid(number, "expected `function: category category ...`".to_owned()));
                    };
                    let function = function.trim();
                    let categories: Vec<String> = categories
                        .split([' ', ',', '\t'])
                        .filter(|c| !c.is_empty())
                        .map(str::to_owned)
                        .collect();
                    if function.is_empty() || categories.is_empty() {
                        return Err(invalid(number, "expected `function: category category ...`".to_owned()));
                    }
                    if let Some(unknown) = categories.iter().find(|c| assignment.category(c).is_none()) {
                        let known: Vec<&str> = assignment.categories.iter().map(|c| c.id.as_str()).collect();
                        return Err(invalid(
                            number,
                            format!("no category `{unknown}` in the rubric (it has {})", known.join(", ")),
                        ));
                    }
                    marks.functions.insert(function.to_owned(), categories);
                }
                _ => {}
            }
        }
        if let Some((info, opened)) = block {
            if [EQUIVALENT_BLOCK, UNOBSERVABLE_BLOCK, FUNCTIONS_BLOCK].contains(&info) {
                return Err(invalid(opened, format!("the `{info}` block is never closed")));
            }
        }
        Ok(marks)
    }
}

/// Whether `text` has the shape of a mutant id: three letters, a dash, eight hex digits.
pub fn is_mutant_id(text: &str) -> bool {
    let Some((kind, hash)) = text.split_once('-') else { return false };
    kind.len() == 3
        && kind.chars().all(|c| c.is_ascii_lowercase())
        && hash.len() == 8
        && hash.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
}

/// Which rubric categories grade a function, and how the audit knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCategories {
    /// The function (`movePiece`; `Board.apply`).
    pub function: String,
    /// The categories that grade it; empty: none known.
    pub categories: Vec<String>,
    /// How they were found, in words (`the category's id`, `README.md`, `called only from ...`), or
    /// why none are known.
    pub how: String,
}

/// The categories of every function: the README's `audit-functions` block first; else the
/// categories whose id is the function's name, or whose title or cases' titles name it as code
/// (`check_move`, `move()`, `printMoves`); else, for a helper, the categories of the functions that
/// call it when every caller has some. Nothing is guessed from plain words.
pub fn function_categories(
    assignment: &Assignment,
    functions: &[Function],
    marks: &Marks,
) -> Vec<FunctionCategories> {
    let mut known: BTreeMap<String, (BTreeSet<String>, String)> = BTreeMap::new();
    for function in functions {
        let bare = function.bare_name();
        if let Some(categories) = marks.functions.get(&function.name).or_else(|| marks.functions.get(bare)) {
            let source = marks.path.as_ref().map_or("README.md".to_owned(), |p| p.display().to_string());
            known.insert(
                function.name.clone(),
                (categories.iter().cloned().collect(), format!("named in {source}")),
            );
            continue;
        }
        let mut by_id = BTreeSet::new();
        let mut by_title = BTreeSet::new();
        for category in assignment.categories.iter().filter(|c| !c.manual) {
            if squash(&category.id) == squash(bare) && !function.is_constructor() {
                by_id.insert(category.id.clone());
            } else if names_function(&category.title, bare)
                || assignment
                    .cases
                    .iter()
                    .any(|c| c.category == category.id && names_function(&c.title, bare))
            {
                by_title.insert(category.id.clone());
            }
        }
        if !by_id.is_empty() {
            known.insert(function.name.clone(), (by_id, "the category's id is its name".to_owned()));
        } else if !by_title.is_empty() {
            known.insert(
                function.name.clone(),
                (by_title, "named in the titles of the category or its cases".to_owned()),
            );
        }
    }
    // Helpers: the union of their callers' categories, once every caller has some.
    let callers = |name: &str| -> Vec<&Function> {
        let bare = name.rsplit('.').next().unwrap_or(name);
        functions.iter().filter(|f| f.name != name && f.calls.contains(bare)).collect()
    };
    loop {
        let mut changed = false;
        for function in functions {
            if known.contains_key(&function.name) {
                continue;
            }
            let callers = callers(&function.name);
            if callers.is_empty() || !callers.iter().all(|c| known.contains_key(&c.name)) {
                continue;
            }
            let categories: BTreeSet<String> =
                callers.iter().flat_map(|c| known[&c.name].0.iter().cloned()).collect();
            let names: Vec<&str> = callers.iter().map(|c| c.name.as_str()).collect();
            known.insert(
                function.name.clone(),
                (categories, format!("called only from {}", names.join(", "))),
            );
            changed = true;
        }
        if !changed {
            break;
        }
    }
    let mut out: Vec<FunctionCategories> = functions
        .iter()
        .map(|function| match known.get(&function.name) {
            Some((categories, how)) => {
                // Rubric order, not alphabetical.
                let categories = assignment
                    .categories
                    .iter()
                    .filter(|c| categories.contains(&c.id))
                    .map(|c| c.id.clone())
                    .collect();
                FunctionCategories { function: function.name.clone(), categories, how: how.clone() }
            }
            None => {
                let callers = callers(&function.name);
                let how = if callers.is_empty() {
                    "no category or case names it, and no function calls it".to_owned()
                } else {
                    let unknown: Vec<&str> = callers
                        .iter()
                        .filter(|c| !known.contains_key(&c.name))
                        .map(|c| c.name.as_str())
                        .collect();
                    format!(
                        "no category or case names it, and neither do they name its caller(s) {}",
                        unknown.join(", ")
                    )
                };
                FunctionCategories { function: function.name.clone(), categories: Vec::new(), how }
            }
        })
        .collect();
    out.sort_by(|a, b| a.function.cmp(&b.function));
    out.dedup_by(|a, b| a.function == b.function);
    out
}

/// Lower case without separators: `initializeBoard`, `initialize-board` and `initialize_board` agree.
fn squash(text: &str) -> String {
    text.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Whether a title names the function as code: the name as a whole word that is written like code
/// (with an underscore, in camelCase, or followed by `(`), so that the word "move" in a sentence
/// never names a function `move`, while `move()` does.
fn names_function(title: &str, function: &str) -> bool {
    let bytes = title.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(found) = title[from..].find(function) {
        let start = from + found;
        let end = start + function.len();
        from = end;
        let whole =
            (start == 0 || !is_word(bytes[start - 1])) && (end == bytes.len() || !is_word(bytes[end]));
        if !whole {
            continue;
        }
        let camel = function.chars().skip(1).any(|c| c.is_ascii_uppercase());
        if function.contains('_') || camel || bytes.get(end) == Some(&b'(') {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_names_a_function_only_when_written_as_code() {
        assert!(names_function("check_board_bounds on and around 1..24", "check_board_bounds"));
        assert!(names_function("move() takes 0-based coordinates", "move"));
        assert!(names_function("printMoves lists the legal moves", "printMoves"));
        assert!(!names_function("A plain move returns 0", "move"));
        assert!(!names_function("check_move_twice", "check_move"));
        assert!(!names_function("Moves: a man moves", "moves"));
    }

    #[test]
    fn mutant_ids_have_their_shape() {
        assert!(is_mutant_id("ror-3fa2c1d0"));
        assert!(!is_mutant_id("ror-3FA2C1D0"));
        assert!(!is_mutant_id("ror3fa2c1d0"));
        assert!(!is_mutant_id("relational-3fa2c1d0"));
    }
}
