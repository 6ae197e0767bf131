#!/usr/bin/env bash
# bench/similarity.sh: how fast `grader similarity` compares a class, and how much memory it takes.
#
#   bench/similarity.sh [--students N] [--corpus DIR] [--assignment ID] [--rounds R] [--keep]
#
# Makes a class of N students from a corpus of submissions (one folder each), every copy with all its
# identifiers renamed (`board` becomes `board_s0042`), runs `grader similarity` on it R times under
# /usr/bin/time -v, and prints the wall time (median, range), CPU time, peak memory (largest RSS) and
# what else the machine was doing (load average, the busiest other processes).
#
#   --students N     students in the class (default 500)
#   --corpus DIR     one folder per submission (default: fixtures/similarity/checkers, else the
#                    folder $SIMILARITY_CORPUS names)
#   --assignment ID  the corpus's assignment (default checkers)
#   --rounds R       runs measured (default 3)
#   --keep           keep the temporary folder and say where it is
#
# Environment: GRADER=path/to/grader uses that binary instead of building target/release/grader.
set -euo pipefail

STUDENTS=500
CORPUS=""
ASSIGNMENT=checkers
ROUNDS=3
KEEP=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --students) STUDENTS=${2:?--students needs a number}; shift 2 ;;
        --corpus) CORPUS=${2:?--corpus needs a folder}; shift 2 ;;
        --assignment) ASSIGNMENT=${2:?--assignment needs an id}; shift 2 ;;
        --rounds) ROUNDS=${2:?--rounds needs a number}; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench/similarity.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ $STUDENTS =~ ^[0-9]+$ && $STUDENTS -ge 2 ]] || { echo "bench/similarity.sh: --students must be a number >= 2" >&2; exit 2; }
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "bench/similarity.sh: --rounds must be a number >= 1" >&2; exit 2; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -n ${GRADER:-} && $GRADER != /* ]] && GRADER=$PWD/$GRADER
[[ -n $CORPUS && $CORPUS != /* ]] && CORPUS=$PWD/$CORPUS
cd "$REPO"
CORPUS=${CORPUS:-${SIMILARITY_CORPUS:-fixtures/similarity/$ASSIGNMENT}}
[[ -d $CORPUS ]] || { echo "bench/similarity.sh: no corpus at $CORPUS (--corpus DIR)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench/similarity.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench/similarity.sh: needs python3" >&2; exit 2; }

if [[ -z ${GRADER:-} ]]; then
    echo "building the release grader..." >&2
    cargo build --release -p grader --quiet
    GRADER=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/grader
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-similarity.XXXXXX")
if [[ $KEEP == 1 ]]; then
    echo "keeping $WORK" >&2
else
    trap 'rm -rf "$WORK"' EXIT
fi

# The class: copy i of submission (i mod M), every identifier renamed with the student's number.
python3 - "$CORPUS" "$WORK/class" "$STUDENTS" <<'PY'
import pathlib, re, sys
corpus, out, n = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
keywords = set("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
void volatile while _Bool abstract assert boolean byte catch class extends final finally implements import
instanceof interface native new package private protected public super synchronized this throw throws
transient try var record yield true false null include define ifdef ifndef endif""".split())
sources = sorted(p for p in corpus.iterdir() if p.is_dir())
if not sources:
    sys.exit(f"bench/similarity.sh: no submission folders in {corpus}")
word = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
for i in range(n):
    source = sources[i % len(sources)]
    student = out / f"s{i:04d}"
    for path in source.rglob("*"):
        if not path.is_file() or path.suffix not in (".c", ".h", ".java"):
            continue
        text = path.read_text(errors="replace")
        renamed = word.sub(lambda m: m.group(0) if m.group(0) in keywords else f"{m.group(0)}_s{i:04d}", text)
        target = student / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(renamed)
print(f"{n} students from {len(sources)} submissions of {corpus}", file=sys.stderr)
PY

echo "| machine | $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') |"
echo "| class | $STUDENTS students: $(find "$CORPUS" -mindepth 1 -maxdepth 1 -type d | wc -l) submissions of \`$CORPUS\` repeated, identifiers renamed; $(find "$WORK/class" -type f | wc -l) files, $(cat $(find "$WORK/class" -type f) | wc -l) lines |"
# Each configuration R times: the defaults, and --max-share 1 (no fingerprint is common code, so every
# pair of copies of one submission is compared and written: the most work the class can make).
for config in defaults "--max-share 1"; do
    args=()
    [[ $config != defaults ]] && read -r -a args <<<"$config"
    walls=()
    for round in $(seq 1 "$ROUNDS"); do
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        others=$(ps -eo pcpu=,comm= --sort=-pcpu | head -4 | awk '{printf "%s %s%%; ", $2, $1}')
        /usr/bin/time -v "$GRADER" similarity "$WORK/class" --assignment "$ASSIGNMENT" --out "$WORK/out" "${args[@]}" \
            2>"$WORK/time.txt" >/dev/null || { cat "$WORK/time.txt" >&2; exit 1; }
        wall=$(grep 'Elapsed (wall clock)' "$WORK/time.txt" | awk '{print $NF}')
        secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
        user=$(grep 'User time' "$WORK/time.txt" | awk '{print $NF}')
        sys=$(grep 'System time' "$WORK/time.txt" | awk '{print $NF}')
        rss=$(grep 'Maximum resident set size' "$WORK/time.txt" | awk '{print $NF}')
        walls+=("$secs")
        echo "| $config, round $round | wall ${secs} s, CPU ${user} s user + ${sys} s system, peak memory $((rss / 1024)) MB; load average before: $load; busiest processes before: $others|"
    done
    sorted=$(printf '%s\n' "${walls[@]}" | sort -g)
    echo "| $config: wall, median of $ROUNDS (range) | $(echo "$sorted" | awk '{a[NR]=$1} END {printf "%.2f s (%.2f-%.2f)", a[int((NR+1)/2)], a[1], a[NR]}') |"
    echo "| $config: outputs | $(($(wc -l < "$WORK/out/similarity.csv") - 1)) pairs in similarity.csv ($(($(wc -c < "$WORK/out/similarity.csv") / 1024)) KB), $(($(wc -c < "$WORK/out/similarity.html") / 1024)) KB of similarity.html; $(head -1 "$WORK/time.txt" | sed 's/|/\\|/g') |"
done
echo "command: $GRADER similarity <class> --assignment $ASSIGNMENT --out <out> [--max-share 1]"
