//! The languages a submission may be written in, chosen by file extension as a judge chooses them
//! (the problem package format's languages table): how each one is compiled and run.
//!
//! Pure: a [`Plan`] is the commands and the run line for a set of file names, in the placeholders
//! build recipes use (`{build}`, `{out}`, `{glob:PAT}`); the build stage runs them contained.

use std::fmt;

/// A language the grader compiles and runs without a recipe written for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Language {
    /// C (gcc, C17 with GNU extensions).
    C,
    /// C++ (g++, C++17 with GNU extensions).
    Cpp,
    /// Java (javac and java; the class with `main` is the entry point).
    Java,
    /// Python 3 (`python3`; `main.py`, or the one `.py` file, is the entry point).
    Python3,
    /// Rust (rustc, edition 2021, no crates).
    Rust,
    /// JavaScript (Node.js; `main.js`, or the one `.js` file, is the entry point).
    JavaScript,
}

impl Language {
    /// Every language, in the order ambiguities are named.
    pub const ALL: [Language; 6] =
        [Language::C, Language::Cpp, Language::Java, Language::Python3, Language::Rust, Language::JavaScript];

    /// The code the problem package format gives the language (`c`, `cpp`, `python3`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Java => "java",
            Language::Python3 => "python3",
            Language::Rust => "rust",
            Language::JavaScript => "javascript",
        }
    }

    /// The language of a code, or of a common other name (`c++`, `python`, `js`, `node`).
    pub fn from_code(code: &str) -> Option<Language> {
        let code = code.trim().to_ascii_lowercase();
        Some(match code.as_str() {
            "c" => Language::C,
            "cpp" | "c++" | "cxx" => Language::Cpp,
            "java" => Language::Java,
            "python3" | "python" | "py" | "py3" => Language::Python3,
            "rust" | "rs" => Language::Rust,
            "javascript" | "js" | "node" | "nodejs" => Language::JavaScript,
            _ => return None,
        })
    }

    /// File endings that mark a file as this language's source (the languages table's).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::C => &["c"],
            Language::Cpp => &["cc", "cpp", "cxx", "c++", "C"],
            Language::Java => &["java"],
            Language::Python3 => &["py", "py3"],
            Language::Rust => &["rs"],
            Language::JavaScript => &["js"],
        }
    }

    /// The language of a source file by its ending; headers (`.h`, `.hpp`) belong to none alone.
    pub fn of_file(name: &str) -> Option<Language> {
        let (_, extension) = name.rsplit_once('.')?;
        Language::ALL.into_iter().find(|l| l.extensions().contains(&extension))
    }

    /// The programs its build and runs need, as recipes name them.
    pub fn tools(self) -> &'static [&'static str] {
        match self {
            Language::C => &["gcc"],
            Language::Cpp => &["g++"],
            Language::Java => &["javac", "java"],
            Language::Python3 => &["python3"],
            Language::Rust => &["rustc"],
            Language::JavaScript => &["node"],
        }
    }

    /// The Debian packages that install [`Language::tools`] (for the Gradescope image).
    pub fn debian_packages(self) -> &'static [&'static str] {
        match self {
            Language::C => &["gcc", "libc6-dev"],
            Language::Cpp => &["g++"],
            Language::Java => &["default-jdk-headless"],
            Language::Python3 => &["python3"],
            Language::Rust => &["rustc"],
            Language::JavaScript => &["nodejs"],
        }
    }

    /// Whether the program reads its own sources when it runs (an interpreter does): they must stay
    /// readable by the run, not only by the compiler.
    pub fn interpreted(self) -> bool {
        matches!(self, Language::Python3 | Language::JavaScript)
    }

    /// Patterns of the files a submission in any of these languages may hold (headers included).
    pub fn submission_patterns() -> Vec<&'static str> {
        vec![
            "*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.C", "*.hpp", "*.hh", "*.java", "*.py",
            "*.py3", "*.rs", "*.js",
        ]
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Java => "Java",
            Language::Python3 => "Python 3",
            Language::Rust => "Rust",
            Language::JavaScript => "JavaScript",
        })
    }
}

/// Which language a build recipe compiles: the one its `language` key names, or whichever the
/// submission's endings say (a problem package, where each student picks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// By the submission's file endings ([`detect`]).
    ByExtension,
    /// This language only: a submission in another is a build error.
    Only(Language),
}

/// A build recipe made from a language rather than from commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LanguageRecipe {
    /// Which language.
    pub choice: Choice,
    /// The heap a JVM gets, in MiB (below the run's memory limit, with room for the JVM itself).
    pub heap_mb: u64,
}

