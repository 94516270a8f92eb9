#!/usr/bin/env bash
# Issue 28 item 1: the paper's idle rules measured as they ran. Per family, one pingpong
# invocation holds its paper policy under every @idle rule the binary lists (spin, budget,
# block; and ucx:event@block) interleaved with the family's raw baselines (the reproduce
# matrix's idle-rules runs: cbresults.matrix.idle_rule_groups); one family per process, as
# each design ran. ROUNDS rounds of tcp, mpi, ucx; summarize.py takes each ratio to raw
# inside one invocation and each cross-family ratio inside one round, and reports the
# median over rounds with its min-max.
#   scripts/studies/idle-rules-2026-11-28/commands.sh      (writes results/idle-rules-2026-11-28/)
#   /usr/bin/python3 scripts/studies/idle-rules-2026-11-28/summarize.py
# Environment: FLAVOR (openmpi), ROUNDS (5), OUT, LINK_NOTE (what the ranks ran over;
# default: one host). Run on an otherwise idle machine, after `cmake --build --preset $FLAVOR`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
flavor=${FLAVOR:-openmpi}
n=${ROUNDS:-5}
out=${OUT:-results/idle-rules-2026-11-28}
bin=build/$flavor/microbench/pingpong
mkdir -p "$out"
# The groups, from the binary's own --list-backends (never typed here): "family entries".
groups=$(/usr/bin/python3 - "$flavor" "$bin" <<'PY'
import sys
sys.path.insert(0, "scripts/lib")
from cbresults import launch, matrix
for fam, items in matrix.idle_rule_groups(
        matrix.families(launch.list_backends(sys.argv[1], sys.argv[2]))):
    print(fam, ",".join(items))
PY
)
[ -n "$groups" ] || { echo "commands.sh: $bin lists no idle rules (rebuild)"; exit 2; }
if [ "$flavor" = openmpi ]; then mpirun="mpirun.openmpi --oversubscribe"; else mpirun="mpirun.mpich"; fi
echo "{\"flavor\": \"$flavor\", \"rounds\": $n, \"link\": \"${LINK_NOTE:-one host}\"}" > "$out/plan-$flavor.json"
for i in $(seq 1 "$n"); do
  while read -r fam list; do
    echo "+ $flavor round $i/$n $fam: $list"
    $mpirun -np 2 "$bin" --backend "$list" -m 1:4096 -i 2000 -x 200 --reps 5 \
      --csv "$out/pingpong-$flavor-r$i-$fam.csv" > "$out/pingpong-$flavor-r$i-$fam.log" < /dev/null
  done <<< "$groups"
done
