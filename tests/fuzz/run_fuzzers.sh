#!/usr/bin/env bash
# run_fuzzers.sh OUT_DIR [SECONDS] [TARGET...] -- builds the libFuzzer targets with clang
# (the presets use g++, which has no libFuzzer), replays the committed seed corpus
# (tests/fuzz/corpus/<target>/), then fuzzes each target for SECONDS (default 20) from a
# copy of that corpus. -malloc_limit_mb makes any single allocation above 1 MiB a crash:
# the decoders must never allocate what a peer announces. Exit non-zero on any finding.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=$1; secs=${2:-20}; shift $(( $# >= 2 ? 2 : 1 ))
targets=${*:-frame_header handshake}
cxx=${CLANGXX:-$(command -v clang++-14 || command -v clang++)}
mkdir -p "$out"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src/backends")
lib=("$src/backends/comm/frame_header.cpp" "$src/backends/comm/handshake.cpp"
     "$src/backends/comm/buffer.cpp")
for t in $targets; do
  bin="$out/${t}_fuzz"
  if [ ! -x "$bin" ] || [ -n "$(find "$here/${t}_fuzz.cpp" "${lib[@]}" -newer "$bin")" ]; then
    echo "== building $t with $cxx"
    "$cxx" "${flags[@]}" "$here/${t}_fuzz.cpp" "${lib[@]}" -o "$bin"
  fi
  echo "== $t: replaying $(ls "$here/corpus/$t" | wc -l) seeds"
  "$bin" -runs=0 -malloc_limit_mb=1 "$here/corpus/$t" >"$out/${t}_replay.log" 2>&1 ||
    { cat "$out/${t}_replay.log"; echo "FAIL: $t crashed on the seed corpus"; exit 1; }
  tail -1 "$out/${t}_replay.log"
  work="$out/${t}_corpus"
  rm -rf "$work"; mkdir -p "$work"; cp "$here/corpus/$t"/* "$work/"
  echo "== $t: fuzzing for $secs s"
  "$bin" -max_total_time="$secs" -malloc_limit_mb=1 -rss_limit_mb=1024 -timeout=5 \
    -artifact_prefix="$out/${t}_" "$work" >"$out/${t}_fuzz.log" 2>&1 ||
    { tail -40 "$out/${t}_fuzz.log"; echo "FAIL: $t found a crashing input (see $out/${t}_*)"; exit 1; }
  grep -E '^Done|DONE' "$out/${t}_fuzz.log" | tail -1
  echo "== $t: corpus grew to $(ls "$work" | wc -l) inputs"
done
