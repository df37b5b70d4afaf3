#!/usr/bin/env bash
# Lag compensation end to end over real UDP: the real tickwire-server, the
# tickwire-netsim relay with the broadband profile, and shooter bots (half
# `shooter`, aiming at the centre of the nearest player as drawn, half
# `shooter_miss`, aiming just outside it), held to --min-hit-registration
# and --max-false-hits. Also checks that the server's stats carry the
# rewind policy's counters.
# Usage: hit_registration_e2e.sh SERVER_BIN NETSIM_BIN BOTS_BIN [SECONDS] [BOTS]
set -u
server_bin=${1:?server binary}
netsim_bin=${2:?netsim binary}
bots_bin=${3:?bots binary}
seconds=${4:-20}
bots=${5:-16}
work=$(mktemp -d)
trap 'kill "$server_pid" "$relay_pid" 2>/dev/null; rm -rf "$work"' EXIT

port=$((20000 + ($$ * 11) % 20000))
relay_port=$((port + 1))
"$server_bin" --bind 127.0.0.1 --port "$port" --stats-interval 1 --stats-json "$work/stats.jsonl" \
  >"$work/server.log" 2>&1 &
server_pid=$!
"$netsim_bin" --listen "$relay_port" --forward "127.0.0.1:$port" --profile broadband --seed 7 \
  --stats-interval 0 >"$work/relay.log" 2>&1 &
relay_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && grep -q "relaying" "$work/relay.log" && break
  sleep 0.1
done

# Two fleets at once: the shooters score registration, the others false hits.
half=$((bots / 2))
"$bots_bin" --connect "127.0.0.1:$relay_port" --bots "$half" --script shooter --duration "$seconds" --seed 1 \
  --min-hit-registration 0.995 --report-json "$work/on.json" >"$work/on.log" 2>&1 &
on_pid=$!
"$bots_bin" --connect "127.0.0.1:$relay_port" --bots "$((bots - half))" --script shooter_miss --duration "$seconds" \
  --seed 2 --max-false-hits 0.005 --report-json "$work/off.json" >"$work/off.log" 2>&1
off_status=$?
wait "$on_pid"
on_status=$?
cat "$work/on.log" "$work/off.log"
[ "$on_status" -eq 0 ] || { cat "$work/server.log"; echo "registration below its threshold"; exit 1; }
[ "$off_status" -eq 0 ] || { cat "$work/server.log"; echo "false hits above their threshold"; exit 1; }
python3 - "$work/on.json" "$work/off.json" "$work/stats.jsonl" <<'PY' || exit 1
import json, sys
on = json.load(open(sys.argv[1]))["summary"]
off = json.load(open(sys.argv[2]))["summary"]
lines = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
assert on["shots_on_target"] >= 50, on
assert off["shots_off_target"] >= 50, off
assert "view_replaced" in lines[-1] and "view_clamped" in lines[-1], lines[-1]
print("hit registration %.4f over %d shots, false hits %.4f over %d shots; server: %d view times replaced, %d clamped"
      % (on["hit_registration"], on["shots_on_target"], off["false_hits"], off["shots_off_target"],
         lines[-1]["view_replaced"], lines[-1]["view_clamped"]))
PY
