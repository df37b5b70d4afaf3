#!/usr/bin/env bash
# A short soak on loopback: the real server, 32 wandering bots reaching it
# through tickwire-netsim with the broadband profile, for 30 s, held to the
# bots' default thresholds. Checks the bots pass (exit 0), write both
# reports, and that the HTML report plots the server's own stats.
# Usage: bots_soak_e2e.sh SERVER_BIN NETSIM_BIN BOTS_BIN
set -u
server_bin=${1:?server binary}
netsim_bin=${2:?netsim binary}
bots_bin=${3:?bots binary}
work=$(mktemp -d)
server_pid=
relay_pid=
trap 'kill "$server_pid" "$relay_pid" 2>/dev/null; rm -rf "$work"' EXIT

# Ephemeral-range ports derived from the PID, apart from the other scripts'.
port=$((20000 + ($$ * 13) % 19990))
relay_port=$((port + 1))
"$server_bin" --bind 127.0.0.1 --port "$port" --max-clients 64 --stats-interval 1 \
  --stats-json "$work/server.jsonl" >"$work/server.log" 2>&1 &
server_pid=$!
"$netsim_bin" --listen "$relay_port" --listen-host 127.0.0.1 --forward "127.0.0.1:$port" --profile broadband \
  --seed 11 --stats-interval 0 >"$work/relay.log" 2>&1 &
relay_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && grep -q "relaying" "$work/relay.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; echo "server did not start"; exit 1; }
grep -q "relaying" "$work/relay.log" || { cat "$work/relay.log"; echo "relay did not start"; exit 1; }

"$bots_bin" --connect "127.0.0.1:$relay_port" --bots 32 --duration 30 --ramp 3 --script wander --seed 5 \
  --max-late-inputs 0.01 --max-mispredictions-per-min 600 --max-disconnects 0 --min-connected 1 \
  --max-rtt-p99-ms 250 --server-stats "$work/server.jsonl" \
  --report-json "$work/report.json" --report-html "$work/report.html" >"$work/bots.log" 2>&1
status=$?
cat "$work/bots.log"
kill -INT "$relay_pid"; wait "$relay_pid"
cat "$work/relay.log"
if [ "$status" -ne 0 ]; then
  tail -n 20 "$work/server.log"
  echo "bots soak failed (exit $status)"
  exit 1
fi
[ -s "$work/report.json" ] || { echo "no JSON report"; exit 1; }
grep -q '"passed":true' "$work/report.json" || { echo "JSON report does not say passed"; exit 1; }
grep -q '"series":\[{' "$work/report.json" || { echo "JSON report has no time series"; exit 1; }
grep -q '<svg' "$work/report.html" || { echo "HTML report has no plot"; exit 1; }
grep -q 'Server tick time' "$work/report.html" || { echo "HTML report lacks the server's tick time"; exit 1; }
grep -q 'Input margin per bot' "$work/report.html" || { echo "HTML report lacks the input margins"; exit 1; }
grep -Eq '"input_margin_ms_p99":-?[0-9]' "$work/report.json" || { echo "JSON report lacks the input margin p99"; exit 1; }
grep -Eq "^  connected +32/32" "$work/bots.log" || { echo "not every bot connected"; exit 1; }
echo "bots soak e2e ok"
