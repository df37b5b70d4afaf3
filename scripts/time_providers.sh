#!/usr/bin/env bash
# The client time providers side by side in the real runtime: for each relay
# profile and each provider, a fresh tickwire-server on loopback, a
# tickwire-netsim relay in front of it, and BOTS `wander` bots through the
# relay for SECONDS with `tickwire-bots --time-provider NAME`. Prints one
# table from the bots' JSON reports:
#   margin p50/p99  how early inputs reached the server (ms; negative: late)
#   late %          inputs the server received after their tick
#   burst s         late-burst seconds, summed over the bots
#   lead            mean lead of the predicted timeline over the server (ms)
#   up kbit/s       upstream at the socket per bot (IP and UDP headers and
#                   encryption included)
#   rtt p50, resets the round trip seen and the time system's hard resets
#
#   scripts/time_providers.sh                              32 bots, 60 s, perfect and broadband
#   scripts/time_providers.sh --bots 8 --seconds 20 --profiles broadband
#   scripts/time_providers.sh --profiles "clean broadband" --providers "adaptive n4e"
#
# Profiles are the relay's named ones (tickwire-netsim --help), plus `clean`:
# 30 ms each way, no jitter, no loss. Every process is bounded in time
# (each gets its own --duration, and the bots a timeout besides) and killed
# on exit. Needs a built tree (scripts/setup.sh); BUILD_DIR picks another
# build. Reports and logs are left in OUT (build/time_providers).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

bots=32
seconds=60
profiles="perfect broadband"
providers="adaptive n4e rfc rtt_half_slack"
out=build/time_providers
# Ephemeral-range ports derived from the PID keep parallel runs apart.
port=$((20000 + ($$ + 29) % 20000))
usage="usage: scripts/time_providers.sh [--bots N] [--seconds N] [--profiles \"NAME...\"] [--providers \"NAME...\"] [--port N] [--out DIR]"
while [ $# -gt 0 ]; do
  case "$1" in
    --bots) bots=${2:-} ;;
    --seconds) seconds=${2:-} ;;
    --profiles) profiles=${2:-} ;;
    --providers) providers=${2:-} ;;
    --port) port=${2:-} ;;
    --out) out=${2:-} ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
  shift 2
done
for n in "$bots" "$seconds" "$port"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "time_providers.sh: '$n' is not a whole number" >&2; exit 2; }
done
in_range() {  # in_range FLAG VALUE LOW HIGH
  if [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then echo "time_providers.sh: $1 must be $3..$4" >&2; exit 2; fi
}
in_range --bots "$bots" 1 1024
in_range --seconds "$seconds" 5 3600
in_range --port "$port" 1024 65534  # the relay takes the next one
if [ -z "$profiles" ] || [ -z "$providers" ]; then echo "$usage" >&2; exit 2; fi

build=${BUILD_DIR:-build}
server_bin=$build/server/app/tickwire-server
relay_bin=$build/tools/netsim/tickwire-netsim
bots_bin=$build/tools/bots/tickwire-bots
require_built time_providers.sh "$server_bin" "$relay_bin" "$bots_bin"

# The relay flags of a profile; `clean` is not one of the relay's own.
relay_flags() {
  case "$1" in
    clean) echo "--profile perfect --latency 30" ;;
    *) echo "--profile $1" ;;
  esac
}
# Check every name before the first run, so a typo costs no minutes.
relay_help=$("$relay_bin" --help)
for profile in $profiles; do
  case "$profile" in *[!a-z_]*) echo "time_providers.sh: bad profile name '$profile'" >&2; exit 2 ;; esac
  [ "$profile" = clean ] || grep -q -- "--profile.*[ ,:]$profile\(,\|\$\)" <<<"$relay_help" ||
    { echo "time_providers.sh: unknown relay profile '$profile' (clean, or one of the relay's)" >&2; exit 2; }
