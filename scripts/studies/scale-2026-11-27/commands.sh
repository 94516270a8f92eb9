#!/usr/bin/env bash
# The scale study of issue 17, as committed here: 8 virtual hosts (scripts/vcluster, a
# private bridge), 8/16/32/64 ranks round robin over them, on this 2-core VM. Each
# scale_test.py call brings its cluster up and takes it down (also on failure).
#   BUILD=build scripts/studies/scale-2026-11-27/commands.sh     (~30 min; needs root)
# then scripts/studies/scale-2026-11-27/summarize.py writes summary.md, model.json and the figure.
set -euo pipefail
cd "$(dirname "$0")/../../.."
B=${BUILD:-build}
out=results/scale-2026-11-27/raw
st=tests/vcluster/scale_test.py
# Open MPI: the probe on tcp, ucx and mpi at every size, both apps at every size.
/usr/bin/python3 $st full --build-dir $B/openmpi --flavor openmpi --out $out/openmpi
# The paper's construction (one communicator per pair, Group_incl + Comm_create, collective
# over all ranks for each of the n(n-1)/2 pairs) beside the default (one dup + 8 lanes):
# across the hosts at 8 and 16 ranks (at 16 it needs minutes, hence the long timeouts),
# and on one host at 2-32 ranks, 3 runs each.
/usr/bin/python3 $st full --build-dir $B/openmpi --flavor openmpi --out $out/openmpi \
    --backends mpi --apps none --backend-opt pair_comms=create --variant create \
    --ranks 8,16 --probe-timeout 900 --job-timeout 1000
mkdir -p $out/onehost-openmpi
for r in 1 2 3; do for n in 2 4 8 16 32; do
  for v in mpi mpi_pair_comms_create; do
    opt=(); [ $v = mpi ] || opt=(--backend-opt pair_comms=create)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 \
      mpirun.openmpi --oversubscribe -np $n $B/openmpi/microbench/scale_probe --backend mpi \
      "${opt[@]}" --csv $out/onehost-openmpi/$v-n$n-r$r.csv > /dev/null
  done
done; done
# MPICH: the probe at every size, the apps at the smallest and largest.
/usr/bin/python3 $st full --build-dir $B/mpich --flavor mpich --out $out/mpich --app-ranks 8,64
# How many communicators one process may hold (bounds the paper's one-per-pair design).
tmp=$(mktemp -d)
for f in openmpi mpich; do
  mpicc.$f -O1 -o "$tmp/comm_limit_$f" scripts/studies/scale-2026-11-27/comm_limit.c
done
{ echo "mpich: $(mpirun.mpich -np 1 "$tmp/comm_limit_mpich")"
  echo "openmpi: $(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                   mpirun.openmpi -np 1 "$tmp/comm_limit_openmpi")"; } > $out/comm_limit.txt
rm -rf "$tmp"
/usr/bin/python3 scripts/studies/scale-2026-11-27/summarize.py
