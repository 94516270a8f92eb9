#!/bin/bash
# across 2 virtual hosts (bridge), merge and transpose_sum, 2 workers (3 ranks), each backend/idle rule, alternating
cd /work/main
F=${1:-openmpi}
OUT=/tmp/paradox/$F
mkdir -p $OUT
scripts/vcluster --name par up --hosts 2 > /dev/null
trap 'scripts/vcluster --name par down > /dev/null' EXIT
for round in 1 2 3; do
  for be in tcp ucx ucx@spin mpi mpi@spin; do
    tag=$(echo $be | tr '@:' '__')
    timeout 300 scripts/vcluster --name par mpirun $F -np 3 -- build/$F/appbench/merge --backend $be --runs 3 --warmup 1 --chunk-size 100000 --csv $OUT/merge-$tag-$round.csv --transfer-log $OUT/merge-tl-$tag-$round.csv > $OUT/merge-$tag-$round.log 2>&1
    echo "merge $be $round exit $?" >> $OUT/exits
    timeout 300 scripts/vcluster --name par mpirun $F -np 3 -- build/$F/appbench/transpose_sum --backend $be --runs 3 --warmup 1 --csv $OUT/ts-$tag-$round.csv > $OUT/ts-$tag-$round.log 2>&1
    echo "ts $be $round exit $?" >> $OUT/exits
  done
done
