#!/usr/bin/env bash
# Issue 30 item 2 on a lent GPU: does a stream-ordered staged read (--gpu-read-completion
# stream: the receiver's host-to-device copy is queued on the default stream, not waited
# for) bring the small staged message nearer its floor? Alternating rounds under NVIDIA's
# MPS daemon (without it every small copy costs a GPU time slice, results/gpu-2026-11-29),
# each round running, in turn:
#   host          host memory (the backend's host latency, for the target)
#   sync          device memory, blocking copies up to 64 KiB (the best of 2026-11-29)
#   sync-stream   the same with stream-ordered reads
#   lanes-stream  lane copies on the send side, stream-ordered reads
#   sync-rep, sync-stream-rep   sync and sync-stream timed per repetition (one clock pair
#                 and one synchronisation per loop, as nccl-tests; per-trip samples end
#                 with a synchronisation each, so they show the stream-ordered read's
#                 gain on the echoing rank only)
# 8 B-4 KiB over ucx, mpi and tcp, every message validated in a first, untimed call.
# With build/gpu-bundle carried (scripts/gpu/prepare_bundle.sh), on the device machine:
#   bash scripts/studies/gpu-stream-reads/rounds.sh "$OUT" [ROUNDS]
# then here: scripts/studies/gpu-stream-reads/summary.py DIR (the unpacked tarball).
# Returns 2 files: rounds.log and rounds.tar.gz (every CSV, sidecar and output).
set -uo pipefail
b=$PWD/build/gpu-bundle
dest=${1:?usage: rounds.sh OUT [ROUNDS]}
rounds=${2:-5}
mkdir -p "$dest"
out=$(mktemp -d /tmp/stream-rounds.XXXXXX)
trap 'tar -C "$out" --exclude=mps-pipe -czf "$dest/rounds.tar.gz" .; cp "$out/log" "$dest/rounds.log"' EXIT
# shellcheck source=/dev/null
source "$b/bundle_lib.sh" || { echo "no bundle at $b" | tee "$out/log"; exit 1; }
bundle_export_env "$b"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_base_warn_component_unused=0
cat "$b/GIT_COMMIT" > "$out/log"
run() {  # name, extra args...
  local name=$1
  shift
  timeout 90 "$b/root/usr/bin/orterun" --oversubscribe -np 2 "$b/bin/pingpong" \
    --backend ucx,mpi,tcp --timeout 80 --read-timeout 30 --csv "$out/$name.csv" "$@" \
    > "$out/$name.txt" 2>&1
  echo "$name rc=$? $(grep -m1 -E 'validation:|error' "$out/$name.txt")" | tee -a "$out/log"
}
mps=$(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control 2>/dev/null)
if [ -n "$mps" ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  env -u LD_LIBRARY_PATH "$mps" -d || { echo "MPS daemon did not start" | tee -a "$out/log"; exit 1; }
  sleep 1
  echo "MPS: $mps" | tee -a "$out/log"
else
  echo "no MPS daemon on this machine: every small copy pays a GPU time slice" | tee -a "$out/log"
fi
modes=(host sync sync-stream lanes-stream sync-rep sync-stream-rep)
args() {
  case $1 in
    host) echo "--memory host" ;;
    sync) echo "--memory cuda --gpu-path staged --gpu-sync-copy 64K" ;;
    sync-stream) echo "--memory cuda --gpu-path staged --gpu-sync-copy 64K --gpu-read-completion stream" ;;
    lanes-stream) echo "--memory cuda --gpu-path staged --gpu-read-completion stream" ;;
    *-rep) echo "$(args "${1%-rep}") --timing per-repetition" ;;
  esac
}
for mode in sync sync-stream lanes-stream; do
  # shellcheck disable=SC2046
  run "validate_$mode" $(args "$mode") --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
done
for r in $(seq 1 "$rounds"); do
  for mode in "${modes[@]}"; do
    # shellcheck disable=SC2046
    run "${mode}_$r" $(args "$mode") -b 8 -e 4K -f 8 --iters 1000 --warmup 50 --reps 5
  done
done
[ -n "$mps" ] && echo quit | env -u LD_LIBRARY_PATH "$mps"
exit 0
