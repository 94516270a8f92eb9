#!/usr/bin/env bash
# CPU seconds of a clean Open MPI preset build at two commits, one after the other on the
# same machine, ccache off (the CI-budget measurement of 2026-11-27: headers that stopped
# including CLI11 and nlohmann/json, cef60d0 against its parent).
#   build_cost.sh [BEFORE_REV [AFTER_REV]]    default: cef60d0~1 cef60d0
# Each commit is checked out into a scratch worktree and built there; both are removed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
before=${1:-cef60d0~1}
after=${2:-cef60d0}
scratch=$(mktemp -d)
trap 'git worktree remove --force "$scratch/before" 2>/dev/null || true;
      git worktree remove --force "$scratch/after" 2>/dev/null || true; rm -rf "$scratch"' EXIT
for which in before after; do
  rev=${!which}
  git worktree add -q --detach "$scratch/$which" "$rev"
  CCACHE_DISABLE=1 cmake -S "$scratch/$which" -B "$scratch/build-$which" --preset openmpi \
    -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_C_COMPILER_LAUNCHER= >/dev/null
  /usr/bin/time -f "$which ($rev): %e s wall, %U s user + %S s sys" \
    cmake --build "$scratch/build-$which" -j "$(nproc)" >/dev/null
done
