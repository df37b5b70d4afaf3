#!/usr/bin/env bash
# From a fresh clone to playing: installs what is missing, builds, starts a
# local server hosting the arena and a few bots on loopback, then opens the
# viewer. Closing the viewer stops the server and the bots.
#   ./scripts/play.sh                 # 7 bots (chase and wander)
#   TICKWIRE_PLAY_BOTS=31 ./scripts/play.sh
# Extra arguments go to tickwire-viewer (for example --link mobile).
set -euo pipefail
cd "$(dirname "$0")/.."

port=${TICKWIRE_PLAY_PORT:-47800}
bots=${TICKWIRE_PLAY_BOTS:-7}

./scripts/setup.sh
cmake --build build -j"${TICKWIRE_JOBS:-2}" --target tickwire-server tickwire-bots tickwire-viewer
viewer=build/tools/viewer/tickwire-viewer
if [ ! -x "$viewer" ]; then
  echo "play: tickwire-viewer was not built (SDL2 or Dear ImGui missing; see the cmake output)" >&2
  exit 1
fi

out=build/play
mkdir -p "$out"
pids=()
trap 'for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT

build/server/app/tickwire-server --bind 127.0.0.1 --port "$port" >"$out/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 50); do
  grep -qs "listening on" "$out/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$out/server.log"; echo "play: the server did not start" >&2; exit 1; }
  sleep 0.1
done
grep -q "listening on" "$out/server.log" || { echo "play: the server did not start in 5 s" >&2; exit 1; }

# Bots for a day: they leave when the trap stops them.
chasers=$(( (bots + 1) / 2 ))
build/tools/bots/tickwire-bots --connect "127.0.0.1:$port" --bots "$chasers" --script chase --duration 86400 \
  --name chase >"$out/bots-chase.log" 2>&1 &
pids+=("$!")
if [ "$bots" -gt "$chasers" ]; then
  build/tools/bots/tickwire-bots --connect "127.0.0.1:$port" --bots $((bots - chasers)) --script wander \
    --duration 86400 --name wander --seed 2 >"$out/bots-wander.log" 2>&1 &
  pids+=("$!")
fi

echo "play: server on 127.0.0.1:$port with $bots bots; logs in $out"
status=0
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "play: no display; running the viewer under xvfb-run for 10 s and writing $out/screenshot.png" >&2
  xvfb-run -a -s "-screen 0 1280x800x24" "$viewer" --connect "127.0.0.1:$port" --script chase \
    --screenshot "$out/screenshot.png" --after 10 "$@" || status=$?
else
  "$viewer" --connect "127.0.0.1:$port" "$@" || status=$?
fi
exit "$status"
