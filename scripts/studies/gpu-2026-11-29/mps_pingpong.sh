#!/usr/bin/env bash
# The third device call of 2026-11-29 (run inline; this is its text): staged ping-pong over
# tcp, ucx and mpi under NVIDIA's MPS daemon, lane copies and blocking copies
# (--gpu-sync-copy 64K) twice each in turn, then host memory, 8 B-64 KiB, 1000 iterations
# at every size. With build/gpu-bundle carried:
#   bash scripts/studies/gpu-2026-11-29/mps_pingpong.sh "$OUT"
set -uo pipefail
b=$PWD/build/gpu-bundle
# shellcheck source=/dev/null
source "$b/bundle_lib.sh"
bundle_export_env "$b"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_base_warn_component_unused=0
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mp CUDA_MPS_LOG_DIRECTORY=/tmp/ml
mkdir -p /tmp/mp /tmp/ml /tmp/r
mps=/usr/local/nvidia/bin/nvidia-cuda-mps-control
env -u LD_LIBRARY_PATH "$mps" -d
sleep 1
common=(--iters 1000 --iters-large 1000 --warmup 50 --warmup-large 50 --reps 5 --timeout 50)
for mode in lanes sync; do
  for rep in 1 2; do
    x=()
    [ "$mode" = sync ] && x=(--gpu-sync-copy 64K)
    timeout 60 "$b/root/usr/bin/orterun" --oversubscribe -np 2 "$b/bin/pingpong" --backend tcp,ucx,mpi \
      --memory cuda --gpu-path staged "${x[@]}" -b 8 -e 64K -f 8 "${common[@]}" \
      --csv "/tmp/r/mps_${mode}_$rep.csv" > "/tmp/r/mps_${mode}_$rep.txt" 2>&1
    echo "$mode $rep rc=$?"
  done
done
timeout 60 "$b/root/usr/bin/orterun" --oversubscribe -np 2 "$b/bin/pingpong" --backend tcp,ucx,mpi \
  --memory host -b 8 -e 64K -f 8 --iters 1000 --iters-large 1000 --reps 5 --timeout 50 \
  --csv /tmp/r/mps_host.csv > /tmp/r/mps_host.txt 2>&1
echo "host rc=$?"
echo quit | env -u LD_LIBRARY_PATH "$mps"
tar -C /tmp/r -czf "${1:-$OUT}/mps.tar.gz" .
