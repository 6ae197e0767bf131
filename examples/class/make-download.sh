#!/bin/sh
# A class download to try the instructor's commands on: six Trouble submissions, written by us from the
# handout (the repository's fixtures), laid out as Moodle's "Download all submissions" unpacks them
# (one `Full Name_ID_assignsubmission_file_` folder each).
# Usage: sh examples/class/make-download.sh DIR   (DIR must not exist yet)
set -eu
out=${1:?usage: make-download.sh DIR}
here=$(cd -P "$(dirname "$0")/../.." && pwd)
fixtures=$here/fixtures/trouble
if [ -e "$out" ]; then
    echo "make-download.sh: $out exists; give a new folder" >&2
    exit 2
fi
mkdir -p "$out"
moodle() { # NAME ID FIXTURE
    mkdir "$out/$1_$2_assignsubmission_file_"
    cp "$fixtures/$3/main.c" "$out/$1_$2_assignsubmission_file_/main.c"
}
moodle "Ada Lovelace" 10001 correct
moodle "Alan Turing" 10002 bug-checkwin-zero
moodle "Grace Hopper" 10003 bug-status-width
moodle "Edsger Dijkstra" 10004 does-not-compile
moodle "Barbara Liskov" 10005 trivia-spacing
moodle "Donald Knuth" 10006 bug-no-extra-roll
echo "6 submissions in $out"
