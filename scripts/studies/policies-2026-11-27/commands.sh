#!/usr/bin/env bash
# Issue 16: every progress policy of every family against its raw baseline(s), interleaved
# in one invocation per family (--reps alternate the backends, so each ratio comes from one
# machine state), three invocations per family and MPI; summarize.py takes the median over
# the three of each invocation's ratio. Run on an otherwise idle machine, after
# `cmake --build --preset openmpi` and `--preset mpich`:
#   scripts/studies/policies-2026-11-27/commands.sh   (writes results/policies-2026-11-27/)
#   /usr/bin/python3 scripts/studies/policies-2026-11-27/summarize.py
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${OUT:-results/policies-2026-11-27}
rounds=${ROUNDS:-3}
mkdir -p "$out"
# The policies and raw baselines each build offers, from --list-backends (never typed).
# $3 = "windowed" leaves out policies that stall the loop (mpi:blocking's MPI_Wait with a
# window of sends in flight).
family_list() {  # $1 = build dir, $2 = family, $3 = all|windowed
  /usr/bin/python3 - "$1/microbench/pingpong" "$2" "$3" <<'PY'
import json, subprocess, sys
listing = json.loads(subprocess.run([sys.argv[1], "--list-backends"], capture_output=True,
                                    text=True, check=True).stdout)
fam = sys.argv[2]
items = []
for b in listing["backends"] if isinstance(listing, dict) else listing:
    name = b["name"]
    if name == fam:
        items += ["%s:%s" % (name, p["name"]) for p in b["policies"]
                  if sys.argv[3] == "all" or not p.get("stalls_loop")]
    elif name == "raw-" + fam:  # every variant: the ratio is taken against the fastest
        items += ["%s:%s" % (name, p["name"]) for p in b["policies"]] or [name]
print(",".join(items))
PY
}
for flavor in openmpi mpich; do
  bin=build/$flavor/microbench
  if [ "$flavor" = openmpi ]; then mpirun="mpirun.openmpi --oversubscribe"; else mpirun="mpirun.mpich"; fi
  for r in $(seq 1 "$rounds"); do
    for fam in tcp mpi ucx; do
      list=$(family_list build/$flavor $fam all)
      echo "+ $flavor round $r $fam: $list"
      timeout 900 $mpirun -np 2 $bin/pingpong --backend "$list" -b 1 -e 4K --reps 5 \
        --csv "$out/pingpong-$fam-$flavor-r$r.csv" > /dev/null
      list=$(family_list build/$flavor $fam windowed)
      timeout 900 $mpirun -np 2 $bin/bandwidth --backend "$list" -b 1M -e 16M -f 4 --reps 4 \
        --iters 8 --iters-large 4 --csv "$out/bandwidth-$fam-$flavor-r$r.csv" > /dev/null
    done
  done
done
