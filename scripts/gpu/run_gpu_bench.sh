#!/usr/bin/env bash
# Run ON THE LENT GPU MACHINE, from the repository root, with build/gpu-bundle carried
# (made by scripts/gpu/prepare_bundle.sh):
#
#   bash build/gpu-bundle/run_gpu_bench.sh "$OUT"
#
# In order of importance, each step only while the time budget lasts (GPU_BENCH_BUDGET_S,
# default 420 s: the device tool's lease is 15 minutes, its start included): nvidia-smi,
# the bundle check (one line and exit 1 when a binary cannot start), the GPU tests,
# cuda_sync_probe under each CUDA scheduling mode (what one small copy costs as the host
# waits for it), validation of every memory combination, staged copy and read mode, ping-pong
# and bandwidth for tcp, ucx and mpi in host memory and device memory (staged by lanes,
# staged by blocking copies up to 64 KiB, under the default and the spin and blocking
# scheduling modes; and under NVIDIA's MPS daemon where the machine has one, with
# stream-ordered reads too), pass-through
# with the bundle's CUDA-aware UCX beside staged, and the
# applications on device memory. Everything is written to a work folder; what comes back
# is at most 8 files: run.log, summary.txt and gpu-run.tar.gz (all of it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-${OUT:-results/gpu/$(date -u +%Y%m%dT%H%M%SZ)}}
mkdir -p "$dest"
out=$(mktemp -d /tmp/gpu-run.XXXXXX)
bin=$here/bin
rt=$here/root
budget=${GPU_BENCH_BUDGET_S:-420}
start=$SECONDS
# Whatever happens, the device tool gets the log and every file, tarred.
pack() {
  cp "$out/run.log" "$dest/run.log" 2>/dev/null
  cp "$out/summary.txt" "$dest/summary.txt" 2>/dev/null
  tar -C "$out" -czf "$dest/gpu-run.tar.gz" . 2>/dev/null
}
trap pack EXIT
die() {
  echo "run_gpu_bench: error: $*" | tee -a "$out/run.log" >&2
  exit 1
}
# True while the budget lasts; else logs the step as skipped.
step() {
  local used=$((SECONDS - start))
  if [ "$used" -ge "$budget" ]; then
    echo "== skipped (time budget ${budget} s used: ${used} s): $*" | tee -a "$out/run.log"
    return 1
  fi
  echo "== [${used} s] $*" | tee -a "$out/run.log"
}

# The unpacked Debian runtime, relocated (bundle_lib.sh: LD_LIBRARY_PATH, OPAL_PREFIX,
# UCX_MODULE_DIR and the Open MPI component path into the bundle).
# shellcheck source=bundle_lib.sh
source "$here/bundle_lib.sh" || die "no bundle_lib.sh next to $0 (rebuild the bundle)"
bundle_export_env "$here"
# Programs of this machine (python3, nvidia-smi) run without the bundle's libraries.
host() { env -u LD_LIBRARY_PATH "$@"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# As Debian's /etc/openmpi/openmpi-mca-params.conf (not carried): ob1, not the UCX PML,
# so Open MPI runs the same path as in the host results.
export OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx OMPI_MCA_btl_base_warn_component_unused=0
mpirun=(timeout 120 "$rt/usr/bin/orterun" --oversubscribe -np 2 -x COMMBENCH_CUDA_SCHEDULE)
# Applications: scheduler, client and 2 workers (all sharing the one GPU).
app_mpirun=(timeout 120 "$rt/usr/bin/orterun" --oversubscribe -np 4)
export COMMBENCH_CUDA_SCHEDULE=${COMMBENCH_CUDA_SCHEDULE:-}

log() { echo "== $*" | tee -a "$out/run.log"; }

log "machine"
{ host nvidia-smi -q || echo "nvidia-smi failed"; } > "$out/nvidia-smi.txt" 2>&1
host nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv \
  2>&1 | tee -a "$out/run.log"
host nvidia-smi topo -m > "$out/nvidia-topo.txt" 2>&1 || true
uname -a >> "$out/run.log"
cat "$here/GIT_COMMIT" >> "$out/run.log" 2>/dev/null || true

# Every library resolves into the bundle (or to glibc, libstdc++, the driver), every
# binary starts, two ranks validate: else nothing below could mean anything.
log "bundle check"
if ! "$here/check_bundle.sh" "$here" > "$out/check_bundle.txt" 2>&1; then
  die "the bundle cannot run here: $(grep -m1 '^check_bundle: ' "$out/check_bundle.txt" |
    sed 's/^check_bundle: //') (all of it: $out/check_bundle.txt)"
