#!/bin/bash
# raw-mpi against NetPIPE's NPopenmpi (issue 29 item 1), Open MPI, 2 ranks on this host,
# the same launcher words, alternating invocations for ROUNDS rounds at 8 B - 2 KiB.
# Usage: abab.sh OUT ROUNDS [PINGPONG2]
#   PINGPONG2  a second pingpong binary run in each round too (batch-*.csv), e.g. one
#              built with batch-timing.patch (one clock pair per repetition)
set -u
[ $# -ge 2 ] || { sed -n 2,7p "$0" >&2; exit 2; }
OUT=$1 ROUNDS=$2 SECOND=${3:-}
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
L=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 2)
PP=(--backend raw-mpi -m 8:2048 -f 16 --iters 20000 --reps 5)
for r in $(seq 1 "$ROUNDS"); do
  "${L[@]}" build/openmpi/microbench/pingpong "${PP[@]}" --csv "$OUT/pp-$r.csv" > /dev/null
  [ -z "$SECOND" ] || "${L[@]}" "$SECOND" "${PP[@]}" --csv "$OUT/batch-$r.csv" > /dev/null
  (cd "$OUT" && "${L[@]}" NPopenmpi -p 0 -l 8 -u 2048 -n 20000 -o "np-$r.out" > /dev/null)
done
