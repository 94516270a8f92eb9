#!/bin/bash
cd /work/main
F=${1:-openmpi}
OUT=${OUT:-/tmp/paradox/exp3-$F}
mkdir -p $OUT
scripts/vcluster --name px up --hosts 2 ${DELAY:+--delay $DELAY} > /dev/null
trap 'scripts/vcluster --name px down > /dev/null' EXIT
run() {
  local tag=$1 be=$2; shift 2
  timeout 300 scripts/vcluster --name px mpirun $F -np 3 -- build/$F/appbench/merge --backend $be --runs 3 --warmup 1 --chunk-size 100000 --csv $OUT/merge-$tag-$round.csv "$@" > $OUT/merge-$tag-$round.log 2>&1
  echo "$tag $round exit $?" >> $OUT/exits
  timeout 300 scripts/vcluster --name px mpirun $F -np 3 -- build/$F/appbench/transpose_sum --backend $be --runs 3 --warmup 1 --csv $OUT/ts-$tag-$round.csv "$@" > $OUT/ts-$tag-$round.log 2>&1
}
for round in 1 2 3; do
  run tcp tcp
  run ucx ucx
  run mpi mpi
done
