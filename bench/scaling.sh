#!/usr/bin/env bash
# bench/scaling.sh: how `grader batch` scales with --jobs on a machine with many cores, beside the floor.
#
#   bench/scaling.sh prepare [--copies N] [--from WORK] BUNDLE
#   bench/scaling.sh run [--jobs "1 2 4 8 16"] [--grader PATH] [--before PATH] BUNDLE
#
# `prepare` makes BUNDLE, a folder to carry to the machine: the clean Trouble class of
# `bench/class.sh --cpu-only --keep` (its folder WORK; made first when --from is not given) repeated
# N times (default 4: 200 students, 10 800 runs) under new ids, its build cache (warm: the grader
# finds every build there, whatever the compiler of the machine), the floor's manifest of the same
# runs, the floor built statically and the release grader. `run`, from the repository root on the
# machine, grades the class with `--force` at each --jobs (default "1 2 4 8 16") with kept sandboxes,
# at `rlimits-only` (as root) and with `--fresh-sandboxes` (at 1, 4 and 16), and runs N copies of
# the floor at once over N slices of the same runs; one line per measurement: wall time, CPU of the
# grader and all it started (bash's `time`), busy CPU of the whole machine meanwhile (/proc/stat:
# kernel threads tearing sandboxes down count there), and CPU per case. `--before PATH` adds, at each
# --jobs, that grader's kept-sandbox and `rlimits-only` rows right after this one's (its own output
# folder), for a before/after comparison on the same machine. A --jobs may repeat ("1 1 1 16": three
# rounds at 1). A run that fails gets a row saying so, and the others go on; each grading's gradebook
# is compared with the first one's (same, or DIFFERENT).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fail() { echo "bench/scaling.sh: $*" >&2; exit 1; }
mode=${1:-}
[[ $mode == prepare || $mode == run ]] || fail "usage: bench/scaling.sh prepare|run ... BUNDLE (see its head)"
shift
COPIES=4
FROM=""
JOBS_LIST="1 2 4 8 16"
GRADER=""
BEFORE=""
while [[ $# -gt 1 ]]; do
    case "$1" in
        --copies) COPIES=$2; shift 2 ;;
        --from) FROM=$2; shift 2 ;;
        --jobs) JOBS_LIST=$2; shift 2 ;;
        --grader) GRADER=$2; shift 2 ;;
        --before) BEFORE=$2; shift 2 ;;
        *) fail "unknown argument '$1'" ;;
    esac
