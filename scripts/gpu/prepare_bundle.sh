#!/usr/bin/env bash
# Run HERE (a machine with apt and nvcc): builds commbench with CUDA and packs what the
# lent GPU machine lacks into build/gpu-bundle/ (ignored by git, carried by the device
# tool): the stripped benchmark and test binaries, and the Debian runtime of Open MPI and
# UCX with every library they and the binaries need, unpacked with `dpkg -x` (no install,
# no root needed there). It ends by running check_bundle.sh on the result.
#
#   scripts/gpu/prepare_bundle.sh            # -> build/gpu-bundle (about 40-60 MiB)
#
# For tests (no CUDA build, no network): --build-dir DIR takes the binaries from an
# existing build, --targets "a b" names them, --from-installed copies the packages' files
# from this machine (dpkg -L) instead of downloading them, --out DIR writes the bundle
# there.
#
# A CUDA-aware UCX (scripts/gpu/build_cuda_ucx.sh -> build/ucx-cuda) is carried too when it
# exists, in ucx-cuda/ with the CUDA runtime its transports link: run_gpu_bench.sh runs the
# pass-through path with it. --cuda-ucx DIR takes another one, --cuda-ucx none none.
#
# The device tool carries at most 64 MiB in all, so the build is Release without debug
# info and stripped, and package docs are dropped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=bundle_lib.sh
source "$here/bundle_lib.sh"

bundle=$root/build/gpu-bundle
builddir=
targets=()
from_installed=0
cuda_ucx=$root/build/ucx-cuda
cuda_ucx_given=0
while [ $# -gt 0 ]; do
  case $1 in
    --cuda-ucx) cuda_ucx=$2; cuda_ucx_given=1; shift 2 ;;
    --build-dir) builddir=$(cd "$2" && pwd); shift 2 ;;
    --targets) read -ra targets <<<"$2"; shift 2 ;;
    --from-installed) from_installed=1; shift ;;
    --out) bundle=$(realpath -m "$2"); shift 2 ;;
    *) echo "prepare_bundle: error: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done

