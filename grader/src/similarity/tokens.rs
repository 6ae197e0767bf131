//! Tokens of a C, Java or Python source file from its tree-sitter parse, normalised so that what a
//! copier changes for free changes nothing: every identifier is `ID`, every number `NUM`, every string
//! `STR`, every character `CHR`; comments, `#include`s, Java's `import` and `package` lines and
//! Python's imports are dropped;
//! whitespace and layout were never tokens. What is left (keywords, operators, punctuation, primitive
//! types) is the program's shape. Each token keeps the lines it spans, for the side-by-side view.

use tree_sitter::{Node, Parser};

/// The languages the similarity analysis reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// C sources and headers (`.c`, `.h`).
    C,
    /// Java sources (`.java`).
    Java,
    /// Python 3 sources (`.py`).
    Python,
}

impl Language {
    /// The language of a file by its name's extension; `None` for what is not source (a jar, a
    /// README).
    pub fn of(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".c") || lower.ends_with(".h") {
            Some(Language::C)
        } else if lower.ends_with(".java") {
            Some(Language::Java)
        } else if lower.ends_with(".py") || lower.ends_with(".py3") {
            Some(Language::Python)
        } else {
            None
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }
}

/// One normalised token: a hash of its normalised text and the lines it spans (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// [`token_hash`] of the normalised text (`ID`, `while`, `{`).
    pub hash: u32,
    /// The line it starts on.
    pub line: u32,
    /// The line it ends on (a string literal may span several).
    pub end_line: u32,
}

/// Tokenises source files, one parser per language (a parser is reused across files).
pub struct Tokenizer {
    c: Parser,
    java: Parser,
    python: Parser,
}

impl Tokenizer {
    /// A tokenizer for C, Java and Python.
    pub fn new() -> Tokenizer {
        let parser = |language: Language| {
            let mut parser = Parser::new();
            // The grammars are compiled in: a version mismatch is a bug of this build, found by any test.
            parser.set_language(&language.grammar()).expect("the grammar matches tree-sitter's version");
            parser
        };
        Tokenizer { c: parser(Language::C), java: parser(Language::Java), python: parser(Language::Python) }
    }

    /// The normalised tokens of `source`. A file that does not parse still gives tokens: tree-sitter
    /// recovers from errors, and the tokens of an `ERROR` node are taken as they are.
    pub fn tokens(&mut self, source: &[u8], language: Language) -> Vec<Token> {
        let mut tokens = Vec::new();
        self.walk(source, language, &mut |text, line, end_line| {
            tokens.push(Token { hash: token_hash(text), line, end_line })
        });
        tokens
    }

    /// The normalised tokens' texts, for tests and for reading what the analysis compares.
    pub fn texts(&mut self, source: &[u8], language: Language) -> Vec<String> {
        let mut texts = Vec::new();
        self.walk(source, language, &mut |text, _, _| texts.push(String::from_utf8_lossy(text).into_owned()));
        texts
    }

    /// Calls `emit` with each token's normalised text and lines, in source order. The walk is a loop
    /// over a cursor, never a recursion: a deeply nested file cannot overflow the stack.
    fn walk(&mut self, source: &[u8], language: Language, emit: &mut dyn FnMut(&[u8], u32, u32)) {
        let parser = match language {
            Language::C => &mut self.c,
            Language::Java => &mut self.java,
            Language::Python => &mut self.python,
        };
        let Some(tree) = parser.parse(source, None) else { return };
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            let descend = match classify(node, language) {
                Kind::Skip => false,
                Kind::Class(class) => {
                    emit(class, line(node.start_position().row), line(node.end_position().row));
                    false
                }
                Kind::Leaf => {
                    let text = source.get(node.byte_range()).unwrap_or_default();
                    emit(text, line(node.start_position().row), line(node.end_position().row));
                    false
                }
                Kind::MacroBody => {
                    let text = source.get(node.byte_range()).unwrap_or_default();
                    let (first, last) = (line(node.start_position().row), line(node.end_position().row));
                    lex_macro_body(text, &mut |token| emit(token, first, last));
                    false
                }
                Kind::Inner => true,
            };
            if descend && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }
}

impl Default for Tokenizer {
    fn default() -> Self {
        Tokenizer::new()
    }
}

