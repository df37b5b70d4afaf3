#!/usr/bin/env bash
# The main job: sets up and builds, starts the dedicated server on loopback,
# puts the link-conditioning relay in front of it with the broadband
# profile, runs scripted bots through the relay, prints their summary and
# writes an HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${TICKWIRE_DEMO_PORT:-47777}
relay_port=$((port + 1))
bots=${TICKWIRE_DEMO_BOTS:-32}
seconds=${TICKWIRE_DEMO_SECONDS:-60}
script=${TICKWIRE_DEMO_SCRIPT:-wander}

./scripts/setup.sh
cmake --build build -j"${TICKWIRE_JOBS:-2}" --target tickwire-server tickwire-netsim tickwire-bots

out=build/demo
mkdir -p "$out"
rm -f "$out/server-stats.jsonl"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

wait_for() {  # wait_for FILE TEXT PID NAME
  for _ in $(seq 50); do
    grep -q "$2" "$1" && return 0
    if ! kill -0 "$3" 2>/dev/null; then
      cat "$1"
      echo "demo: $4 did not start" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "demo: $4 did not start in 5 s" >&2
  exit 1
}

echo "== tickwire-server on 127.0.0.1:$port (arena, 60 Hz ticks, 30 Hz snapshots)"
build/server/app/tickwire-server --bind 127.0.0.1 --port "$port" --stats-interval 5 \
  --stats-json "$out/server-stats.jsonl" >"$out/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_for "$out/server.log" "listening on" "$server_pid" "the server"

echo "== tickwire-netsim on 127.0.0.1:$relay_port, broadband profile, forwarding to the server"
build/tools/netsim/tickwire-netsim --listen "$relay_port" --forward "127.0.0.1:$port" --profile broadband \
  --seed 1 --stats-interval 0 >"$out/relay.log" 2>&1 &
relay_pid=$!
pids+=("$relay_pid")
wait_for "$out/relay.log" "relaying" "$relay_pid" "the relay"

echo "== $bots bots ($script) for $seconds s through the relay"
bots_status=0
build/tools/bots/tickwire-bots --connect "127.0.0.1:$relay_port" --bots "$bots" --duration "$seconds" --ramp 2 \
  --script "$script" --server-stats "$out/server-stats.jsonl" --report-json "$out/report.json" \
  --report-html "$out/report.html" || bots_status=$?

kill -INT "$relay_pid" && wait "$relay_pid" || true
kill -INT "$server_pid" && wait "$server_pid" || true
trap - EXIT
echo "== relay"
tail -n 3 "$out/relay.log"
echo "== server (last lines)"
tail -n 6 "$out/server.log"
echo "== reports: $out/report.html (open it in a browser), $out/report.json, $out/server-stats.jsonl"
if [ "$bots_status" -ne 0 ]; then
  echo "demo: a threshold failed (bots exit $bots_status)" >&2
  exit "$bots_status"
fi
echo "== demo finished: every threshold held"
