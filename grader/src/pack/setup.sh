#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image, with the zip unpacked in
# /autograder/source. Everything grading needs is installed here: nothing is downloaded at grading time.
# Written by `grader gradescope-bundle` for the assignment @ASSIGNMENT@.
set -euo pipefail

# Gradescope's paths by default; a test (or another platform) points them elsewhere.
AUTOGRADER_ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="${AUTOGRADER_SOURCE:-$AUTOGRADER_ROOT/source}"
BIN_DIR="${GRADER_BIN_DIR:-/usr/local/bin}"

# The compilers the recipes call (GRADER_SKIP_APT=1 where they are installed already).
if [ -z "${GRADER_SKIP_APT:-}" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends @PACKAGES@
fi

mkdir -p "$BIN_DIR"
install -m 0755 "$SOURCE/grader" "$BIN_DIR/grader"

# Every case, hidden ones included, for root only: programs and compilers run as `nobody` in a
# sandbox, or as run users of their own (uids 61000-61999) with rlimits only where the machine
# forbids namespaces, and neither can read them.
chmod -R go-rwx "$SOURCE/cases"
# Except the files the build recipes name and the shared folder, which the compilers must read
# (X: folders also get search permission). They hold no answers.
for file in @READABLE@; do
    chmod -R go+rX "$SOURCE/$file"
done
# Folders may be entered but not listed, so that a compiler without namespaces reaches the recipes'
# files by their names, and nothing else.
find "$SOURCE/cases" -type d -exec chmod go+x {} +

# The image's build log then says how well this machine contains student programs.
"$BIN_DIR/grader" doctor || true
