//! The operators guide (`docs/operators.md`) runs as written.

use super::*;
