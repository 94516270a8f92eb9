#!/usr/bin/env bash
# The GPU bundle's library closure and its check (scripts/gpu/prepare_bundle.sh,
# check_bundle.sh) without a CUDA build or the network: a bundle of this build's pingpong,
# made from the Debian packages installed here (--from-installed, dpkg -L, where the real
# bundle downloads the same packages), must pass check_bundle.sh (every library in the
# bundle or trusted, the programs start, two ranks validate under the bundle's orterun);
# the same bundle without liburing, which the first GPU run's bundle lacked, must fail it
# and name the library.
#
#   tests/gpu/bundle_closure_test.sh BUILD/microbench/pingpong WORKDIR
set -euo pipefail
pingpong=$1
work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"

"$src/scripts/gpu/prepare_bundle.sh" --build-dir "$(dirname "$pingpong")" --targets pingpong \
  --from-installed --cuda-ucx none --out "$work/bundle"
grep -qx liburing2 "$work/bundle/PACKAGES" || { echo "FAIL: liburing2 is not among the bundle's packages"; exit 1; }

cp -a "$work/bundle" "$work/no-uring"
rm -f "$work/no-uring"/root/usr/lib/x86_64-linux-gnu/liburing.so.2*
if out=$("$work/no-uring/check_bundle.sh" "$work/no-uring"); then
  echo "$out"
  echo "FAIL: check_bundle.sh passed a bundle without liburing"
  exit 1
fi
if ! grep -q '^check_bundle: liburing.so.2: not in the bundle' <<<"$out"; then
  echo "$out"
  echo "FAIL: check_bundle.sh failed the bundle without liburing but did not name liburing.so.2"
  exit 1
fi
echo "without liburing: $(grep -m1 liburing <<<"$out")"
rm -rf "$work"
echo "PASS: bundle closure and check"
