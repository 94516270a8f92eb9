#!/usr/bin/env bash
# run_memcheck.sh BUILD_DIR [BACKEND...] -- valgrind memcheck on the integration run of
# each backend: a 2-rank validated ping-pong (every byte checked) under mpirun, both
# ranks under memcheck. Fails on any memcheck error that the suppression files (library
# internals only, a reason per entry) do not cover. Default backends: every one the
# pingpong binary knows (tcp, and mpi/ucx when built in).
set -u
build=$1; shift
backends=${*:-tcp ucx mpi}
here=$(cd "$(dirname "$0")" && pwd)
flavor=$(grep -E '^COMMBENCH_MPI_FLAVOR' "$build/CMakeCache.txt" | cut -d= -f2)
if [ "$flavor" = mpich ]; then launcher=(mpirun.mpich -np 2); else
  launcher=(mpirun.openmpi -np 2 --oversubscribe); export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Keep Open MPI's plugins loaded at MPI_Finalize, so what they allocated is named by
  # their file (mca_*.so) in the reports and the suppressions can say whose it is.
  export OMPI_MCA_mca_base_component_disable_dlclose=1
fi
supp=()
shopt -s nullglob
for f in "$here"/*.supp; do supp+=(--suppressions="$f"); done
# Open MPI ships its own list for its internals (Debian: openmpi-common).
[ "$flavor" = openmpi ] && [ -f /usr/share/openmpi/openmpi-valgrind.supp ] &&
  supp+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
logdir=$(mktemp -d)
status=0
for be in $backends; do
  log="$logdir/$be.%p.log"  # one per rank (its pid)
  start=$(date +%s)
  timeout 600 "${launcher[@]}" valgrind --tool=memcheck --error-exitcode=9 --track-origins=no \
    --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --num-callers=30 --gen-suppressions=all "${supp[@]}" --log-file="$log" \
    "$build/microbench/pingpong" --backend "$be" --validate -b 1 -e 256K --iters 40 \
    --iters-large 10 --warmup 4 --warmup-large 2 --reps 2 --connect-timeout 60 --read-timeout 120 \
    >"$logdir/$be.out" 2>&1
  rc=$?
  errs=$(cat "$logdir/$be".*.log | grep -E 'ERROR SUMMARY' | awk '{s+=$4} END {print s+0}')
  echo "memcheck $be: exit $rc, $errs errors in $(( $(date +%s) - start )) s (logs: $logdir)"
  if grep -q "unknown backend" "$logdir/$be.out"; then
    echo "  (backend $be not built in: skipped)"
  elif [ "$rc" -ne 0 ] || [ "$errs" -ne 0 ]; then
    status=1
    tail -5 "$logdir/$be.out"
  fi
done
exit $status
