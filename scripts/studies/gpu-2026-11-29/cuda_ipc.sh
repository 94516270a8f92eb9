#!/usr/bin/env bash
# Second visit to the H200 on 2026-11-29 (issue 30 item 5): CUDA IPC (--gpu-path cuda-ipc)
# on the real device, in about two minutes. With build/gpu-bundle carried:
#   bash scripts/studies/gpu-2026-11-29/cuda_ipc.sh "$OUT"
# The device tests (the IPC export cache among them); validation of ping-pong over tcp, ucx
# and mpi (device->device and device->host) and of bidirectional bandwidth; ping-pong
# latency of cuda-ipc beside staged and host memory, without and with NVIDIA's MPS daemon;
# bandwidth; transpose_sum and merge on cuda-ipc. Everything is tarred into $OUT.
set -uo pipefail
b=$PWD/build/gpu-bundle
dest=${1:?usage: cuda_ipc.sh OUT}
out=$(mktemp -d /tmp/cuda-ipc.XXXXXX)
trap 'tar -C "$out" --exclude=mps-pipe -czf "$dest/cuda-ipc.tar.gz" .; cp "$out/log" "$dest/cuda-ipc.log"' EXIT
# shellcheck source=/dev/null
source "$b/bundle_lib.sh"
bundle_export_env "$b"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_base_warn_component_unused=0
log() { echo "$*" | tee -a "$out/log"; }
cat "$b/GIT_COMMIT" >> "$out/log"
run() {  # name, ranks, program, args...
  local name=$1 np=$2 prog=$3
  shift 3
  timeout 90 "$b/root/usr/bin/orterun" --oversubscribe -np "$np" "$b/bin/$prog" --timeout 80 \
    --csv "$out/$name.csv" "$@" > "$out/$name.txt" 2>&1
  log "$name rc=$? $(grep -m1 -E 'validation:|error:' "$out/$name.txt")"
}
timeout 60 "$b/bin/gpu_device_tests" > "$out/gpu_device_tests.txt" 2>&1
log "gpu_device_tests: $(grep -E '^\[  (PASSED|FAILED)' "$out/gpu_device_tests.txt" | tr '\n' ' ')"
p=(--backend "tcp,ucx,mpi" --read-timeout 20)
run validate_pingpong_cuda_ipc 2 pingpong "${p[@]}" --memory cuda --gpu-path cuda-ipc --validate \
  -b 1 -e 8M -f 8 --iters 50 --iters-large 10
run validate_pingpong_cuda_ipc_d2h 2 pingpong "${p[@]}" --send-memory cuda --recv-memory host \
  --gpu-path cuda-ipc --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
run validate_bandwidth_cuda_ipc_bidir 2 bandwidth "${p[@]}" --memory cuda --gpu-path cuda-ipc \
  --bidirectional --validate -b 1K -e 8M -f 8 --iters 4 --iters-large 2 --reps 2 --window 16
lat=(-b 8 -e 4M -f 8 --iters 1000 --iters-large 200 --warmup 50)
run pingpong_cuda_ipc 2 pingpong "${p[@]}" --memory cuda --gpu-path cuda-ipc "${lat[@]}"
run bandwidth_cuda_ipc 2 bandwidth "${p[@]}" --memory cuda --gpu-path cuda-ipc -b 1M -e 64M -f 4 \
  --iters 10 --iters-large 4 --reps 2 --window 16
for app in transpose_sum merge; do
  run "${app}_mpi_cuda_ipc" 4 "$app" --backend mpi --memory cuda --gpu-path cuda-ipc --runs 3
done
mps=/usr/local/nvidia/bin/nvidia-cuda-mps-control
if [ -x "$mps" ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if env -u LD_LIBRARY_PATH "$mps" -d; then
    sleep 1
    run pingpong_cuda_ipc_mps 2 pingpong "${p[@]}" --memory cuda --gpu-path cuda-ipc "${lat[@]}"
    run pingpong_cuda_staged_mps 2 pingpong "${p[@]}" --memory cuda --gpu-path staged "${lat[@]}"
    run validate_pingpong_cuda_ipc_mps 2 pingpong "${p[@]}" --memory cuda --gpu-path cuda-ipc \
      --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
    echo quit | env -u LD_LIBRARY_PATH "$mps"
  else
    log "MPS daemon did not start"
  fi
fi
awk -F, 'FNR > 1 && $1 == "pingpong" && ($14 == 8 || $14 == 32768 || $14 == 4194304) {
  printf "%-28s %-4s %8s B  p50 %9s us  min %9s  p90 %9s\n", FILENAME, $3, $14, $18, $20, $21 }' \
  "$out"/pingpong_*.csv | sed "s|$out/||" | tee -a "$out/log"
awk -F, 'FNR > 1 && $1 == "bandwidth" { printf "%-28s %-4s %9s B  %9s MB/s\n", FILENAME, $3, $14, $25 }' \
  "$out"/bandwidth_cuda_ipc.csv | sed "s|$out/||" | tee -a "$out/log"
log "done"
