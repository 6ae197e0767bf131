#!/usr/bin/env bash
# bench/run-users.sh: what a run user costs at `rlimits-only` (the lease, the kill of its processes,
# the clean-up of what it left, the fresh working folder), in CPU per case, against a grader built
# before run users existed.
#
#   bench/run-users.sh [--before COMMIT] [--students N] [--rounds R]
#
# Must run as root (only root switches users). Builds COMMIT (default 58bf76f, the last commit before
# run users) into a temporary worktree, and target/release/grader from this checkout; grades a class
# of N copies of fixtures/trouble/correct (default 30, 52 runs each) with `batch --jobs 1 --force` and
# a warm build cache, old and new interleaved, R rounds (default 6); and once more with the new grader's
# run folders on tmpfs (TMPDIR=/dev/shm), which tells the folder's cost on this disk apart. CPU is the
# task-clock of the grader and every process it starts (perf stat). Prints the medians.
# Environment: OLD_GRADER=path uses that binary as the grader before run users instead of building it.
set -euo pipefail

BEFORE=58bf76f
STUDENTS=30
ROUNDS=6
while [[ $# -gt 0 ]]; do
    case "$1" in
        --before) BEFORE=${2:?--before needs a commit}; shift 2 ;;
        --students) STUDENTS=${2:?--students needs a number}; shift 2 ;;
        --rounds) ROUNDS=${2:?--rounds needs a number}; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench/run-users.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ $(id -u) == 0 ]] || { echo "bench/run-users.sh: run it as root: only root gives runs users" >&2; exit 2; }
command -v perf >/dev/null || { echo "bench/run-users.sh: needs perf (linux-perf)" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/run-users-bench.XXXXXX)
chmod 711 "$work"
cleanup() { git -C "$repo" worktree remove --force "$work/old-src" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

echo "building this checkout${OLD_GRADER:+}${OLD_GRADER:- and $BEFORE}..." >&2
(cd "$repo" && cargo build --release -q -p grader)
old=${OLD_GRADER:-$work/old-target/release/grader}
if [[ -z ${OLD_GRADER:-} ]]; then
    git -C "$repo" worktree add --detach "$work/old-src" "$BEFORE" >/dev/null 2>&1
    (cd "$work/old-src" && cargo build --release -q -p grader --target-dir "$work/old-target")
fi
new=$repo/target/release/grader

class=$work/class
for i in $(seq -w 1 "$STUDENTS"); do
    mkdir -p "$class/s$i"
    cp "$repo"/fixtures/trouble/correct/* "$class/s$i/"
done
runs=$((STUDENTS * 52))

# One batch; prints the CPU in ms. The old grader has no --accept-readable-cases (the checkout's cases
# are readable by all: a self-check's choice here).
cpu_ms() {
    local label=$1 bin=$2 tmp=$3 extra=$4
    mkdir -p "$work/cache-$label" "$work/tmp-$label"
    chmod 711 "$work/cache-$label"
    TMPDIR=$tmp perf stat -x, -e task-clock -o "$work/perf-$label" "$bin" --containment rlimits-only $extra \
        batch "$class" --assignment trouble --out "$work/out-$label" --cache-dir "$work/cache-$label" \
        --jobs 1 --force >/dev/null 2>"$work/err-$label" || { cat "$work/err-$label" >&2; exit 1; }
    awk -F, '/task-clock/ {printf "%.0f\n", $1}' "$work/perf-$label"
}
shm=/dev/shm/run-users-bench.$$
mkdir -p "$shm"; chmod 1777 "$shm"
trap 'rm -rf "$shm"; cleanup' EXIT
echo "warming the build caches..." >&2
cpu_ms old "$old" /tmp "" >/dev/null
cpu_ms new "$new" /tmp --accept-readable-cases >/dev/null
cpu_ms newshm "$new" "$shm" --accept-readable-cases >/dev/null
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round of $ROUNDS..." >&2
    echo "$(cpu_ms old "$old" /tmp "") $(cpu_ms new "$new" /tmp --accept-readable-cases) $(cpu_ms newshm "$new" "$shm" --accept-readable-cases)"
done >"$work/rounds"
cmp -s <(cut -d, -f1,3- "$work/out-old/gradebook.csv") <(cut -d, -f1,3- "$work/out-new/gradebook.csv") \
    || echo "warning: the two graders' gradebooks differ" >&2

python3 - "$work/rounds" "$runs" <<'PY'
import statistics, sys
rows = [list(map(int, line.split())) for line in open(sys.argv[1])]
runs = int(sys.argv[2])
med = [statistics.median(r[i] for r in rows) for i in range(3)]
us = lambda ms: ms / runs * 1000
print(f"| CPU per case at rlimits-only, before run users ({runs} runs, --jobs 1, median of {len(rows)}) | {us(med[0]):.0f} us |")
print(f"| the same with run users | {us(med[1]):.0f} us (+{us(med[1] - med[0]):.0f} us) |")
print(f"| the same with the run folders on tmpfs (TMPDIR=/dev/shm) | {us(med[2]):.0f} us (+{us(med[2] - med[0]):.0f} us) |")
print("rounds (ms: before, run users, run users on tmpfs):", *(" ".join(map(str, r)) for r in rows), sep="\n  ")
PY
