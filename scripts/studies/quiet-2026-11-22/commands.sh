#!/usr/bin/env bash
# The issue-target measurements of session 2, taken on an otherwise idle 2-core VM
# (load average < 1 before each). Each command interleaves the coroutine backend with its
# raw baseline (--reps alternate), so each ratio comes from one invocation.
# Rerun: scripts/studies/quiet-2026-11-22/commands.sh (writes results/quiet-2026-11-22/; from the repository root, after scripts/test
# or cmake --build --preset openmpi)
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=results/quiet-2026-11-22  # the data; this script lives in scripts/studies/
bin=build/openmpi
mpirun="mpirun.openmpi --oversubscribe"
step=${1:-all}
run() { [ "$step" = all ] || [ "$step" = "$1" ] || return 0; shift; echo "+ $*"; timeout 900 "$@"; }
run tcp-lat $mpirun -np 2 $bin/microbench/pingpong --backend tcp,raw-tcp -b 1 -e 4K --reps 5 --csv $out/pingpong-tcp.csv
run tcp-bw $mpirun -np 2 $bin/microbench/bandwidth --backend tcp,raw-tcp -b 4M -e 64M -f 4 --iters 10 --iters-large 10 --reps 5 --csv $out/bandwidth-tcp.csv
run mpi-lat $mpirun -np 2 $bin/microbench/pingpong --backend mpi:cooperative,mpi:batched,raw-mpi -b 1 -e 4K --reps 5 --csv $out/pingpong-mpi.csv
run mpi-bw $mpirun -np 2 $bin/microbench/bandwidth --backend mpi:cooperative,mpi:batched,raw-mpi -b 1M -e 64M -f 4 --iters 20 --iters-large 10 --reps 5 --csv $out/bandwidth-mpi.csv
# The same with OSU's single shared receive buffer in the raw baseline (for comparison).
run mpi-bw-shared $mpirun -np 2 $bin/microbench/bandwidth --backend mpi:cooperative,mpi:batched,raw-mpi --recv-buffers shared -b 1M -e 64M -f 4 --iters 20 --iters-large 10 --reps 5 --csv $out/bandwidth-mpi-shared.csv
run ucx-lat $mpirun -np 2 $bin/microbench/pingpong --backend ucx:polling,ucx:cooperative,ucx:event,raw-ucx -b 1 -e 4K --reps 5 --csv $out/pingpong-ucx.csv
# Session 5: the same two more times, to show the spread between invocations.
for r in 2 3; do
  run ucx-lat-repeat $mpirun -np 2 $bin/microbench/pingpong --backend ucx:polling,ucx:cooperative,ucx:event,raw-ucx -b 1 -e 4K --reps 5 --csv $out/repeat-pingpong-ucx-$r.csv
done
# Session 5: where the 2 KiB gap sits (one invocation per size; taken on commit 60302d0,
# before the cooperative waiter's extra tries).
for sz in 1024 1536 1792 2048 2304 2560 3072 3584 4096; do
  run ucx-sweep $mpirun -np 2 $bin/microbench/pingpong --backend ucx:cooperative,raw-ucx -b $sz -e $sz --reps 5 --csv $out/sweep-ucx-2k/pingpong-ucx-$sz.csv
done
run ucx-bw $mpirun -np 2 $bin/microbench/bandwidth --backend ucx:polling,ucx:cooperative,raw-ucx -b 1M -e 64M -f 4 --iters 20 --iters-large 10 --reps 5 --csv $out/bandwidth-ucx.csv
# MPI inline budget (backends/mpi/mpi_wire.hpp, kDefaultEagerBudget): the same sizes with
# frames packed behind the header up to 16 KiB and up to just under the library's eager
# limit (Open MPI vader 4 KiB; MPICH ch4 16 KiB), each ratio within its invocation.
for e in 16384 4000; do
  run mpi-eager $mpirun -np 2 $bin/microbench/pingpong --backend mpi:cooperative,raw-mpi --backend-opt eager=$e -b 4K -e 16K --reps 5 --csv $out/eager-pingpong-openmpi-$e.csv
  run mpi-eager $mpirun -np 2 $bin/microbench/bandwidth --backend mpi:cooperative,raw-mpi --backend-opt eager=$e -b 4K -e 16K --reps 5 --csv $out/eager-bandwidth-openmpi-$e.csv
done
for e in 16384 3968; do
  run mpi-eager-mpich mpirun.mpich -np 2 build/mpich/microbench/pingpong --backend mpi:cooperative,raw-mpi --backend-opt eager=$e -b 4K -e 16K --reps 5 --csv $out/eager-pingpong-mpich-$e.csv
