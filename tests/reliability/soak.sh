#!/usr/bin/env bash
# soak.sh [MINUTES] [BUILD_DIR] -- the long soak profile (not in CI): every backend for
# MINUTES (default 10) each, RSS sampled every 10 s; fails if memory grows > 8 MiB.
set -eu
minutes=${1:-10}
build=${2:-build/openmpi}
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  timeout $((minutes * 60 * 4 + 120)) mpirun.openmpi -np 1 --oversubscribe \
  "$build/tests/reliability/soak" --seconds $((minutes * 60)) --sample 10 --max-growth-kib 8192
