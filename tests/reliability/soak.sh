#!/usr/bin/env bash
# soak.sh [MINUTES] [BUILD_DIR] [OUT_DIR] [BACKENDS...] -- the long soak profile (not in
# CI): each backend (default: tcp ucx mpi, their default policies) in its own process for
# MINUTES (default 10), RSS sampled every 5 s. Each fails when the least-squares slope of
# RSS over the last 80% of its run exceeds 64 KiB per 1,000 connect/close cycles, or RSS
# grows more than 8 MiB. With OUT_DIR: OUT_DIR/soak-BACKEND.csv (every sample) and .log,
# and OUT_DIR/rss_vs_cycles.png (tests/reliability/plot_soak.py).
set -u
minutes=${1:-10}
build=${2:-build/openmpi}
out=${3:-}
shift $(($# < 3 ? $# : 3))
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(tcp ucx mpi)
[ -z "$out" ] || mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
status=0
for b in "${backends[@]}"; do
  args=(--backend "$b" --seconds $((minutes * 60)) --sample 5 --max-growth-kib 8192
        --max-slope-kib-per-kcycle 64)
  [ -z "$out" ] || args+=(--csv "$out/soak-$b.csv")
  # Each backend in a process of its own: what one leaves in the heap is not the next's.
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout $((minutes * 60 + 120)) mpirun.openmpi -np 1 --oversubscribe \
    "$build/tests/reliability/soak" "${args[@]}" 2>&1 | tee ${out:+"$out/soak-$b.log"}
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { echo "soak.sh: $b failed (exit $rc)"; status=1; }
done
if [ -n "$out" ]; then
  /usr/bin/python3 "$here/plot_soak.py" "$out" "${backends[@]}" || status=1
fi
exit $status