done
for provider in $providers; do
  case "$provider" in *[!a-z0-9_]*) echo "time_providers.sh: bad provider name '$provider'" >&2; exit 2 ;; esac
  "$bots_bin" --time-provider "$provider" --help >/dev/null 2>&1 ||
    { "$bots_bin" --time-provider "$provider" --help 2>&1 | head -n 1 >&2; exit 2; }
done

mkdir -p "$out"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

relay_port=$((port + 1))
bound=$((seconds + 30))  # each process's own limit: the run, connecting and leaving
stop() {                 # stop PID: ask it to finish (it prints its summary), then wait
  kill -INT "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

run_one() {  # run_one PROFILE PROVIDER
  local profile=$1 provider=$2 dir="$out/$1-$2" server_pid relay_pid status=0
  mkdir -p "$dir"
  rm -f "$dir/bots.json"
  "$server_bin" --bind 127.0.0.1 --port "$port" --max-clients $((bots + 16)) --max-pending-per-ip "$bots" \
    --duration "$bound" --stats-interval 0 >"$dir/server.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  wait_for_line "$dir/server.log" "listening on" ||
    { cat "$dir/server.log"; echo "time_providers.sh: the server did not start" >&2; exit 1; }
  # shellcheck disable=SC2046
  "$relay_bin" --listen "$relay_port" --forward "127.0.0.1:$port" $(relay_flags "$profile") --seed 1 \
    --duration "$bound" --stats-interval 0 >"$dir/relay.log" 2>&1 &
  relay_pid=$!
  pids+=("$relay_pid")
  wait_for_line "$dir/relay.log" "relaying" ||
    { cat "$dir/relay.log"; echo "time_providers.sh: the relay did not start" >&2; exit 1; }
  echo "== $profile / $provider: $bots bots for $seconds s" >&2
  timeout --signal=INT --kill-after=5 "$bound" "$bots_bin" --connect "127.0.0.1:$relay_port" --bots "$bots" \
    --duration "$seconds" --ramp 2 --script wander --time-provider "$provider" --report-json "$dir/bots.json" \
    >"$dir/bots.log" 2>&1 || status=$?
  stop "$relay_pid"
  stop "$server_pid"
  pids=()
  # Exit 1 is a threshold the bots hold by default (late inputs); the
  # figures are still what this script is for.
  if [ "$status" -gt 1 ] || [ ! -s "$dir/bots.json" ]; then
    tail -n 20 "$dir/bots.log" >&2
    echo "time_providers.sh: the bots failed ($profile / $provider, exit $status)" >&2
  fi
}

for profile in $profiles; do
  for provider in $providers; do run_one "$profile" "$provider"; done
done

python3 - "$out" "$bots" "$seconds" "$profiles" "$providers" <<'EOF'
import json, os, sys
out, bots, seconds, profiles, providers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5].split()
print(f"time providers: real binaries, loopback relay, {bots} wander bots, {seconds} s per run")
head = ("profile", "provider", "margin p50", "margin p99", "late %", "burst s", "lead ms", "up kbit/s", "rtt p50", "resets")
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---" for _ in head) + "|")
def num(v, fmt):
    return "-" if v is None else format(v, fmt)
for profile in profiles:
    for provider in providers:
        path = os.path.join(out, f"{profile}-{provider}", "bots.json")
        try:
            with open(path) as f:
                s = json.load(f)["summary"]
        except (OSError, ValueError, KeyError):
            print(f"| {profile} | {provider} | no report |" + " |" * (len(head) - 3))
            continue
        row = (profile, provider, num(s.get("input_margin_ms_p50"), ".1f"), num(s.get("input_margin_ms_p99"), ".1f"),
               num(100 * s["late_input_fraction"], ".3f"), str(s["late_burst_seconds"]), num(s["lead_mean_ms"], ".1f"),
               num(s["wire_kbps_out_per_bot"], ".1f"), num(s["rtt_p50_ms"], ".1f"), str(s["hard_resets"]))
        print("| " + " | ".join(row) + " |")
EOF
