#!/bin/bash
# Stability (#26 item 4): RUNS quick reproductions back to back on one machine, each into
# OUT/run-<i>/, from the same clean commit. The first builds, the others reuse its builds
# (--no-build), so every run measures the same binaries. Each run waits for a quiet
# machine as scripts/reproduce always does; its sidecars keep the load and the latency
# probe of every invocation. summarize.py prints each claim's spread across the runs.
# Usage: run.sh OUT [RUNS]   (RUNS defaults to 5)
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n 2,8p "$0" >&2; exit 2; }
OUT=$1 RUNS=${2:-5}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$OUT"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
  echo "run.sh: the tree has uncommitted changes; a stability study runs from a clean commit" >&2
  exit 2
fi
git -C "$ROOT" rev-parse HEAD > "$OUT/commit"
for i in $(seq 1 "$RUNS"); do
  build=()
  [ "$i" -gt 1 ] && build=(--no-build)
  echo "run $i start $(date -u +%FT%TZ)" >> "$OUT/runs.log"
  rc=0
  "$ROOT/scripts/reproduce" --quick --no-setup "${build[@]}" --out "$OUT/run-$i" \
    > "$OUT/run-$i.stdout" 2>&1 || rc=$?
  echo "run $i end $(date -u +%FT%TZ) rc=$rc" >> "$OUT/runs.log"
done
