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

python3 - "$out" "$warmup" "$bots_status" "$server_alive" "$server_status" "$relay_alive" "$relay_status" <<'EOF'
import json, sys
sys.path.insert(0, "scripts")
from run_checks import conclude
out, warmup = sys.argv[1], float(sys.argv[2])
bots_status, server_alive, server_status, relay_alive, relay_status = (int(x) for x in sys.argv[3:8])
bots = json.load(open(f"{out}/bots.json"))
s = bots["summary"]
lines = [json.loads(l) for l in open(f"{out}/server_stats.jsonl") if l.strip()]
after = [l for l in lines if l["t"] >= warmup]
rss_start, rss_end = (after[0]["rss_kb"], after[-1]["rss_kb"]) if after else (0, 0)
span_h = (after[-1]["t"] - after[0]["t"]) / 3600.0 if len(after) > 1 else 0.0
growth_mb_per_h = (rss_end - rss_start) / 1024.0 / span_h if span_h > 0 else 0.0
peak = max((l["rss_kb"] for l in lines), default=0)
# What the allocator counts as in use: tells a leak from memory the
# allocator keeps after a peak (older servers do not report it).
heap = [l.get("heap_kb", 0) for l in after]
heap_growth = (heap[-1] - heap[0]) / 1024.0 / span_h if span_h > 0 and heap else 0.0
print(f'\nbots: {s["bots"]}, left by script and rejoined {s["left_by_script"]} times')
print(f'disconnects not asked for: {s["disconnects"]} {s["disconnects_by_reason"]}; denials {s["denials_by_reason"]}')
print(f'rtt p50/p99 {s["rtt_p50_ms"]:.0f}/{s["rtt_p99_ms"]:.0f} ms, late inputs {100 * s["late_input_fraction"]:.3f}%')
print(f"server RSS after warm-up {rss_start} KiB -> {rss_end} KiB over {span_h:.2f} h "
      f"({growth_mb_per_h:+.3f} MB/h), peak {peak} KiB")
if heap:
    print(f"server heap in use after warm-up {heap[0]} KiB -> {heap[-1]} KiB ({heap_growth:+.3f} MB/h), "
          f"range {min(heap)}..{max(heap)} KiB")
checks = [
    ("server still running at the end, then exited 0", server_alive == 1 and server_status == 0,
     f"alive {server_alive}, exit {server_status}"),
    ("relay still running at the end, then exited 0", relay_alive == 1 and relay_status == 0,
     f"alive {relay_alive}, exit {relay_status}"),
    ("bots' thresholds held (no disconnect or denial not asked for)", bots_status == 0, f"bots exit {bots_status}"),
    ("server memory flat after warm-up (< 1 MB/h)", growth_mb_per_h < 1.0, f"{growth_mb_per_h:+.3f} MB/h"),
]
conclude(checks)
EOF
