#!/usr/bin/env bash
# Proves that a GPU bundle (scripts/gpu/prepare_bundle.sh) runs on nothing but itself and
# the libraries a GPU machine is trusted to have (bundle_lib.sh: glibc, libstdc++,
# libgcc_s, the NVIDIA driver). Run here after building a bundle, where Debian's own Open
# MPI, UCX and liburing would otherwise hide a library the bundle lacks, and on the GPU
# machine before anything else (run_gpu_bench.sh does).
#
#   scripts/gpu/check_bundle.sh [BUNDLE]       # default build/gpu-bundle
#
# 1. Closure: with the bundle's LD_LIBRARY_PATH, ldd of every ELF file in it (binaries,
#    the Open MPI and UCX libraries, their plugins, the launcher) must resolve each library
#    inside the bundle or to one of the trusted ones. A library found elsewhere (here:
#    /usr/lib/x86_64-linux-gnu) would be missing on the GPU machine.
# 2. Start: every binary starts (--version; a GoogleTest binary --gtest_list_tests; the
#    launcher --version).
# 3. Run: when pingpong is bundled, two ranks under the bundle's launcher validate 1 KiB
#    over tcp, ucx and mpi (the plugins load from the bundle, as they will there).
# 4. With a CUDA-aware UCX in ucx-cuda/ (prepare_bundle.sh carries build/ucx-cuda): its
#    closure with it first on the path (the CUDA runtime inside, the driver's libcuda and
#    NVML trusted), its ucx_info starts, and pingpong validates over ucx with it.
# Exit 0 with "check_bundle: OK ..." last, or 1 with a line per problem and a summary.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bundle_lib.sh
source "$here/bundle_lib.sh"
if ! bundle=$(cd "${1:-build/gpu-bundle}" 2>/dev/null && pwd); then
  echo "check_bundle: error: no bundle at ${1:-build/gpu-bundle} (scripts/gpu/prepare_bundle.sh)" >&2
  exit 1
fi
bundle_export_env "$bundle"

problems=0
problem() {
  echo "check_bundle: $*"
  problems=$((problems + 1))
}

# 1. Closure, one line per library (with the files that need it).
mapfile -t elfs < <(bundle_elf_files "$bundle/bin" "$bundle/root")
if [ ${#elfs[@]} -eq 0 ] || [ ! -d "$bundle/bin" ]; then
  problem "no binaries in $bundle/bin"
fi
# closure MISSING_DRIVER_OK FILE...: one line per library the files need from outside the
# bundle, with the files that need it, under the current LD_LIBRARY_PATH. The trusted
# libraries pass when found; with MISSING_DRIVER_OK=1 also when not found here (the CUDA
# transports link the driver's libcuda and NVML, which this machine may lack).
closure() {
  local driver_ok=$1 file soname path more
  shift
  local -A outside=() users=()
  while IFS=$'\t' read -r file soname path; do
    case $path in "$bundle"/*) continue ;; esac
    if [[ $soname =~ $bundle_host_libs ]] && { [ "$path" != "not found" ] || [ "$driver_ok" = 1 ]; }; then
      continue
    fi
    outside[$soname]=$path
    users[$soname]+=" ${file#"$bundle"/}"
  done < <(bundle_ldd "$@")
  for soname in $(printf '%s\n' "${!outside[@]}" | sort); do
    read -ra who <<<"${users[$soname]}"
    more=""
    [ ${#who[@]} -gt 3 ] && more=" and $((${#who[@]} - 3)) more"
    if [ "${outside[$soname]}" = "not found" ]; then
      echo "$soname: not found (needed by ${who[*]:0:3}$more)"
    else
      echo "$soname: not in the bundle, resolved to ${outside[$soname]} (needed by ${who[*]:0:3}$more)"
    fi
  done
}
while IFS= read -r line; do problem "$line"; done < <(closure 0 "${elfs[@]}")
echo "check_bundle: closure of ${#elfs[@]} ELF files checked"

# 2. Start.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
starts() {  # what, command...
  local what=$1 out
  shift
  if ! out=$(timeout 60 "$@" 2>&1 </dev/null); then
    problem "$what cannot start: $(echo "$out" | grep -v '^$' | head -1)"
    return 1
  fi
}
started=0
for b in "$bundle"/bin/*; do
  [ -x "$b" ] || continue
  case ${b##*/} in
    *_tests) starts "bin/${b##*/}" "$b" --gtest_list_tests && started=$((started + 1)) ;;
    *) starts "bin/${b##*/}" "$b" --version && started=$((started + 1)) ;;
  esac
