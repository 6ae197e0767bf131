#!/usr/bin/env bash
# bench/dolos.sh: `grader similarity` beside Dolos (@dodona/dolos-lib, tree-sitter and winnowing too) on
# the same class: both rankings, their rank correlation, and, given the planted pairs, how each tool
# ranks them against the independent pairs.
#
#   bench/dolos.sh [CLASS] [--assignment ID] [--pairs FILE] [--keep]
#
#   CLASS            one folder per student (default fixtures/similarity/checkers)
#   --assignment ID  the class's assignment: which files are taken and its base code (default checkers)
#   --pairs FILE     the planted pairs (default CLASS/PAIRS.md when there is one): every table row
#                    (`| plant-1 | sol-1 | ...`), list item (`- plant-1 ~ plant-8`) or line of just two
#                    words names a pair by the first two student ids in it; every other pair of the class
#                    counts as independent
#   --keep           keep the temporary folder and say where it is
#
# Dolos compares files, not students: each student's files of the assignment's language are joined into
# one file for it (in name order), and the assignment's base files, joined, are its template
# (`analyzePaths(files, template)`). Both tools run with their own defaults. Dolos is installed with
# npm into $DOLOS_DIR (default ~/.cache/grader-bench/dolos) on first use; its tree-sitter parsers are
# built there by node-gyp (needs make and a C++ compiler).
#
# Environment: GRADER=path/to/grader uses that binary instead of building target/release/grader.
set -euo pipefail

CLASS=""
ASSIGNMENT=checkers
PAIRS=""
KEEP=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --assignment) ASSIGNMENT=${2:?--assignment needs an id}; shift 2 ;;
        --pairs) PAIRS=${2:?--pairs needs a file}; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "bench/dolos.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
        *) CLASS=$1; shift ;;
    esac
