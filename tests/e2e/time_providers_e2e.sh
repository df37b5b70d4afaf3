#!/usr/bin/env bash
# scripts/time_providers.sh on the real binaries, small: two baselines, two
# bots, 5 s each through the relay's perfect profile. Each run's bots report
# the provider they were given, and the table has a row of figures for each.
# A bad provider name is refused before anything starts.
# Usage: time_providers_e2e.sh SOURCE_DIR BUILD_DIR
set -u
source_dir=${1:?source directory}
build_dir=${2:?build directory}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script=$source_dir/scripts/time_providers.sh
port=${TIME_PROVIDERS_PORT:-$((20000 + ($$ * 7) % 20000))}

BUILD_DIR=$build_dir bash "$script" --providers nope --out "$work/bad" >"$work/bad.log" 2>&1
status=$?
if [ "$status" -ne 2 ] || ! grep -q "adaptive" "$work/bad.log"; then
  echo "FAIL a bad provider: exit $status"; cat "$work/bad.log"; exit 1
fi

BUILD_DIR=$build_dir bash "$script" --bots 2 --seconds 5 --profiles perfect --providers "n4e rtt_half_slack" \
  --port "$port" --out "$work/out" >"$work/table" 2>"$work/log"
status=$?
cat "$work/table"
[ "$status" -eq 0 ] || { cat "$work/log"; echo "FAIL the script exited $status"; exit 1; }
for provider in n4e rtt_half_slack; do
  grep -q "\"time_provider\":\"$provider\"" "$work/out/perfect-$provider/bots.json" ||
    { echo "FAIL the $provider run's bots did not report $provider"; exit 1; }
  # | perfect | NAME | margin p50 | ...: a number where the margin goes.
  grep -Eq "^\| perfect \| $provider \| -?[0-9]+\.[0-9] \|" "$work/table" ||
    { echo "FAIL no figures for $provider"; exit 1; }
done
echo "time providers e2e ok"
