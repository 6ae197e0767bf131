#!/usr/bin/env bash
# An outside check of `grader audit`'s operators: universalmutator (PyPI; a regex-based mutation tool
# from the research literature, with rules for C) mutates the Trouble fixture's main.c, our cases grade
# a sample of its mutants (`grader audit --mutant-files`) and a sample of our own (tree-sitter), and
# both mutation scores are printed with the kinds of mutants each tool made.
#
#   bench/universalmutator.sh [SAMPLE]     SAMPLE mutants of each (default 150; "all" for every one)
#
# Needs python3 (venv, pip) and a release grader (`cargo build --release -p grader`, or GRADER=path).
# universalmutator is installed into a virtual environment in a temporary folder (UM_VENV=DIR keeps one
# between runs); everything else is removed at the end. Environment: JOBS (default: the cores).
set -euo pipefail
cd "$(dirname "$0")/.."
sample=${1:-150}
grader=${GRADER:-target/release/grader}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
venv=${UM_VENV:-$work/venv}
if [ ! -x "$venv/bin/mutate" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet universalmutator
fi
# The rules' folder, to name each mutant's rule by its text.
rules=$("$venv/bin/python" -c 'import os, universalmutator; print(os.path.join(os.path.dirname(universalmutator.__file__), "static"))')

cp fixtures/trouble/correct/main.c "$work/main.c"
mkdir "$work/mutants"
# Without --cmd universalmutator cannot compile C, so it keeps every mutant; the grader's builds drop
# those that do not compile (counted as "did not build").
(cd "$work" && "$venv/bin/mutate" main.c c --mutantDir mutants --showRules > mutate.log 2>&1)

size=()
[ "$sample" = all ] || size=(--mutants "$sample")
cache=${GRADER_CACHE_DIR:-$work/cache}
start=$(date +%s)
"$grader" audit -a trouble --mutant-files "$work/mutants" "${size[@]}" --jobs "$jobs" --cache-dir "$cache" -o "$work/theirs" -q > /dev/null
middle=$(date +%s)
"$grader" audit -a trouble "${size[@]}" --jobs "$jobs" --cache-dir "$cache" -o "$work/ours" -q > /dev/null
end=$(date +%s)
"$grader" audit -a trouble --list > "$work/ours.list"

python3 - "$work" "$rules" $((middle - start)) $((end - middle)) <<'EOF'
import collections, json, os, re, sys

work, rules, theirs_s, ours_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# universalmutator's log: each mutant's rule (file:line, the line counted over all its rule files
# in the order it read them) and the file it was written to.
log = open(os.path.join(work, "mutate.log"), errors="replace").read()
files = re.search(r"MUTATING WITH RULES: (.*)", log).group(1).split(", ")
lines = [line for name in files for line in open(os.path.join(rules, name), "rb").read().decode().splitlines()]
rule_of = {}
for m in re.finditer(r"\(FROM: builtin:([\w.]+):(\d+)\).*written to \S*?(main\.mutant\.\d+\.c)", log):
    rule_of[m.group(3)] = f"{m.group(1)}:{m.group(2)}  {lines[int(m.group(2)) - 1].strip()}"

def load(name):
    return json.load(open(os.path.join(work, name, "audit.json")))

def score(report, seconds, label):
    t = report["totals"]
    pct = lambda v: "-" if v is None else f"{v:.1f}%"
    print(f"{label}: {t['generated']} mutants made, {t['sampled']} graded in {seconds} s: {t['built']} built, "
          f"{t['not_built']} did not build, {t['killed']} killed, {t['survived']} survived: "
          f"score {pct(t['score'])}")

def kinds(rows, label):
    print(f"\n{label}:")
    print(f"  {'kind':<58} {'graded':>6} {'built':>6} {'killed':>6}")
    for kind, c in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        print(f"  {kind[:58]:<58} {c[0]:>6} {c[1]:>6} {c[2]:>6}")

made = collections.Counter(rule_of.values())
print(f"universalmutator made {len(rule_of)} mutants, by rule (the 15 most frequent):")
for rule, n in made.most_common(15):
    print(f"  {n:>5}  {rule}")
ours_made = collections.Counter(line.split()[3].rstrip(":") for line in open(os.path.join(work, "ours.list")) if line.count(" ") > 4)
print(f"grader audit made {sum(ours_made.values())} mutants, by operator:")
for op, n in ours_made.most_common():
    print(f"  {n:>5}  {op}")
print()

theirs, ours = load("theirs"), load("ours")
score(theirs, theirs_s, "universalmutator")
score(ours, ours_s, "grader audit   ")

def tally(report, key):
    rows = collections.defaultdict(lambda: [0, 0, 0])
    for m in report["mutants"]:
        row = rows[key(m)]
        row[0] += 1
        row[1] += m["status"] in ("killed", "survived", "equivalent")
        row[2] += m["status"] == "killed"
    return rows

kinds(tally(theirs, lambda m: rule_of.get(m.get("made_by", ""), "(rule not in the log)")), "universalmutator's kinds (rule file:line, rule)")
kinds(tally(ours, lambda m: m["operator"]), "grader audit's kinds (operator)")
outside = sum(1 for m in theirs["mutants"] if m["function"] == "(outside any function)")
print(f"\nuniversalmutator mutants outside any function (declarations, globals): {outside} of {len(theirs['mutants'])}")
EOF
