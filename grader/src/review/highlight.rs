//! Syntax highlighting of a student's source file into escaped HTML lines for the review pages.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use maud::PreEscaped;
use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

/// Files larger than this are shown plain: highlighting cost grows with size, plain text does not.
const MAX_BYTES: usize = 1 << 20;
/// Files with more lines than this are shown plain, for the same reason.
const MAX_LINES: usize = 20_000;

/// Highlighting that takes longer is abandoned for plain text: tree-sitter's error recovery is
/// not linear, and a 170 KB file of C-like garbage took it 20 s to parse.
const DEADLINE: Duration = Duration::from_secs(2);

/// The capture names we style, each as class `hl-` + name with `.` -> `-`. tree-sitter-highlight
/// maps each capture of a grammar's query to the longest matching name here (`string.special` ->
/// `string`); captures matching none (e.g. plain `variable`, on every identifier) get no span.
#[rustfmt::skip] // One name a line would make this list most of the file.
const HIGHLIGHTS: &[&str] = &[
    "attribute", "comment", "constant", "constant.builtin", "constructor", "delimiter", "escape",
    "function", "function.builtin", "function.method", "function.special", "keyword", "label",
    "number", "operator", "property", "punctuation", "punctuation.special", "string",
    "string.escape", "type", "type.builtin", "variable.builtin",
];

/// One source file as lines of HTML: each line's text escaped, tokens wrapped in `<span class="hl-...">`.
///
/// `.c`/`.h`, `.java` and `.py` files are highlighted; any other file, one over 1 MiB or
/// 20 000 lines, or one the highlighter fails on comes back as plain escaped lines. Invalid UTF-8
/// shows as U+FFFD, control and bidirectional-override characters as visible, inert symbols.
pub fn highlight(file_name: &str, source: &[u8]) -> Vec<PreEscaped<String>> {
    highlight_within(file_name, source, DEADLINE)
}

/// [`highlight`] with its time budget as a parameter, so a test can give a short one.
fn highlight_within(file_name: &str, source: &[u8], deadline: Duration) -> Vec<PreEscaped<String>> {
    // Highlight the decoded text, not the raw bytes, so every token boundary is a character
    // boundary; "\r\n" becomes "\n" up front so a line end never straddles two tokens.
    let text = String::from_utf8_lossy(source).replace("\r\n", "\n");
    let small = source.len() <= MAX_BYTES && text.bytes().filter(|&b| b == b'\n').count() < MAX_LINES;
    let highlighted =
        config_for(file_name).filter(|_| small).and_then(|config| highlighted_lines(config, &text, deadline));
    let lines = highlighted.unwrap_or_else(|| {
        let mut lines = Lines::default();
        lines.text(&text);
        lines.finish(&text)
    });
    lines.into_iter().map(PreEscaped).collect()
}

/// The highlighting configuration for a file's language, built once per language.
fn config_for(file_name: &str) -> Option<&'static HighlightConfiguration> {
    static C: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    static JAVA: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    static PYTHON: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    let extension = file_name.rsplit_once('.').map(|(_, extension)| extension)?;
    let (cell, language, name, query) = match extension {
        "c" | "h" => (&C, tree_sitter_c::LANGUAGE, "c", tree_sitter_c::HIGHLIGHT_QUERY),
        "java" => (&JAVA, tree_sitter_java::LANGUAGE, "java", tree_sitter_java::HIGHLIGHTS_QUERY),
        "py" => (&PYTHON, tree_sitter_python::LANGUAGE, "python", tree_sitter_python::HIGHLIGHTS_QUERY),
        _ => return None,
    };
    cell.get_or_init(|| {
        // A query that fails to compile would be a grammar-crate bug: show such files plain.
        let mut config = HighlightConfiguration::new(language.into(), name, query, "", "").ok()?;
        config.configure(HIGHLIGHTS);
        Some(config)
    })
    .as_ref()
}

/// The highlighted lines of `text`, or `None` if highlighting fails or passes `deadline`.
fn highlighted_lines(config: &HighlightConfiguration, text: &str, deadline: Duration) -> Option<Vec<String>> {
    let cancel = AtomicUsize::new(0);
    let (done, finished) = mpsc::channel::<()>();
    thread::scope(|scope| {
        // A watchdog raises the cancellation flag at the deadline (tree-sitter checks it while
        // parsing and while iterating); `_done`, dropped on return, wakes it early.
        let flag = &cancel;
        let watchdog = move || {
            if finished.recv_timeout(deadline) == Err(RecvTimeoutError::Timeout) {
                flag.store(1, Ordering::Relaxed);
            }
        };
        thread::Builder::new().spawn_scoped(scope, watchdog).ok()?;
        let _done = done;
        let mut highlighter = Highlighter::new();
        let events = highlighter.highlight(config, text.as_bytes(), Some(&cancel), |_| None).ok()?;
        let mut lines = Lines::default();
        for event in events {
            match event.ok()? {
                // Offsets fall on character boundaries; `get` keeps a surprise from panicking.
                HighlightEvent::Source { start, end } => lines.text(text.get(start..end)?),
                HighlightEvent::HighlightStart(highlight) => {
                    lines.open(HIGHLIGHTS.get(highlight.0).copied().unwrap_or("unknown"));
                }
                HighlightEvent::HighlightEnd => lines.close(),
            }
        }
        Some(lines.finish(text))
    })
}

