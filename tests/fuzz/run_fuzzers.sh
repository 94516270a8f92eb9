#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz/*_fuzz.cpp), built with clang (the presets use g++,
# which has no libFuzzer) under ASan + UBSan. Two modes:
#
#   run_fuzzers.sh OUT_DIR [SECONDS] [TARGET...]      check (CTest fuzz_decoders: 30 s)
#     replays the committed corpus (tests/fuzz/corpus/<target>/), then fuzzes each target
#     SECONDS (default 30) from a copy of it in OUT_DIR. Writes only under OUT_DIR: the
#     corpus in the source tree is read, never changed.
#   run_fuzzers.sh --grow MINUTES [TARGET...]         grow the committed corpus
#     fuzzes each target MINUTES from its corpus, then minimizes with -merge=1 (only inputs
#     that add coverage stay; the hand-written, named seeds always stay) and replaces
#     tests/fuzz/corpus/<target>/ with the result. Scratch: $FUZZ_OUT (default
#     build/fuzz-grow). After a wire format change: `--grow 2` (about 2 min per target),
#     then review and commit tests/fuzz/corpus.
#
# Every run uses -malloc_limit_mb=1 (any single allocation above 1 MiB is a crash: the
# decoders must never allocate what a peer announces); the targets also check their own
# per-decode allocation bounds (fuzz_alloc.hpp). Exit non-zero on any finding; the
# crashing input is left as OUT_DIR/<target>_crash-*.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
all_targets="frame_header handshake ucx_hello mpi_control appbench_protocol"

grow=0
if [ "${1:-}" = "--grow" ]; then
  grow=1
  minutes=${2:?"--grow needs MINUTES per target"}
  shift 2
  out=${FUZZ_OUT:-$src/build/fuzz-grow}
  secs=$(awk "BEGIN { print int($minutes * 60) }")
  # libFuzzer reads -max_total_time=0 as "no limit".
  [ "$secs" -gt 0 ] || { echo "run_fuzzers.sh: --grow MINUTES must be at least 1/60" >&2; exit 2; }
else
  out=${1:?"usage: run_fuzzers.sh OUT_DIR [SECONDS] [TARGET...] | --grow MINUTES [TARGET...]"}
  secs=${2:-30}
  [ "$secs" -gt 0 ] || { echo "run_fuzzers.sh: SECONDS must be at least 1" >&2; exit 2; }
  shift $(( $# >= 2 ? 2 : 1 ))
fi
targets=${*:-$all_targets}
cxx=${CLANGXX:-$(command -v clang++-14 || command -v clang++)}
mkdir -p "$out"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$src/backends" -I"$src/appbench")
run_flags=(-malloc_limit_mb=1 -rss_limit_mb=2048 -timeout=5)
# A fixed seed in CI, so a finding reproduces with the same command; FUZZ_SEED=0 lets
# libFuzzer pick one (the --grow sessions, which want new paths every time).
seed=${FUZZ_SEED:-$([ "$grow" -eq 1 ] && echo 0 || echo 20261128)}
[ "$seed" = 0 ] || run_flags+=(-seed="$seed")

# The library sources each target decodes with (pure code: no MPI, UCX or event loop).
sources() {
  local b=$src/backends
  case $1 in
    frame_header|handshake) echo "$b/comm/frame_header.cpp $b/comm/handshake.cpp $b/comm/peer_auth.cpp $b/comm/buffer.cpp" ;;
    ucx_hello) echo "$b/ucx/ucx_hello.cpp $b/comm/handshake.cpp $b/comm/peer_auth.cpp" ;;
    mpi_control) echo "$b/mpi/mpi_control_wire.cpp $b/comm/peer_auth.cpp" ;;
    appbench_protocol) echo "$src/appbench/distributed/protocol.cpp" ;;
    *) echo "run_fuzzers.sh: unknown target '$1' (known: $all_targets)" >&2; return 1 ;;
  esac
}