impl LanguageRecipe {
    /// The plan for a submission's files.
    ///
    /// # Errors
    ///
    /// In words for the student's report, as [`detect`] and [`plan`] say them, or a submission in
    /// another language than the one the recipe names.
    pub fn plan(&self, sources: &[Source]) -> Result<Plan, String> {
        let names: Vec<&str> = sources.iter().map(|s| s.name).collect();
        let language = match self.choice {
            Choice::ByExtension => detect(&names)?,
            Choice::Only(language) => {
                if !sources.iter().any(|s| Language::of_file(s.name) == Some(language)) {
                    let endings: Vec<String> =
                        language.extensions().iter().map(|e| format!(".{e}")).collect();
                    return Err(format!(
                        "the assignment is written in {language} ({}), and the submission has no such file",
                        endings.join(" ")
                    ));
                }
                language
            }
        };
        if language == Language::Python3 {
            if let Some(old) =
                sources.iter().find(|s| Language::of_file(s.name) == Some(language) && is_python2(s.content))
            {
                return Err(format!(
                    "{} is Python 2 (its #! line names python2): the grader runs Python 3 only",
                    old.name
                ));
            }
        }
        plan(language, sources, self.heap_mb)
    }
}

/// Whether a Python file says it is Python 2, as the problem package format reads it: a first line
/// `#!...python2`.
pub fn is_python2(content: &[u8]) -> bool {
    let first = content.split(|&b| b == b'\n').next().unwrap_or_default();
    first.starts_with(b"#!") && first.windows(7).any(|w| w == b"python2")
}

/// Whether a `#!` line names `python` without a version.
fn names_python_only(content: &[u8]) -> bool {
    let first = content.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    first.starts_with("#!") && first.trim_end().ends_with("python")
}

/// Why a submission (its files' names and contents) cannot be built by the grader at all, in any
/// case: no file in a language it knows, or Python 2; `None` when it can be tried.
pub fn unsupported(sources: &[Source]) -> Option<String> {
    let names: Vec<&str> = sources.iter().map(|s| s.name).collect();
    match detect(&names) {
        Err(_) if !names.iter().any(|n| Language::of_file(n).is_some()) => {
            Some(format!("not in a language the grader builds ({})", names.join(", ")))
        }
        // `#!/usr/bin/python` is Python 2 to the package tools of its time (the format asks for
        // `python3` in the #! line of Python 3 code that has one).
        Ok(Language::Python3)
            if sources.iter().any(|s| is_python2(s.content) || names_python_only(s.content)) =>
        {
            Some("Python 2 (by its #! line), which the grader does not run".to_owned())
        }
        _ => None,
    }
}

/// The language of a submission: every source file in one language (headers go with C or C++).
///
/// # Errors
///
/// In words for the student's report: no source file of a known language, or files of several.
pub fn detect(names: &[&str]) -> Result<Language, String> {
    let mut found: Vec<Language> = names.iter().filter_map(|n| Language::of_file(n)).collect();
    found.sort();
    found.dedup();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "no source file in a language the grader knows ({}): files {}",
            known_endings(),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        )),
        several => {
            let names: Vec<String> = several.iter().map(ToString::to_string).collect();
            Err(format!(
                "source files in several languages ({}): a submission is written in one",
                names.join(", ")
            ))
        }
    }
}

