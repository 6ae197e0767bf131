#!/usr/bin/env bash
# Gradescope runs this for every submission, as root: grade it on every case, hidden ones included,
# and leave results.json whatever happens, so that a student reads a reason, never a broken autograder.
# Written by `grader gradescope-bundle` for the assignment @ASSIGNMENT@.
set -euo pipefail

# Gradescope's paths by default; a test (or another platform) points them elsewhere.
AUTOGRADER_ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="${AUTOGRADER_SOURCE:-$AUTOGRADER_ROOT/source}"
SUBMISSION="${AUTOGRADER_SUBMISSION:-$AUTOGRADER_ROOT/submission}"
RESULTS="${AUTOGRADER_RESULTS:-$AUTOGRADER_ROOT/results/results.json}"
GRADER="${GRADER_BIN:-/usr/local/bin/grader}"
ASSIGNMENT=@ASSIGNMENT@
# The files the assignment takes from a submission (globs without spaces).
PATTERNS=(@PATTERNS@)
# 1 when the assignment takes files from the whole tree of the upload (`**/*.java`).
WHOLE_TREE=@WHOLE_TREE@
# `grader --require-containment LEVEL gradescope-bundle` puts LEVEL here; empty: the best available.
REQUIRE_CONTAINMENT=@REQUIRE_CONTAINMENT@
# `gradescope-bundle --hidden-visibility WHEN`: when students see the tests of hidden cases.
HIDDEN_VISIBILITY=@HIDDEN_VISIBILITY@

# $1 as a JSON string. Only printable ASCII, tabs and line breaks are kept, so that the string is
# valid whatever bytes the grader printed before it died.
json_string() {
    local text
    text=$(printf '%s' "$1" | LC_ALL=C tr -cd '\11\12\40-\176')
    text=${text//\\/\\\\}
    text=${text//\"/\\\"}
    text=${text//$'\t'/\\t}
    text=${text//$'\n'/\\n}
    printf '"%s"' "$text"
}

# Writes a results.json worth no points that says why, and ends (Gradescope shows it to the student).
fail() {
    local output
    # shellcheck disable=SC2016 # the backquotes are Markdown's, not a command
    output=$(printf 'The autograder could not grade this submission:\n\n```text\n%s\n```\n' "$1")
    printf '{\n  "score": 0.0,\n  "execution_time": 0,\n  "output": %s,\n  "output_format": "md",\n  "visibility": "visible",\n  "stdout_visibility": "hidden",\n  "tests": []\n}\n' \
        "$(json_string "$output")" >"$RESULTS"
    echo "run_autograder: $1" >&2
    exit 0
}

# Whether folder $1 holds a file the assignment takes. (`${a[@]+...}`: an empty array is unbound
# to bash before 4.4 under `set -u`.)
has_sources() {
    local pattern file
    for pattern in ${PATTERNS[@]+"${PATTERNS[@]}"}; do
        for file in "$1"/$pattern; do
            [ -f "$file" ] && return 0
        done
    done
    return 1
}

# Whether $1 looks like a whole JSON object (the grader writes it in one go at the end; a kill in the
# middle leaves it cut short).
whole_json() {
    [ -s "$1" ] || return 1
    local squeezed
    squeezed=$(tr -d ' \t\r\n' <"$1")
    [ "${squeezed:0:1}" = "{" ] && [ "${squeezed: -1}" = "}" ]
}

# What this run made for itself, removed however it ends (a `fail` included).
log=""
own_cache=""
cleanup() {
    [ -z "$log" ] || rm -f -- "$log"
    [ -z "$own_cache" ] || rm -rf -- "$own_cache"
}
trap cleanup EXIT

mkdir -p "$(dirname "$RESULTS")"
rm -f "$RESULTS"
[ -x "$GRADER" ] || fail "the grader is not installed at $GRADER (did setup.sh run when the image was built?)"

# A submission uploaded as a folder (a zip of a folder unpacks as one, a folder in a folder as two)
# is graded from the innermost folder of that chain that holds the assignment's files: while a folder
# holds none of them and exactly one folder of its own, go down (at most 16 levels).
shopt -s nullglob
submission="$SUBMISSION"
if [ -z "$WHOLE_TREE" ]; then
    folder="$SUBMISSION"
    for _ in {1..16}; do
        has_sources "$folder" && break
        # The folders a student put there: not links, not hidden ones, not macOS's __MACOSX/.
        folders=()
        for inner in "$folder"/*/; do
            inner=${inner%/}
            if [ ! -L "$inner" ] && [ "${inner##*/}" != __MACOSX ]; then
                folders+=("$inner")
            fi
        done
        [ "${#folders[@]}" -eq 1 ] || break
        folder=${folders[0]}
    done
    if [ "$folder" != "$SUBMISSION" ] && has_sources "$folder"; then
        submission="$folder"
        echo "run_autograder: grading the files in $submission"
    fi
fi

export NO_COLOR=1
# For the instructor (Gradescope shows this script's output to staff only): how programs are contained.
"$GRADER" doctor || true
# The build cache, unless one is given: a fresh folder for this run in $AUTOGRADER_ROOT/cache, removed
# at the end. Without namespaces (rlimits-only) compilers and programs run as users other than root,
# who reach their build's executable by its path and so must be able to enter every folder above it
# (mktemp -d alone made a 0700 folder in /tmp, which they could not enter). Both folders are root's
# and 0711: entered, but not listed or written by them; the run's folder has a random name. (Once it
# builds, the grader opens the run's folder for reading: its builds are sealed, root's and
# read-only, and are only this submission's.)
if [ -z "${GRADER_CACHE_DIR:-}" ]; then
    caches="$AUTOGRADER_ROOT/cache"
    { mkdir -p "$caches" && chmod 0711 "$caches"; } || fail "cannot make the build cache's folder $caches"
    own_cache=$(mktemp -d "$caches/grading.XXXXXXXX") || fail "cannot make a build cache in $caches"
    chmod 0711 "$own_cache"
    export GRADER_CACHE_DIR="$own_cache"
fi
options=(--cases "$SOURCE/cases")
if [ -n "$REQUIRE_CONTAINMENT" ]; then
    options+=(--require-containment "$REQUIRE_CONTAINMENT")
fi
grade_options=(--format gradescope --hidden-visibility "$HIDDEN_VISIBILITY")
# The grader's messages, for the instructor and for a results.json of our own if it dies: 0600, root's.
log=$(mktemp) || fail "cannot make a temporary file for the grader's messages"
status=0
"$GRADER" "${options[@]}" grade "$submission" --assignment "$ASSIGNMENT" "${grade_options[@]}" \
    --output "$RESULTS" 2>"$log" || status=$?
# For the instructor: Gradescope shows this script's output to staff only.
cat "$log" >&2

# The grader writes a results.json with the reason when grading fails; anything else is a crash.
if whole_json "$RESULTS"; then
    exit 0
fi
if [ "$status" -gt 128 ]; then
    why="the grader was killed by signal $((status - 128))"
elif [ "$status" -eq 0 ]; then
    why="the grader ended without writing $RESULTS"
else
    why="the grader stopped with status $status without writing results"
fi
fail "$why
$(tail -c 2000 "$log")"