done
# The same latency sweep on the MPICH build (issue 3 asks for both MPIs).
run mpi-lat-mpich mpirun.mpich -np 2 build/mpich/microbench/pingpong --backend mpi:cooperative,mpi:batched,raw-mpi -b 1 -e 4K --reps 5 --csv $out/pingpong-mpi-mpich.csv
# Start-up cost of the MPI isolation constructions and of the lanes (microbench/
# mpi_pair_setup; the slowest rank's time, median of 5), 2–16 ranks on the 2 cores.
run mpi-setup sh -c "for n in 2 4 8 16; do $mpirun -np \$n $bin/microbench/mpi_pair_setup --reps 5; done > $out/mpi-pair-setup.txt"
# MPI: raw-mpi at S and at S + 20 (the frame header) — where Open MPI's size classes
# (vader fast box: 32 bytes with its own header; inline send: 256 bytes) fall, i.e. what a
# header costs a small message. One invocation per size, coroutine and raw interleaved.
for sz in 1 21 8 28 256 276; do
  run mpi-shift $mpirun -np 2 $bin/microbench/pingpong --backend mpi:cooperative,raw-mpi -b $sz -e $sz --reps 5 --csv $out/shift-pingpong-mpi-$sz.csv
done
# UCX: does moving the payload by the 20-byte header change the ratio? One invocation per
# size S (S and S + 20), coroutine and raw interleaved in each.
for sz in 128 148 512 532 2048 2068; do
  run ucx-shift $mpirun -np 2 $bin/microbench/pingpong --backend ucx:cooperative,raw-ucx -b $sz -e $sz --reps 5 --csv $out/shift-pingpong-ucx-$sz.csv
done
# UCX without CMA (UCX_TLS=^cma, how kill_worker_merge_ucx_nocma runs) next to the default:
# two invocations back to back, each with its raw baseline; the CMA cost is raw-ucx's
# bandwidth across the two (UCX_TLS is per process, so it cannot share one invocation).
run ucx-cma env UCX_TLS=^cma $mpirun -x UCX_TLS -np 2 $bin/microbench/bandwidth --backend ucx:polling,raw-ucx -b 1M -e 16M -f 4 --iters 10 --iters-large 10 --reps 3 --csv $out/cma-bandwidth-ucx-nocma.csv
run ucx-cma $mpirun -np 2 $bin/microbench/bandwidth --backend ucx:polling,raw-ucx -b 1M -e 16M -f 4 --iters 10 --iters-large 10 --reps 3 --csv $out/cma-bandwidth-ucx-default.csv
# Application benchmarks (issue 5): 2 workers, compact layout, defaults (transpose-sum
# 8192^2 in 2048^2 chunks; merge 1,000,000 rows per worker), every backend and policy.
apps="tcp mpi:cooperative mpi:batched ucx:polling ucx:cooperative ucx:event"
for b in $apps; do
  tag=${b/:/-}
  run app-transpose $mpirun -np 3 $bin/appbench/transpose_sum --backend $b --runs 5 --csv $out/transpose-$tag.csv
  run app-merge $mpirun -np 3 $bin/appbench/merge --backend $b --runs 5 --csv $out/merge-$tag.csv
done
# The two fastest transpose-sum configurations again with 15 runs (5 runs left the
# median at the mercy of two slow runs).
for b in mpi:batched ucx:polling; do
  run app-transpose15 $mpirun -np 3 $bin/appbench/transpose_sum --backend $b --runs 15 --csv $out/transpose15-${b/:/-}.csv
done
# The warm-up ramp of a fresh process (why the apps default to --warmup 5).
run app-warmup $mpirun -np 3 $bin/appbench/transpose_sum --backend ucx:polling --warmup 0 --runs 10 --csv $out/warmup-transpose-ucx-polling.csv
# The backend ratios of the applications (issue 5) from interleaved invocations: one run
# carries one backend, so the fastest policy of each family is run in turn, three rounds
# of three timed runs each, and each family's median is over all nine (same hour, same
# machine state, round-robin; the closest to "one invocation" an app run allows).
for r in 1 2 3; do
  for b in tcp mpi:batched ucx:polling; do
    run app-interleaved $mpirun -np 3 $bin/appbench/transpose_sum --backend $b --runs 3 --csv $out/il-transpose-${b/:/-}-$r.csv
    run app-interleaved $mpirun -np 3 $bin/appbench/merge --backend $b --runs 3 --csv $out/il-merge-${b/:/-}-$r.csv
  done
done
