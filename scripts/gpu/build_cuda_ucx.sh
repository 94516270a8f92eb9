#!/usr/bin/env bash
# A CUDA-aware UCX, built from Debian's own source package of the UCX installed here (same
# version, same Debian patches: the ucx backend's ABI holds) against the CUDA toolkit at
# /usr/local/cuda, into build/ucx-cuda. Optional: nothing else needs it, CI never runs it.
#
#   scripts/gpu/build_cuda_ucx.sh [PREFIX]      default PREFIX: build/ucx-cuda
#
# Then, on a GPU machine, with the bundle's own libraries:
#   LD_LIBRARY_PATH=PREFIX/lib:... pingpong --backend ucx --memory cuda --gpu-path auto
# (`ucx_info -d` there lists cuda_copy / cuda_ipc; here, without a GPU, only the modules
# can be checked, which this script does at the end).
#
# What it fetches, all from the Debian mirror through apt with a private state folder
# (build/ucx-cuda-src/apt), so /etc/apt and the system's package lists stay as they are:
# the `ucx` source package (deb-src, main) and `libnvidia-ml-dev` (non-free), only
# unpacked for its nvml.h (UCX's CUDA support needs NVML's header and library; the
# library belongs to the GPU driver, so a link stub named libnvidia-ml.so.1 stands in for
# it at build time and the driver's real one is loaded at run time; the stub is never
# installed). Build tools it installs when missing: autoconf automake libtool pkg-config
# dpkg-dev. Configure flags: Debian's own (debian/rules: --enable-mt,
# --disable-backtrace-detail, --disable-logging, --enable-devel-headers, --enable-cma),
# plus CUDA, and verbs, rdmacm, knem, xpmem off (none on these machines). Only the libraries and ucx_info/ucx_perftest
# are built: UCX 1.13's test programs do not compile against CUDA 13's cuCtxCreate.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cuda=/usr/local/cuda
prefix=${1:-$root/build/ucx-cuda}
work=$root/build/ucx-cuda-src
die() { echo "build_cuda_ucx: error: $*" >&2; exit 2; }

if [ ! -x "$cuda/bin/nvcc" ] || [ ! -f "$cuda/include/cuda.h" ]; then
  die "no CUDA toolkit at $cuda"
fi
version=$(dpkg-query -W -f='${Version}' libucx-dev 2>/dev/null) ||
  die "libucx-dev is not installed (scripts/setup installs it): its version is the one built"
upstream=${version%-*}
upstream=${upstream#*:}
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "cannot tell the Debian release from /etc/os-release"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

missing=()
for p in autoconf automake libtool pkg-config dpkg-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build_cuda_ucx: installing ${missing[*]}"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A private apt: its own source list and state, the system's keyring.
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
cat >"$work/apt/commbench.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt=(apt-get -q -o "Dir::Etc::sourcelist=$work/apt/commbench.sources" -o Dir::Etc::sourceparts=-
     -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
     -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Sandbox::User=root)
echo "build_cuda_ucx: fetching ucx $version (source) and libnvidia-ml-dev (nvml.h)"
"${apt[@]}" update >"$work/apt.log" 2>&1 || die "apt-get update failed: see $work/apt.log"
cd "$work"
rm -rf src nvml
"${apt[@]}" source --download-only "ucx=$version" >>"$work/apt.log" 2>&1 ||
  die "apt-get source ucx=$version failed: see $work/apt.log"
"${apt[@]}" download libnvidia-ml-dev >>"$work/apt.log" 2>&1 ||
  die "apt-get download libnvidia-ml-dev failed: see $work/apt.log"
dpkg-source --no-check -x "ucx_${version#*:}.dsc" src >>"$work/apt.log" 2>&1 ||
  die "dpkg-source could not unpack ucx $version: see $work/apt.log"
dpkg -x libnvidia-ml-dev_*.deb nvml
[ -f nvml/usr/include/nvml.h ] || die "libnvidia-ml-dev has no nvml.h"

# The link stub: every function name nvml.h mentions, versioned (nvmlInit_v2, what code
# calls through nvml.h's renames) and not (nvmlInit, what configure's link test asks
# for), as an empty C function in a library whose soname is the driver's, so that
# binaries record the real library's name and find the driver's at run time.
mkdir -p nvml/stub
{ cat nvml/usr/include/nvml.h; gcc -E -P -I nvml/usr/include -x c - <<<'#include <nvml.h>'; } |
  grep -oE '\bnvml[A-Za-z0-9_]+[[:space:]]*\(' | tr -d '( \t' | sort -u |
  sed 's/.*/void &(void) {}/' >nvml/stub/nvml_stub.c
[ -s nvml/stub/nvml_stub.c ] || die "found no function in nvml.h for the link stub"
gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o nvml/stub/libnvidia-ml.so.1 nvml/stub/nvml_stub.c
ln -sf libnvidia-ml.so.1 nvml/stub/libnvidia-ml.so

cd src
echo "build_cuda_ucx: configuring UCX $upstream with CUDA ($cuda) into $prefix"
./autogen.sh >"$work/autogen.log" 2>&1 || die "autogen.sh failed: see $work/autogen.log"
CPPFLAGS="-I$work/nvml/usr/include" LDFLAGS="-L$work/nvml/stub" \
  ./configure --prefix="$prefix" --with-cuda="$cuda" --without-verbs --without-rdmacm \
  --without-knem --without-xpmem --enable-mt --disable-backtrace-detail --disable-logging \
  --enable-devel-headers --enable-cma >"$work/configure.log" 2>&1 ||
  die "configure failed: see $work/configure.log"
grep -q "^#define HAVE_CUDA 1" config.h ||
  die "configure did not enable CUDA: see $work/configure.log"
jobs=$(nproc)
echo "build_cuda_ucx: building (-j$jobs; log $work/make.log)"
: >"$work/make.log"
for d in src/ucm src/ucs src/uct src/ucp src/tools/info src/tools/perf; do
  make -C "$d" -j"$jobs" >>"$work/make.log" 2>&1 || die "make in $d failed: see $work/make.log"
  make -C "$d" install >>"$work/make.log" 2>&1 || die "make install in $d failed: see $work/make.log"
done

# What a GPU run needs is there: the CUDA transport modules, linked against the CUDA
# runtime/driver and NVML by soname (never the stub's path), and a ucx_info of this version.
for m in libuct_cuda.so libucx_perftest_cuda.so libucm_cuda.so; do
  [ -e "$prefix/lib/ucx/$m" ] || die "module $m missing from $prefix/lib/ucx"
done
if readelf -d "$prefix/lib/ucx/libuct_cuda.so" | grep -q "$work"; then
  die "libuct_cuda.so records a path of the build folder"
fi
got=$("$prefix/bin/ucx_info" -v | sed -nE 's/^# Version ([0-9.]+).*/\1/p')
[ "$got" = "$upstream" ] || die "ucx_info reports version '$got', expected $upstream"
modules=$(cd "$prefix/lib/ucx" && printf '%s ' lib*.so)
echo "build_cuda_ucx: UCX $got with CUDA in $prefix (modules: $modules)"
