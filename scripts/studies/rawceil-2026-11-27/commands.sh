#!/bin/bash
# The raw-ceiling measurements of results/rawceil-2026-11-27 (branch rawceil): ping-pong
# of tcp:epoll beside both raw-tcp variants; bandwidth 1-16 MiB of mpi/ucx beside their raw
# baselines, this build and the build before the fix (OLD=<dir with its bandwidth>)
# alternating; the libraries' own tools (NPtcp, NPopenmpi, ucx_perftest) in the same
# session. Then scripts/report on the folder (its raw-vs-tool section).
#   OLD=/tmp/rawceil_old scripts/studies/rawceil-2026-11-27/commands.sh
set -u
cd "$(dirname "$0")/../../.."
OUT=results/rawceil-2026-11-27/csv
mkdir -p $OUT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RUN="mpirun.openmpi --oversubscribe -np 2"
B=build/openmpi/microbench
BW_ARGS="-b 1M -e 16M -f 4 --iters 5 --iters-large 5 --warmup 1 --warmup-large 1 --reps 5"
$RUN $B/pingpong --backend tcp:epoll,raw-tcp,raw-tcp:busy-poll -b 1 -e 4K --csv $OUT/pingpong-tcp-openmpi.csv
$RUN $B/pingpong --backend raw-mpi,raw-ucx,raw-ucx:sleep -b 1 -e 4K --csv $OUT/pingpong-raw-openmpi.csv
for round in 1 2; do
  $RUN $B/bandwidth --backend mpi:cooperative,raw-mpi,ucx:polling,raw-ucx,raw-ucx:sleep $BW_ARGS \
    --csv $OUT/bandwidth-after-$round-openmpi.csv
  # the build before the fix: no raw-ucx:sleep, an untouched comm send buffer
  [ -n "${OLD:-}" ] && $RUN $OLD/bandwidth --backend mpi:cooperative,raw-mpi,ucx:polling,raw-ucx $BW_ARGS \
    --csv $OUT/before-bandwidth-$round-openmpi.csv
done
/usr/bin/python3 scripts/baselines/netpipe.py --csv $OUT/external-NPtcp.csv --tool tcp --upper 4096 --repeats 200
/usr/bin/python3 scripts/baselines/netpipe.py --csv $OUT/external-NPmpi-openmpi.csv --tool mpi --mpi openmpi --upper 4096 --repeats 200
/usr/bin/python3 scripts/baselines/ucx_perftest.py --csv $OUT/external-ucx_perftest.csv --profile quick --wait-modes poll
