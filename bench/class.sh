#!/usr/bin/env bash
# bench/class.sh: how fast `grader batch` grades a class, and what it costs beyond running the programs.
#
#   bench/class.sh [--students N] [--quick] [--jobs J] [--rounds R] [--keep]
#
# Run from anywhere (it works from the repository root). Prints a report of numbers on stdout (one
# `| what | number |` table row per number, then the exact command behind each), progress on stderr.
# See bench/README.md for what each number means.
#
#   --students N   students in the main class (default 100; 20 with --quick)
#   --quick        a smaller run: 20 students, 12 in the clean class, 40 for peak memory (< 3 minutes)
#   --jobs J       --jobs of the class runs (default: nproc)
#   --rounds R     rounds of the speed runs (--jobs 1 and 2, the floor, rlimits-only), medians shown (default 3)
#   --keep         keep the temporary folder (classes, outputs, cache, logs) and say where it is
#   --cpu-only     only the CPU per case (the clean class, its cold build, then the rounds of --jobs 1
#                  with kept and with fresh sandboxes, the floor and rlimits-only): no cold class,
#                  loopers, --jobs 2 or peak memory
#
# Environment: GRADER=path/to/grader uses that binary instead of building target/release/grader;
# BEFORE=path/to/grader adds, in each round, that binary's --jobs 1 runs (namespaces and rlimits-only)
# on the same class, for a before/after comparison in one run.
set -euo pipefail

ASSIGNMENT=trouble
STUDENTS=""
QUICK=0
KEEP=0
JOBS=""
REPS=3
CPU_ONLY=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --students) STUDENTS=${2:?--students needs a number}; shift 2 ;;
        --students=*) STUDENTS=${1#*=}; shift ;;
        --quick) QUICK=1; shift ;;
        --jobs) JOBS=${2:?--jobs needs a number}; shift 2 ;;
        --jobs=*) JOBS=${1#*=}; shift ;;
        --keep) KEEP=1; shift ;;
        --cpu-only) CPU_ONLY=1; shift ;;
        --rounds) REPS=${2:?--rounds needs a number}; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench/class.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [[ $QUICK == 1 ]]; then
    STUDENTS=${STUDENTS:-20}; SPEED_N=12; MEM_N=40
else
    STUDENTS=${STUDENTS:-100}; SPEED_N=50; MEM_N=500
fi
[[ $STUDENTS =~ ^[0-9]+$ && $STUDENTS -ge 10 ]] || { echo "bench/class.sh: --students must be a number >= 10" >&2; exit 2; }
JOBS=${JOBS:-$(nproc)}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "bench/class.sh: --jobs must be a number >= 1" >&2; exit 2; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "bench/class.sh: --rounds must be a number >= 1" >&2; exit 2; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -n ${GRADER:-} && $GRADER != /* ]] && GRADER=$PWD/$GRADER
cd "$REPO"

say() { echo "[bench $(date +%H:%M:%S)] $*" >&2; }
fail() { echo "bench/class.sh: $*" >&2; exit 1; }

for tool in gcc zip python3 tar; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing: install it (the bench needs gcc, zip, python3, tar and GNU time)"
done
[[ -x /usr/bin/time ]] || fail "/usr/bin/time (GNU time) is missing: apt-get install time"
/usr/bin/time -f '%e' true 2>/dev/null || fail "/usr/bin/time is not GNU time (needs -f)"
python3 -c 'import tomllib' 2>/dev/null || fail "python3 is older than 3.11 (needs tomllib)"
[[ -d fixtures/$ASSIGNMENT && -f cases/$ASSIGNMENT/assignment.toml ]] || fail "run from the repository (no fixtures/$ASSIGNMENT)"

if [[ -n ${GRADER:-} ]]; then
    [[ -x $GRADER ]] || fail "GRADER=$GRADER is not executable"
    GRADER_CMD=$GRADER
else
    command -v cargo >/dev/null 2>&1 || fail "cargo is missing (or set GRADER=path/to/grader)"
    say "cargo build --release -p grader"
    cargo build --release -p grader >&2 2>&1 || fail "cargo build --release failed (set GRADER=path/to/grader to use a built one)"
    GRADER=$REPO/target/release/grader
    GRADER_CMD=target/release/grader
fi

# Not below /tmp by default: a run shown a folder there (the build cache) gets a sandbox of its own
# instead of one kept for its submission's runs.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/grader-bench.XXXXXX")
# A root grader without namespaces (--containment rlimits-only) runs programs as run users of their own,
# who must be able to reach the build cache in here: mktemp's folder is private.
chmod 755 "$WORK"
cleanup() {
    # Wait for a grader still running (Ctrl-C) before removing what it writes to.
    if [[ -n ${RUN_PID:-} ]]; then
        [[ -n ${RUN_CHILD:-} ]] && kill "$RUN_CHILD" 2>/dev/null || true
        kill "$RUN_PID" 2>/dev/null || true
        wait "$RUN_PID" 2>/dev/null || true
    fi
    if [[ $KEEP == 1 ]]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/logs"
CACHE=$WORK/cache

# ---------------------------------------------------------------------------------------------------
# The Python half: class generation, report sums, the floor's manifest.
cat > "$WORK/bench.py" <<'PY'
import io, json, os, re, subprocess, sys, tarfile, tempfile, tomllib, zipfile
from collections import Counter

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia", "Ken", "Sophie", "Niklaus"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Perlman", "Thompson"]
# Fixtures left out of the "clean" classes (every program ends by itself and builds): stub-functions
# never ends a game (13 cases hit the CPU limit), does-not-compile runs nothing.
NOT_CLEAN = {"stub-functions", "does-not-compile"}
HOSTILE = {3: "segfault", 13: "printing-loop"}  # by index % 50
SLEEPER_AT = 71  # by index % 100
LOOP = "{ volatile unsigned long bench_spin = 0; for (;;) bench_spin++; } /* bench: loops forever */\n"

