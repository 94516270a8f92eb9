#!/bin/bash
# merge and transpose_sum across 2 virtual hosts (issue 28 item 4): 2 workers (3 ranks,
# 2 on host 0), every variant in turn in each round; CSVs, sidecars and merge's transfer
# log land in OUT, each job's exit status in OUT/exits.
#
# Usage: apps.sh FLAVOR OUT ROUNDS APPS VARIANT...
#   FLAVOR   openmpi | mpich (the build in build/FLAVOR)
#   APPS     merge | ts | merge,ts  (ts = transpose_sum)
#   VARIANT  "TAG=BACKEND [WORD...]": a word NAME=VALUE with an upper-case NAME goes into
#            the ranks' environment, any other word is passed to the app
#   DELAY    (environment) a link delay such as 50us: through the link emulator
# The invocations behind results/app-paradox-2026-11-29 are in its README.
set -u
[ $# -ge 5 ] || { sed -n 2,12p "$0" >&2; exit 2; }
F=$1 OUT=$2 ROUNDS=$3 APPS=$4
shift 4
cd "$(dirname "$0")/../../.."
mkdir -p "$OUT"
scripts/vcluster --name px up --hosts 2 ${DELAY:+--delay $DELAY} > /dev/null || exit 1
trap 'scripts/vcluster --name px down > /dev/null' EXIT

job() {  # app tag backend env-words arg-words...
  local app=$1 tag=$2 be=$3 exe=$1 extra=()
  shift 3
  local env=() args=()
  for w in "$@"; do
    if [[ $w =~ ^[A-Z_][A-Z0-9_]*= ]]; then env+=("$w"); else args+=("$w"); fi
  done
  if [ "$app" = merge ]; then
    extra=(--chunk-size 100000 --transfer-log "$OUT/merge-tl-$tag-$round.csv")
  else
    exe=transpose_sum
  fi
  timeout 300 scripts/vcluster --name px mpirun "$F" -np 3 -- env "${env[@]}" \
    "build/$F/appbench/$exe" --backend "$be" --runs 3 --warmup 1 "${extra[@]}" \
    --csv "$OUT/$app-$tag-$round.csv" "${args[@]}" > "$OUT/$app-$tag-$round.log" 2>&1
  echo "$app $tag $round exit $?" >> "$OUT/exits"
}

for round in $(seq 1 "$ROUNDS"); do
  for variant in "$@"; do
    read -r -a words <<< "$variant"
    tag=${words[0]%%=*} be=${words[0]#*=}
    for app in ${APPS//,/ }; do job "$app" "$tag" "$be" "${words[@]:1}"; done
  done
done
