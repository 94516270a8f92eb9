#!/bin/bash
# Copies a finished stability study (run.sh's OUT) into the folder to commit, keeping
# what reproduces every number at about 0.3 MB a run instead of 17: per run its CSVs and
# sidecars as csv.tar.xz (cbresults/stability.py reads them from there), its manifest and
# log compressed, its report.md; the figures, report.html and all.csv are left out (the
# run's csv/ regenerates them: scripts/plot and scripts/report after unpacking).
# Usage: pack.sh SRC DST
set -eu
[ $# -eq 2 ] || { sed -n 2,7p "$0" >&2; exit 2; }
SRC=$1 DST=$2
mkdir -p "$DST"
cp "$SRC/commit" "$SRC/runs.log" "$DST/"
for run in "$SRC"/run-*/; do
  name=$(basename "$run")
  mkdir -p "$DST/$name"
  tar -C "$run" -cf - csv | xz -6 > "$DST/$name/csv.tar.xz"
  for f in manifest.json reproduce.log; do
    [ -f "$run/$f" ] && xz -6 -c "$run/$f" > "$DST/$name/$f.xz"
  done
  [ -f "$run/report.md" ] && cp "$run/report.md" "$DST/$name/"
done
