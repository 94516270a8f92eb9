#!/usr/bin/env bash
# linkemu end to end: two network namespaces, each with a persistent tap, joined only by
# linkemu. Checks that --delay-us shows in ping's round trip, that nothing passes without
# the emulator, and that --loss-pct 100 drops everything. Skips (77) where namespaces or
# taps cannot be made; removes every namespace and process it made, also on failure.
set -u
LINKEMU=${1:?usage: linkemu_netns_test.sh PATH_TO_LINKEMU}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces and taps"
command -v ip >/dev/null || skip "no 'ip' command (iproute2)"
command -v ping >/dev/null || skip "no 'ping' command"
[ -c /dev/net/tun ] || skip "no /dev/net/tun (tun module not loaded)"

A=cbemu-$$-a
B=cbemu-$$-b
WORK=$(mktemp -d /tmp/cbemu-$$.XXXXXX)
EMU_PID=""

stop_emu() {
  [ -n "$EMU_PID" ] || return 0
  kill -TERM "$EMU_PID" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$EMU_PID" 2>/dev/null
  wait "$EMU_PID"
  EMU_RC=$?
  EMU_PID=""
}
cleanup() {
  stop_emu
  # linkemu must be gone first: its tap descriptors keep the namespaces alive.
  ip netns delete "$A" 2>/dev/null
  ip netns delete "$B" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
  echo "FAIL: $*"
  [ -f "$WORK/emu.log" ] && sed 's/^/  linkemu: /' "$WORK/emu.log"
  exit 1
}

make_host() {  # NAME ADDRESS
  ip netns add "$1" || fail "ip netns add $1"
  ip netns exec "$1" ip tuntap add dev eth0 mode tap || fail "tuntap in $1"
  # No IPv6: its router and neighbour solicitations would only add frames to the counts.
  ip netns exec "$1" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 2>/dev/null
  ip netns exec "$1" ip addr add "$2/24" dev eth0 || fail "address in $1"
  ip netns exec "$1" ip link set eth0 up || fail "eth0 up in $1"
  ip netns exec "$1" ip link set lo up
}

start_emu() {  # linkemu options...
  rm -f "$WORK/ready" "$WORK/stats.json"
  "$LINKEMU" --port "/run/netns/$A:eth0" --port "/run/netns/$B:eth0" \
    --ready-file "$WORK/ready" --pidfile "$WORK/pid" --stats "$WORK/stats.json" "$@" \
    2>"$WORK/emu.log" &
  EMU_PID=$!
  for _ in $(seq 100); do
    [ -f "$WORK/ready" ] && return 0
    kill -0 "$EMU_PID" 2>/dev/null || { EMU_PID=""; fail "linkemu $* exited at start"; }
    sleep 0.1
  done
  fail "linkemu $* not ready within 10 s"
}

# "rtt min/avg/max/mdev = 4.1/4.2/4.3/0.1 ms" -> the minimum in ms
min_rtt_ms() { sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/.*|\1|p'; }

make_host "$A" 10.254.250.1
make_host "$B" 10.254.250.2

# 1. Delay: every round trip crosses the emulator twice.
start_emu --delay-us 2000
out=$(ip netns exec "$A" ping -n -c 5 -i 0.2 -W 2 10.254.250.2) || fail "no ping through linkemu --delay-us 2000: $out"
rtt=$(printf '%s\n' "$out" | min_rtt_ms)
echo "delay 2000 us: min RTT $rtt ms"
awk -v r="$rtt" 'BEGIN { exit !(r >= 4.0 && r < 50) }' || fail "min RTT $rtt ms, expected >= 4 ms"
kill -0 "$EMU_PID" 2>/dev/null || fail "linkemu died"
stop_emu
[ "$EMU_RC" = 0 ] || fail "linkemu exited $EMU_RC on SIGTERM, expected 0"
grep -q '"frames_out"' "$WORK/stats.json" || fail "no --stats written on SIGTERM"
[ ! -e "$WORK/ready" ] && [ ! -e "$WORK/pid" ] || fail "ready or pid file left behind"

# 2. Without the emulator the namespaces share no link at all.
if ip netns exec "$A" ping -n -c 2 -i 0.2 -W 1 10.254.250.2 >/dev/null 2>&1; then
  fail "ping passed with linkemu stopped"
fi
echo "emulator stopped: no ping, as expected"

# 3. Total loss.
start_emu --loss-pct 100
if ip netns exec "$A" ping -n -c 3 -i 0.2 -W 1 10.254.250.2 >/dev/null 2>&1; then
  fail "ping passed through --loss-pct 100"
fi
stop_emu
grep -q '"dropped_loss": [1-9]' "$WORK/stats.json" || fail "--loss-pct 100: no drops counted"
echo "loss 100%: no ping, drops counted"
echo "PASS"
