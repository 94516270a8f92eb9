#!/usr/bin/env bash
# kill_rank.sh SECONDS_LIMIT RANK REGEX CSV LAUNCHER... -- starts a long run under
# mpirun, SIGKILLs rank RANK once it is under way (it has used 0.5 s of CPU), and asserts
# what the user sees: a non-zero exit within SECONDS_LIMIT, a line on stderr matching
# REGEX (extended, case-insensitive) that names the loss, and no CSV that looks complete
# (only CSV.partial may remain). Both streams count: MPICH's hydra prints its report of a
# killed rank on stdout. KILL_RANK_FORBID (environment, optional): a regex no line may
# match (a survivor's crash). KILL_RANK_CUT_SHORT (environment, optional): a regex of the
# launcher's own report of the killed rank; when REGEX is missing but this matched, the
# launcher ended the survivor before it could speak (Open MPI aborts the job on a rank's
# death, and under load that can come first), and the run is tried again, at most 3 times
# in all: a survivor that never notices the loss still fails every try.
set -u
all_args=("$@")
attempt=${KILL_RANK_ATTEMPT:-1}
limit=$1; rank=$2; regex=$3; csv=$4; shift 4
rm -f "$csv" "$csv.partial" "$csv.json"
err=$(mktemp)
start=$(date +%s.%N)
"$@" >"$err" 2>&1 &
launcher=$!

# The launcher's children are the ranks; rank 1 is found by the rank its launcher exported.
victim=""
for _ in $(seq 1 600); do
  for pid in $(pgrep -P "$launcher" 2>/dev/null; for c in $(pgrep -P "$launcher" 2>/dev/null); do pgrep -P "$c"; done); do
    if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -Eq "^(OMPI_COMM_WORLD_RANK|PMI_RANK)=${rank}$"; then
      victim=$pid
    fi
  done
  [ -n "$victim" ] && [ "$(awk '{print $14+$15}' "/proc/$victim/stat" 2>/dev/null || echo 0)" -gt 50 ] && break
  sleep 0.05
done
if [ -z "$victim" ]; then
  echo "FAIL: could not find rank $rank under launcher $launcher"; kill -9 "$launcher"; cat "$err"; exit 1
fi
kill -9 "$victim"
expired=$(mktemp -u)
( sleep "$limit" && touch "$expired" && kill -9 "$launcher" 2>/dev/null ) >/dev/null 2>&1 & watchdog=$!
wait "$launcher"; rc=$?
pkill -P "$watchdog" 2>/dev/null; kill "$watchdog" 2>/dev/null
took=$(echo "$(date +%s.%N) - $start" | bc)
status=0
if [ "$rc" -eq 0 ]; then echo "FAIL: exit status 0 after rank $rank was killed"; status=1; fi
# (Open MPI's mpirun itself exits 137 = 128 + SIGKILL, the dead rank's status.)
if [ -e "$expired" ]; then echo "FAIL: still running ${limit} s after the kill"; status=1; rm -f "$expired"; fi
if ! grep -Eiq -- "$regex" "$err"; then
  if [ -n "${KILL_RANK_CUT_SHORT:-}" ] && [ "$attempt" -lt 3 ] && [ "$status" -eq 0 ] &&
    grep -Eiq -- "$KILL_RANK_CUT_SHORT" "$err"; then
    echo "note: try $attempt: the launcher ended the survivor before it reported the loss; trying again"
    rm -f "$err" "$csv.partial"
    KILL_RANK_ATTEMPT=$((attempt + 1)) exec "$0" "${all_args[@]}"
  fi
  echo "FAIL: no line matching /$regex/ about the lost rank"; grep -v '^ *[0-9#]' "$err"; status=1
fi
# KILL_RANK_FORBID (environment, extended regex): a line no survivor may print, e.g. a
# library's own abort; the launcher may report the killed rank before a survivor's crash.
if [ -n "${KILL_RANK_FORBID:-}" ] && grep -Eiq -- "$KILL_RANK_FORBID" "$err"; then
  echo "FAIL: a survivor crashed: $(grep -Ei -m1 -- "$KILL_RANK_FORBID" "$err")"; status=1
fi
# A sanitizer report from a survivor is a defect on the loss path, on every backend, mpi
# included (the MPI library's own aborts stay allowed there; a use-after-free of ours not).
sanitizer='ERROR: (Address|Leak|Thread|Memory|UndefinedBehavior)Sanitizer|runtime error: '
if grep -Eq -- "$sanitizer" "$err"; then
  echo "FAIL: a sanitizer reported: $(grep -E -m1 -- "$sanitizer" "$err")"; status=1
fi
if [ -e "$csv" ]; then echo "FAIL: $csv exists after a failed run (looks complete)"; status=1; fi
echo "exit $rc after ${took} s; what the user saw:"
grep -Ei 'error|signal|killed' "$err" | head -5
rm -f "$err" "$csv.partial"
exit $status