/// What a node of the parse gives.
enum Kind {
    /// Nothing: a comment, or a token tree-sitter made up to recover from an error.
    Skip,
    /// One token of a class (`ID`, `NUM`, `STR`, `CHR`) whatever its text.
    Class(&'static [u8]),
    /// One token, its own text (a keyword, an operator, a primitive type).
    Leaf,
    /// The body of a `#define`, which tree-sitter leaves as text: lexed here, normalised the same way.
    MacroBody,
    /// Its children's tokens.
    Inner,
}

// The class names start with a NUL byte, which no token of a source file holds: an identifier
// cannot hash as the keyword it is named after, nor a keyword as a class.
const IDENTIFIER: &[u8] = b"\0ID";
const NUMBER: &[u8] = b"\0NUM";
const STRING: &[u8] = b"\0STR";
const CHARACTER: &[u8] = b"\0CHR";

fn classify(node: Node, language: Language) -> Kind {
    let kind = node.kind();
    // Which headers a file includes or imports says nothing of who wrote it, and five imports of
    // `java.util.X` would make a k-gram that every Java submission holds.
    if node.is_missing()
        || kind.ends_with("comment")
        || matches!(
            kind,
            "preproc_include"
                | "import_declaration"
                | "package_declaration"
                | "import_statement"
                | "import_from_statement"
                | "future_import_statement"
        )
    {
        return Kind::Skip;
    }
    let class = match (language, kind) {
        (_, "identifier" | "type_identifier") => Some(IDENTIFIER),
        (Language::C, "field_identifier" | "statement_identifier") => Some(IDENTIFIER),
        (Language::C, "number_literal") => Some(NUMBER),
        (Language::C, "string_literal" | "system_lib_string") => Some(STRING),
        (Language::C, "char_literal") => Some(CHARACTER),
        (Language::Java, "string_literal") => Some(STRING),
        (Language::Java, "character_literal") => Some(CHARACTER),
        (Language::Java, k) if k.ends_with("integer_literal") || k.ends_with("floating_point_literal") => {
            Some(NUMBER)
        }
        (Language::Python, "integer" | "float") => Some(NUMBER),
        // A string whole, its quotes, prefix and interpolations included (an f-string's names are
        // the copier's to change too).
        (Language::Python, "string" | "concatenated_string") => Some(STRING),
        _ => None,
    };
    match class {
        Some(class) => Kind::Class(class),
        None if language == Language::C && kind == "preproc_arg" => Kind::MacroBody,
        None if node.child_count() == 0 => Kind::Leaf,
        None => Kind::Inner,
    }
}

/// The tokens of a macro's body, normalised as the parse's are: identifiers, numbers, strings and
/// characters by class, any other character that is not a space as itself.
fn lex_macro_body(text: &[u8], emit: &mut dyn FnMut(&[u8])) {
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        let word = |j: usize| text.get(j).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == b'.' && text.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            i += 1;
            while word(i) || text.get(i) == Some(&b'.') {
                i += 1;
            }
            emit(NUMBER);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while word(i) {
                i += 1;
            }
            emit(IDENTIFIER);
        } else if c == b'"' || c == b'\'' {
            // To the closing quote (a backslash escapes the next byte), or to the end.
            i += 1;
            while i < text.len() && text[i] != c {
                i += if text[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            emit(if c == b'"' { STRING } else { CHARACTER });
        } else {
            emit(&text[i..=i]);
            i += 1;
        }
    }
}

/// A 0-based tree-sitter row as a 1-based line.
fn line(row: usize) -> u32 {
    u32::try_from(row).unwrap_or(u32::MAX - 1) + 1
}

/// A token's hash: [`fnv1a`] folded to 32 bits. Four bytes a token keep a class of 500 Java projects
/// small in memory; the normalised vocabulary is a few hundred texts, which 32 bits tell apart.
pub fn token_hash(bytes: &[u8]) -> u32 {
    let hash = fnv1a(bytes);
    (hash ^ (hash >> 32)) as u32
}

/// FNV-1a, 64 bits: a stable hash of a token's text (the same in every run and on every machine, so
/// that fingerprints can be written down in tests).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOARD: &str = r#"#include <stdio.h>

/* the board, row by row */
char board[8][8];

int count_pieces(char colour) {
    int total = 0;
    for (int row = 0; row < 8; row++)
        for (int col = 0; col < 8; col++)
            if (board[row][col] == colour) total++;   // a man of this colour
    printf("%d pieces\n", total);
    return total;
}
"#;

    fn hashes(source: &str, language: Language) -> Vec<u32> {
        Tokenizer::new().tokens(source.as_bytes(), language).iter().map(|t| t.hash).collect()
    }

    #[test]
    fn python_tokens_ignore_names_numbers_strings_comments_and_imports() {
        let one = b"import sys\n\ndef count(words):\n    # how many\n    return len(words) + 1\n\nprint(count(sys.argv), 'x')\n";
        let two = b"from os import path\ndef tally(items):\n    return len(items) + 7  # renamed\nprint(tally(path.sep), f\"{v}\")\n";
        let mut tokenizer = Tokenizer::new();
        let texts = tokenizer.texts(one, Language::Python);
        assert!(texts.iter().any(|t| t == "def") && texts.iter().any(|t| t == "return"), "{texts:?}");
        assert!(!texts.iter().any(|t| t == "import" || t == "sys" || t == "count"), "{texts:?}");
        let hashes = |t: &mut Tokenizer, s: &[u8]| {
            t.tokens(s, Language::Python).iter().map(|k| k.hash).collect::<Vec<_>>()
        };
        assert_eq!(hashes(&mut tokenizer, one), hashes(&mut tokenizer, two));
        assert_eq!(Language::of("main.py"), Some(Language::Python));
    }