done
BUNDLE=${1:?the bundle folder}
[[ $BUNDLE == /* ]] || BUNDLE=$PWD/$BUNDLE

if [[ $mode == prepare ]]; then
    [[ $COPIES =~ ^[1-9][0-9]?$ ]] || fail "--copies must be 1-99"
    if [[ -z $FROM ]]; then
        log=$(mktemp)
        "$REPO/bench/class.sh" --cpu-only --rounds 1 --keep > /dev/null 2> "$log" || { cat "$log" >&2; fail "bench/class.sh failed"; }
        FROM=$(sed -n 's/.*kept \(.*\)$/\1/p' "$log" | tail -1)
        rm -f "$log"
    fi
    [[ -d $FROM/class-clean && -d $FROM/cache-clean && -f $FROM/manifest.tsv ]] ||
        fail "$FROM is not a folder kept by bench/class.sh --cpu-only --keep"
    rm -rf "$BUNDLE"
    mkdir -p "$BUNDLE/class"
    cp -r "$FROM/cache-clean" "$BUNDLE/cache"
    python3 - "$FROM/class-clean" "$BUNDLE/class" "$COPIES" <<'PY'
import os, re, shutil, sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
for k in range(copies):
    for name in sorted(os.listdir(src)):
        new = name
        if k and re.match(r"^c\d{4}", name):
            new = re.sub(r"^c(\d{4})", lambda m: "c%04d" % (int(m.group(1)) + 1000 * k), name)
        elif k:  # Moodle and Canvas names: the first six-digit number is the id
            new = re.sub(r"_(\d{6})_", lambda m: "_%d_" % (int(m.group(1)) + 1000 * k), name, count=1)
        if k and new == name:
            sys.exit(f"cannot give {name} a new id")
        s, d = os.path.join(src, name), os.path.join(dst, new)
        (shutil.copytree if os.path.isdir(s) else shutil.copy2)(s, d)
PY
    for _ in $(seq "$COPIES"); do
        sed -e "s|$FROM/cache-clean|@BUNDLE@/cache|g" -e "s|$REPO|@REPO@|g" "$FROM/manifest.tsv"
    done > "$BUNDLE/manifest.tsv"
    gcc -std=c17 -O2 -static -o "$BUNDLE/floor" "$REPO/bench/floor.c" 2>/dev/null ||
        gcc -std=c17 -O2 -o "$BUNDLE/floor" "$REPO/bench/floor.c"
    (cd "$REPO" && cargo build --release -p grader >&2)
    cp "$REPO/target/release/grader" "$BUNDLE/grader"
    echo "bench/scaling.sh: $BUNDLE: $(ls "$BUNDLE/class" | wc -l) students, $(wc -l < "$BUNDLE/manifest.tsv") runs, $(du -sh "$BUNDLE" | cut -f1)" >&2
    exit 0
fi

[[ -d $BUNDLE/class && -f $BUNDLE/manifest.tsv ]] || fail "$BUNDLE is not a bundle (bench/scaling.sh prepare)"
# A build cache below /work, /tmp or /dev/shm, where a sandbox has its writable places, is shown to
# each run in a sandbox of its own (a kept sandbox's new tmpfs would cover it): kept sandboxes would
# not be measured at all. Such a bundle is graded from a copy in /var/tmp.
case $BUNDLE/ in
    /work/*|/tmp/*|/dev/shm/*)
        moved=/var/tmp/grader-scaling-bundle
        echo "bench/scaling.sh: $BUNDLE is below /work, /tmp or /dev/shm, where no sandbox is kept for runs shown its cache: grading a copy, $moved" >&2
        rm -rf "$moved"
        cp -a "$BUNDLE" "$moved"
        BUNDLE=$moved ;;
esac
GRADER=${GRADER:-$BUNDLE/grader}
cd "$REPO"
RUNS=$(wc -l < "$BUNDLE/manifest.tsv")
sed -e "s|@BUNDLE@|$BUNDLE|g" -e "s|@REPO@|$REPO|g" "$BUNDLE/manifest.tsv" > "$BUNDLE/manifest.here.tsv"
# Run users reach the build cache by path at rlimits-only: every folder above it must be open.
chmod 755 "$BUNDLE" 2>/dev/null || true
LOGS=$BUNDLE/logs
mkdir -p "$LOGS"
echo "machine: $(nproc) cores, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg); $(ls "$BUNDLE/class" | wc -l) students, $RUNS runs; grader $("$GRADER" --version 2>/dev/null | head -1)"
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
HZ=$(getconf CLK_TCK)
measure() {
    local name=$1 t b0 b1 s0 s1
    shift
    b0=$(busy); s0=$(date +%s.%N)
    local log="$LOGS/${name//[ ,]/_}.log" rc=0
    t=$( { TIMEFORMAT='%U %S'; time "$@" > "$log" 2>&1; } 2>&1 | tail -1) || rc=$?
    s1=$(date +%s.%N); b1=$(busy)
    if [[ $rc != 0 ]]; then
        echo "| $name | failed (exit $rc): $(tail -1 "$log" | tr '|' '/') | | | | |"
        return 0
    fi
    # Every grading must give the first one's gradebook, byte for byte.
    local same=""
    case $1 in
        batch) cmp -s "$BUNDLE/out/gradebook.csv" "$BUNDLE/gradebook.first.csv" && same=same || same=DIFFERENT ;;
        before) cmp -s "$BUNDLE/out-before/gradebook.csv" "$BUNDLE/gradebook.first.csv" && same=same || same=DIFFERENT ;;
    esac
    awk -v n="$name" -v t="$t" -v s0="$s0" -v s1="$s1" -v b0="$b0" -v b1="$b1" -v hz="$HZ" -v runs="$RUNS" -v same="$same" 'BEGIN {
        split(t, a, " "); cpu = a[1] + a[2]; wall = s1 - s0; machine = (b1 - b0) / hz
        printf "| %s | %.2f s | %.2f s | %.2f s | %.3f ms | %s |\n", n, wall, cpu, machine, cpu / runs * 1000, same }'
}
floor() {
    local n=$1 part
    split -n "l/$n" -d -a 3 "$BUNDLE/manifest.here.tsv" "$BUNDLE/part."
    for part in "$BUNDLE"/part.*; do "$BUNDLE/floor" "$part" > "$part.out" & done
    wait
    cat "$BUNDLE"/part.*.out
    rm -f "$BUNDLE"/part.*
}
batch() { "$GRADER" batch "$BUNDLE/class" --assignment trouble --out "$BUNDLE/out" --cache-dir "$BUNDLE/cache" --force "$@"; }
before() { "$BEFORE" batch "$BUNDLE/class" --assignment trouble --out "$BUNDLE/out-before" --cache-dir "$BUNDLE/cache" --force "$@"; }
# The first grading finds every build in the cache (and writes the class's records).
"$GRADER" batch "$BUNDLE/class" --assignment trouble --out "$BUNDLE/out" --cache-dir "$BUNDLE/cache" > "$LOGS/first.log" 2>&1 ||
    { tail -5 "$LOGS/first.log"; fail "the first grading failed"; }
cp "$BUNDLE/out/gradebook.csv" "$BUNDLE/gradebook.first.csv"
if [[ -n $BEFORE ]]; then
    [[ -x $BEFORE ]] || fail "--before $BEFORE is not executable"
    echo "before: $("$BEFORE" --version 2>/dev/null | head -1)"
    "$BEFORE" batch "$BUNDLE/class" --assignment trouble --out "$BUNDLE/out-before" --cache-dir "$BUNDLE/cache" > "$LOGS/first-before.log" 2>&1 ||
        { tail -5 "$LOGS/first-before.log"; fail "the before grader's first grading failed"; }
fi
echo "| what | wall | CPU | machine busy | CPU per case | gradebook |"
echo "|---|---|---|---|---|---|"
for j in $JOBS_LIST; do
    measure "floor, $j at once" floor "$j"
    measure "kept sandboxes, --jobs $j" batch --jobs "$j"
    if [[ -n $BEFORE ]]; then measure "kept sandboxes, before, --jobs $j" before --jobs "$j"; fi
    if [[ $(id -u) == 0 ]]; then
        measure "rlimits-only, --jobs $j" batch --jobs "$j" --containment rlimits-only --accept-readable-cases
        if [[ -n $BEFORE ]]; then
            measure "rlimits-only, before, --jobs $j" before --jobs "$j" --containment rlimits-only --accept-readable-cases
        fi
    fi
    if [[ " 1 4 16 " == *" $j "* ]]; then
        measure "fresh sandboxes, --jobs $j" batch --jobs "$j" --fresh-sandboxes
    fi
done
