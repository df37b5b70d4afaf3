#!/usr/bin/env bash
# The long soak, run by hand: a tickwire-server behind a tickwire-netsim
# relay with the `harsh` profile (1000 ms each way, 100 ms jitter, 25% loss,
# 25% duplicates), and BOTS `churn` bots leaving and rejoining for SECONDS.
#
# Passes when nothing crashed, no bot was disconnected or turned away
# without asking, and the server's resident memory grew by less than
# 1 MB per hour after the warm-up. Late inputs are reported, not judged:
# at 25% loss some inputs and all their redundant copies are lost.
#
# Handshakes get HANDSHAKE_TIMEOUT (60 s) at both ends: over round trips
# of 2 s with a quarter of the packets lost each way, a reliable message
# (the handshake's) can need five tries of about 4 s each (twice the round
# trip); the 5 s default suits round trips under a few hundred ms. The
# server still drops a client after 5 s of silence. Every
# bot reaches the server from the relay's address, as players behind one
# NAT would, so the server lets all of them be mid-handshake at once
# (--max-pending-per-ip; the default of 4 would queue them for seconds). Prints the figures; the bots' JSON and
# HTML reports, the server's stats and every log are left in OUT.
#
#   scripts/soak.sh                          the full soak: 64 bots, 1 hour
#   scripts/soak.sh --seconds 120 --bots 16  a quick look
#
# Needs a built tree (scripts/setup.sh); BUILD_DIR picks another build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

seconds=3600
bots=64
warmup=300
handshake_timeout=60
profile=harsh
out=build/soak
usage="usage: scripts/soak.sh [--seconds N] [--bots N] [--warmup SECONDS] [--profile NAME] [--handshake-timeout SECONDS] [--out DIR]"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2 ;;
    --bots) bots=$2 ;;
    --warmup) warmup=$2 ;;
    --profile) profile=$2 ;;
    --handshake-timeout) handshake_timeout=$2 ;;
    --out) out=$2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift 2 || { echo "$usage" >&2; exit 2; }
done
[ "$warmup" -lt "$seconds" ] || { echo "soak.sh: --warmup must be shorter than --seconds" >&2; exit 2; }

build=${BUILD_DIR:-build}
server_bin=$build/server/app/tickwire-server
relay_bin=$build/tools/netsim/tickwire-netsim
bots_bin=$build/tools/bots/tickwire-bots
require_built soak.sh "$server_bin" "$relay_bin" "$bots_bin"
mkdir -p "$out"
rm -f "$out/server_stats.jsonl"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; true' EXIT

# Ephemeral-range ports derived from the PID keep parallel runs apart.
port=$((20000 + ($$ + 17) % 20000))
relay_port=$((port + 1))

"$server_bin" --bind 127.0.0.1 --port "$port" --max-clients $((bots + 16)) --handshake-timeout "$handshake_timeout" \
  --max-pending-per-ip "$bots" \
  --stats-interval 10 --stats-json "$out/server_stats.jsonl" >"$out/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_for_line "$out/server.log" "listening on" ||
  { cat "$out/server.log"; echo "soak.sh: the server did not start" >&2; exit 1; }

"$relay_bin" --listen "$relay_port" --forward "127.0.0.1:$port" --profile "$profile" --stats-interval 60 \
  >"$out/relay.log" 2>&1 &
relay_pid=$!
pids+=("$relay_pid")
sleep 0.5

echo "== soak: $bots churn bots through the $profile relay for ${seconds} s (warm-up ${warmup} s), out: $out"
bots_status=0
"$bots_bin" --connect "127.0.0.1:$relay_port" --bots "$bots" --script churn --ramp 10 --duration "$seconds" \
  --timeout "$handshake_timeout" --max-disconnects 0 --max-late-inputs 1 --server-stats "$out/server_stats.jsonl" \
  --report-json "$out/bots.json" --report-html "$out/bots.html" >"$out/bots.log" 2>&1 || bots_status=$?

server_alive=0
kill -0 "$server_pid" 2>/dev/null && server_alive=1
relay_alive=0
kill -0 "$relay_pid" 2>/dev/null && relay_alive=1
kill -INT "$relay_pid" 2>/dev/null || true
relay_status=0
wait "$relay_pid" || relay_status=$?
kill -INT "$server_pid" 2>/dev/null || true
server_status=0
wait "$server_pid" || server_status=$?
pids=()

python3 scripts/soak_report.py "$out" "$warmup" "$bots_status" "$server_alive" "$server_status" "$relay_alive" \
  "$relay_status"
