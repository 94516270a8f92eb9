#!/bin/bash
# Fig 5a's pair (mpi:cooperative against ucx:polling, with their raw baselines) in one
# invocation, before and after the MPI_THREAD_SINGLE change, alternating for ROUNDS rounds
# (Open MPI build, 1 B-4 KiB).
# Usage: abab.sh OUT ROUNDS BEFORE_PINGPONG AFTER_PINGPONG
set -eu
[ $# -eq 4 ] || { sed -n 2,5p "$0" >&2; exit 2; }
OUT=$1 ROUNDS=$2 BEFORE=$3 AFTER=$4
mkdir -p "$OUT"
L=(mpirun.openmpi --allow-run-as-root -np 2)
B=(--backend mpi:cooperative,ucx:polling,raw-mpi,raw-ucx:polling -b 1 -e 4096 -f 4 --reps 5)
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
  for side in $order; do
    bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
    "${L[@]}" "$bin" "${B[@]}" --csv "$OUT/$side-$r.csv" > /dev/null
  done
done
