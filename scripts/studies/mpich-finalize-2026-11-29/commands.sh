#!/bin/bash
# Item 6 of issue 28: MPICH jobs across virtual hosts exit 0. 30 x a 16-rank merge on 4
# hosts and 30 x a 2-rank bidirectional bandwidth on 2 hosts (the first 2 of the 4), MPICH
# build, the finalize watchdog off (a hang would time out at 120 s instead of being ended).
# Usage: scripts/studies/mpich-finalize-2026-11-29/commands.sh BUILD_DIR OUT_DIR
set -u
B=${1:-build/mpich}
OUT=${2:-results/mpich-finalize-2026-11-29/logs}
mkdir -p "$OUT"
scripts/vcluster up --hosts 4 > /dev/null
trap 'scripts/vcluster down > /dev/null' EXIT
: > "$OUT/exits.txt"
for i in $(seq 1 30); do
  COMMBENCH_FINALIZE_GRACE_S=0 timeout 120 scripts/vcluster mpirun mpich -np 16 -- \
    "$B/appbench/merge" --backend tcp --runs 1 --chunk-size 100000 > "$OUT/merge.$i.log" 2>&1
  echo "merge16 $i exit $?" >> "$OUT/exits.txt"
done
for i in $(seq 1 30); do
  COMMBENCH_FINALIZE_GRACE_S=0 timeout 120 scripts/vcluster mpirun mpich -np 2 -- \
    "$B/microbench/bandwidth" --backend mpi,raw-mpi,ucx,raw-ucx --bidirectional -m 64K:1M \
    --iters 4 --iters-large 2 --reps 2 --window 8 --validate > "$OUT/bibw.$i.log" 2>&1
  echo "bibw2 $i exit $?" >> "$OUT/exits.txt"
done
