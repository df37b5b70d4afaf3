#!/usr/bin/env bash
# Bots reach the real server through tickwire-netsim with the broadband
# profile: they connect, stay connected, and see the relay's delay in RTT.
# Usage: relay_e2e.sh SERVER_BIN NETSIM_BIN BOTS_BIN
set -u
server_bin=${1:?server binary}
netsim_bin=${2:?netsim binary}
bots_bin=${3:?bots binary}
work=$(mktemp -d)
trap 'kill "$server_pid" "$relay_pid" 2>/dev/null; rm -rf "$work"' EXIT

port=$((20000 + ($$ * 7) % 20000))
relay_port=$((port + 1))
"$server_bin" --bind 127.0.0.1 --port "$port" --stats-interval 0 >"$work/server.log" 2>&1 &
server_pid=$!
"$netsim_bin" --listen "$relay_port" --forward "127.0.0.1:$port" --profile broadband --seed 7 \
  --stats-interval 0 >"$work/relay.log" 2>&1 &
relay_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && grep -q "relaying" "$work/relay.log" && break
  sleep 0.1
done

"$bots_bin" --connect "127.0.0.1:$relay_port" --bots 4 --duration 3 >"$work/bots.log" 2>&1
status=$?
cat "$work/bots.log"
kill -INT "$relay_pid"; wait "$relay_pid"
cat "$work/relay.log"
[ "$status" -eq 0 ] || { cat "$work/server.log"; echo "bots failed through the relay"; exit 1; }
# "rtt p50 / p99 / max   P50 / P99 / MAX ms": the median round trip.
rtt=$(awk '/rtt p50 \/ p99/ {print int($7)}' "$work/bots.log")
# broadband is 20 ms each way: the round trip must show at least 35 ms.
[ "${rtt:-0}" -ge 35 ] || { echo "RTT ${rtt} ms does not show the relay's delay"; exit 1; }
grep -q "dropped" "$work/relay.log" || { echo "relay printed no summary"; exit 1; }
echo "relay e2e ok: rtt ${rtt} ms"
