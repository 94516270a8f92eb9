#!/usr/bin/env bash
# Lane copies against blocking copies (--gpu-sync-copy 64K) for small staged messages, in
# alternating rounds under NVIDIA's MPS daemon (issue 30 item 2: which should be the
# default). With build/gpu-bundle carried:
#   bash scripts/studies/gpu-2026-11-29/sync_copy_rounds.sh "$OUT" [ROUNDS]
set -uo pipefail
b=$PWD/build/gpu-bundle
dest=${1:?usage: sync_copy_rounds.sh OUT [ROUNDS]}
rounds=${2:-5}
out=$(mktemp -d /tmp/sync-rounds.XXXXXX)
trap 'tar -C "$out" --exclude=mps-pipe -czf "$dest/sync-rounds.tar.gz" .; cp "$out/log" "$dest/sync-rounds.log"' EXIT
# shellcheck source=/dev/null
source "$b/bundle_lib.sh"
bundle_export_env "$b"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=^ucx OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_base_warn_component_unused=0
export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
mps=/usr/local/nvidia/bin/nvidia-cuda-mps-control
env -u LD_LIBRARY_PATH "$mps" -d || { echo "MPS daemon did not start" > "$out/log"; exit 1; }
sleep 1
cat "$b/GIT_COMMIT" > "$out/log"
for r in $(seq 1 "$rounds"); do
  for mode in lanes sync; do
    x=()
    [ "$mode" = sync ] && x=(--gpu-sync-copy 64K)
    timeout 60 "$b/root/usr/bin/orterun" --oversubscribe -np 2 "$b/bin/pingpong" \
      --backend "ucx,mpi,tcp" --memory cuda --gpu-path staged "${x[@]}" -b 8 -e 4K -f 8 \
      --iters 1000 --warmup 50 --reps 5 --timeout 50 --csv "$out/${mode}_$r.csv" \
      > "$out/${mode}_$r.txt" 2>&1
    echo "$mode $r rc=$? $(awk -F, 'FNR > 1 && $14 == 8 {printf "%s %s ", $3, $18}' "$out/${mode}_$r.csv")" |
      tee -a "$out/log"
  done
done
echo quit | env -u LD_LIBRARY_PATH "$mps"
