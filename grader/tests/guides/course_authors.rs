//! The course authors guide (`docs/course-authors.md`) runs as written.

use super::*;
