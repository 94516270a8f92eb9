#!/bin/bash
# merge across 2 hosts: does more eager (the kernel moving data while a worker computes) close the gap?
cd /work/main
F=openmpi
OUT=/tmp/paradox/exp
mkdir -p $OUT
scripts/vcluster --name px up --hosts 2 > /dev/null
trap 'scripts/vcluster --name px down > /dev/null' EXIT
run() { # tag backend env...
  local tag=$1 be=$2; shift 2
  timeout 300 scripts/vcluster --name px mpirun $F -np 3 -- env "$@" build/$F/appbench/merge --backend $be --runs 3 --warmup 1 --chunk-size 100000 --csv $OUT/merge-$tag-$round.csv --transfer-log $OUT/merge-tl-$tag-$round.csv > $OUT/merge-$tag-$round.log 2>&1
  echo "$tag $round exit $?" >> $OUT/exits
}
for round in 1 2 3; do
  run tcp tcp X=1
  run ucx ucx X=1
  run ucx_eager ucx UCX_RNDV_THRESH=inf
  run mpi mpi X=1
  run mpi_eager mpi OMPI_MCA_btl_tcp_eager_limit=1048576 OMPI_MCA_btl_tcp_rndv_eager_limit=1048576 OMPI_MCA_btl_tcp_max_send_size=1048576
done
