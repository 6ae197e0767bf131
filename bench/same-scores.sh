#!/usr/bin/env bash
# bench/same-scores.sh: grades every fixture with sandboxes kept per submission (the default) and with
# --fresh-sandboxes, and checks that the grades are the same, byte for byte.
#
#   bench/same-scores.sh [--rounds R]
#
# For each assignment with fixtures (fixtures/hostile graded as Trouble submissions), `grader batch`
# grades its folder twice per round with one build cache (outside /tmp: a run shown a folder below
# /tmp gets a sandbox of its own), and compares the two gradebooks byte for byte and every
# report.json with the measurements left out (times, CPU, memory, build seconds and whether a build
# was cached) and the logs of failed builds (gcc names its temporary files at random). Prints one line per assignment and round; exit 1 at the first difference.
# Environment: GRADER=path/to/grader (default target/release/grader); ONLY="trouble hostile" grades
# only those fixture folders; VERSUS=path/to/other/grader compares GRADER with that grader (both with
# their defaults) instead of kept with fresh sandboxes; CONTAINMENT=rlimits-only grades at that level
# (as root: run users, and their folders kept between runs, against another grader's).
set -euo pipefail
ROUNDS=1
[[ ${1:-} == --rounds ]] && ROUNDS=${2:?--rounds needs a number}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
GRADER=${GRADER:-$REPO/target/release/grader}
[[ -x $GRADER ]] || { echo "bench/same-scores.sh: no $GRADER (cargo build --release -p grader, or set GRADER)" >&2; exit 2; }
WORK=$(mktemp -d /var/tmp/grader-same-scores.XXXXXX)
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
strip() {
    python3 - "$1" <<'PY'
import json, pathlib, sys
def clean(value):
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if k not in ("time_ms", "cpu_ms", "peak_memory_kb", "seconds", "cached", "log")}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value
root = pathlib.Path(sys.argv[1])
for report in sorted(root.rglob("report.json")):
    print(report.relative_to(root), json.dumps(clean(json.loads(report.read_text())), sort_keys=True))
PY
}
for round in $(seq "$ROUNDS"); do
    for fixtures in fixtures/*/; do
        name=$(basename "$fixtures")
        [[ $name == similarity ]] && continue
        [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]] && continue
        assignment=$name
        [[ $name == hostile ]] && assignment=trouble
        for mode in kept fresh; do
            grader=$GRADER
            flag=()
            if [[ $mode == fresh && -n ${VERSUS:-} ]]; then grader=$VERSUS; elif [[ $mode == fresh ]]; then flag=(--fresh-sandboxes); fi
            [[ -n ${CONTAINMENT:-} ]] && flag+=(--containment "$CONTAINMENT" --accept-readable-cases)
            "$grader" "${flag[@]}" batch "$fixtures" --assignment "$assignment" --out "$WORK/$name-$mode" \
                --cache-dir "$WORK/cache" --force > "$WORK/$name-$mode.log" 2>&1 || true
        done
        cmp -s "$WORK/$name-kept/gradebook.csv" "$WORK/$name-fresh/gradebook.csv" \
            || { echo "round $round, $name: the gradebooks differ"; diff "$WORK/$name-kept/gradebook.csv" "$WORK/$name-fresh/gradebook.csv" | head; exit 1; }
        if ! diff <(strip "$WORK/$name-kept") <(strip "$WORK/$name-fresh") > "$WORK/$name.diff"; then
            echo "round $round, $name: the reports differ:"
            python3 - "$WORK/$name.diff" <<'PY'
import json, sys
kept, fresh = {}, {}
for line in open(sys.argv[1]):
    if line[:2] in ("< ", "> "):
        path, report = line[2:].split(" ", 1)
        (kept if line[0] == "<" else fresh)[path] = json.loads(report)
def walk(a, b, where):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            walk(a.get(k), b.get(k), f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{where}[{x.get('id', i) if isinstance(x, dict) else i}]")
    elif a != b:
        print(f"  {where}: kept {json.dumps(a)[:300]} / fresh {json.dumps(b)[:300]}")
for path in sorted(set(kept) & set(fresh)):
    walk(kept[path], fresh[path], path)
PY
            exit 1
        fi
        echo "round $round, $name: $(($(wc -l < "$WORK/$name-kept/gradebook.csv") - 1)) submissions, the same gradebook and reports"
    done
done
