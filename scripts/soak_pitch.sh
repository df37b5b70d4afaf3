#!/usr/bin/env bash
# The second reference game's soak, run by hand: pitch-server with short
# matches (so the clock runs out and matches start again, ball teleports
# and all) and BOTS of its own bots playing for SECONDS, through a
# tickwire-netsim relay with PROFILE when that is built (else straight to
# the server). Passes when no bot was dropped or turned away, late inputs
# stay under 1%, mispredictions under 1200 a bot-minute, the bots' sync
# tests find no desync, the server ran every tick (no skipped ticks), and
# it stops cleanly on SIGINT.
#
#   scripts/soak_pitch.sh                               16 bots, 5 minutes, broadband
#   scripts/soak_pitch.sh --seconds 60 --bots 8 --profile none
#
# Needs examples/pitch built against an installed Tickwire with the host
# and bots libraries (examples/pitch/README.md): PITCH_BUILD names that
# build (default build-pitch); BUILD_DIR the Tickwire build with the relay.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

seconds=300
bots=16
profile=broadband
tick_rate=60
match_seconds=60
out=build/soak-pitch
usage="usage: scripts/soak_pitch.sh [--seconds N] [--bots N] [--profile NAME|none] [--tick-rate HZ] [--match-seconds N] [--out DIR]"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2 ;;
    --bots) bots=$2 ;;
    --profile) profile=$2 ;;
    --tick-rate) tick_rate=$2 ;;
    --match-seconds) match_seconds=$2 ;;
    --out) out=$2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2 || { echo "$usage" >&2; exit 2; }
done

pitch=${PITCH_BUILD:-build-pitch}
server_bin=$pitch/pitch-server
bots_bin=$pitch/pitch-bots
relay_bin=${BUILD_DIR:-build}/tools/netsim/tickwire-netsim
require_built soak_pitch.sh "$server_bin" "$bots_bin"
if [ "$profile" != none ] && [ ! -x "$relay_bin" ]; then
  echo "soak_pitch.sh: no $relay_bin; playing straight to the server (--profile none)"
  profile=none
fi
mkdir -p "$out"
rm -f "$out/server_stats.jsonl"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; true' EXIT

# Ephemeral-range ports derived from the PID keep parallel runs apart.
port=$((20000 + ($$ + 23) % 20000))
"$server_bin" --bind 127.0.0.1 --port "$port" --tick-rate "$tick_rate" --match-seconds "$match_seconds" \
  --max-clients $((bots + 8)) --max-pending-per-ip "$bots" --stats-interval 10 \
  --stats-json "$out/server_stats.jsonl" >"$out/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_for_line "$out/server.log" "listening on" ||
  { cat "$out/server.log"; echo "soak_pitch.sh: the server did not start" >&2; exit 1; }

target="127.0.0.1:$port"
relay_pid=
if [ "$profile" != none ]; then
  "$relay_bin" --listen $((port + 1)) --forward "127.0.0.1:$port" --profile "$profile" --stats-interval 60 \
    >"$out/relay.log" 2>&1 &
  relay_pid=$!
  pids+=("$relay_pid")
  target="127.0.0.1:$((port + 1))"
  sleep 0.5
fi

echo "== soak: $bots pitch bots for ${seconds} s at ${tick_rate} Hz, matches of ${match_seconds} s, link $profile, out: $out"
bots_status=0
# Contact between players who do not predict each other is corrected by
# design: twice the runner's default bound on mispredictions.
"$bots_bin" --connect "$target" --bots "$bots" --script team --ramp 5 --duration "$seconds" --max-disconnects 0 \
  --max-late-inputs 0.01 --max-mispredictions-per-min 1200 --server-stats "$out/server_stats.jsonl" \
  --report-json "$out/bots.json" --report-html "$out/bots.html" >"$out/bots.log" 2>&1 || bots_status=$?
tail -n 25 "$out/bots.log"

server_alive=0
kill -0 "$server_pid" 2>/dev/null && server_alive=1
[ -n "$relay_pid" ] && { kill -INT "$relay_pid" 2>/dev/null || true; wait "$relay_pid" || true; }
kill -INT "$server_pid" 2>/dev/null || true
server_status=0
wait "$server_pid" || server_status=$?
pids=()

python3 - "$out/server_stats.jsonl" "$bots_status" "$server_alive" "$server_status" <<'PY'
import json, sys
sys.path.insert(0, "scripts")
from run_checks import conclude
stats_path, bots_status, alive, status = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
lines = [json.loads(l) for l in open(stats_path) if l.strip()]
# Zero over every line, whether a line holds its interval's count or the total.
skipped = sum(l.get("ticks_skipped", 0) for l in lines)
peak = max((l.get("clients", 0) for l in lines), default=0)
conclude([
    ("bots within their thresholds (disconnects, late inputs, mispredictions, desyncs)", bots_status == 0, f"exit {bots_status}"),
    ("server alive to the end", alive, "running" if alive else "gone"),
    ("server stopped cleanly on SIGINT", status == 0, f"exit {status}"),
    ("server stats written", len(lines) > 0, f"{len(lines)} lines, peak {peak} clients"),
    ("no skipped ticks", skipped == 0, f"{skipped} skipped"),
])
PY
