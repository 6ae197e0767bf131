//! The instructors guide (`docs/instructors.md`) runs as written.

use super::*;
