#!/usr/bin/env bash
# The main job: sets up, builds, starts the dedicated server on loopback,
# runs bot clients against it over real UDP, and prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${TICKWIRE_DEMO_PORT:-47777}
bots=${TICKWIRE_DEMO_BOTS:-4}
seconds=${TICKWIRE_DEMO_SECONDS:-8}

./scripts/setup.sh
cmake --build build -j"${TICKWIRE_JOBS:-2}" --target tickwire-server tickwire-bots

out=build/demo
mkdir -p "$out"
rm -f "$out/server-stats.jsonl"
echo "== starting tickwire-server on 127.0.0.1:$port"
build/server/app/tickwire-server --bind 127.0.0.1 --port "$port" --stats-interval 2 \
  --stats-json "$out/server-stats.jsonl" >"$out/server.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT

for _ in $(seq 50); do
  grep -q "listening on" "$out/server.log" && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    cat "$out/server.log"
    echo "demo: the server did not start" >&2
    exit 1
  fi
  sleep 0.1
done

echo "== running $bots bots for $seconds s"
bots_status=0
build/tools/bots/tickwire-bots --connect "127.0.0.1:$port" --bots "$bots" --duration "$seconds" --ramp 1 || bots_status=$?

echo "== stopping the server (SIGINT)"
kill -INT "$server_pid"
wait "$server_pid" || true
trap - EXIT
echo "== server log"
cat "$out/server.log"
echo "== server stats (JSON lines) in $out/server-stats.jsonl"
if [ "$bots_status" -ne 0 ]; then
  echo "demo: the bots reported a failure (exit $bots_status)" >&2
  exit "$bots_status"
fi
echo "== demo finished"
