#!/usr/bin/env bash
# Issue 28 item 1: the paper's idle rules measured as they ran. One pingpong invocation
# holds each family's paper policy under every @idle rule the binary lists (spin, budget,
# block) interleaved with every raw baseline (the reproduce matrix's idle-rules run:
# cbresults.matrix.idle_rule_backend_list), INVOCATIONS times; summarize.py takes each ratio
# inside one invocation and reports the median over invocations with its min-max.
#   scripts/studies/idle-rules-2026-11-28/commands.sh      (writes results/idle-rules-2026-11-28/)
#   /usr/bin/python3 scripts/studies/idle-rules-2026-11-28/summarize.py
# Environment: FLAVOR (openmpi), INVOCATIONS (5), OUT, LINK_NOTE (what the ranks ran over;
# default: one host, shared memory / loopback). Run on an otherwise idle machine, after
# `cmake --build --preset $FLAVOR`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
flavor=${FLAVOR:-openmpi}
n=${INVOCATIONS:-5}
out=${OUT:-results/idle-rules-2026-11-28}
bin=build/$flavor/microbench/pingpong
mkdir -p "$out"
# The entries, from the binary's own --list-backends (never typed here).
list=$(/usr/bin/python3 - "$flavor" "$bin" <<'PY'
import sys
sys.path.insert(0, "scripts/lib")
from cbresults import launch, matrix
print(",".join(matrix.idle_rule_backend_list(
    matrix.families(launch.list_backends(sys.argv[1], sys.argv[2])))))
PY
)
[ -n "$list" ] || { echo "commands.sh: $bin lists no idle rules (rebuild)"; exit 2; }
if [ "$flavor" = openmpi ]; then mpirun="mpirun.openmpi --oversubscribe"; else mpirun="mpirun.mpich"; fi
echo "{\"flavor\": \"$flavor\", \"invocations\": $n, \"entries\": \"$list\", \"link\": \"${LINK_NOTE:-one host}\"}" > "$out/plan-$flavor.json"
for i in $(seq 1 "$n"); do
  echo "+ $flavor invocation $i/$n"
  $mpirun -np 2 "$bin" --backend "$list" -m 1:4096 -i 2000 -x 200 --reps 5 \
    --csv "$out/pingpong-$flavor-$i.csv" | tail -n +1 > "$out/pingpong-$flavor-$i.log"
done
