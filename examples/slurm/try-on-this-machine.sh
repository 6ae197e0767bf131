#!/bin/bash
# Exercises examples/slurm on a real single-node Slurm set up on this machine (Debian's slurm-wlm and
# munge; run as root, on a machine you can spare: it installs packages and starts daemons, and stops
# them at the end). Grades a class of checkers fixtures as 3 array tasks plus the merge, and checks
# that the merged gradebook is the one a single `grader batch` writes.
#   examples/slurm/try-on-this-machine.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/slurm-try.XXXXXX)
pids=()
cleanup() {
    for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# munge: a key, and the daemon (it refuses root without --force).
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
chmod 400 /etc/munge/munge.key
munged --force --foreground &
pids+=($!)
sleep 1

# One node with every core, processes tracked without cgroups (the grader brings its own sandbox).
host=$(hostname -s)
mkdir -p /etc/slurm "$work/spool/ctld" "$work/spool/d"
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=grader-try
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
StateSaveLocation=$work/spool/ctld
SlurmdSpoolDir=$work/spool/d
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=$(($(free -m | awk '/Mem:/ {print $2}') * 3 / 4)) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i &
pids+=($!)
slurmd -D &
pids+=($!)
for _ in $(seq 60); do
    sinfo -h -o %T 2>/dev/null | grep -q idle && break
    sleep 1
done
sinfo

cargo build --release -q --manifest-path "$repo/Cargo.toml" -p grader
export GRADER="$repo/target/release/grader"
class="$work/class"
for fixture in "$repo"/fixtures/checkers/*/; do
    name=$(basename "$fixture")
    mkdir -p "$class/$name"
    cp "$fixture"/*.c "$class/$name/"
done

"$GRADER" batch "$class" --assignment checkers --out "$work/direct"
"$repo/examples/slurm/submit.sh" "$class" checkers "$work/slurm" 3
for _ in $(seq 300); do
    [ -z "$(squeue -h)" ] && break
    sleep 2
done
squeue
cat "$work"/slurm/*.log
if cmp "$work/direct/gradebook.csv" "$work/slurm/class/gradebook.csv" \
    && cmp "$work/direct/class.html" "$work/slurm/class/class.html"; then
    echo "OK: 3 array tasks and the merge on Slurm $(sinfo -V | cut -d' ' -f2) wrote the gradebook of one batch ($(($(wc -l < "$work/direct/gradebook.csv") - 1)) students)"
else
    echo "FAILED: the merged gradebook differs from one batch's" >&2
    exit 1
fi
