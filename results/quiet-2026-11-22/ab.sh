#!/usr/bin/env bash
# Before/after comparison of one change: two pingpong binaries (built from the commits
# before and after it) run alternately, ROUNDS times each, every invocation with its raw
# baseline, so each ratio comes from one invocation and both builds see the same minutes.
#   results/quiet-2026-11-22/ab.sh NAME BEFORE_BIN AFTER_BIN [pingpong options...]
# writes ab-NAME/{before,after}-N.csv; summarize.py prints the ratio medians. The
# application benchmarks work the same way with NP=3 (scheduler+client, 2 workers);
# summarize.py then prints wall-time medians (ab-app-*).
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ $# -ge 3 ] || { echo "usage: $0 NAME BEFORE_BIN AFTER_BIN [pingpong options...]" >&2; exit 2; }
name=$1 before=$2 after=$3
shift 3
out=$(dirname "$0")/ab-$name
mkdir -p "$out"
for i in $(seq "${ROUNDS:-3}"); do
  for side in before after; do
    bin=$before
    [ "$side" = after ] && bin=$after
    echo "+ $side $i: $bin $*"
    timeout 600 mpirun.openmpi --oversubscribe -np "${NP:-2}" "$bin" "$@" --csv "$out/$side-$i.csv" >/dev/null
  done
done