/// Builds HTML lines from text and span events, keeping every span within its line.
#[derive(Default)]
struct Lines {
    done: Vec<String>,
    line: String,
    /// The highlight names of the spans open now, outermost first: reopened on each new line.
    open: Vec<&'static str>,
}

impl Lines {
    fn open(&mut self, name: &'static str) {
        push_open_tag(&mut self.line, name);
        self.open.push(name);
    }

    fn close(&mut self) {
        if self.open.pop().is_some() {
            self.line.push_str("</span>");
        }
    }

    fn text(&mut self, text: &str) {
        let mut pieces = text.split('\n');
        if let Some(first) = pieces.next() {
            push_escaped(&mut self.line, first);
        }
        for piece in pieces {
            self.end_line();
            push_escaped(&mut self.line, piece);
        }
    }

    /// Closes the open spans, ends the line, and reopens them on the next one (multi-line
    /// comments and strings), so a line's HTML stands alone.
    fn end_line(&mut self) {
        for _ in &self.open {
            self.line.push_str("</span>");
        }
        self.done.push(std::mem::take(&mut self.line));
        for name in &self.open {
            push_open_tag(&mut self.line, name);
        }
    }

    /// The finished lines of `text`: a last line without "\n" counts, nothing after a final "\n".
    fn finish(mut self, text: &str) -> Vec<String> {
        if !text.is_empty() && !text.ends_with('\n') {
            self.end_line();
        }
        self.done
    }
}

fn push_open_tag(html: &mut String, name: &str) {
    html.push_str("<span class=\"hl-");
    html.extend(name.chars().map(|c| if c == '.' { '-' } else { c }));
    html.push_str("\">");
}

