#!/bin/bash
cd /work/main
F=openmpi
OUT=${OUT:-/tmp/paradox/exp4}
mkdir -p $OUT
scripts/vcluster --name px up --hosts 2 > /dev/null
trap 'scripts/vcluster --name px down > /dev/null' EXIT
for round in 1 2; do
  for be in ucx:cooperative ucx:polling ucx:event ucx:cooperative@block; do
    tag=$(echo $be | tr '@:' '__')
    timeout 300 scripts/vcluster --name px mpirun $F -np 3 -- build/$F/appbench/merge --backend $be --runs 3 --warmup 1 --chunk-size 100000 --csv $OUT/merge-$tag-$round.csv --transfer-log $OUT/merge-tl-$tag-$round.csv > $OUT/merge-$tag-$round.log 2>&1
  done
done
