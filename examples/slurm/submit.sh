#!/bin/bash
# Grades a class on a Slurm cluster: N array tasks, then the merge once they all succeed.
#   examples/slurm/submit.sh ROOT ASSIGNMENT OUT [N]
# ROOT and OUT must be on a file system every node sees. GRADER (default: `grader` on PATH) and
# GRADER_CASES (the cases folder, if the grader cannot find it) are passed to the jobs; GRADES_CSV
# adds hand grades to the merge.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(realpath "$1") assignment=$2 out=$(realpath -m "$3") shares=${4:-4}
mkdir -p "$out"
array=$(sbatch --parsable --export=ALL --chdir="$out" --array="1-$shares" \
    "$here/grade-class.sbatch" "$root" "$assignment" "$out")
merge=$(sbatch --parsable --export=ALL --chdir="$out" --dependency="afterok:$array" \
    "$here/merge.sbatch" "$assignment" "$out")
echo "array job $array ($shares shares), merge job $merge; the class files will be in $out/class"