if [ -z "$builddir" ]; then
  builddir=$root/build/gpu-bundle-build
  echo "== build (Release, CUDA on) in $builddir"
  cmake --preset openmpi -B "$builddir" -DCOMMBENCH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
  if [ ${#targets[@]} -eq 0 ]; then
    targets=(pingpong bandwidth gpu_device_tests gpu_host_tests cuda_sync_probe)
    for t in transpose_sum merge; do
      if cmake --build "$builddir" --target help | grep -q "^$t:"; then targets+=("$t"); fi
    done
  fi
  cmake --build "$builddir" --target "${targets[@]}"
elif [ ${#targets[@]} -eq 0 ]; then
  # An existing build: the usual binaries, and the applications where it built them.
  targets=(pingpong bandwidth gpu_device_tests gpu_host_tests)
  for t in transpose_sum merge cuda_sync_probe; do
    if [ -n "$(find "$builddir" -type f -name "$t" -perm -u+x | head -1)" ]; then targets+=("$t"); fi
  done
fi

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/root"
for t in "${targets[@]}"; do
  f=$(find "$builddir" -type f -name "$t" -perm -u+x | head -1)
  if [ -z "$f" ]; then
    echo "prepare_bundle: error: no built $t under $builddir" >&2
    exit 1
  fi
  install -m 755 -s "$f" "$bundle/bin/$t"
done

# Unpacks Debian packages into the bundle's root: downloaded .debs (dpkg -x), or with
# --from-installed the files this machine's installed copies list (dpkg -L).
fetch() {
  if [ "$from_installed" = 1 ]; then
    local p f
    for p in "$@"; do
      if ! dpkg -L "$p" >/dev/null 2>&1; then
        echo "prepare_bundle: error: --from-installed: $p is not installed here" >&2
        return 1
      fi
      dpkg -L "$p" | while IFS= read -r f; do
        if [ -f "$f" ] || [ -L "$f" ]; then
          mkdir -p "$bundle/root$(dirname "$f")"
          cp -P --preserve=mode "$f" "$bundle/root$f"
        fi
      done
    done
  else
    local debs
    debs=$(mktemp -d)
    if ! (cd "$debs" && apt-get download "$@" >"$debs/apt.log" 2>&1); then
      cat "$debs/apt.log" >&2
      echo "prepare_bundle: error: apt-get download failed (network to the Debian mirror?)" >&2
      return 1
    fi
    for deb in "$debs"/*.deb; do dpkg -x "$deb" "$bundle/root"; done
    rm -rf "$debs"
  fi
}

# What ldd cannot see: the launcher (openmpi-bin), Open MPI's help files and settings
# (openmpi-common), and the plugins both libraries dlopen (libopenmpi3, libucx0). The rest
# is what these and the binaries link, found with ldd until nothing new turns up: the
# packages of one round bring libraries and plugins whose needs the next round adds.
packages=(libopenmpi3 openmpi-bin openmpi-common libucx0)
declare -A fetched=()
for round in 1 2 3 4 5 6 7 8; do
  mapfile -t elfs < <(bundle_elf_files "$bundle/bin" "$bundle/root")
  if ! bundle_needed_packages "${elfs[@]}" > "$bundle/needed"; then
    echo "prepare_bundle: error: cannot tell which packages the bundle needs (above)" >&2
    exit 1
  fi
  mapfile -t needed < "$bundle/needed"
  rm "$bundle/needed"
  new=()
  for p in "${packages[@]}" "${needed[@]}"; do
    [ -n "${fetched[$p]+x}" ] || new+=("$p")
  done
  [ ${#new[@]} -gt 0 ] || break
  mapfile -t new < <(printf '%s\n' "${new[@]}" | sort -u)
  echo "== round $round: ${#new[@]} packages: ${new[*]}"
  fetch "${new[@]}"
  for p in "${new[@]}"; do fetched[$p]=1; done
  if [ "$round" = 8 ]; then
    echo "prepare_bundle: error: the library closure did not settle in 8 rounds" >&2
    exit 1
  fi
done
printf '%s\n' "${!fetched[@]}" | sort > "$bundle/PACKAGES"

# Names that maintainer scripts make and dpkg -x does not: update-alternatives links
# (libpsm_infinipath.so.1, which libfabric needs, is one). A library the bundle holds but
# only finds outside it gets a link in the bundle's library directory.
(
  bundle_export_env "$bundle"
  mapfile -t elfs < <(bundle_elf_files "$bundle/bin" "$bundle/root")
  bundle_ldd "${elfs[@]}" | while IFS=$'\t' read -r _ soname path; do
    case $path in "$bundle"/* | "not found") continue ;; esac
    [[ $soname =~ $bundle_host_libs ]] && continue
    real=$(readlink -f "$path")
    link=$bundle/root/usr/lib/x86_64-linux-gnu/$soname
    if [ -f "$bundle/root$real" ] && [ ! -e "$link" ]; then
      ln -s "$(realpath --relative-to="$(dirname "$link")" "$bundle/root$real")" "$link"
      echo "== linked $soname -> $real (made by update-alternatives on Debian)"
    fi
  done
)

# The CUDA-aware UCX: its libraries, transport modules and ucx_info, stripped, and the CUDA
# runtime its cuda transports link (the driver's libcuda and libnvidia-ml are the GPU
# machine's own). Nothing of it is on the bundle's default library path: run_gpu_bench.sh
# puts it first only for the pass-through runs (bundle_use_cuda_ucx).
if [ "$cuda_ucx" != none ] && [ -x "$cuda_ucx/bin/ucx_info" ]; then
  cu=$bundle/ucx-cuda
  mkdir -p "$cu/lib/ucx" "$cu/bin"
  cp -P "$cuda_ucx"/lib/libuc[mpst].so* "$cu/lib/"
  # the transports and memory hooks, not ucx_perftest's modules (the benchmarks measure)
  find "$cuda_ucx/lib/ucx" -maxdepth 1 -name 'lib*.so*' ! -name 'libucx_perftest*' \
    -exec cp -P {} "$cu/lib/ucx/" \;
  cp "$cuda_ucx/bin/ucx_info" "$cu/bin/"
  cudart=$(find /usr/local/cuda/lib64/ -maxdepth 1 -name 'libcudart.so.[0-9]*' | sort | head -1)
  [ -n "$cudart" ] || { echo "prepare_bundle: error: no libcudart.so in /usr/local/cuda/lib64 for the CUDA-aware UCX" >&2; exit 1; }
  cp -P /usr/local/cuda/lib64/libcudart.so.[0-9]* "$cu/lib/"
  find "$cu" -type f -name '*.so*' -exec strip --strip-unneeded {} +
  strip "$cu/bin/"*
  echo "== carried the CUDA-aware UCX of $cuda_ucx ($("$cuda_ucx/bin/ucx_info" -v | sed -nE 's/^# Version ([0-9.]+).*/\1/p')) in ucx-cuda/"
elif [ "$cuda_ucx_given" = 1 ] && [ "$cuda_ucx" != none ]; then
  echo "prepare_bundle: error: --cuda-ucx $cuda_ucx has no bin/ucx_info (scripts/gpu/build_cuda_ucx.sh)" >&2
  exit 1
fi

rm -rf "$bundle/root/usr/share/doc" "$bundle/root/usr/share/man" \
       "$bundle/root/usr/share/lintian" "$bundle/root/usr/lib/x86_64-linux-gnu/openmpi/include"
find "$bundle/root" -name '*.a' -delete
cp "$here/run_gpu_bench.sh" "$here/check_bundle.sh" "$here/bundle_lib.sh" "$bundle/"
git -C "$root" rev-parse --short HEAD > "$bundle/GIT_COMMIT" 2>/dev/null || true

"$bundle/check_bundle.sh" "$bundle"
du -sh "$bundle"
size=$(du -sm "$bundle" | cut -f1)
if [ "$size" -gt 60 ]; then
  echo "warning: bundle is ${size} MiB; the device tool carries at most 64 MiB" >&2
fi
