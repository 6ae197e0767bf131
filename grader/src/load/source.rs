//! One file's text, for turning byte spans into the line numbers errors name.

use super::*;

/// Source text of one file, for turning byte spans into line numbers.
pub(super) struct Source<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
}

impl Source<'_> {
    pub(super) fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    }

    pub(super) fn error_at(&self, span: std::ops::Range<usize>, message: impl fmt::Display) -> LoadError {
        LoadError::Invalid {
            path: self.path.to_owned(),
            line: Some(self.line_of(span.start)),
            message: message.to_string(),
        }
    }

    pub(super) fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, LoadError> {
        toml::from_str(self.text).map_err(|e| LoadError::Invalid {
            path: self.path.to_owned(),
            line: e.span().map(|s| self.line_of(s.start)),
            message: e.message().trim().to_owned(),
        })
    }
}

pub(super) fn read(path: &Path) -> Result<String, LoadError> {
    std::fs::read_to_string(path).map_err(|source| LoadError::Io { path: path.to_owned(), source })
}