done
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -n ${GRADER:-} && $GRADER != /* ]] && GRADER=$PWD/$GRADER
[[ -n $CLASS && $CLASS != /* ]] && CLASS=$PWD/$CLASS
[[ -n $PAIRS && $PAIRS != /* ]] && PAIRS=$PWD/$PAIRS
cd "$REPO"
CLASS=${CLASS:-fixtures/similarity/$ASSIGNMENT}
[[ -d $CLASS ]] || { echo "bench/dolos.sh: no class at $CLASS" >&2; exit 2; }
if [[ -z $PAIRS && -f $CLASS/PAIRS.md ]]; then PAIRS=$CLASS/PAIRS.md; fi
for tool in node npm python3; do
    command -v $tool >/dev/null || { echo "bench/dolos.sh: needs $tool" >&2; exit 2; }
done

DOLOS_DIR=${DOLOS_DIR:-$HOME/.cache/grader-bench/dolos}
if [[ ! -d $DOLOS_DIR/node_modules/@dodona/dolos-lib ]]; then
    echo "installing @dodona/dolos-lib into $DOLOS_DIR..." >&2
    mkdir -p "$DOLOS_DIR"
    (cd "$DOLOS_DIR" && npm install --no-audit --no-fund --silent @dodona/dolos-lib@3.5.1 >&2 \
        && npm rebuild --foreground-scripts @dodona/dolos-parsers >/dev/null 2>&1)
fi
if [[ -z ${GRADER:-} ]]; then
    echo "building the release grader..." >&2
    cargo build --release -p grader --quiet
    GRADER=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/grader
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-dolos.XXXXXX")
if [[ $KEEP == 1 ]]; then echo "keeping $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi

# The grader: the class as it is.
"$GRADER" similarity "$CLASS" --assignment "$ASSIGNMENT" --out "$WORK/grader" 2>"$WORK/grader.log" \
    || { cat "$WORK/grader.log" >&2; exit 1; }

# Dolos: one file per student, the base files as its template.
BASE=$("$GRADER" list --assignment "$ASSIGNMENT" >/dev/null && python3 - "$REPO/cases/$ASSIGNMENT/assignment.toml" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f).get("similarity", {}).get("base", [])))
PY
)
LANGUAGE=$(python3 - "$CLASS" "$WORK/dolos-in" "$REPO/cases/$ASSIGNMENT" "$BASE" <<'PY'
import pathlib, sys
class_dir, out, assignment, base = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), sys.argv[4]
files = {p: p.suffix for p in class_dir.rglob("*") if p.is_file() and p.suffix in (".c", ".h", ".java")}
language = "java" if any(s == ".java" for s in files.values()) else "c"
suffixes = (".java",) if language == "java" else (".c", ".h")
out.mkdir(parents=True)
for student in sorted(p for p in class_dir.iterdir() if p.is_dir()):
    sources = sorted(p for p in student.rglob("*") if p.is_file() and p.suffix in suffixes)
    if sources:
        (out / f"{student.name}.{language}").write_bytes(b"\n".join(p.read_bytes() for p in sources))
if base.strip():
    (out.parent / f"template.{language}").write_bytes(b"\n".join((assignment / b).read_bytes() for b in base.split("\n")))
print(language)
PY
)
cat >"$DOLOS_DIR/compare.mjs" <<'JS'
import { Dolos } from "@dodona/dolos-lib";
import path from "node:path";
const [language, template, ...files] = process.argv.slice(2);
const dolos = new Dolos({ language });
const report = await dolos.analyzePaths(files, template === "-" ? undefined : template);
console.log("a,b,similarity,longest");
const id = (file) => path.basename(file.path).replace(/\.[^.]*$/, "");
for (const pair of report.allPairs()) {
  console.log([id(pair.leftFile), id(pair.rightFile), pair.similarity.toFixed(4), pair.longest].join(","));
}
JS
TEMPLATE=-
[[ -f $WORK/template.$LANGUAGE ]] && TEMPLATE=$WORK/template.$LANGUAGE
(cd "$DOLOS_DIR" && node compare.mjs "$LANGUAGE" "$TEMPLATE" "$WORK"/dolos-in/*) >"$WORK/dolos.csv"

python3 - "$WORK/grader/similarity.csv" "$WORK/dolos.csv" "$CLASS" "${PAIRS:--}" <<'PY'
import csv, itertools, pathlib, re, sys
grader_csv, dolos_csv, class_dir, pairs_file = sys.argv[1:5]
ids = sorted(p.name for p in pathlib.Path(class_dir).iterdir() if p.is_dir())
pairs = [frozenset(p) for p in itertools.combinations(ids, 2)]
def scores(path, a, b, key):
    with open(path) as f:
        return {frozenset((r[a].lstrip("'"), r[b].lstrip("'"))): float(r[key]) for r in csv.DictReader(f)}
ours = scores(grader_csv, "a", "b", "similarity")
dolos = scores(dolos_csv, "a", "b", "similarity")
def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r
x = [ours.get(p, 0.0) for p in pairs]
y = [dolos.get(p, 0.0) for p in pairs]
rx, ry = ranks(x), ranks(y)
mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
sd = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
print(f"| class | {len(ids)} students of `{class_dir}`, {len(pairs)} pairs |")
print(f"| Spearman's rank correlation of the two similarities, over every pair | {cov / sd:.3f} |" if sd else "| Spearman | undefined (a constant ranking) |")
planted = set()
if pairs_file != "-":
    known = set(ids)
    for line in open(pairs_file):
        line = line.strip()
        words = re.findall(r"[A-Za-z0-9_.-]+", line)
        if not (line.startswith(("|", "-", "*")) or len(words) == 2):
            continue
        found = [w for w in words if w in known]
        if len(found) >= 2 and found[0] != found[1]:
            planted.add(frozenset(found[:2]))
def describe(name, score):
    if not planted:
        return
    rel = sorted((score.get(p, 0.0), "~".join(sorted(p))) for p in planted)
    ind = sorted(((score.get(p, 0.0), "~".join(sorted(p))) for p in pairs if p not in planted), reverse=True)
    above = sum(1 for s, _ in ind if s >= rel[0][0])
    print(f"| {name}: lowest planted pair / highest independent pair | {rel[0][0]:.3f} ({rel[0][1]}) / "
          f"{ind[0][0]:.3f} ({ind[0][1]}); independent pairs at or above the lowest planted: {above} |")
describe("grader", ours)
describe("Dolos", dolos)
if planted:
    print(f"| planted pairs | {len(planted)} |")
print()
print("rank | grader similarity | pair | Dolos similarity | Dolos rank")
dolos_rank = {p: i + 1 for i, p in enumerate(sorted(pairs, key=lambda p: -dolos.get(p, 0.0)))}
for i, p in enumerate(sorted(pairs, key=lambda p: -ours.get(p, 0.0))[:40]):
    mark = " (planted)" if p in planted else ""
    print(f"{i + 1:4} | {ours.get(p, 0.0):.3f} | {'~'.join(sorted(p))}{mark} | {dolos.get(p, 0.0):.3f} | {dolos_rank[p]}")
PY
