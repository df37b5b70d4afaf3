#!/usr/bin/env bash
# The viewer part with no drawing of the game's own, under a virtual
# display: a real server with 2 bots, a viewer that knows only the game's
# NetGame (generic_viewer_main.cpp). Its stats must show it connected and
# placed every entity by the schema's position fields, and its screenshot
# must hold the generic colours: the own avatar highlighted, the players in
# the first type colour, the platforms in theirs.
# Usage: viewer_generic_e2e.sh SERVER_BIN BOTS_BIN GENERIC_VIEWER_BIN
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
viewer_bin=${3:?viewer binary}
if ! command -v xvfb-run >/dev/null || ! command -v Xvfb >/dev/null; then
  echo "SKIP: xvfb-run or Xvfb not installed"
  exit 77
fi
work=$(mktemp -d)
server_pid=
bots_pid=
trap 'kill "$server_pid" "$bots_pid" 2>/dev/null; rm -rf "$work"' EXIT

port=${TICKWIRE_TEST_PORT:-$((20000 + ($$ + 11) % 20000))}
"$server_bin" --bind 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$work/server.log" && break; sleep 0.1; done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; echo "server did not start"; exit 1; }
"$bots_bin" --connect "127.0.0.1:$port" --bots 2 --script wander --duration 30 >"$work/bots.log" 2>&1 &
bots_pid=$!

xvfb-run -a -s "-screen 0 1280x800x24" "$viewer_bin" --connect "127.0.0.1:$port" --screenshot "$work/shot.png" \
  --after 3 --stats-json "$work/stats.json" >"$work/viewer.log" 2>&1
status=$?
cat "$work/viewer.log"
[ "$status" -eq 0 ] || { echo "generic viewer exited with $status"; exit 1; }
grep -q "hosting generic" <("$viewer_bin" --help 2>&1) || { echo "--help does not name the game"; exit 1; }

python3 - "$work/shot.png" "$work/stats.json" "$(dirname "$0")" <<'PY' || { cat "$work/stats.json"; exit 1; }
import json, sys
sys.dont_write_bytecode = True  # nothing cached in the source tree
sys.path.insert(0, sys.argv[3])
from viewer_png import colour_counts

colours = colour_counts(sys.argv[1])
assert len(colours) >= 16, "only %d distinct colours: a blank picture" % len(colours)
# scene.h: the own avatar's highlight, then type colours by type id (the
# players are type 0, the platforms type 2).
assert colours.get(bytes((80, 220, 120)), 0) > 0, "the own avatar is not drawn"
assert colours.get(bytes((80, 140, 255)), 0) > 0, "no other player is drawn"
assert colours.get(bytes((220, 150, 70)), 0) > 0, "no platform is drawn"
s = json.load(open(sys.argv[2]))
assert s["connected"] and s["state"] == "connected" and s["screenshot"], s
assert s["game"] == "generic", s
assert s["players_drawn"] == 3, "expected the viewer and 2 bots, saw %d" % s["players_drawn"]
# The players, the three platforms and whatever else is about.
assert s["entities_drawn"] >= 6, s
assert s["graph"]["samples"] >= 10 and s["client"]["snapshots"] > 30, s
print("generic viewer: %d colours, %d players, %d entities drawn" % (len(colours), s["players_drawn"],
                                                                     s["entities_drawn"]))
PY
[ $? -eq 0 ] || { echo "generic viewer: figures or picture wrong"; exit 1; }
echo "e2e ok: the generic viewer drew a game from its schema alone"