fi
tail -1 "$out/check_bundle.txt" | tee -a "$out/run.log"

log "GPU tests (must run, not skip)"
timeout 120 "$bin/gpu_device_tests" > "$out/gpu_device_tests.txt" 2>&1
tail -3 "$out/gpu_device_tests.txt" | tee -a "$out/run.log"
timeout 120 "$bin/gpu_host_tests" > "$out/gpu_host_tests.txt" 2>&1 &&
  echo "gpu_host_tests passed" | tee -a "$out/run.log"

# 1. What one small copy costs as the host waits for it, per mechanism, under each CUDA
#    scheduling mode (issue 30 item 2): the floor the staged path is measured against.
if [ -x "$bin/cuda_sync_probe" ]; then
  for mode in auto spin yield blocking; do
    step "cuda_sync_probe --schedule $mode" || break
    timeout 60 "$bin/cuda_sync_probe" --schedule "$mode" --sizes 8,65536 --iters 1000 \
      > "$out/cuda_sync_probe_$mode.json" 2> "$out/cuda_sync_probe_$mode.err" ||
      log "cuda_sync_probe --schedule $mode failed: $(head -1 "$out/cuda_sync_probe_$mode.err")"
  done
  host python3 - "$out" <<'PY' | tee -a "$out/run.log" > "$out/summary.txt"
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "cuda_sync_probe_*.json"))):
    try:
        j = json.load(open(f))
    except ValueError:
        print(f, "unreadable"); continue
    print("probe schedule=%s (%s) %s" % (j["schedule_requested"], j["schedule"], j["device"]))
    for r in j["results"]:
        print("  %-26s %6d B  median %8.2f us  p10 %8.2f  p90 %8.2f" % (
            r["mechanism"], r["bytes"], r["median_us"], r["p10_us"], r["p90_us"]))
PY
fi

backends=tcp,ucx,mpi
common=(--backend "$backends" --timeout 100 --read-timeout 30)
run_pair() {  # name, benchmark, extra args...
  local name=$1 bench=$2
  shift 2
  step "$name: $bench $*" || return 0
  "${mpirun[@]}" "$bin/$bench" "${common[@]}" --csv "$out/$name.csv" "$@" > "$out/$name.txt" 2>&1
  echo "   rc=$? $(grep -m1 -E 'validation:|error' "$out/$name.txt")" | tee -a "$out/run.log"
}
small=(--iters 2000 --iters-large 200 --warmup 100)

# 2. Correctness first, every byte checked: every memory combination, and both ways of
#    copying small staged messages (lanes; blocking copies up to 64 KiB).
for mem in "--memory cuda" "--send-memory cuda --recv-memory host" \
           "--send-memory host --recv-memory cuda"; do
  tag=$(echo "$mem" | tr -d ' -')
  # shellcheck disable=SC2086
  run_pair "validate_pingpong_$tag" pingpong $mem --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
done
run_pair validate_pingpong_cuda_synccopy pingpong --memory cuda --gpu-sync-copy 64K --validate \
  -b 1 -e 8M -f 8 --iters 50 --iters-large 10
run_pair validate_pingpong_cuda_streamreads pingpong --memory cuda --gpu-path staged \
  --gpu-sync-copy 64K --gpu-read-completion stream --validate -b 1 -e 8M -f 8 --iters 50 \
  --iters-large 10
run_pair validate_bandwidth_cuda bandwidth --memory cuda --validate -b 1K -e 8M -f 8 \
  --iters 4 --iters-large 2 --reps 2 --window 16
run_pair validate_pingpong_cuda_ipc pingpong --memory cuda --gpu-path cuda-ipc --validate \
  -b 1 -e 8M -f 8 --iters 50 --iters-large 10
run_pair validate_bandwidth_cuda_ipc_bidir bandwidth --memory cuda --gpu-path cuda-ipc \
  --bidirectional --validate -b 1K -e 8M -f 8 --iters 4 --iters-large 2 --reps 2 --window 16

# 3. Latency: host memory, then device memory staged by lanes and by blocking copies.
run_pair pingpong_host pingpong --memory host -b 8 -e 4M -f 8 "${small[@]}"
run_pair pingpong_cuda_staged pingpong --memory cuda --gpu-path staged -b 8 -e 4M -f 8 "${small[@]}"
run_pair pingpong_cuda_staged_synccopy pingpong --memory cuda --gpu-path staged \
  --gpu-sync-copy 64K -b 8 -e 4M -f 8 "${small[@]}"
