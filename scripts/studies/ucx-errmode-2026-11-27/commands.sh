#!/usr/bin/env bash
# ucx's data-endpoint mode (--backend-opt ucx_err_handling=none|nocma) against raw-ucx, which
# keeps UCX's defaults (CMA included), in the same invocation: the ratio ucx/raw-ucx per size
# is a same-run ratio; comparing it between the modes gives what leaving CMA out costs.
# Two rounds, modes alternating. Open MPI build.
set -eu
cd "$(dirname "$0")/../../.."
out=${1:-results/ucx-errmode-2026-11-27}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in 1 2; do
  for m in none nocma; do
    mpirun.openmpi --oversubscribe -np 2 build/openmpi/microbench/pingpong --backend ucx,raw-ucx \
      --backend-opt ucx_err_handling=$m -b 1 -e 4K -f 8 --reps 3 --csv "$out/pp_${m}_$r.csv"
  done
done
for r in 1 2; do
  for m in none nocma; do
    mpirun.openmpi --oversubscribe -np 2 build/openmpi/microbench/bandwidth --backend ucx,raw-ucx \
      --backend-opt ucx_err_handling=$m -b 1M -e 16M -f 4 --reps 3 --csv "$out/bw_${m}_$r.csv"
  done
done
/usr/bin/python3 scripts/studies/ucx-errmode-2026-11-27/summarize.py "$out"
