#!/usr/bin/env bash
# The viewer end to end, under a virtual display: a real server with 4
# bots on loopback, the viewer playing a bot script for a few seconds and
# writing a screenshot and its stats. Checks that it connected and saw the
# players, that the PNG is a real picture (many distinct colours, the
# players' colours among them), and that the net graph's figures are the
# client's: its newest levels equal the client's stats read at the same
# moment and its per-interval changes add up to the client's counters.
# Bad flags get a clear message and exit 2; a SIGINT ends a viewer with 0;
# when the server goes away under a running viewer it says so and exits 3.
# Usage: viewer_e2e.sh SERVER_BIN BOTS_BIN VIEWER_BIN
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
viewer_bin=${3:?viewer binary}
if ! command -v xvfb-run >/dev/null || ! command -v Xvfb >/dev/null; then
  echo "SKIP: xvfb-run or Xvfb not installed"
  exit 77
fi
# Bad flags: a clear message and exit 2, before any window opens.
bad_flags() {  # bad_flags EXPECTED_TEXT ARGS...
  local want=$1
  shift
  local out
  out=$("$viewer_bin" "$@" 2>&1)
  local status=$?
  [ "$status" -eq 2 ] || { echo "viewer $* exited with $status (want 2): $out"; exit 1; }
  grep -q -- "$want" <<<"$out" || { echo "viewer $*: no '$want' in: $out"; exit 1; }
}
bad_flags "not in {idle" --script nope
bad_flags "requires --screenshot" --after 3
bad_flags "missing port" --connect nohost
bad_flags "not in range" --frame-rate 0
bad_flags "not expected" --bogus
bad_flags "--codebook /nonexistent" --codebook /nonexistent.twcodebook
bad_flags "excludes" --codebook /nonexistent.twcodebook --adaptive-models

work=$(mktemp -d)
server_pid=
bots_pid=
trap 'kill "$server_pid" "$bots_pid" 2>/dev/null; rm -rf "$work"' EXIT
xvfb() { xvfb-run -a -s "-screen 0 1280x800x24" "$@"; }

port=${TICKWIRE_TEST_PORT:-$((20000 + ($$ + 7) % 20000))}
start_server() {
  "$server_bin" --bind 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 50); do
    grep -q "listening on" "$work/server.log" && return 0
    sleep 0.1
  done
  cat "$work/server.log"
  echo "server did not start"
  exit 1
}
start_server
"$bots_bin" --connect "127.0.0.1:$port" --bots 4 --script chase --duration 30 >"$work/bots.log" 2>&1 &
bots_pid=$!

xvfb "$viewer_bin" --connect "127.0.0.1:$port" --script shooter --screenshot "$work/shot.png" --after 4 \
  --stats-json "$work/stats.json" >"$work/viewer.log" 2>&1
status=$?
cat "$work/viewer.log"
[ "$status" -eq 0 ] || { echo "viewer exited with $status"; exit 1; }

python3 - "$work/shot.png" "$work/stats.json" "$(dirname "$0")" <<'PY' || { cat "$work/stats.json"; echo "figures or picture wrong"; exit 1; }
import json, sys
sys.dont_write_bytecode = True  # nothing cached in the source tree
sys.path.insert(0, sys.argv[3])
from viewer_png import colour_counts

colours = colour_counts(sys.argv[1])
assert len(colours) >= 16, "only %d distinct colours: a blank picture" % len(colours)
# The own player (green) and the others (blue) are drawn in these colours.
assert colours.get(bytes((80, 220, 120)), 0) > 0, "the own player is not drawn"
assert colours.get(bytes((80, 140, 255)), 0) > 0, "no other player is drawn"

s = json.load(open(sys.argv[2]))
assert s["connected"] and s["state"] == "connected" and s["screenshot"], s
assert s["players_drawn"] == 5, "expected the viewer and 4 bots, saw %d" % s["players_drawn"]
g, t, c = s["graph"], s["graph_totals"], s["client"]
assert g["samples"] >= 20, g
# Levels: the newest sample is the client's reading at that moment.
for key in ("rtt_ms", "jitter_ms", "loss_percent", "lead_ms", "interpolation_delay_ms"):
    assert abs(g[key] - c[key]) < 1e-3 + 1e-4 * abs(c[key]), (key, g[key], c[key])
# Counters: the plotted per-interval changes add up to the client's totals
# (everything from the graph's first reading on; nothing happens before
# the session starts).
for key in ("mispredictions", "rollbacks", "late_inputs", "missing_inputs", "hard_resets", "snapshots"):
    assert t[key] == c[key], (key, t[key], c[key])
assert c["snapshots"] > 60 and g["snapshots_per_s"] > 10, (c, g)
assert g["wire_in_kbps"] > g["payload_in_kbps"] > 0, g
assert 0 < c["rtt_ms"] < 100, c
# Hitscan: shots fired, results judged by the server for them, every result
# either a hit or a miss. Bots chasing a shooter on loopback are hit.
h = s["hitscan"]
assert h["fired"] >= 5 and h["judged"] >= 3, h
assert h["judged"] <= h["fired"] and h["hits"] + h["misses"] == h["judged"], h
assert h["hits"] >= 1, h
print("viewer: %d colours, %d players, rtt %.2f ms, %d snapshots, %d mispredictions, frame p50 %.2f ms p99 %.2f ms, "
      "hitscan %d fired %d judged %d hits %d misses"
      % (len(colours), s["players_drawn"], c["rtt_ms"], c["snapshots"], c["mispredictions"], s["frame_ms_p50"],
         s["frame_ms_p99"], h["fired"], h["judged"], h["hits"], h["misses"]))
PY
[ $? -eq 0 ] || exit 1

# SIGINT ends a running viewer cleanly, with 0.
xvfb "$viewer_bin" --connect "127.0.0.1:$port" --script wander --duration 20 --stats-json "$work/int.json" \
  >"$work/int.log" 2>&1 &
viewer_pid=$!
for _ in $(seq 50); do grep -q "connected to" "$work/int.log" && break; sleep 0.1; done
# The viewer itself, not xvfb-run: its command line starts with its path.
inner=$(pgrep -f "^$viewer_bin .*$work/int.json" | head -1)
[ -n "$inner" ] || { cat "$work/int.log"; echo "viewer process not found"; exit 1; }
kill -INT "$inner"
wait "$viewer_pid"
status=$?
[ "$status" -eq 0 ] || { cat "$work/int.log"; echo "viewer exited with $status after SIGINT"; exit 1; }
grep -q '"exit_reason": "interrupted"' "$work/int.json" || { cat "$work/int.json"; echo "no interrupted exit"; exit 1; }

# The server goes away under a running viewer: a message, then exit 3.
xvfb "$viewer_bin" --connect "127.0.0.1:$port" --script wander --duration 15 >"$work/gone.log" 2>&1 &
viewer_pid=$!
for _ in $(seq 50); do grep -q "connected to" "$work/gone.log" && break; sleep 0.1; done
kill -TERM "$server_pid"
wait "$server_pid"
wait "$viewer_pid"
status=$?
cat "$work/gone.log"
[ "$status" -eq 3 ] || { echo "viewer exited with $status when the server went away (want 3)"; exit 1; }
grep -q "server went away" "$work/gone.log" || { echo "no message that the server went away"; exit 1; }
echo "e2e ok: viewer connected, drew, matched its stats, left on SIGINT and when the server went away"