run_pair pingpong_cuda_ipc pingpong --memory cuda --gpu-path cuda-ipc -b 8 -e 4M -f 8 "${small[@]}"
for mode in spin blocking; do
  COMMBENCH_CUDA_SCHEDULE=$mode run_pair "pingpong_cuda_staged_synccopy_$mode" pingpong \
    --memory cuda --gpu-path staged --gpu-sync-copy 64K -b 8 -e 64K -f 8 "${small[@]}"
  COMMBENCH_CUDA_SCHEDULE=$mode run_pair "pingpong_cuda_staged_$mode" pingpong \
    --memory cuda --gpu-path staged -b 8 -e 64K -f 8 "${small[@]}"
done

# 3b. The same under NVIDIA's MPS daemon where the machine has it: two ranks on one GPU
#     otherwise pay a GPU time-slice (~150 us) for each small host-to-device copy
#     (results/gpu-2026-11-29: 157 us one way without MPS, 17 us with it).
mps=$(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control 2>/dev/null)
if [ -n "$mps" ] && step "MPS daemon ($mps)"; then
  export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if host "$mps" -d; then
    sleep 1
    run_pair pingpong_cuda_staged_mps pingpong --memory cuda --gpu-path staged -b 8 -e 4M -f 8 "${small[@]}"
    run_pair pingpong_cuda_staged_synccopy_mps pingpong --memory cuda --gpu-path staged \
      --gpu-sync-copy 64K -b 8 -e 64K -f 8 "${small[@]}"
    run_pair pingpong_cuda_staged_synccopy_streamreads_mps pingpong --memory cuda \
      --gpu-path staged --gpu-sync-copy 64K --gpu-read-completion stream -b 8 -e 64K -f 8 \
      "${small[@]}"
    run_pair pingpong_cuda_ipc_mps pingpong --memory cuda --gpu-path cuda-ipc -b 8 -e 4M -f 8 \
      "${small[@]}"
    run_pair bandwidth_cuda_staged_mps bandwidth --memory cuda --gpu-path staged -b 1M -e 64M -f 4 \
      --iters 10 --iters-large 4 --reps 2 --window 16
    echo quit | host "$mps"
    sleep 1
  else
    log "MPS daemon did not start"
  fi
  rm -rf "$CUDA_MPS_PIPE_DIRECTORY"
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi

# 4. Bandwidth, host against staged.
run_pair bandwidth_host bandwidth --memory host -b 1M -e 64M -f 4 --iters 10 --iters-large 4 --reps 2 --window 16
run_pair bandwidth_cuda_staged bandwidth --memory cuda --gpu-path staged -b 1M -e 64M -f 4 \
  --iters 10 --iters-large 4 --reps 2 --window 16
run_pair bandwidth_cuda_ipc bandwidth --memory cuda --gpu-path cuda-ipc -b 1M -e 64M -f 4 \
  --iters 10 --iters-large 4 --reps 2 --window 16
run_pair pingpong_cuda_passthrough pingpong --memory cuda --gpu-path pass-through -b 1 -e 1K

# 5. With the CUDA-aware UCX the bundle may carry (scripts/gpu/build_cuda_ucx.sh): what
#    UCX sees on this machine, then pass-through beside staged over the same library,
#    validated first; once with UCX's defaults and once as Dask-CUDA runs UCX. Each
#    sidecar names the lanes UCX chose per endpoint (transports).
if [ -d "$here/ucx-cuda" ] && step "CUDA-aware UCX"; then
  (
    bundle_use_cuda_ucx "$here" || die "ucx-cuda/ in the bundle has no bin/ucx_info"
    log "CUDA-aware UCX: $(ucx_info -v | tr '\n' ' ')"
    ucx_info -d > "$out/ucx_cuda_devices.txt" 2>&1
    grep -E "Transport: " "$out/ucx_cuda_devices.txt" | sort -u | tr -s ' ' | tee -a "$out/run.log"
    echo "UCX_TLS=${UCX_TLS:-<unset: all>}" | tee -a "$out/run.log"
    mpirun=("${mpirun[@]}" -x LD_LIBRARY_PATH -x UCX_MODULE_DIR)
    common=(--backend "ucx,ucx:polling" --timeout 100 --read-timeout 30)
    for path in pass-through staged; do
      run_pair "validate_pingpong_cuda_ucxcuda_$path" pingpong --memory cuda --gpu-path "$path" \
        --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
    done
    run_pair pingpong_cuda_ucxcuda_passthrough pingpong --memory cuda --gpu-path pass-through \
      -b 8 -e 4M -f 8 "${small[@]}"
    run_pair bandwidth_cuda_ucxcuda_passthrough bandwidth --memory cuda --gpu-path pass-through \
      -b 1M -e 64M -f 4 --iters 10 --iters-large 4 --reps 2 --window 16
    export UCX_RNDV_THRESH=8192 UCX_RNDV_FRAG_MEM_TYPE=cuda UCX_MEMTYPE_CACHE=n
    mpirun=("${mpirun[@]}" -x UCX_RNDV_THRESH -x UCX_RNDV_FRAG_MEM_TYPE -x UCX_MEMTYPE_CACHE)
    log "as Dask-CUDA runs UCX: UCX_RNDV_THRESH=8192 UCX_RNDV_FRAG_MEM_TYPE=cuda UCX_MEMTYPE_CACHE=n"
    run_pair pingpong_cuda_ucxcuda_passthrough_daskcuda pingpong --memory cuda \
      --gpu-path pass-through -b 8 -e 4M -f 8 "${small[@]}"
    run_pair bandwidth_cuda_ucxcuda_passthrough_daskcuda bandwidth --memory cuda \
      --gpu-path pass-through -b 1M -e 64M -f 4 --iters 10 --iters-large 4 --reps 2 --window 16
  )
