#!/usr/bin/env bash
# End to end over real UDP on loopback: the real tickwire-server with honest
# bots and every kind of evil bot mixed in. Checks that the honest bots'
# thresholds hold, that every evil bot ends rejected or disconnected with
# the reason its script expects, and that the server survives and exits 0
# on SIGINT.
# As root, session attackers join in: from four honest bots' addresses
# (raw sockets) they spoof DISCONNECTs, keep-alives numbered far ahead and
# far-future inputs, and replay and rewrite the bots' captured datagrams;
# every honest bot must still play unharmed. Without root they are left out
# and the run says so.
# Usage: evil_bots_e2e.sh SERVER_BIN BOTS_BIN
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

# An ephemeral-range port derived from the PID keeps parallel runs apart
# (20000..39999, clear of anything reserved above it).
port=$((20000 + ($$ + 7) % 20000))
"$server_bin" --bind 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; echo "server did not start"; exit 1; }

session_attackers=(spoof-disconnect spoof-keepalive forge-input replay)
evil=garbage:2,flood:2,future:2,nan:2,stall:2,mute:2
if [ "$(id -u)" -eq 0 ]; then
  for script in "${session_attackers[@]}"; do evil="$evil,$script:1"; done
else
  echo "note: not root, so no raw sockets: the session attackers (${session_attackers[*]}) are left out"
  session_attackers=()
fi
"$bots_bin" --connect "127.0.0.1:$port" --bots 8 --script wander --ramp 1 --duration 20 \
  --evil "$evil" >"$work/bots.log" 2>&1
bots_status=$?
cat "$work/bots.log"
fail() {
  echo "--- server log (tail)"
  tail -n 60 "$work/server.log"
  echo "$1"
  exit 1
}
[ "$bots_status" -eq 0 ] || fail "bots failed ($bots_status)"
grep -Eq "^  connected +8/8" "$work/bots.log" || fail "not every honest bot connected"
grep -Eq "^  still connected +8$" "$work/bots.log" || fail "not every honest bot stayed connected"
grep -Eq "^  disconnects +0 " "$work/bots.log" || fail "an honest bot was disconnected"
for expected in "garbage:protocol error" "flood:flooding" "future:protocol error" "nan:protocol error" \
  "stall:handshake timed out" "mute:timed out"; do
  script=${expected%%:*}
  reason=${expected#*:}
  grep -Eq "^  $script +2 bots \[$reason\]: $reason 2, still connected 0$" "$work/bots.log" ||
    fail "evil $script bots did not all end with '$reason'"
done

for script in "${session_attackers[@]}"; do
  grep -Eq "^  $script +1 bots \[no harm seen\]: no harm seen 1, still connected 0$" "$work/bots.log" ||
    fail "the session attacker $script did harm, or did not finish its attack"
done

# The server is still serving: one more honest bot gets in and plays.
"$bots_bin" --connect "127.0.0.1:$port" --bots 1 --duration 2 >"$work/after.log" 2>&1 ||
  { cat "$work/after.log"; fail "an honest bot could not play after the attack"; }

kill -INT "$server_pid"
wait "$server_pid"
status=$?
[ "$status" -eq 0 ] || fail "server exited with $status after SIGINT"
grep -q "flooding" "$work/server.log" || fail "the server did not say it disconnected a flood"
grep -q "inputs refused" "$work/server.log" || fail "the server did not say it disconnected a future-tick claimer"
echo "e2e ok: 8 honest bots unaffected, 12 evil bots all turned away, ${#session_attackers[@]} session attacks harmless, server exited 0"