def layout(i):
    if i % 25 == 7:
        return "canvas"
    return ["folder", "folder", "folder", "moodle", "moodle", "zip", "targz", "zipdir"][i % 8]

def ident(prefix, base, i, lay):
    return str(base + i) if lay in ("moodle", "canvas") else f"{prefix}{i:04d}"

def plan(n, fixtures_dir):
    fixtures = sorted(d for d in os.listdir(fixtures_dir) if os.path.isdir(os.path.join(fixtures_dir, d)))
    out, j = [], 0
    for k in range(n):
        if k % 10 == 5:
            kind, source = "looper", "correct"
        elif k % 50 in HOSTILE:
            kind, source = "hostile", HOSTILE[k % 50]
        elif k % 100 == SLEEPER_AT:
            kind, source = "hostile", "sleeper"
        else:
            kind, source = "fixture", fixtures[j % len(fixtures)]
            j += 1
        lay = layout(k)
        out.append(dict(index=k, tag=f"s{k:04d}", kind=kind, source=source, layout=lay, id=ident("s", 100000, k, lay)))
    return out

def derive(main, what, n):
    if what == "replaced":  # the loopers become correct programs, everything else unchanged
        return [dict(s, kind="fixture", source="correct", replaced=True) if s["kind"] == "looper" else s for s in main]
    if what == "prime":  # just the replacements, to build them before the replaced class is timed
        return [s for s in derive(main, "replaced", n) if s.get("replaced")]
    pool = [s for s in main if s["kind"] == "fixture" and s["source"] not in NOT_CLEAN]
    prefix, base = {"clean": ("c", 200000), "memory": ("m", 300000)}[what]
    # The memory class also has the main class's cheap hostile programs (a 4 MiB output flood, a crash).
    hostile = {s["source"]: s for s in main if s["kind"] == "hostile" and s["source"] != "sleeper"}
    out = []
    for i in range(n):
        p = pool[i % len(pool)]  # same tag, so same content and build as a main-class student
        if what == "memory" and HOSTILE.get(i % 50) in hostile:
            p = hostile[HOSTILE[i % 50]]
        lay = layout(i)
        out.append(dict(index=i, tag=p["tag"], kind=p["kind"], source=p["source"], layout=lay, id=ident(prefix, base, i, lay)))
    return out

def content(s, fixtures_dir, hostile_dir):
    src = os.path.join(hostile_dir if s["kind"] == "hostile" else fixtures_dir, s["source"])
    files = {n: open(os.path.join(src, n), "rb").read() for n in sorted(os.listdir(src))
             if os.path.isfile(os.path.join(src, n)) and n != "README.md"}
    cs = [n for n in files if n.endswith(".c")]
    first = "main.c" if "main.c" in files else cs[0]
    text = files[first].decode()
    if s["kind"] == "looper":
        m = re.search(r"\bint\s+main\s*\([^)]*\)\s*\{", text)
        if not m:
            sys.exit(f"bench.py: no main() in {src}/{first}")
        text = text[: m.end()] + "\n    " + LOOP + text[m.end():]
    text += f"\n/* student {s['tag']} */\n"
    files[first] = text.encode()
    return files

