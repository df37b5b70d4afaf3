#!/usr/bin/env bash
# End to end over real UDP on loopback: the real tickwire-server, real bots,
# then SIGTERM. Checks that every bot connects and stays connected, and that
# the server shuts down cleanly within 2 s, exiting 0.
# Usage: server_bots_e2e.sh SERVER_BIN BOTS_BIN
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

# An ephemeral-range port derived from the PID keeps parallel runs apart.
port=$((20000 + $$ % 20000))
"$server_bin" --bind 127.0.0.1 --port "$port" --stats-interval 1 --stats-json "$work/stats.jsonl" \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; echo "server did not start"; exit 1; }

"$bots_bin" --connect "127.0.0.1:$port" --bots 6 --duration 3 --ramp 0.5 >"$work/bots.log" 2>&1
bots_status=$?
cat "$work/bots.log"
[ "$bots_status" -eq 0 ] || { cat "$work/server.log"; echo "bots failed ($bots_status)"; exit 1; }
grep -Eq "^  connected +6/6" "$work/bots.log" || { echo "not every bot connected"; exit 1; }
grep -Eq "^  still connected +6$" "$work/bots.log" || { echo "not every bot stayed connected"; exit 1; }

# A second server on the same port must fail with a clear message.
"$server_bin" --bind 127.0.0.1 --port "$port" >"$work/second.log" 2>&1
second_status=$?
[ "$second_status" -ne 0 ] || { echo "second server on a used port did not fail"; exit 1; }
grep -q "cannot listen on 127.0.0.1:$port" "$work/second.log" || { cat "$work/second.log"; echo "no clear message for a port in use"; exit 1; }

start=$(date +%s%N)
kill -TERM "$server_pid"
wait "$server_pid"
status=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$work/server.log"
[ "$status" -eq 0 ] || { echo "server exited with $status after SIGTERM"; exit 1; }
[ "$elapsed_ms" -le 2000 ] || { echo "shutdown took ${elapsed_ms} ms"; exit 1; }
grep -q '"clients":6' "$work/stats.jsonl" || { echo "stats JSON never showed 6 clients"; exit 1; }
echo "e2e ok: 6 bots, shutdown in ${elapsed_ms} ms"
