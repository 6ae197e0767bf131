//! The contributors guide (`docs/contributors.md`) runs as written.

use super::*;