def make(plan_list, fixtures_dir, hostile_dir, root):
    os.makedirs(root, exist_ok=True)
    for s in plan_list:
        files, sid, lay = content(s, fixtures_dir, hostile_dir), s["id"], s["layout"]
        if lay in ("folder", "moodle"):
            i = s["index"]
            name = sid if lay == "folder" else f"{FIRST[i % len(FIRST)]} {LAST[(i // 3) % len(LAST)]}_{sid}_assignsubmission_file_"
            d = os.path.join(root, name)
            os.makedirs(d)
            for n, b in files.items():
                open(os.path.join(d, n), "wb").write(b)
        elif lay == "zip":  # python's zipfile, the files at the top
            with zipfile.ZipFile(os.path.join(root, sid + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
                for n, b in files.items():
                    z.writestr(n, b)
        elif lay == "zipdir":  # the zip tool, one folder inside
            with tempfile.TemporaryDirectory() as t:
                os.makedirs(os.path.join(t, sid))
                for n, b in files.items():
                    open(os.path.join(t, sid, n), "wb").write(b)
                subprocess.run(["zip", "-q", "-r", os.path.join(root, sid + ".zip"), sid], cwd=t, check=True)
        elif lay == "targz":
            with tarfile.open(os.path.join(root, sid + ".tar.gz"), "w:gz") as tar:
                for n, b in files.items():
                    info = tarfile.TarInfo(n)
                    info.size, info.mode = len(b), 0o644
                    tar.addfile(info, io.BytesIO(b))
        elif lay == "canvas":  # loose files login_id_submission_name
            for n, b in files.items():
                open(os.path.join(root, f"login{s['index']}_{sid}_{678 + s['index']}_{n}"), "wb").write(b)

def describe(plan_list):
    kinds = Counter("looper (infinite loop in main)" if s["kind"] == "looper" else
                    f"hostile {s['source']}" if s["kind"] == "hostile" else
                    "fixture stub-functions" if s["source"] == "stub-functions" else
                    "fixture does-not-compile" if s["source"] == "does-not-compile" else
                    f"other fixtures ({len({t['source'] for t in plan_list if t['kind'] == 'fixture'} - NOT_CLEAN)} kinds, round robin)"
                    for s in plan_list)
    lays = Counter(s["layout"] for s in plan_list)
    names = {"folder": "folders", "moodle": "Moodle folders", "zip": "zip (zipfile)", "zipdir": "zip with a folder (zip)",
             "targz": ".tar.gz", "canvas": "Canvas loose files"}
    return ("; ".join(f"{v} {k}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])) + ". Layouts: "
            + ", ".join(f"{v} {names[k]}" for k, v in sorted(lays.items(), key=lambda kv: -kv[1])))

def reports(out):
    d = os.path.join(out, "students")
    for sid in sorted(os.listdir(d)):
        p = os.path.join(d, sid, "report.json")
        if os.path.isfile(p):
            yield sid, json.load(open(p))

def sums(out, plan_list=None):
    kinds = {s["id"]: s["kind"] for s in plan_list or []}
    b_s = b_n = 0.0
    run_ms = cpu_ms = limit_cpu_ms = loop_ms = loop_cpu_ms = 0
    cases = students = 0
    status = Counter()
    for sid, r in reports(out):
        students += 1
        for b in r.get("builds", []):
            if not b.get("cached"):
                b_s += b.get("seconds") or 0.0
                b_n += 1
        for c in r["cases"]:
            status[c["status"]] += 1
            if c["status"] == "build_error":
                continue
            cases += 1
            run_ms += c.get("time_ms") or 0
            cpu_ms += c.get("cpu_ms") or 0
            if c.get("limit"):
                limit_cpu_ms += c.get("cpu_ms") or 0
            if kinds.get(sid) == "looper":
                loop_ms += c.get("time_ms") or 0
                loop_cpu_ms += c.get("cpu_ms") or 0
    print(f"S_BUILD_S={b_s:.3f} S_BUILDS={int(b_n)} S_RUN_S={run_ms / 1000:.3f} S_CPU_S={cpu_ms / 1000:.3f} "
          f"S_LIMIT_CPU_S={limit_cpu_ms / 1000:.3f} S_LOOP_RUN_S={loop_ms / 1000:.3f} S_LOOP_CPU_S={loop_cpu_ms / 1000:.3f} "
          f"S_CASES={cases} S_REPORTS={students} S_STATUS='{', '.join(f'{k} {v}' for k, v in sorted(status.items()))}'")

def manifest(plan_list, out, cache, cases_root, assignment, dest, envdir):
    adir = os.path.join(cases_root, assignment)
    spec = tomllib.load(open(os.path.join(adir, "assignment.toml"), "rb"))
    cat_build = {c["id"]: c.get("build", "program") for c in spec.get("categories", [])}
    for name, b in spec.get("builds", {}).items():
        if b.get("run") != ["{out}"]:
            sys.exit(f"bench.py: recipe {name} runs {b.get('run')}, the floor only knows [\"{{out}}\"]")
    # Every build in the cache: (tag, recipe) -> folder, found by the student marker in its sources.
    builds, prefix = {}, assignment + "-"
    for d in os.listdir(cache):
        full = os.path.join(cache, d)
        if not (d.startswith(prefix) and os.path.isfile(os.path.join(full, "outcome.json"))):
            continue
        recipe = d[len(prefix):].rsplit("-", 1)[0]
        if not json.load(open(os.path.join(full, "outcome.json"))).get("ok"):
            continue
        for n in os.listdir(full):
            if n.endswith(".c"):
                m = re.search(rb"/\* student (s\d+) \*/", open(os.path.join(full, n), "rb").read())
                if m:
                    builds[(m.group(1).decode(), recipe)] = full
    tags = {s["id"]: s["tag"] for s in plan_list}
    lines, skipped, limited = [], 0, 0
    for sid, r in reports(out):
        tag = tags[sid]
        for c in r["cases"]:
            if c["status"] == "build_error":
                continue
            if c.get("limit"):
                limited += 1
            path = os.path.join(adir, c["id"] + ".toml")
            case = tomllib.load(open(path, "rb"))
            recipe = case.get("build", cat_build.get(c["category"], "program"))
            folder = builds.get((tag, recipe))
            if folder is None:
                skipped += 1
                continue
            env = dict(spec["builds"][recipe].get("env", {}))
            env.update(case.get("env", {}))
            sidecar = os.path.join(adir, c["id"] + ".env")
            if os.path.isfile(sidecar):
                for line in open(sidecar):
                    if "=" in line:
                        k, v = line.rstrip("\n").split("=", 1)
                        env.setdefault(k.strip(), v)
            envfile = "-"
            if env:
                envfile = os.path.join(envdir, f"{len(lines)}.env")
                with open(envfile, "w") as f:
                    for k, v in env.items():
                        v = v.replace("{build}", folder).replace("{assignment}", adir).replace("{common}", os.path.join(cases_root, "common"))
                        f.write(f"{k}={v}\n")
            lines.append("\t".join([os.path.join(folder, "prog"), os.path.join(adir, c["id"] + ".stdin"),
                                    os.path.join(adir, c["id"] + ".stdout"), envfile]))
    open(dest, "w").write("\n".join(lines) + "\n")
    print(f"M_CASES={len(lines)} M_SKIPPED={skipped} M_LIMITED={limited}")

cmd = sys.argv[1]
if cmd == "plan":
    json.dump(plan(int(sys.argv[2]), sys.argv[3]), sys.stdout)
elif cmd == "derive":
    json.dump(derive(json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])), sys.stdout)
elif cmd == "make":
    make(json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4], sys.argv[5])
elif cmd == "describe":
    print(describe(json.load(open(sys.argv[2]))))
elif cmd == "sums":
    sums(sys.argv[2], json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None)
elif cmd == "manifest":
    manifest(json.load(open(sys.argv[2])), *sys.argv[3:9])
