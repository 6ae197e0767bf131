#!/usr/bin/env bash
# The problem-package anchors: every example package's submissions judged by `grader verify`, by
# Kattis' problemtools (`verifyproblem`) and by BAPCtools (`bt run`), both installed from PyPI into
# a virtual environment of their own; a table of the three verdicts per submission, the agreement,
# and the time each tool took.
#
# usage: bench/packages.sh [PACKAGE_DIR...]   (default: examples/packages/*)
#
# The anchors run submissions on the machine as it is: problemtools is pointed at CPython
# (`python3`, not PyPy) and at the installed JDK (no `-source 21`) by a languages.yaml of its own
# configuration folder; BAPCtools reads only the current format, so each package is first upgraded
# (`bt upgrade`) in a copy, and `bt run` regenerates the generated cases from generators.yaml there
# (they are compared with the committed ones: the same seeds must give the same files).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
venv=${ANCHORS_VENV:-$HOME/.cache/grader-anchors}
if [ ! -x "$venv/bin/verifyproblem" ] || [ ! -x "$venv/bin/bt" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet problemtools bapctools
fi
cargo build --release -q -p grader
grader=$repo/target/release/grader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/config/problemtools" "$work/cache"
cat > "$work/config/problemtools/languages.yaml" <<'EOF'
python3:
    name: 'Python 3'
    compile: 'python3 -m py_compile {files}'
    run: 'python3 "{mainfile}"'
java:
    compile: 'javac -encoding UTF-8 -sourcepath {path} -d {path} {files}'
EOF
packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
    packages=(examples/packages/*/)
fi
seconds() { python3 -c 'import sys, time; print(f"{time.time() - float(sys.argv[1]):.1f}")' "$1"; }
now() { python3 -c 'import time; print(time.time())'; }
printf '%-10s %-40s %-10s %-6s %-12s %-10s\n' package submission expected grader problemtools bapctools
total=0; with_pt=0; with_bt=0; generated_same=()
timing=()
for dir in "${packages[@]}"; do
    name=$(basename "$dir")
    for tool in grader problemtools bapctools; do
        rm -rf "$work/$tool-$name"
        cp -r "$dir" "$work/$tool-$name"
        # Each tool names the package by its folder.
        mkdir -p "$work/$tool"
        rm -rf "$work/$tool/$name"
        mv "$work/$tool-$name" "$work/$tool/$name"
    done
    start=$(now)
    "$grader" verify "$work/grader/$name" --cache-dir "$work/cache" > "$work/$name.grader" 2>/dev/null || true
    t_grader=$(seconds "$start")
    start=$(now)
    (cd "$work/problemtools" && XDG_CONFIG_HOME="$work/config" timeout 900 "$venv/bin/verifyproblem" "$name" -p submissions) \
        > "$work/$name.problemtools" 2>&1 || true
    t_pt=$(seconds "$start")
    # Generated cases are made again by BAPCtools from generators.yaml, to compare with ours.
    if [ -d "$dir/generators" ]; then
        find "$work/bapctools/$name/data" -name '*.in' -o -name '*.ans' | xargs rm -f
    fi
    start=$(now)
    (cd "$work/bapctools/$name" && timeout 300 "$venv/bin/bt" upgrade > /dev/null 2>&1 || true
     timeout 900 "$venv/bin/bt" run 2>&1) \
        | tr '\r' '\n' > "$work/$name.bapctools" || true
    t_bt=$(seconds "$start")
    timing+=("$name: grader ${t_grader} s, problemtools ${t_pt} s, bapctools ${t_bt} s")
    if [ -d "$dir/generators" ]; then
        if diff -rq "$dir/data" "$work/bapctools/$name/data" > /dev/null 2>&1; then
            generated_same+=("$name: BAPCtools generated the same data/ as grader bless")
        else
            generated_same+=("$name: BAPCtools generated a different data/ (diff -r shows it)")
        fi
    fi
    for sub in "$dir"submissions/*/*; do
        [ -e "$sub" ] || continue
        rel=${sub#"$dir"submissions/}
        expected=${rel%%/*}
        ours=$(awk -v s="$rel" '$1 == s { print $4 }' "$work/$name.grader")
        pt=$({ grep -E "^ *(ERROR )?$rel \(" "$work/$name.problemtools" || true; } \
            | { grep -oE '(OK: |got )(AC|WA|TLE|RTE|JE|CE)' || true; } | head -1 | awk '{print $NF}')
        bt=$({ grep -E "^$rel: +(AC|WA|TLE|RTE|CE|JE)" "$work/$name.bapctools" || true; } | tail -1 | awk '{print $2}')
        printf '%-10s %-40s %-10s %-6s %-12s %-10s\n' "$name" "$rel" "$expected" "${ours:--}" "${pt:--}" "${bt:--}"
        total=$((total + 1))
        [ "$ours" = "$pt" ] && with_pt=$((with_pt + 1))
        [ "$ours" = "$bt" ] && with_bt=$((with_bt + 1))
    done
done
echo
echo "agreement: grader = problemtools on $with_pt of $total submissions, grader = BAPCtools on $with_bt of $total"
printf '%s\n' "${timing[@]}"
printf '%s\n' "${generated_same[@]}"
echo "(the tools' own output: set KEEP=1 to keep $work)"
if [ "${KEEP:-}" = 1 ]; then trap - EXIT; echo "kept $work"; fi
