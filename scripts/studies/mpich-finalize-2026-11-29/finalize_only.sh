#!/bin/bash
# finalize_only.c (MPI_Init, barrier, MPI_Finalize; no code of ours) across 4 virtual
# hosts with MPICH, RUNS times per case (16 ranks; 4 ranks, one per host; each plain and
# with every pair exchanging first), 30 s each; one line per job in OUT/exits.txt.
# Usage: finalize_only.sh OUT RUNS
set -u
[ $# -eq 2 ] || { sed -n 2,5p "$0" >&2; exit 2; }
OUT=$1 RUNS=$2
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
mkdir -p "$OUT"
exe=$(mktemp /tmp/finalize_only.XXXXXX)
mpicc.mpich -O2 -o "$exe" "$here/finalize_only.c" || exit 1
scripts/vcluster --name fo up --hosts 4 > /dev/null || exit 1
trap 'scripts/vcluster --name fo down > /dev/null; rm -f "$exe"' EXIT
: > "$OUT/exits.txt"
for np in 16 4; do
  for mode in none allpairs; do
    for i in $(seq 1 "$RUNS"); do
      timeout 30 scripts/vcluster --name fo mpirun mpich -np "$np" -- "$exe" "$mode" > /dev/null 2>&1
      echo "np$np $mode $i exit $?" >> "$OUT/exits.txt"
    done
  done
done