PY
py() { python3 "$WORK/bench.py" "$@"; }
# pyeval SUBCOMMAND ARGS...: evaluates the KEY=VALUE line a bench.py subcommand prints.
pyeval() { local out; out=$(py "$@") || fail "bench.py $1 failed"; eval "$out"; }

# ---------------------------------------------------------------------------------------------------
# Timing: run_timed NAME CMD... runs CMD under GNU time (output in $WORK/logs/NAME.log) and sets
# T_WALL T_USER T_SYS T_CPU (user+sys of it and everything it waited for), T_MAXRSS_KB (largest RSS
# of it or any descendant, as wait4 reports it), T_HWM_KB (the grader process's own VmHWM, polled),
# T_MACHINE (busy CPU of the whole machine meanwhile, from /proc/stat), T_OTHER (T_MACHINE -
# T_CPU: kernel threads working for the grader, e.g. tearing namespaces down, and anything else) and
# T_OWN (the CPU of the grader's own threads, at the last poll of its /proc/PID/stat: what it spent
# itself, without the programs and every other process it waited for, whose CPU varies more).
HZ=$(getconf CLK_TCK)
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
RUN_PID="" RUN_CHILD=""
run_timed() {
    local name=$1; shift
    local tf=$WORK/logs/$name.time log=$WORK/logs/$name.log
    local b0; b0=$(busy)
    /usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >"$log" 2>&1 &
    RUN_PID=$!
    local gpid="" hwm=0 v own=0 started=$SECONDS last=$SECONDS
    while [[ -e /proc/$RUN_PID ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$RUN_PID/status" 2>/dev/null; do
        [[ -n $gpid ]] || { gpid=$(pgrep -P "$RUN_PID" 2>/dev/null | head -n1 || true); RUN_CHILD=$gpid; }
        if [[ -n $gpid ]]; then
            v=$(awk '/^VmHWM/ {print $2}' "/proc/$gpid/status" 2>/dev/null || true)
            [[ -n $v && $v -gt $hwm ]] && hwm=$v
            # utime and stime, the 14th and 15th fields (the 12th and 13th after the command's ')').
            v=$(cut -d')' -f2- "/proc/$gpid/stat" 2>/dev/null | awk '{print $12 + $13}' || true)
            [[ -n $v ]] && own=$v
        fi
        if (( SECONDS - last >= 20 )); then
            last=$SECONDS
            say "  ... $((SECONDS - started)) s: $(tail -n1 "$log" 2>/dev/null | cut -c1-100)"
        fi
        sleep 0.1
    done
    local rc=0
    wait "$RUN_PID" || rc=$?
    RUN_PID="" RUN_CHILD=""
    if [[ $rc != 0 ]]; then
        tail -n 20 "$log" >&2
        fail "$name failed (exit $rc): $*"
    fi
    local b1; b1=$(busy)
    read -r T_WALL T_USER T_SYS T_MAXRSS_KB < <(tail -n1 "$tf")
    T_CPU=$(calc "$T_USER + $T_SYS" 2)
    T_HWM_KB=$hwm
    T_OWN=$(calc "$own / $HZ" 2)
    T_MACHINE=$(calc "($b1 - $b0) / $HZ" 2)
    T_OTHER=$(calc "max(0, $T_MACHINE - $T_CPU)" 1)
    echo "$name wall=$T_WALL cpu=$T_CPU machine=$T_MACHINE other=$T_OTHER" >> "$WORK/logs/runs.txt"
    if python3 -c "import sys; sys.exit(not ($T_OTHER > 2 and $T_OTHER > 0.15 * $T_CPU))"; then
        BUSY_RUNS+=("$name (+$T_OTHER s CPU outside the grader, its own $T_CPU s)")
    fi
}
calc() { python3 -c "import sys; print(f'{($1):.${2:-1}f}')"; }
pct() { calc "100 * ($1) / ($2)" 0; }

ROWS=()
CMDS=()
BUSY_RUNS=()
# row TEXT NUMBER [COMMAND-REFS]: one table row, echoed on stderr as progress.
row() {
    local ref=""
    [[ -n ${3:-} ]] && ref=" (c$3)"
    ROWS+=("| $1$ref | $2 |")
    say "  $1: $2"
}
# cmd STRING: records a command, sets C to its number.
cmd() { CMDS+=("$1"); C=${#CMDS[@]}; }
# batch_cmd ROOT OUT [ARGS...]: the grader command line as printed (cache: $CACHE).
batch_cmd() {
    local root=$1 out=$2; shift 2
    printf '%s batch %s --assignment %s --out %s --cache-dir %s' "$GRADER_CMD" "$root" "$ASSIGNMENT" "$out" "$CACHE"
    [[ $# -gt 0 ]] && printf ' %s' "$@"
    return 0
}
# batch NAME ROOT OUT [ARGS...]: runs and times it.
batch() {
    local name=$1 root=$2 out=$3; shift 3
    run_timed "$name" "$GRADER" batch "$root" --assignment "$ASSIGNMENT" --out "$out" --cache-dir "$CACHE" "$@"
}

# ---------------------------------------------------------------------------------------------------
say "work folder $WORK"
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
CPU_MODEL=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
MEM_GB=$(awk '/^MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)
CONTAINMENT=$("$GRADER" doctor 2>/dev/null | awk -F': ' '/^containment/ {print $2; exit}' || true)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git status --porcelain -- grader cases Cargo.toml Cargo.lock 2>/dev/null | head -n1) ]] && COMMIT="$COMMIT (with uncommitted changes to grader/ or cases/)"
F=fixtures/$ASSIGNMENT
H=fixtures/hostile
CASES_PER=$(find "cases/$ASSIGNMENT" -name '*.toml' ! -name assignment.toml | wc -l)

# 1. The class.
say "generating a class of $STUDENTS ($ASSIGNMENT)"
py plan "$STUDENTS" "$F" > "$WORK/plan.json"
py make "$WORK/plan.json" "$F" "$H" "$WORK/class"
LOOPERS=$(python3 -c "import json; print(sum(s['kind'] == 'looper' for s in json.load(open('$WORK/plan.json'))))")

if [[ $CPU_ONLY == 0 ]]; then
# 2. Cold.
say "cold: $STUDENTS students, fresh build cache, --jobs $JOBS"
batch cold "$WORK/class" "$WORK/out" --jobs "$JOBS"
COLD_WALL=$T_WALL COLD_CPU=$T_CPU COLD_RSS=$T_MAXRSS_KB COLD_HWM=$T_HWM_KB
pyeval sums "$WORK/out" "$WORK/plan.json"
COLD_STATUS=$S_STATUS COLD_BUILDS=$S_BUILDS
cmd "$(batch_cmd "$WORK/class" "$WORK/out" --jobs "$JOBS")   # with $CACHE empty"; CC=$C
row "cold class: $STUDENTS students, fresh build cache, --jobs $JOBS, wall" "$COLD_WALL s" "$CC"
row "cold class: CPU (user+sys of the grader and all it ran)" "$COLD_CPU s" "$CC"
row "cold: compiling, sum of report.json builds[].seconds ($S_BUILDS builds)" "$(calc "$S_BUILD_S") s = $(pct "$S_BUILD_S" "$COLD_WALL * $JOBS")% of wall × jobs" "$CC"
row "cold: running, sum of report.json cases' time_ms ($S_CASES runs)" "$(calc "$S_RUN_S") s = $(pct "$S_RUN_S" "$COLD_WALL * $JOBS")% of wall × jobs" "$CC"

# 3. Warm.
say "warm re-grade: same out, nothing changed"
batch warm "$WORK/class" "$WORK/out" --jobs "$JOBS"
WARM_WALL=$T_WALL WARM_CPU=$T_CPU
cmd "$(batch_cmd "$WORK/class" "$WORK/out" --jobs "$JOBS")   # again, after c$CC"
row "warm re-grade (records up to date), wall" "$WARM_WALL s (CPU $WARM_CPU s)" "$C"
row "cold / warm re-grade" "$(calc "$COLD_WALL / max($WARM_WALL, 0.01)" 0)× (target ≥ 20×)" "$CC, c$C"
say "warm --force: builds cached, every case run"
batch force "$WORK/class" "$WORK/out" --jobs "$JOBS" --force
FORCE_WALL=$T_WALL FORCE_CPU=$T_CPU
pyeval sums "$WORK/out" "$WORK/plan.json"
cmd "$(batch_cmd "$WORK/class" "$WORK/out" --jobs "$JOBS" --force)"; CFO=$C
row "warm --force (build cache warm, every case run), wall" "$FORCE_WALL s (CPU $FORCE_CPU s)" "$CFO"
row "cold / warm --force" "$(calc "$COLD_WALL / $FORCE_WALL" 2)×" "$CC, c$CFO"
row "CPU of runs stopped at a limit (reports' cpu_ms, warm --force)" "$(calc "$S_LIMIT_CPU_S") s = $(pct "$S_LIMIT_CPU_S" "$FORCE_CPU")% of its CPU" "$CFO"

# 6. The loopers' cost.
say "the same class with its $LOOPERS loopers replaced by correct programs"
py derive "$WORK/plan.json" replaced 0 > "$WORK/plan-replaced.json"
py derive "$WORK/plan.json" prime 0 > "$WORK/plan-prime.json"
py make "$WORK/plan-replaced.json" "$F" "$H" "$WORK/class-replaced"
py make "$WORK/plan-prime.json" "$F" "$H" "$WORK/class-prime"
batch prime "$WORK/class-prime" "$WORK/out-prime" --jobs "$JOBS"   # builds the replacements, not timed
batch replaced "$WORK/class-replaced" "$WORK/out-replaced" --jobs "$JOBS" --force
REPL_WALL=$T_WALL REPL_CPU=$T_CPU
cmd "$(batch_cmd "$WORK/class-prime" "$WORK/out-prime" --jobs "$JOBS") && $(batch_cmd "$WORK/class-replaced" "$WORK/out-replaced" --jobs "$JOBS" --force)   # the first builds the replacements"
row "same class, its $LOOPERS loopers replaced by correct programs, warm --force, wall" "$REPL_WALL s (CPU $REPL_CPU s)" "$C"
row "cost of the $LOOPERS loopers (warm --force, with − without)" "$(calc "$FORCE_WALL - $REPL_WALL") s wall = $(pct "$FORCE_WALL - $REPL_WALL" "$FORCE_WALL")% of the class; each $(calc "($FORCE_WALL - $REPL_WALL) / $LOOPERS") s wall, $(calc "($FORCE_CPU - $REPL_CPU) / $LOOPERS") s CPU" "$CFO, c$C"

fi

# The clean class: the main class's contents whose programs all build and end by themselves, new ids
# and layouts, with a build cache of its own so that its cold run measures compiling without loopers.
py derive "$WORK/plan.json" clean "$SPEED_N" > "$WORK/plan-clean.json"
py make "$WORK/plan-clean.json" "$F" "$H" "$WORK/class-clean"
CACHE=$WORK/cache-clean
say "compiling's share: clean class of $SPEED_N, cold then warm --force (--jobs $JOBS)"
batch clean-cold "$WORK/class-clean" "$WORK/out-clean" --jobs "$JOBS"
CCOLD_WALL=$T_WALL CCOLD_CPU=$T_CPU
pyeval sums "$WORK/out-clean"
CLEAN_BUILDS=$S_BUILDS
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-clean" --jobs "$JOBS")   # with $CACHE empty"; CCC=$C
batch clean-force "$WORK/class-clean" "$WORK/out-clean" --jobs "$JOBS" --force
CFORCE_WALL=$T_WALL CFORCE_CPU=$T_CPU
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-clean" --jobs "$JOBS" --force)   # after c$CCC"; CCF=$C
PER_BUILD=$(calc "($CCOLD_CPU - $CFORCE_CPU) / $CLEAN_BUILDS" 3)
row "clean class of $SPEED_N: cold wall / warm --force wall (--jobs $JOBS)" "$CCOLD_WALL s / $CFORCE_WALL s (CPU $CCOLD_CPU s / $CFORCE_CPU s)" "$CCC, c$CCF"
row "compiling's CPU, clean class: cold − warm --force ($CLEAN_BUILDS builds)" "$(calc "$CCOLD_CPU - $CFORCE_CPU") s = $(pct "$CCOLD_CPU - $CFORCE_CPU" "$CCOLD_CPU")% of its cold CPU, $(calc "1000 * $PER_BUILD" 0) ms per build" "$CCC, c$CCF"
[[ $CPU_ONLY == 1 ]] || row "compiling's share of the main class's cold CPU ($COLD_BUILDS builds × that)" "≈ $(pct "$COLD_BUILDS * $PER_BUILD" "$COLD_CPU")% ($(calc "$COLD_BUILDS * $PER_BUILD") s of $COLD_CPU s)" "$CC, c$CCC, c$CCF"

# 4. Speed on the clean class, builds warm: --jobs 1 and 2, the floor, and both again without
# namespaces, $REPS times interleaved. The rows give medians (of the per-round ratios for ratios) and
# ranges: on a virtual machine one run can be 10-20% off.
say "speed: clean class of $SPEED_N, warm --force, $REPS rounds of --jobs 1, --jobs 2, the floor, rlimits-only 1 and 2"
J1_WALLS=() J1_CPUS=() J1_OTHERS=() J2_WALLS=() J2_CPUS=() SPEEDUPS=() FLOOR_CPUS=() RATIOS=()
RL1_CPUS=() RL_RATIOS=() RL_SPEEDUPS=() RL2_BUSY=() FR_CPUS=() FR_RATIOS=()
J1_OWNS=() RL1_OWNS=() FLOOR_OWNS=()
B_CPUS=() B_RATIOS=() BRL_CPUS=() BRL_RATIOS=()
for round in $(seq "$REPS"); do
    batch jobs1 "$WORK/class-clean" "$WORK/out-jobs1" --jobs 1 --force
    J1_WALLS+=("$T_WALL") J1_CPUS+=("$T_CPU") J1_OTHERS+=("$T_OTHER") J1_OWNS+=("$T_OWN")
    J1_WALL=$T_WALL J1_CPU=$T_CPU
    if [[ $round == 1 ]]; then
        J1_USER=$T_USER J1_SYS=$T_SYS
        pyeval sums "$WORK/out-jobs1"
        J1_CASES=$S_CASES
        [[ $S_BUILDS == 0 ]] || fail "the --jobs 1 run built $S_BUILDS times: its cache was not warm"
        mkdir -p "$WORK/env"
        pyeval manifest "$WORK/plan-clean.json" "$WORK/out-jobs1" "$CACHE" "$REPO/cases" "$ASSIGNMENT" "$WORK/manifest.tsv" "$WORK/env"
        [[ $M_SKIPPED == 0 ]] || fail "floor: $M_SKIPPED cases have no executable in the cache (see $WORK/manifest.tsv)"
        [[ $M_CASES == "$J1_CASES" ]] || fail "floor: $M_CASES cases in the manifest, the grader ran $J1_CASES"
        [[ $M_LIMITED == 0 ]] || say "warning: $M_LIMITED runs of the clean class stopped at a limit: the floor runs them to the end"
        gcc -std=c17 -O2 -Wall -o "$WORK/floor" bench/floor.c
        "$WORK/floor" "$WORK/manifest.tsv" > /dev/null   # once to warm the page cache
    fi
    if [[ $CPU_ONLY == 0 ]]; then
        batch jobs2 "$WORK/class-clean" "$WORK/out-jobs2" --jobs 2 --force
        J2_WALLS+=("$T_WALL") J2_CPUS+=("$T_CPU") SPEEDUPS+=("$(calc "$J1_WALL / $T_WALL" 3)")
    fi
    # A fresh sandbox for every run (no sandbox kept per submission): the same grades, byte for byte.
    batch fresh "$WORK/class-clean" "$WORK/out-fresh" --jobs 1 --force --fresh-sandboxes
    FRESH_CPU=$T_CPU
    cmp -s "$WORK/out-fresh/gradebook.csv" "$WORK/out-jobs1/gradebook.csv" \
        || fail "--fresh-sandboxes graded the clean class differently from kept sandboxes: see $WORK/out-fresh (run with --keep)"
    if [[ -n ${BEFORE:-} ]]; then
        run_timed before "$BEFORE" batch "$WORK/class-clean" --assignment "$ASSIGNMENT" --out "$WORK/out-before" --cache-dir "$CACHE" --jobs 1 --force
        B_CPU=$T_CPU
        run_timed before-rlimits "$BEFORE" batch "$WORK/class-clean" --assignment "$ASSIGNMENT" --out "$WORK/out-before-rlimits" --cache-dir "$CACHE" --jobs 1 --force --containment rlimits-only --accept-readable-cases
        B_RL_CPU=$T_CPU
        cmp -s "$WORK/out-before/gradebook.csv" "$WORK/out-jobs1/gradebook.csv" \
            || fail "BEFORE graded the clean class differently: see $WORK/out-before (run with --keep)"
    fi
    "$WORK/floor" "$WORK/manifest.tsv" > "$WORK/logs/floor.out"
    eval "$(tr ' ' '\n' < "$WORK/logs/floor.out" | sed 's/^/FL_/')"
    FLOOR_CPU=$(calc "$FL_self_user + $FL_self_sys + $FL_children_user + $FL_children_sys" 3)
    FLOOR_CPUS+=("$FLOOR_CPU") RATIOS+=("$(calc "$J1_CPU / $FLOOR_CPU" 3)")
    FLOOR_OWNS+=("$(calc "$FL_self_user + $FL_self_sys" 3)")
    FR_CPUS+=("$FRESH_CPU") FR_RATIOS+=("$(calc "$FRESH_CPU / $FLOOR_CPU" 3)")
    if [[ -n ${BEFORE:-} ]]; then
        B_CPUS+=("$B_CPU") B_RATIOS+=("$(calc "$B_CPU / $FLOOR_CPU" 3)")
        BRL_CPUS+=("$B_RL_CPU") BRL_RATIOS+=("$(calc "$B_RL_CPU / $FLOOR_CPU" 3)")
    fi
    batch rlimits "$WORK/class-clean" "$WORK/out-rlimits" --jobs 1 --force --containment rlimits-only --accept-readable-cases
    # The same grades, or the runs did not happen (a program that cannot start is a grader-error case).
    cmp -s "$WORK/out-rlimits/gradebook.csv" "$WORK/out-jobs1/gradebook.csv" \
        || fail "--containment rlimits-only graded the clean class differently from --jobs 1: see $WORK/out-rlimits (run with --keep)"
    RL1_WALL=$T_WALL
    RL1_CPUS+=("$T_CPU") RL_RATIOS+=("$(calc "$T_CPU / $FLOOR_CPU" 3)") RL1_OWNS+=("$T_OWN")
    if [[ $CPU_ONLY == 0 ]]; then
        batch rlimits2 "$WORK/class-clean" "$WORK/out-rlimits2" --jobs 2 --force --containment rlimits-only --accept-readable-cases
        RL_SPEEDUPS+=("$(calc "$RL1_WALL / $T_WALL" 3)") RL2_BUSY+=("$(calc "$T_CPU / $T_WALL" 3)")
    fi
done
# median VALUES...: the middle value (the lower middle of an even count); spread VALUES...: "min-max".
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "%.2f\n", v[int((NR + 1) / 2)]}'; }
spread() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.2f-%.2f\n", lo, hi}'; }
of() { local unit=$1; shift; echo "$(median "$@")$unit (median of ${#@}: $(spread "$@")$unit)"; }
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-jobs2" --jobs 2 --force)"; C2=$C
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-jobs1" --jobs 1 --force)"; C1=$C
cmd "gcc -std=c17 -O2 -o floor bench/floor.c && ./floor $WORK/manifest.tsv   # the $M_CASES runs of c$C1, executables from $CACHE/<assignment>-<recipe>-<key>/prog"; CF=$C
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-rlimits" --jobs 1 --force --containment rlimits-only --accept-readable-cases)"; CRL=$C
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-rlimits2" --jobs 2 --force --containment rlimits-only --accept-readable-cases)"; CRL2=$C
J1_BUSY=() J2_BUSY=()
for i in "${!J1_WALLS[@]}"; do
    J1_BUSY+=("$(calc "${J1_CPUS[$i]} / ${J1_WALLS[$i]}" 2)")
    [[ $CPU_ONLY == 1 ]] || J2_BUSY+=("$(calc "${J2_CPUS[$i]} / ${J2_WALLS[$i]}" 2)")
done
row "clean class of $SPEED_N, warm --force, --jobs 1, wall" "$(of " s" "${J1_WALLS[@]}"); cores busy $(of "" "${J1_BUSY[@]}")" "$C1"
if [[ $CPU_ONLY == 0 ]]; then
    row "clean class of $SPEED_N, warm --force, --jobs 2, wall" "$(of " s" "${J2_WALLS[@]}"); cores busy $(of "" "${J2_BUSY[@]}")" "$C2"
    row "speedup --jobs 1 → 2 ($(nproc) cores)" "$(of "×" "${SPEEDUPS[@]}") (target ≥ 1.8×)" "$C1, c$C2"
fi

# CPU per case: the grader against the floor, same executables and cases.
row "grader CPU, clean class of $SPEED_N, --jobs 1 --force, warm ($J1_CASES runs)" "$(of " s" "${J1_CPUS[@]}") = $(calc "1000 * $(median "${J1_CPUS[@]}") / $J1_CASES" 2) ms per case (first round: user $J1_USER, sys $J1_SYS)" "$C1"
row "floor CPU, the same $FL_cases runs (bench/floor.c: posix_spawn, pipes, byte compare)" "$(of " s" "${FLOOR_CPUS[@]}") = $(calc "1000 * $(median "${FLOOR_CPUS[@]}") / $FL_cases" 2) ms per case (last round: the programs themselves $(calc "$FL_children_user + $FL_children_sys" 3) s; $FL_exact byte-exact)" "$CF"
row "grader CPU / floor CPU, each round's pair" "$(of "×" "${RATIOS[@]}") (target ≤ 1.5×)" "$C1, c$CF"
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-fresh" --jobs 1 --force --fresh-sandboxes)"; CFR=$C
row "c$C1 with --fresh-sandboxes (a sandbox built for every run, none kept per submission; the same gradebook), CPU" "$(of " s" "${FR_CPUS[@]}") = $(calc "1000 * $(median "${FR_CPUS[@]}") / $J1_CASES" 2) ms per case; / floor, each round's pair: $(of "×" "${FR_RATIOS[@]}")" "$CFR, c$CF"
if [[ -n ${BEFORE:-} ]]; then
    row "c$C1 with BEFORE=$BEFORE (the same gradebook), CPU" "$(of " s" "${B_CPUS[@]}") = $(calc "1000 * $(median "${B_CPUS[@]}") / $J1_CASES" 2) ms per case; / floor: $(of "×" "${B_RATIOS[@]}")" "$C1, c$CF"
    row "c$C1 with BEFORE=$BEFORE and --containment rlimits-only, CPU" "$(of " s" "${BRL_CPUS[@]}") = $(calc "1000 * $(median "${BRL_CPUS[@]}") / $J1_CASES" 2) ms per case; / floor: $(of "×" "${BRL_RATIOS[@]}")" "$CRL, c$CF"
fi
row "CPU outside the grader's account while c$C1 ran (kernel threads: namespace and cgroup teardown; anything else running)" "$(of " s" "${J1_OTHERS[@]}")" "$C1"
batch noop "$WORK/class-clean" "$WORK/out-jobs1" --jobs 1
NOOP_CPU=$T_CPU
cmd "$(batch_cmd "$WORK/class-clean" "$WORK/out-jobs1" --jobs 1)   # again, after c$C1"
row "grader CPU of a re-run grading nothing (roster, records, class files)" "$NOOP_CPU s" "$C"
row "c$C1 with --containment rlimits-only (no namespaces, no cgroups; the same gradebook), CPU" "$(of " s" "${RL1_CPUS[@]}") = $(calc "1000 * $(median "${RL1_CPUS[@]}") / $J1_CASES" 2) ms per case; / floor, each round's pair: $(of "×" "${RL_RATIOS[@]}") (target ≤ 1.15×)" "$CRL, c$CF"
per_case() { calc "1000 * $(median "$@") / $J1_CASES" 3; }
row "CPU per case of the grader's own threads, not the programs nor any process it waited for: kept sandboxes / rlimits-only / the floor's own loop" "$(per_case "${J1_OWNS[@]}") / $(per_case "${RL1_OWNS[@]}") / $(per_case "${FLOOR_OWNS[@]}") ms (medians of $REPS; /proc/PID/stat)" "$C1, c$CRL, c$CF"
[[ $CPU_ONLY == 1 ]] || row "speedup --jobs 1 → 2 with --containment rlimits-only" "$(of "×" "${RL_SPEEDUPS[@]}"); --jobs 2 cores busy $(of "" "${RL2_BUSY[@]}")" "$CRL, c$CRL2"

if [[ $CPU_ONLY == 0 ]]; then
# 5. Peak memory.
CACHE=$WORK/cache
say "peak memory: $MEM_N students (the clean class's contents and a few hostile, builds warm)"
py derive "$WORK/plan.json" memory "$MEM_N" > "$WORK/plan-memory.json"
py make "$WORK/plan-memory.json" "$F" "$H" "$WORK/class-memory"
MEM_HOSTILE=$(python3 -c "import json; print(sum(s['kind'] == 'hostile' for s in json.load(open('$WORK/plan-memory.json'))))")
batch memory "$WORK/class-memory" "$WORK/out-memory" --jobs "$JOBS"
MEM_WALL=$T_WALL MEM_RSS=$T_MAXRSS_KB MEM_HWM=$T_HWM_KB
cmd "/usr/bin/time -f %M $(batch_cmd "$WORK/class-memory" "$WORK/out-memory" --jobs "$JOBS")"
row "peak RSS, $MEM_N students (builds warm, every case run; $MEM_HOSTILE of them hostile), GNU time %M" "$(calc "$MEM_RSS / 1024") MB (target < 100 MB; $MEM_WALL s wall)" "$C"
row "  of the grader process alone (its VmHWM, polled every 0.1 s)" "$(calc "$MEM_HWM / 1024") MB" "$C"
row "peak RSS, cold class of $STUDENTS (%M: the grader or its largest child, gcc included)" "$(calc "$COLD_RSS / 1024") MB (grader process alone $(calc "$COLD_HWM / 1024") MB)" "$CC"

fi

# ---------------------------------------------------------------------------------------------------
echo "## grader batch bench ($(date -u +%Y-%m-%dT%H:%MZ), $SECONDS s)"
echo
echo "- machine: $(nproc) CPUs ($CPU_MODEL), $MEM_GB GiB memory, Linux $(uname -r), $(gcc --version | head -n1); load average at start $LOAD_AT_START"
echo "- grader: $COMMIT, containment: ${CONTAINMENT:-unknown}"
echo "- assignment: $ASSIGNMENT ($CASES_PER cases; recipes driver and game)"
echo "- class of $STUDENTS: $(py describe "$WORK/plan.json")"
[[ $CPU_ONLY == 1 ]] || echo "- its statuses (cold): $COLD_STATUS"
echo "- clean class of $SPEED_N: the class's contents without loopers, hostile programs, stub-functions and does-not-compile, new ids and layouts; memory class of $MEM_N: the same plus the class's segfault and printing-loop every 50"
if [[ ${#BUSY_RUNS[@]} -gt 0 ]]; then
    echo "- note: the machine did notable work outside the grader's account during: $(IFS=';'; echo "${BUSY_RUNS[*]}")"
fi
echo
echo "| what | number |"
echo "|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "Commands, from the repository root (reproduce everything with \`bench/class.sh$([[ $QUICK == 1 ]] && echo ' --quick') --students $STUDENTS --jobs $JOBS --keep\`; $WORK is removed at exit unless --keep):"
echo
for i in "${!CMDS[@]}"; do echo "- c$((i + 1)): \`${CMDS[$i]}\`"; done
say "done in $SECONDS s"