/// Appends `text` escaped for HTML, with characters that could act on a terminal or reorder the
/// page (Trojan Source) made visible and inert.
fn push_escaped(html: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            '\'' => html.push_str("&#39;"),
            '\t' => html.push('\t'),
            // C0 controls as their control pictures: U+2400 + code.
            '\0'..='\x1f' => html.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')),
            '\x7f' => html.push('\u{2421}'),
            // C1 controls (8-bit CSI among them), bidi embeddings, overrides, isolates and marks.
            '\u{80}'..='\u{9f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{061c}' => {
                html.push_str(&format!("<span class=\"hl-control\">&lt;U+{:04X}&gt;</span>", c as u32));
            }
            _ => html.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{highlight, highlight_within};
    use std::time::Duration;

    /// The lines as strings, after checking each line's spans open and close in order.
    fn lines(file_name: &str, source: &[u8]) -> Vec<String> {
        let lines: Vec<String> = highlight(file_name, source).into_iter().map(|l| l.0).collect();
        for line in &lines {
            let mut depth = 0i32;
            for (i, _) in line.char_indices() {
                if line[i..].starts_with("<span") {
                    depth += 1;
                } else if line[i..].starts_with("</span>") {
                    depth -= 1;
                    assert!(depth >= 0, "span closed before opened in {line:?}");
                }
            }
            assert_eq!(depth, 0, "span left open in {line:?}");
        }
        lines
    }

    #[test]
    fn a_c_keyword_and_comment_are_classed() {
        let lines = lines("main.c", b"int main(void) {\n  return 0; // done\n}\n");
        assert_eq!(lines.len(), 3);
        assert!(lines[1].contains(r#"<span class="hl-keyword">return</span>"#), "{lines:?}");
        assert!(lines[1].contains(r#"<span class="hl-comment">// done</span>"#), "{lines:?}");
        assert!(lines[1].contains(r#"<span class="hl-number">0</span>"#), "{lines:?}");
    }

    #[test]
    fn a_java_and_a_python_file_are_classed() {
        let java = lines("Main.java", b"class Main { String s = \"hi\"; }\n");
        assert!(java[0].contains(r#"<span class="hl-keyword">class</span>"#), "{java:?}");
        assert!(java[0].contains(r#"<span class="hl-string">&quot;hi&quot;</span>"#), "{java:?}");
        let python = lines("game.py", b"def play():\n    return None  # nothing\n");
        assert!(python[0].contains(r#"<span class="hl-keyword">def</span>"#), "{python:?}");
        assert!(python[1].contains(r#"<span class="hl-comment"># nothing</span>"#), "{python:?}");
    }

    #[test]
    fn a_block_comment_over_two_lines_is_closed_and_reopened_on_each() {
        let lines = lines("board.h", b"/* first\n   second */\nint x;\n");
        assert_eq!(lines[0], r#"<span class="hl-comment">/* first</span>"#);
        assert_eq!(lines[1], r#"<span class="hl-comment">   second */</span>"#);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn script_tags_and_quotes_in_a_comment_are_escaped() {
        let source = b"/* </script><img src=x onerror=alert(1)> \"q\" 'a' & */\nint x;\n";
        let html = lines("evil.c", source).concat();
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("</script"), "{html}");
        assert!(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        assert!(html.contains("&quot;q&quot; &#39;a&#39; &amp;"), "{html}");
    }

    #[test]
    fn escape_sequences_and_bidi_overrides_are_shown_not_kept() {
        let source = "s = \"\x1b[31m\u{202E}red\u{2066}\0\x07\x7f\rx\"\r\nt = 1\r\n";
        for file_name in ["a.py", "a.txt"] {
            let lines = lines(file_name, source.as_bytes());
            assert_eq!(lines.len(), 2, "{lines:?}");
            let html = lines.concat();
            for kept in ['\x1b', '\u{202E}', '\u{2066}', '\0', '\x07', '\x7f', '\r'] {
                assert!(!html.contains(kept), "{kept:?} kept in {html}");
            }
            for shown in
                ["\u{241b}[", "&lt;U+202E&gt;", "&lt;U+2066&gt;", "\u{2400}\u{2407}\u{2421}\u{240d}x"]
            {
                assert!(html.contains(shown), "{shown} not in {html}");
            }
            assert!(html.contains(r#"<span class="hl-control">&lt;U+202E&gt;</span>"#), "{html}");
        }
    }

    #[test]
    fn an_unknown_extension_is_plain_text() {
        for file_name in ["notes.txt", "Makefile", "main.rs"] {
            let lines = lines(file_name, b"int <b>x</b>;\n// c\n");
            assert_eq!(lines, ["int &lt;b&gt;x&lt;/b&gt;;", "// c"]);
        }
    }

    #[test]
    fn an_oversized_file_is_plain_text() {
        let many = lines("big.c", "int x;\n".repeat(20_001).as_bytes());
        assert_eq!(many.len(), 20_001);
        assert!(many.iter().all(|line| line == "int x;"));
        let long = lines("long.c", format!("int x; // {}\n", "a".repeat(1 << 20)).as_bytes());
        assert_eq!(long.len(), 1);
        assert!(!long[0].contains("<span"));
        assert!(lines("small.c", "int x;\n".repeat(19_999).as_bytes())[0].contains("<span"));
    }

    #[test]
    fn a_file_too_slow_to_parse_is_given_up_as_plain_text() {
        // Garbage that sends tree-sitter's error recovery into seconds of work.
        let source = "\"\x1b/*(\n".repeat(19_000);
        // A few lines of it, which tree-sitter gets through, are highlighted: the whole file's plain
        // lines show the highlighter was cancelled at its deadline, not that it had nothing to class.
        let few = highlight_within("slow.c", "\"\x1b/*(\n".repeat(3).as_bytes(), super::DEADLINE);
        assert!(few.iter().any(|line| line.0.contains("<span")), "{few:?}");
        let lines = highlight_within("slow.c", source.as_bytes(), Duration::from_millis(100));
        assert_eq!(lines.len(), 19_000);
        assert!(lines.iter().all(|line| !line.0.contains("<span")));
    }

    #[test]
    fn line_counts_follow_the_file() {
        for file_name in ["a.c", "A.java", "a.py", "a.txt"] {
            assert_eq!(lines(file_name, b"").len(), 0);
            assert_eq!(lines(file_name, b"x").len(), 1);
            assert_eq!(lines(file_name, b"x\n").len(), 1);
            assert_eq!(lines(file_name, b"x\n\n").len(), 2);
            assert_eq!(lines(file_name, b"\n").len(), 1);
            assert_eq!(lines(file_name, b"x\r\ny\r\n").len(), 2);
            assert_eq!(lines(file_name, b"x\ny").len(), 2);
        }
        assert_eq!(lines("a.txt", b"x\r\n\ny"), ["x", "", "y"]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        for file_name in ["a.c", "a.txt"] {
            let html = lines(file_name, b"char *s = \"\xff\xfe\";\n").concat();
            assert!(html.contains("\u{FFFD}\u{FFFD}"), "{html}");
        }
    }
}
