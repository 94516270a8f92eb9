#!/bin/bash
# The gate's false-alarm rate and self-test on an unchanged build (issue 26 item 7, issue 31).
# Run from the repository root, with build/openmpi and build/mpich built from the commit
# that wrote results/reference/regress-*.json (targets: pingpong, transpose_sum, merge,
# groupby, sort, matmul, latency_probe).
#   scripts/studies/gate-2026-11-28/commands.sh false-alarms N   # N gate runs per MPI, alternating
#   scripts/studies/gate-2026-11-28/commands.sh self-test        # ctest -L regress on both MPIs
# Every gate run appends one JSON line to false-alarms.jsonl (scripts/regress --record) and
# leaves its output in logs/; summarize.py prints the tables of README.md from them.
set -u
cd "$(dirname "$0")/../../.."
OUT=results/gate-2026-11-28
mkdir -p "$OUT/logs"
case "${1:-}" in
  false-alarms)
    for i in $(seq "${2:-10}"); do
      for m in openmpi mpich; do
        scripts/regress --build-dir build/$m --record "$OUT/false-alarms.jsonl" \
          > "$OUT/logs/gate-$m-$i.log" 2>&1
        echo "gate $m run $i: exit $?"
      done
    done ;;
  self-test)
    # the four self-tests and the gate as CI runs them; summarize.py reads these logs
    for m in openmpi mpich; do
      cmake --preset $m > /dev/null
      ctest --test-dir build/$m -L regress -E results_pipeline -V > "$OUT/logs/ctest-$m.log" 2>&1
      echo "ctest -L regress $m: exit $?"
    done ;;
  *) echo "usage: $0 false-alarms [N] | self-test" >&2; exit 2 ;;
esac
