#!/usr/bin/env bash
# The applications on the H200 (2026-11-29), run right after run_gpu_bench.sh, whose own
# application step passed three backends to programs that take one (fixed since). This is
# the command that ran, as one device call with build/gpu-bundle carried:
#   bash scripts/studies/gpu-2026-11-29/apps.sh "$OUT"
# transpose_sum and merge, scheduler + client + 2 workers (4 ranks, one GPU), tcp/ucx/mpi,
# host and device memory, 3 timed runs each, validated.
set -uo pipefail
cd build/gpu-bundle || exit 1
# shellcheck source=/dev/null
source bundle_lib.sh && bundle_export_env "$PWD"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_base_warn_component_unused=0
mkdir -p /tmp/apps
for app in transpose_sum merge; do
  for b in tcp ucx mpi; do
    for mem in host cuda; do
      echo "== $app $b $mem"
      timeout 60 root/usr/bin/orterun --oversubscribe -np 4 "bin/$app" --backend "$b" --memory "$mem" \
        --runs 3 --csv "/tmp/apps/${app}_${b}_$mem.csv" --timeout 50 > "/tmp/apps/${app}_${b}_$mem.txt" 2>&1
      echo "rc=$? $(grep -m1 -E 'validation:|error:' "/tmp/apps/${app}_${b}_$mem.txt")"
    done
  done
done
tar -C /tmp/apps -czf "${1:-$OUT}/apps.tar.gz" .