elif [ ! -d "$here/ucx-cuda" ]; then
  log "no CUDA-aware UCX in this bundle (scripts/gpu/build_cuda_ucx.sh, then prepare_bundle.sh)"
fi

# 3. Applications on device memory, 2 workers (when the build supports it).
for app in transpose_sum merge; do
  [ -x "$bin/$app" ] || { log "$app: not in this bundle: skipped"; continue; }
  # Asked through the binary's JSON option list, never its --help text.
  options=$("$bin/$app" --list-options 2>"$out/${app}_list_options.err") ||
    die "$app --list-options failed: $(head -1 "$out/${app}_list_options.err")"
  has_memory=$(host python3 -c '
import json, sys
try:
    opts = json.load(sys.stdin)["options"]
except (ValueError, KeyError, TypeError) as e:
    print("bad: not an option list (%s)" % e)
    sys.exit()
names = {n for o in opts for n in [o["name"]] + o.get("aliases", [])}
print("yes" if "--memory" in names else "no")' <<<"$options")
  case $has_memory in
    yes | no) ;;
    *) die "$app --list-options: $has_memory" ;;
  esac
  if [ "$has_memory" = yes ]; then
    # An application takes one backend per run.
    for b in ${backends//,/ }; do
      for mem in host cuda cuda-ipc; do
        step "$app --backend $b --memory $mem" || break 2
        # cuda-ipc: device memory, every channel through CUDA IPC (else staged).
        path=(--memory "${mem%-ipc}")
        [ "$mem" = cuda-ipc ] && path+=(--gpu-path cuda-ipc)
        "${app_mpirun[@]}" "$bin/$app" --backend "$b" "${path[@]}" --runs 3 \
          --csv "$out/${app}_${b}_$mem.csv" --timeout 100 > "$out/${app}_${b}_$mem.txt" 2>&1
        echo "   rc=$? $(grep -m1 -E 'validation:|error' "$out/${app}_${b}_$mem.txt")" |
          tee -a "$out/run.log"
      done
    done
  else
    log "$app: no --memory option in this build (GPU variant not wired in yet): skipped"
  fi
done
# The figures that matter, one line each, for the note (all rows are in the tarball).
host python3 - "$out" <<'PY' | tee -a "$out/run.log" >> "$out/summary.txt"
import csv, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    name = os.path.basename(f)[:-4]
    rows = list(csv.DictReader(open(f)))
    if not rows:
        continue
    bench = rows[0]["benchmark"]
    keep = {8, 4096, 32768, 65536, 262144, 4 << 20} if bench == "pingpong" else {1 << 20, 16 << 20, 64 << 20}
    for r in rows:
        try:
            size = int(r["size_bytes"] or 0)
        except ValueError:
            continue
        if bench in ("pingpong", "bandwidth") and size in keep:
            v = r["latency_us_p50"] + " us p50" if bench == "pingpong" else r["bandwidth_MBps"] + " MB/s"
            print("%-44s %-14s %-7s %9d B  %s  wrong=%s" % (
                name, r["backend"] + ":" + r["progress"], r["gpu_path"], size, v, r["wrong"]))
        elif bench not in ("pingpong", "bandwidth"):
            print("%-44s %-14s %-7s wall %s s comm %s s wrong=%s" % (
                name, r["backend"], r["gpu_path"], r["wall_s"], r["comm_s"], r["wrong"]))
PY
log "done in $((SECONDS - start)) s: $dest (run.log, summary.txt, gpu-run.tar.gz)"