fn known_endings() -> String {
    Language::ALL
        .iter()
        .map(|l| {
            let endings: Vec<String> = l.extensions().iter().map(|e| format!(".{e}")).collect();
            format!("{l} {}", endings.join(" "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a submission in one language is built and run, in recipe placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The language.
    pub language: Language,
    /// Commands run in order in the build folder.
    pub commands: Vec<Vec<String>>,
    /// The command line that runs the program.
    pub run: Vec<String>,
}

/// One source file as the plan needs it: its name in the submission and its text.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// Its path in the submission (`main.py`, `src/Main.java`).
    pub name: &'a str,
    /// Its bytes.
    pub content: &'a [u8],
}

/// Plans the build and run of a submission in `language`. `heap_mb` bounds a JVM's heap (a JVM
/// sizes it from the machine's memory, not from a run's limit).
///
/// # Errors
///
/// In words for the student's report: no entry point can be chosen (two Python files and neither is
/// `main.py`, no class with `main`, ...).
pub fn plan(language: Language, sources: &[Source], heap_mb: u64) -> Result<Plan, String> {
    let own: Vec<&Source> = sources.iter().filter(|s| Language::of_file(s.name) == Some(language)).collect();
    let globs = |language: Language| -> Vec<String> {
        language.extensions().iter().map(|e| format!("{{glob:*.{e}}}")).collect()
    };
    // Only the endings the submission has: a `{glob:...}` matching nothing fails the build.
    let present = |language: Language| -> Vec<String> {
        globs(language)
            .into_iter()
            .zip(language.extensions())
            .filter(|(_, e)| own.iter().any(|s| s.name.ends_with(&format!(".{e}"))))
            .map(|(g, _)| g)
            .collect()
    };
    let build = |path: &str| format!("{{build}}/{path}");
    let (commands, run) = match language {
        Language::C => {
            let mut gcc: Vec<String> =
                ["gcc", "-std=gnu17", "-O2", "-pipe", "-o", "{out}"].map(String::from).to_vec();
            gcc.extend(present(language));
            gcc.push("-lm".to_owned());
            (vec![gcc], vec!["{out}".to_owned()])
        }
        Language::Cpp => {
            let mut gpp: Vec<String> =
                ["g++", "-std=gnu++17", "-O2", "-pipe", "-o", "{out}"].map(String::from).to_vec();
            gpp.extend(present(language));
            (vec![gpp], vec!["{out}".to_owned()])
        }
        Language::Java => {
            let main = java_main_class(&own)?;
            let mut javac: Vec<String> = [
                "javac",
                "-J-Xmx512m",
                "-J-XX:+UseSerialGC",
                "-J-XX:TieredStopAtLevel=1",
                "-encoding",
                "UTF-8",
                "-d",
                "{build}/classes",
            ]
            .map(String::from)
            .to_vec();
            javac.extend(present(language));
            let run = vec![
                "java".to_owned(),
                format!("-Xmx{heap_mb}m"),
                "-Xss64m".to_owned(),
                "-XX:+UseSerialGC".to_owned(),
                "-XX:-UsePerfData".to_owned(),
                "-XX:ActiveProcessorCount=1".to_owned(),
                "-cp".to_owned(),
                "{build}/classes".to_owned(),
                main,
            ];
            (vec![javac], run)
        }
        Language::Python3 => {
            let main = entry_file(&own, "main.py", language)?;
            // Compiling every file finds a syntax error before any case runs, as a build error.
            let mut check: Vec<String> = ["python3", "-m", "py_compile"].map(String::from).to_vec();
            check.extend(present(language));
            (vec![check], vec!["python3".to_owned(), build(&main)])
        }
        Language::Rust => {
            let main = entry_file(&own, "main.rs", language)?;
            let mut rustc = ["rustc", "--edition", "2021", "-O", "-o", "{out}"].map(String::from).to_vec();
            rustc.push(build(&main));
            (vec![rustc], vec!["{out}".to_owned()])
        }
        Language::JavaScript => {
            let main = entry_file(&own, "main.js", language)?;
            let check = vec!["node".to_owned(), "--check".to_owned(), build(&main)];
            (vec![check], vec!["node".to_owned(), build(&main)])
        }
    };
    Ok(Plan { language, commands, run })
}

/// The file a program starts from: `default` when the submission has it, else its only file.
fn entry_file(own: &[&Source], default: &str, language: Language) -> Result<String, String> {
    if own.iter().any(|s| s.name == default) {
        return Ok(default.to_owned());
    }
    match own {
        [one] => Ok(one.name.to_owned()),
        [] => Err(format!("no {language} file")),
        several => {
            let names: Vec<&str> = several.iter().map(|s| s.name).collect();
            Err(format!(
                "{} {language} files and none is {default} ({}): name the one the program starts from {default}",
                names.len(),
                names.join(", ")
            ))
        }
    }
}

/// The class with a `main` method (its package included): the only one, else the one called `Main`.
fn java_main_class(own: &[&Source]) -> Result<String, String> {
    let has_main =
        regex::Regex::new(r"static\s+(final\s+)?(public\s+)?void\s+main\s*\(").expect("a valid pattern");
    let package = regex::Regex::new(r"(?m)^\s*package\s+([A-Za-z0-9_.]+)\s*;").expect("a valid pattern");
    let mut mains = Vec::new();
    for source in own {
        let text = String::from_utf8_lossy(source.content);
        if !has_main.is_match(&text) {
            continue;
        }
        let file = source.name.rsplit('/').next().unwrap_or(source.name);
        let class = file.strip_suffix(".java").unwrap_or(file);
        let qualified = match package.captures(&text) {
            Some(p) => format!("{}.{class}", &p[1]),
            None => class.to_owned(),
        };
        mains.push(qualified);
    }
    match mains.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err("no class with a main method among the .java files".to_owned()),
        several => {
            let named_main: Vec<&String> =
                several.iter().filter(|m| *m == "Main" || m.ends_with(".Main")).collect();
            match named_main.as_slice() {
                [one] => Ok((*one).clone()),
                _ => Err(format!(
                    "several classes have a main method, and not exactly one is called Main: {}",
                    several.join(", ")
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src<'a>(name: &'a str, content: &'a str) -> Source<'a> {
        Source { name, content: content.as_bytes() }
    }

    #[test]
    fn a_submission_is_in_the_language_of_its_endings_headers_going_along() {
        assert_eq!(detect(&["main.c", "board.h"]), Ok(Language::C));
        assert_eq!(detect(&["a.cpp", "b.cc", "x.hpp"]), Ok(Language::Cpp));
        assert_eq!(detect(&["solve.py"]), Ok(Language::Python3));
        assert_eq!(detect(&["Main.java"]), Ok(Language::Java));
        let several = detect(&["main.c", "helper.py"]).unwrap_err();
        assert!(several.contains("several languages (C, Python 3)"), "{several}");
        let none = detect(&["notes.txt"]).unwrap_err();
        assert!(none.contains("no source file") && none.contains("Python 3 .py .py3"), "{none}");
    }

    #[test]
    fn python_starts_from_main_py_or_the_only_file() {
        let one = plan(Language::Python3, &[src("count.py", "")], 256).unwrap();
        assert_eq!(one.run, ["python3", "{build}/count.py"]);
        assert_eq!(one.commands, [["python3", "-m", "py_compile", "{glob:*.py}"]]);
        let two = [src("main.py", ""), src("util.py", "")];
        assert_eq!(plan(Language::Python3, &two, 256).unwrap().run, ["python3", "{build}/main.py"]);
        let ambiguous = [src("a.py", ""), src("b.py", "")];
        let err = plan(Language::Python3, &ambiguous, 256).unwrap_err();
        assert!(err.contains("2 Python 3 files and none is main.py") && err.contains("a.py, b.py"), "{err}");
    }

    #[test]
    fn java_runs_the_class_with_main_in_its_package() {
        let files = [
            src("src/game/Board.java", "package game;\nclass Board {}\n"),
            src(
                "src/game/App.java",
                "package game;\npublic class App { public static void main(String[] a) {} }",
            ),
        ];
        let p = plan(Language::Java, &files, 384).unwrap();
        assert_eq!(p.run.last().map(String::as_str), Some("game.App"));
        assert!(p.run.contains(&"-Xmx384m".to_owned()), "{:?}", p.run);
        let two = [
            src("Main.java", "class Main { public static void main(String[] a) {} }"),
            src("Tool.java", "class Tool { static public void main(String[] a) {} }"),
        ];
        assert_eq!(plan(Language::Java, &two, 256).unwrap().run.last().unwrap(), "Main");
        let none = [src("A.java", "class A {}")];
        assert!(plan(Language::Java, &none, 256).unwrap_err().contains("no class with a main method"));
    }

    #[test]
    fn c_and_cpp_compile_only_the_endings_present() {
        let c = plan(Language::C, &[src("main.c", ""), src("b.h", "")], 256).unwrap();
        assert_eq!(c.commands[0], ["gcc", "-std=gnu17", "-O2", "-pipe", "-o", "{out}", "{glob:*.c}", "-lm"]);
        let cpp = plan(Language::Cpp, &[src("a.cc", ""), src("b.cpp", "")], 256).unwrap();
        assert!(cpp.commands[0].ends_with(&["{glob:*.cc}".to_owned(), "{glob:*.cpp}".to_owned()]));
    }

    #[test]
    fn python_2_by_its_hash_bang_line_is_not_graded_as_python_3() {
        let two = [src("old.py", "#!/usr/bin/env python2\nprint 1\n")];
        let err = LanguageRecipe { choice: Choice::ByExtension, heap_mb: 64 }.plan(&two).unwrap_err();
        assert!(err.contains("old.py is Python 2"), "{err}");
        assert!(unsupported(&two).is_some());
        // `#!/usr/bin/python` is Python 2 to `verify` (an example is skipped), never to a student's build.
        let bare = [src("a.py", "#!/usr/bin/python\nprint(1)\n")];
        assert!(unsupported(&bare).is_some());
        assert!(LanguageRecipe { choice: Choice::ByExtension, heap_mb: 64 }.plan(&bare).is_ok());
        assert!(unsupported(&[src("a.py", "#!/usr/bin/env python3\nprint(1)\n")]).is_none());
        assert!(unsupported(&[src("Main.scala", "object Main")]).unwrap().contains("Main.scala"));
    }

    #[test]
    fn codes_and_other_names_name_languages() {
        for language in Language::ALL {
            assert_eq!(Language::from_code(language.code()), Some(language));
        }
        assert_eq!(Language::from_code("Python"), Some(Language::Python3));
        assert_eq!(Language::from_code("cobol"), None);
    }
}
