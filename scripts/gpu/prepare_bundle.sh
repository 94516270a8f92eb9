#!/usr/bin/env bash
# Run HERE (a machine with apt and nvcc): builds commbench with CUDA and packs what the
# lent GPU machine lacks into build/gpu-bundle/ (ignored by git, carried by the device
# tool): the stripped benchmark and test binaries, and the Debian runtime of Open MPI and
# UCX unpacked with `dpkg -x` (no install, no root needed there).
#
#   scripts/gpu/prepare_bundle.sh            # -> build/gpu-bundle (about 40-60 MiB)
#
# The device tool carries at most 64 MiB in all, so the build is Release without debug
# info and stripped, and package docs are dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bundle=$root/build/gpu-bundle
builddir=$root/build/gpu-bundle-build

# Runtime packages: Open MPI (library, launcher, help files), UCX, and their libraries
# that a CUDA base image usually lacks (from `apt-cache depends --recurse libopenmpi3
# openmpi-bin libucx0`, minus what every Debian/Ubuntu base has: libc, libgcc, ssl...).
# run_gpu_bench.sh lists any library still missing there (ldd) before it starts.
packages=(
  libopenmpi3 openmpi-bin openmpi-common libucx0
  libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1
  libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libnuma1 libpsm2-2
  libpsm-infinipath1 libmunge2 libxnvctrl0 libx11-6 libxext6 libxcb1 libxau6 libxdmcp6
  libbsd0 libmd0 libpciaccess0 libudev1 libstdc++6 libgcc-s1
)

echo "== build (Release, CUDA on) in $builddir"
cmake --preset openmpi -B "$builddir" -DCOMMBENCH_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
targets=(pingpong bandwidth gpu_device_tests gpu_host_tests)
for t in transpose_sum merge; do
  if cmake --build "$builddir" --target help | grep -q "^$t:"; then targets+=("$t"); fi
done
cmake --build "$builddir" --target "${targets[@]}"

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/debs" "$bundle/root"
for t in "${targets[@]}"; do
  f=$(find "$builddir" -type f -name "$t" -perm -u+x | head -1)
  [ -n "$f" ] && install -m 755 -s "$f" "$bundle/bin/$t"
done

echo "== apt-get download ${#packages[@]} packages"
(cd "$bundle/debs" && apt-get download "${packages[@]}" >/dev/null)
for deb in "$bundle"/debs/*.deb; do dpkg -x "$deb" "$bundle/root"; done
rm -rf "$bundle/debs" "$bundle/root/usr/share/doc" "$bundle/root/usr/share/man" \
       "$bundle/root/usr/share/lintian" "$bundle/root/usr/lib/x86_64-linux-gnu/openmpi/include"
find "$bundle/root" -name '*.a' -delete
cp "$root/scripts/gpu/run_gpu_bench.sh" "$bundle/"
git -C "$root" rev-parse --short HEAD > "$bundle/GIT_COMMIT" 2>/dev/null || true
du -sh "$bundle"
size=$(du -sm "$bundle" | cut -f1)
if [ "$size" -gt 60 ]; then
  echo "warning: bundle is ${size} MiB; the device tool carries at most 64 MiB" >&2
fi
