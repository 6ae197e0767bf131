//! The students guide (`docs/students.md`) runs as written.

use super::*;
