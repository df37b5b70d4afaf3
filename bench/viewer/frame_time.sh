#!/usr/bin/env bash
# The viewer's frame time with the net graph shown, at a full server: a
# local tickwire-server, BOTS bots (63 by default: 64 players with the
# viewer) and the viewer under a virtual display (software rendering) for
# SECONDS. Prints a table and writes JSON: frame time p50/p99 and its parts
# (client update, scene and panels built, drawn, put on screen).
# Usage: bench/viewer/frame_time.sh [--bots N] [--seconds S] [--json FILE] [--renderer NAME]
#   --renderer: SDL's render driver (software, opengl); default SDL's choice.
set -euo pipefail
cd "$(dirname "$0")/../.."
bots=63
seconds=20
json=build/bench-results/viewer_frame_time.json
renderer=
while [ $# -gt 0 ]; do
  case "$1" in
    --bots) bots=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --renderer) renderer=$2; shift 2 ;;
    *) echo "frame_time.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for bin in build/server/app/tickwire-server build/tools/bots/tickwire-bots build/tools/viewer/tickwire-viewer; do
  [ -x "$bin" ] || { echo "frame_time.sh: $bin not built" >&2; exit 1; }
done
mkdir -p "$(dirname "$json")"
work=$(mktemp -d)
server_pid=
bots_pid=
trap 'kill "$server_pid" "$bots_pid" 2>/dev/null; rm -rf "$work"' EXIT
port=$((20000 + ($$ + 11) % 20000))
build/server/app/tickwire-server --bind 127.0.0.1 --port "$port" --max-clients $((bots + 1)) >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$work/server.log" && break; sleep 0.1; done
build/tools/bots/tickwire-bots --connect "127.0.0.1:$port" --bots "$bots" --script wander --ramp 2 \
  --duration $((seconds + 10)) >"$work/bots.log" 2>&1 &
bots_pid=$!
sleep 3
env ${renderer:+SDL_RENDER_DRIVER=$renderer} xvfb-run -a -s "-screen 0 1280x800x24" \
  build/tools/viewer/tickwire-viewer --connect "127.0.0.1:$port" --script wander --duration "$seconds" \
  --stats-json "$work/stats.json" 2>"$work/viewer.log" || { cat "$work/viewer.log"; exit 1; }
python3 - "$work/stats.json" "$json" "$bots" "$seconds" "$(grep -o 'renderer [a-z0-9_]*' "$work/viewer.log" | cut -d' ' -f2)" \
  "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
out = {"bots": int(sys.argv[3]), "seconds": float(sys.argv[4]), "renderer": sys.argv[5], "load_average_1m": float(sys.argv[6]),
       "players_drawn": s["players_drawn"], "net_graph_shown": s["net_graph_shown"], "frames": s["frame_times_measured"]}
for part in ("frame", "update", "build", "render", "present"):
    for q in ("p50", "p99"):
        out["%s_ms_%s" % (part, q)] = s["%s_ms_%s" % (part, q)]
json.dump(out, open(sys.argv[2], "w"), indent=2)
print("viewer frame time, %d players drawn, net graph %s, renderer %s, %d frames, load average %.1f"
      % (out["players_drawn"], "shown" if out["net_graph_shown"] else "hidden", out["renderer"], out["frames"],
         out["load_average_1m"]))
print("| part | p50 ms | p99 ms |\n| --- | --- | --- |")
for part, name in (("frame", "whole frame"), ("update", "events + Client::update"), ("build", "scene and panels built"),
                   ("render", "draw lists to the renderer"), ("present", "on screen (rasterize + copy to the display)")):
    print("| %s | %.2f | %.2f |" % (name, out[part + "_ms_p50"], out[part + "_ms_p99"]))
PY