done
orterun=$bundle/root/usr/bin/orterun
if [ -x "$orterun" ]; then
  starts "root/usr/bin/orterun" "$orterun" --version && started=$((started + 1))
else
  problem "no launcher at root/usr/bin/orterun"
fi
echo "check_bundle: $started programs started"

# 3. Run (only when the rest holds: a missing library would fail it anyway).
if [ "$problems" -eq 0 ] && [ -x "$bundle/bin/pingpong" ]; then
  export OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx OMPI_MCA_btl_base_warn_component_unused=0
  if ! out=$(timeout 120 "$orterun" --oversubscribe -np 2 "$bundle/bin/pingpong" \
               --backend tcp,ucx,mpi -b 1K -e 1K --iters 5 --reps 1 --validate --timeout 60 2>&1); then
    problem "pingpong over tcp,ucx,mpi under the bundle's orterun failed: $(echo "$out" | grep -iE 'error|fail' | head -1)"
  elif ! grep -q "validation: PASSED" <<<"$out"; then
    problem "pingpong under the bundle's orterun did not validate: $(echo "$out" | tail -1)"
  else
    echo "check_bundle: pingpong validated over tcp, ucx and mpi under the bundle's orterun"
  fi
fi

# 4. The CUDA-aware UCX, in a subshell: its environment must not leak into the checks above.
if [ -d "$bundle/ucx-cuda" ]; then
  cuda_out=$(
    bundle_use_cuda_ucx "$bundle" || { echo "check_bundle: ucx-cuda/ has no bin/ucx_info"; exit; }
    mapfile -t cu_elfs < <(bundle_elf_files "$bundle/ucx-cuda")
    closure 1 "${cu_elfs[@]}" | sed 's/^/check_bundle: /'
    if ! v=$(timeout 60 ucx_info -v 2>&1); then
      echo "check_bundle: ucx-cuda/bin/ucx_info cannot start: $(head -1 <<<"$v")"
    fi
    if [ -x "$bundle/bin/pingpong" ] && [ -x "$orterun" ]; then
      # the benchmark must load this UCX, not Debian's in root/
      ucp=$(bundle_ldd "$bundle/bin/pingpong" | awk -F'\t' '$2 == "libucp.so.0" {print $3}')
      case $ucp in
        "$bundle/ucx-cuda/lib/"*) ;;
        *) echo "check_bundle: with ucx-cuda/ first, pingpong still loads libucp.so.0 from ${ucp:-nowhere}" ;;
      esac
      if ! out=$(timeout 120 "$orterun" --oversubscribe -np 2 -x LD_LIBRARY_PATH -x UCX_MODULE_DIR \
                   "$bundle/bin/pingpong" --backend ucx -b 1K -e 1K --iters 5 --reps 1 --validate \
                   --timeout 60 2>&1) || ! grep -q "validation: PASSED" <<<"$out"; then
        echo "check_bundle: pingpong over ucx with the CUDA-aware UCX did not validate: $(tail -1 <<<"$out")"
      fi
    fi
  )
  if [ -n "$cuda_out" ]; then
    while IFS= read -r line; do problem "${line#check_bundle: }"; done <<<"$cuda_out"
  else
    echo "check_bundle: the CUDA-aware UCX in ucx-cuda/ is closed, starts, and validates over ucx"
  fi
fi

if [ "$problems" -gt 0 ]; then
  echo "check_bundle: FAILED: $problems problems in $bundle"
  exit 1
fi
echo "check_bundle: OK: $bundle runs on itself and glibc, libstdc++, libgcc_s, the NVIDIA driver"
