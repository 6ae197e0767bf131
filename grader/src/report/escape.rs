//! Text a student controls (compiler messages quoting their source, their program's output, their
//! folder's name) made inert wherever a report shows it: on a terminal, in Markdown, in XML.
//!
//! One notation for every output, so that a student reads the same thing in a self-check and on a
//! CI page: ESC is `\e`, carriage return `\r`, line feed `\n`, tab `\t`, the other C0 controls and
//! DEL `\xNN` (BEL is `\x07`), C1 controls, the non-characters U+FFFE and U+FFFF (forbidden in
//! XML 1.0) and the bidirectional overrides (which would reorder what follows them) `\u{NN}`.
//! Backslashes stay as they are: C source is full of them.

use std::fmt::Write as _;

/// One-line fields (ids, names, notes, a line of output) keep no control at all: a tab would
/// misalign a column, and a line break would let the text forge lines of the report.
pub(crate) const ONE_LINE: &[char] = &[];

/// Lines of a block already split at line breaks (a compiler's messages, a diff) keep their tabs:
/// a tab only moves the cursor, and gcc quotes source lines with their tabs.
pub(crate) const BLOCK_LINE: &[char] = &['\t'];

/// A whole block shown inside a code fence or an XML element keeps its tabs and line feeds.
pub(crate) const BLOCK: &[char] = &['\t', '\n'];

/// Writes `c` to `out`, escaped unless it is harmless or in `keep`.
pub(crate) fn push(out: &mut String, c: char, keep: &[char]) {
    if keep.contains(&c) {
        out.push(c);
        return;
    }
    match c {
        '\x1b' => out.push_str("\\e"),
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\0'..='\x1f' | '\x7f' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if by_code_point(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// The characters beyond ASCII that are shown by their code point: C1 controls (U+009B is a CSI to
/// some terminals), the non-characters XML 1.0 forbids, and the bidirectional marks and overrides.
fn by_code_point(c: char) -> bool {
    matches!(
        c,
        '\u{80}'..='\u{9f}'
            | '\u{fffe}'
            | '\u{ffff}'
            | '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// JSON text (as serde_json writes it, C0 controls already escaped) with DEL and the characters of
/// [`by_code_point`] written as `\uXXXX` escapes too: the JSON report may be printed on a terminal,
/// and it reads back the same (these characters only ever occur inside strings).
pub(crate) fn json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\x7f' || by_code_point(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` with every control character but those in `keep` written visibly (see the module's
/// notation): nothing in it can move the cursor, recolour a terminal, set its title or ring it.
pub(crate) fn inert(text: &str, keep: &[char]) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push(&mut out, c, keep);
    }
    out
}

/// Text outside code blocks in Markdown: one line, control characters visible, no HTML (`<`, `>`,
/// `&` as entities) and no Markdown of its own (links, emphasis, table cells, code spans, headings,
/// math escaped).
pub(crate) fn markdown_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Tabs and line feeds become spaces (below), not escapes: a title may wrap.
    for c in inert(text, BLOCK).chars() {
        match c {
            '\n' | '\t' => out.push(' '),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '$' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Text inside an HTML element of Markdown (a `<summary>`), where Markdown is not read: entities for
/// `& < > "`, control characters visible, one line.
pub(crate) fn markdown_html(text: &str) -> String {
    inert(text, BLOCK)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_are_shown_not_run() {
        // Clear the screen, set the window's title and ring the bell, then a C1 CSI and DEL.
        let hostile = "\x1b[2J\x1b]0;pwned\x07 \u{9b}31m\x7f\0";
        assert_eq!(inert(hostile, ONE_LINE), r"\e[2J\e]0;pwned\x07 \u{9b}31m\x7f\x00");
    }

    #[test]
    fn line_breaks_and_tabs_are_kept_only_where_asked() {
        let text = "a\tb\r\nc";
        assert_eq!(inert(text, ONE_LINE), r"a\tb\r\nc");
        assert_eq!(inert(text, BLOCK_LINE), "a\tb\\r\\nc");
        assert_eq!(inert(text, BLOCK), "a\tb\\r\nc");
    }

    #[test]
    fn bidirectional_overrides_and_xml_non_characters_are_shown() {
        assert_eq!(inert("abc\u{202e}fed\u{2066}\u{fffe}", ONE_LINE), r"abc\u{202e}fed\u{2066}\u{fffe}");
    }

    #[test]
    fn printable_text_backslashes_and_other_scripts_pass_unchanged() {
        let text = r#"printf("%d\n", x); // é ü 中文 ✘"#;
        assert_eq!(inert(text, ONE_LINE), text);
    }

    #[test]
    fn markdown_inline_text_cannot_open_html_code_links_or_cells() {
        assert_eq!(
            markdown_inline("<img src=x onerror=alert(1)> ``` | [x](http://e.vil) *a*\n# h"),
            r"&lt;img src=x onerror=alert(1)&gt; \`\`\` \| \[x\](http://e.vil) \*a\* \# h"
        );
        // The backslash of an escape is itself escaped, so Markdown shows `\e`.
        assert_eq!(markdown_inline("\x1b[31m"), r"\\e\[31m");
    }

    #[test]
    fn markdown_html_text_is_entities_on_one_line() {
        assert_eq!(
            markdown_html("</summary><b>\"x\"</b>\n&\x1b"),
            "&lt;/summary&gt;&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp;\\e"
        );
    }
}