    #[test]
    fn identifiers_literals_and_keywords_are_normalised_as_the_module_says() {
        let texts = Tokenizer::new().texts(b"int n = count(\"x\", 'y', 42); // hi", Language::C);
        let shown: Vec<String> = texts.iter().map(|t| t.replace('\0', "")).collect();
        assert_eq!(shown, ["int", "ID", "=", "ID", "(", "STR", ",", "CHR", ",", "NUM", ")", ";"]);
    }

    #[test]
    fn renaming_every_identifier_changes_no_token() {
        let renamed = BOARD
            .replace("board", "grid")
            .replace("count_pieces", "tally")
            .replace("colour", "who")
            .replace("total", "n")
            .replace("row", "r")
            .replace("col", "c");
        assert_ne!(renamed, BOARD);
        assert_eq!(hashes(&renamed, Language::C), hashes(BOARD, Language::C));
    }

    #[test]
    fn comments_whitespace_and_layout_change_no_token() {
        let reformatted = "#include <stdio.h>\nchar board[8][8];\n// counts\nint count_pieces(char colour)\n{\n\tint total=0;\n\
            \tfor(int row=0;row<8;row++)\n\t\tfor(int col=0;col<8;col++)\n\t\t\tif(board[row][col]==colour)\n\
            \t\t\t\ttotal++; /* one more */\n\tprintf(\"%d pieces\\n\",total);\n\treturn total;\n}\n";
        assert_eq!(hashes(reformatted, Language::C), hashes(BOARD, Language::C));
    }

    #[test]
    fn other_messages_and_constants_change_no_token() {
        let reworded = BOARD.replace("%d pieces\\n", "pieces: %d\\n").replace("8", "SIZE_LIMIT_IS_8");
        // `8` became an identifier: a different token, as a named constant is a different program text.
        assert_ne!(hashes(&reworded, Language::C), hashes(BOARD, Language::C));
        let reworded = BOARD.replace("%d pieces\\n", "pieces: %d\\n").replace("= 0", "= 1");
        assert_eq!(hashes(&reworded, Language::C), hashes(BOARD, Language::C));
    }

    #[test]
    fn a_real_change_of_the_program_changes_its_tokens() {
        let changed = BOARD.replace("row < 8", "row <= 7");
        assert_ne!(hashes(&changed, Language::C), hashes(BOARD, Language::C));
        let changed = BOARD.replace("total++", "total += 1");
        assert_ne!(hashes(&changed, Language::C), hashes(BOARD, Language::C));
    }

    #[test]
    fn java_is_normalised_the_same_way() {
        let java = "class Dice { /** rolls */ int roll(java.util.Random r) { return 1 + r.nextInt(6); } }";
        let renamed = "class Die {\n  // one die\n  int throwIt(java.util.Random rng) {\n    return 1 + rng.nextInt(6);\n  }\n}";
        assert_eq!(hashes(renamed, Language::Java), hashes(java, Language::Java));
        let texts = Tokenizer::new().texts(b"String s = \"a\" + 'b' + 0x1F + 2.5 + null;", Language::Java);
        let shown: Vec<String> = texts.iter().map(|t| t.replace('\0', "")).collect();
        assert_eq!(shown, ["ID", "ID", "=", "STR", "+", "CHR", "+", "NUM", "+", "NUM", "+", "null", ";"]);
    }

    #[test]
    fn macro_bodies_are_normalised_like_code() {
        let texts =
            Tokenizer::new().texts(b"#define AT(r, c) (grid[r][c] + 0x1F)\n#define DOT '.'\n", Language::C);
        let shown: Vec<String> = texts.iter().map(|t| t.replace('\0', "")).collect();
        let expected = "#define ID ( ID , ID ) ( ID [ ID ] [ ID ] + NUM ) #define ID CHR";
        assert_eq!(shown.join(" "), expected);
        let renamed = b"#define CELL(x, y) (board[x][y] + 31)\n#define EMPTY ' '\n";
        assert_eq!(
            Tokenizer::new().tokens(renamed, Language::C).iter().map(|t| t.hash).collect::<Vec<u32>>(),
            Tokenizer::new()
                .tokens(b"#define AT(r, c) (grid[r][c] + 0x1F)\n#define DOT '.'\n", Language::C)
                .iter()
                .map(|t| t.hash)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn tokens_keep_their_lines() {
        let tokens =
            Tokenizer::new().tokens(b"int a;\n\n/* x */\nint b =\n  \"two\\\nlines\";\n", Language::C);
        let lines: Vec<(u32, u32)> = tokens.iter().map(|t| (t.line, t.end_line)).collect();
        assert_eq!(lines, [(1, 1), (1, 1), (1, 1), (4, 4), (4, 4), (4, 4), (5, 6), (6, 6)]);
    }

    #[test]
    fn a_file_that_does_not_parse_still_gives_its_tokens_and_never_panics() {
        let broken = b"int main( { if (x >> ) return \xff\xfe; }}}} \"unterminated";
        let tokens = Tokenizer::new().tokens(broken, Language::C);
        assert!(tokens.len() > 5, "{tokens:?}");
        let deep = "(".repeat(100_000);
        Tokenizer::new().tokens(deep.as_bytes(), Language::C);
    }
}
