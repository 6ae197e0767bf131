//! The tas guide (`docs/tas.md`) runs as written.

use super::*;