build() {  # build TARGET -> $out/TARGET_fuzz, rebuilt when a source or header changed
  local t=$1 bin=$out/${1}_fuzz lib
  lib=$(sources "$t")
  # shellcheck disable=SC2086
  if [ ! -x "$bin" ] || [ -n "$(find "$here" $lib "$src/backends/comm" "$src/backends/ucx/ucx_hello.hpp" \
        "$src/backends/mpi/mpi_control_wire.hpp" "$src/appbench/distributed/protocol.hpp" \
        -newer "$bin" \( -name '*.cpp' -o -name '*.hpp' \) 2>/dev/null)" ]; then
    echo "== building $t with $cxx"
    # shellcheck disable=SC2086
    "$cxx" "${flags[@]}" "$here/${t}_fuzz.cpp" $lib -o "$bin"
  fi
}

replay() {  # the committed corpus must pass as it is
  local t=$1 log=$out/${1}_replay.log
  echo "== $t: replaying $(ls "$here/corpus/$t" | wc -l) inputs"
  "$out/${t}_fuzz" -runs=0 "${run_flags[@]}" -artifact_prefix="$out/${t}_" "$here/corpus/$t" \
      >"$log" 2>&1 || { cat "$log"; echo "FAIL: $t crashed on its committed corpus"; exit 1; }
  tail -1 "$log"
}

fuzz() {  # fuzz TARGET from a scratch copy of its corpus for $secs
  local t=$1 work=$out/${1}_corpus log=$out/${1}_fuzz.log
  rm -rf "$work"; mkdir -p "$work"; cp "$here/corpus/$t"/* "$work/"
  echo "== $t: fuzzing for $secs s"
  "$out/${t}_fuzz" -max_total_time="$secs" "${run_flags[@]}" -artifact_prefix="$out/${t}_" \
      "$work" >"$log" 2>&1 ||
    { tail -40 "$log"; echo "FAIL: $t found a crashing input (see $out/${t}_crash-*)"; exit 1; }
  grep -E '^Done|DONE' "$log" | tail -1
  echo "== $t: corpus grew from $(ls "$here/corpus/$t" | wc -l) to $(ls "$work" | wc -l) inputs"
}

merge() {  # minimize the grown corpus into tests/fuzz/corpus/TARGET
  local t=$1 merged=$out/${1}_merged
  rm -rf "$merged"; mkdir -p "$merged"
  # Named seeds (hand-written, see README) are kept as they are; libFuzzer names what it
  # adds by the SHA-1 of the content.
  find "$here/corpus/$t" -type f ! -regex '.*/[0-9a-f]\{40\}' -exec cp {} "$merged/" \;
  # No -malloc_limit_mb here: libFuzzer's merge allocates 1 MiB buffers of its own (every
  # input already passed under the limit while fuzzing).
  "$out/${t}_fuzz" -merge=1 -rss_limit_mb=2048 -timeout=5 "$merged" "$out/${t}_corpus" \
      >"$out/${t}_merge.log" 2>&1 || { tail -20 "$out/${t}_merge.log"; exit 1; }
  # A crashing merge step is retried and then given up on with exit status 0.
  grep -q '^MERGE-OUTER: [0-9]* new files' "$out/${t}_merge.log" && ! grep -q 'ERROR: libFuzzer' \
      "$out/${t}_merge.log" || { tail -20 "$out/${t}_merge.log"; echo "FAIL: merge of $t"; exit 1; }
  rm -rf "$here/corpus/$t"; cp -r "$merged" "$here/corpus/$t"
  echo "== $t: merged corpus: $(ls "$here/corpus/$t" | wc -l) inputs," \
       "$(cat "$here/corpus/$t"/* | wc -c) bytes"
}

# The builds in parallel (each is one clang process; on the 2-core CI machine this halves
# the ~2.5 min they take one after another).
pids=()
for t in $targets; do build "$t" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: a fuzz target did not build"; exit 1; }; done
for t in $targets; do
  replay "$t"
  fuzz "$t"
  [ "$grow" = 0 ] || merge "$t"
done
