#!/usr/bin/env bash
# Run ON THE LENT GPU MACHINE, from the repository root, with build/gpu-bundle carried
# (made by scripts/gpu/prepare_bundle.sh). Writes everything under $1 (default $OUT, else
# results/gpu/<date>): nvidia-smi, the GPU tests, ping-pong and bandwidth for tcp, ucx and
# mpi in host memory and device memory on every path this machine offers, and the
# applications on device memory with 2 workers when they support --memory cuda.
#
#   bash build/gpu-bundle/run_gpu_bench.sh "$OUT"
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-results/gpu/$(date -u +%Y%m%dT%H%M%SZ)}}
mkdir -p "$out"
bin=$here/bin
rt=$here/root
die() {
  echo "run_gpu_bench: error: $*" | tee -a "$out/run.log" >&2
  exit 1
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
mpirun=(timeout 600 "$rt/usr/bin/orterun" --oversubscribe -np 2)
# Applications: scheduler, client and 2 workers (all sharing the one GPU).
app_mpirun=(timeout 600 "$rt/usr/bin/orterun" --oversubscribe -np 4)

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
"$bin/gpu_device_tests" 2>&1 | tee "$out/gpu_device_tests.txt" | tail -5
"$bin/gpu_host_tests" > "$out/gpu_host_tests.txt" 2>&1 && echo "gpu_host_tests passed" | tee -a "$out/run.log"

# Which paths exist here: staged always; pass-through only for a library that reports
# CUDA support (Debian's do not, so the bench refuses it with one line, logged below).
backends=tcp,ucx,mpi
common=(--backend "$backends" --timeout 500 --read-timeout 60)
run_pair() {  # name, benchmark, extra args...
  local name=$1 bench=$2
  shift 2
  log "$name: $bench $*"
  "${mpirun[@]}" "$bin/$bench" "${common[@]}" --csv "$out/$name.csv" "$@" 2>&1 \
    | tee "$out/$name.txt" | tail -25
}

# 1. Correctness first, all byte patterns checked, every memory combination.
for mem in "--memory host" "--memory cuda" "--send-memory cuda --recv-memory host" \
           "--send-memory host --recv-memory cuda"; do
  tag=$(echo "$mem" | tr -d ' -' )
  run_pair "validate_pingpong_$tag" pingpong $mem --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
  run_pair "validate_bandwidth_$tag" bandwidth $mem --validate -b 1K -e 8M -f 8 --iters 4 --iters-large 2 --window 16
done

# 2. Timings: host memory and device memory (staged, the default here) interleaved per
#    backend list; chunk size of the staged pipeline swept at one large size.
run_pair pingpong_host pingpong --memory host -b 1 -e 4M
run_pair pingpong_cuda_staged pingpong --memory cuda --gpu-path staged -b 1 -e 4M
run_pair bandwidth_host bandwidth --memory host -b 1M -e 128M
run_pair bandwidth_cuda_staged bandwidth --memory cuda --gpu-path staged -b 1M -e 128M
for chunk in 256K 1M 4M 16M; do
  run_pair "bandwidth_cuda_staged_chunk$chunk" bandwidth --memory cuda --gpu-path staged \
    --gpu-chunk "$chunk" -b 64M -e 64M
done
log "pass-through (expected: refused unless a CUDA-aware MPI/UCX is present)"
run_pair pingpong_cuda_passthrough pingpong --memory cuda --gpu-path pass-through -b 1 -e 4M

# 2b. With the CUDA-aware UCX the bundle may carry (scripts/gpu/build_cuda_ucx.sh): what
#     UCX sees on this machine, then pass-through beside staged over the same library,
#     validated first; once with UCX's defaults and once as Dask-CUDA runs UCX.
if [ -d "$here/ucx-cuda" ]; then
  (
    bundle_use_cuda_ucx "$here" || die "ucx-cuda/ in the bundle has no bin/ucx_info"
    log "CUDA-aware UCX: $(ucx_info -v | tr '\n' ' ')"
    ucx_info -d > "$out/ucx_cuda_devices.txt" 2>&1
    grep -E "Transport: " "$out/ucx_cuda_devices.txt" | sort -u | tr -s ' ' | tee -a "$out/run.log"
    echo "UCX_TLS=${UCX_TLS:-<unset: all>}" | tee -a "$out/run.log"
    mpirun=("${mpirun[@]}" -x LD_LIBRARY_PATH -x UCX_MODULE_DIR)
    common=(--backend ucx,ucx:polling --timeout 500 --read-timeout 60)
    for path in pass-through staged; do
      run_pair "validate_pingpong_cuda_ucxcuda_$path" pingpong --memory cuda --gpu-path "$path" \
        --validate -b 1 -e 8M -f 8 --iters 50 --iters-large 10
      run_pair "pingpong_cuda_ucxcuda_$path" pingpong --memory cuda --gpu-path "$path" -b 1 -e 4M
      run_pair "bandwidth_cuda_ucxcuda_$path" bandwidth --memory cuda --gpu-path "$path" -b 1M -e 128M
    done
    export UCX_RNDV_THRESH=8192 UCX_RNDV_FRAG_MEM_TYPE=cuda UCX_MEMTYPE_CACHE=n
    mpirun=("${mpirun[@]}" -x UCX_RNDV_THRESH -x UCX_RNDV_FRAG_MEM_TYPE -x UCX_MEMTYPE_CACHE)
    log "as Dask-CUDA runs UCX: UCX_RNDV_THRESH=8192 UCX_RNDV_FRAG_MEM_TYPE=cuda UCX_MEMTYPE_CACHE=n"
    run_pair pingpong_cuda_ucxcuda_passthrough_daskcuda pingpong --memory cuda \
      --gpu-path pass-through -b 1 -e 4M
    run_pair bandwidth_cuda_ucxcuda_passthrough_daskcuda bandwidth --memory cuda \
      --gpu-path pass-through -b 1M -e 128M
  )
else
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
    for mem in host cuda; do
      log "$app --memory $mem"
      "${app_mpirun[@]}" "$bin/$app" --backend "$backends" --memory "$mem" \
        --csv "$out/${app}_$mem.csv" --timeout 500 2>&1 | tee "$out/${app}_$mem.txt" | tail -15
    done
  else
    log "$app: no --memory option in this build (GPU variant not wired in yet): skipped"
  fi
done
log "done: $out"
