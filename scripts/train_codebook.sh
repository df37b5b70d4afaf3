#!/usr/bin/env bash
# Trains the snapshot codebook the arena ships (examples/arena/data/arena.twcb)
# on a minute of play at the shipped settings (60 Hz ticks, 30 Hz snapshots,
# nearest 64): bots wandering and chasing (the scripts the soak and scale
# runs play) over a LAN and over a mobile link, so that every age set of
# the codebook (short and long round trips, loss) is trained on the same
# kind of play. The
# server codes with adaptive models while it trains (its clients run with
# --adaptive-models) and writes the codebook when it stops. Rebuild after.
#
#   scripts/train_codebook.sh [OUT]      (BUILD=dir, PORT=n, SECONDS_OF_PLAY=n)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
port=${PORT:-27990}
play=${SECONDS_OF_PLAY:-60}
out=${1:-$root/examples/arena/data/arena.twcb}
server=$build/server/app/tickwire-server
bots=$build/tools/bots/tickwire-bots
for bin in "$server" "$bots"; do
  [[ -x $bin ]] || { echo "train_codebook: $bin not built" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$server" --bind 127.0.0.1 --port "$port" --max-clients 128 --duration $((play + 6)) --send-rate "${SEND_RATE:-30}" \
  --train-codebook "$work/arena.twcb" --log-level warn > "$work/server.log" 2>&1 &
server_pid=$!
sleep 1
fleet() {  # NAME SCRIPT PROFILE COUNT SEED
  "$bots" --connect "127.0.0.1:$port" --name "$1" --script "$2" --profile "$3" --bots "$4" --seed "$5" \
    --duration "$play" --ramp 3 --adaptive-models --min-connected 0 --max-late-inputs 1 \
    --max-mispredictions-per-min 1000000000 --max-disconnects 100000 > "$work/$1.log" 2>&1 || true
}
fleet lan-wander wander lan 16 11 &
fleet lan-chase chase lan 16 12 &
fleet mobile-wander wander mobile 12 13 &
fleet mobile-chase chase mobile 12 14 &
wait %2 %3 %4 %5
wait "$server_pid" || { cat "$work/server.log" >&2; exit 1; }
[[ -s $work/arena.twcb ]] || { echo "train_codebook: the server wrote no codebook" >&2; exit 1; }
cp "$work/arena.twcb" "$out"
echo "train_codebook: wrote $out ($(stat -c %s "$out") bytes); rebuild to ship it"
