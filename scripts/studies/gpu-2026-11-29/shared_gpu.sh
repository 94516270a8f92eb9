#!/usr/bin/env bash
# Second device run of 2026-11-29: is the ~150 us of a small staged device message the
# cost of two processes sharing one GPU? In the first run one process copied 8 B in
# 6.5-8.5 us as the host waits for it (cuda_sync_probe), yet a ping-pong of two ranks on
# the one H200 took ~160 us one way for 1 B-4 KiB on every backend, copy mode and
# scheduling mode, and pass-through UCX too, with minima at ~76 us (a quantum?).
#
#   bash scripts/studies/gpu-2026-11-29/shared_gpu.sh "$OUT"    (on the device, bundle carried)
#
# 1. cuda_sync_probe alone, then two at once (each process its own context on the GPU);
# 2. the staged ping-pong over mpi with equal iteration counts at every size (the first
#    run's step between 4 KiB and 32 KiB coincided with --large-size);
# 3. with NVIDIA's MPS daemon, where the machine has it (both processes' work in one
#    context), the two probes and the ping-pong again.
set -uo pipefail
bundle=$PWD/build/gpu-bundle
dest=${1:?usage: shared_gpu.sh OUT}
out=$(mktemp -d /tmp/shared-gpu.XXXXXX)
trap 'tar -C "$out" -czf "$dest/shared-gpu.tar.gz" .; cp "$out/log" "$dest/shared-gpu.log"' EXIT
# shellcheck source=/dev/null
source "$bundle/bundle_lib.sh"
bundle_export_env "$bundle"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_base_warn_component_unused=0
log() { echo "$*" | tee -a "$out/log"; }
probe_line() {  # file: the 8 B lane-event and blocking-copy medians
  env -u LD_LIBRARY_PATH python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except ValueError:
    print("   no probe output: " + open(sys.argv[1]).read()[:200].strip())
    sys.exit()
pick = {(r["mechanism"], r["bytes"]): r for r in j["results"]}
for m in ("event_record_query", "d2h_lane_event", "h2d_lane_event", "d2h_memcpy_pinned", "empty_kernel_query"):
    r = pick.get((m, 8)) or pick.get((m, 0))
    print("   %-22s median %7.2f us  p10 %7.2f  p90 %7.2f  min %7.2f" % (m, r["median_us"], r["p10_us"], r["p90_us"], r["min_us"]))
' "$1" | tee -a "$out/log"
}
probes() {  # tag
  log "== $1: one probe"
  timeout 60 "$bundle/bin/cuda_sync_probe" --sizes 8 --iters 3000 > "$out/probe_$1_one.json" 2>&1
  probe_line "$out/probe_$1_one.json"
  log "== $1: two probes at once"
  timeout 60 "$bundle/bin/cuda_sync_probe" --sizes 8 --iters 3000 > "$out/probe_$1_a.json" 2>&1 &
  timeout 60 "$bundle/bin/cuda_sync_probe" --sizes 8 --iters 3000 > "$out/probe_$1_b.json" 2>&1
  wait
  probe_line "$out/probe_$1_a.json"
  probe_line "$out/probe_$1_b.json"
}
pingpong() {  # tag
  log "== $1: staged ping-pong over mpi, 1000 iterations at every size"
  timeout 90 "$bundle/root/usr/bin/orterun" --oversubscribe -np 2 "$bundle/bin/pingpong" \
    --backend mpi,ucx --memory cuda --gpu-path staged -b 8 -e 64K -f 2 --iters 1000 \
    --iters-large 1000 --warmup 50 --warmup-large 50 --reps 5 --timeout 80 --read-timeout 20 \
    --csv "$out/pingpong_$1.csv" > "$out/pingpong_$1.txt" 2>&1
  log "   rc=$?"
  awk -F, 'NR > 1 {printf "   %-4s %7s B  p50 %8s  min %8s  p90 %8s\n", $3, $14, $18, $20, $21}' \
    "$out/pingpong_$1.csv" | tee -a "$out/log"
}

probes plain
pingpong plain
mps=$(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control 2>/dev/null)
log "== MPS control: ${mps:-none on this machine}"
if [ -n "$mps" ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if env -u LD_LIBRARY_PATH "$mps" -d; then
    sleep 1
    probes mps
    pingpong mps
    echo quit | env -u LD_LIBRARY_PATH "$mps"
    sleep 1
  else
    log "   MPS daemon did not start"
  fi
fi
log "== done"
