#!/usr/bin/env bash
# Bad flags and config values get a clear message and exit code 2.
# Usage: bad_flags_e2e.sh SERVER_BIN
set -u
server_bin=${1:?server binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

expect_2() {  # expect_2 WHAT PATTERN ARGS...
  local what=$1 pattern=$2
  shift 2
  "$server_bin" "$@" >"$work/out" 2>&1
  local status=$?
  if [ "$status" -ne 2 ] || ! grep -qi -- "$pattern" "$work/out"; then
    echo "FAIL $what: exit $status, output:"; cat "$work/out"; fail=1
  else
    echo "ok   $what"
  fi
}

expect_2 "unknown flag" "--frobnicate" --frobnicate
expect_2 "port out of range" "port" --port 70000
expect_2 "port not a number" "port" --port abc
expect_2 "tick rate zero" "tick-rate" --tick-rate 0
expect_2 "send rate not dividing" "must divide" --tick-rate 60 --send-rate 7
expect_2 "bad log level" "log-level" --log-level loud
expect_2 "bad log format" "log-format" --log-format xml
expect_2 "tick rate the arena cannot run" "arena runs only at 60" --tick-rate 30 --send-rate 30
expect_2 "negative nearest" "--nearest" --nearest -1
expect_2 "nearest not a number" "--nearest" --nearest lots
expect_2 "snapshot bytes too small" "--snapshot-bytes" --snapshot-bytes 10
expect_2 "no catch-up ticks" "--max-catch-up-ticks" --max-catch-up-ticks 0
printf 'port = 99999\n' >"$work/bad.toml"
expect_2 "bad value in config" "port" --config "$work/bad.toml"
printf 'nearest = -3\n' >"$work/nearest.toml"
expect_2 "bad nearest in config" "--nearest" --config "$work/nearest.toml"
printf 'log-format = "xml"\n' >"$work/format.toml"
expect_2 "bad log format in config" "log-format" --config "$work/format.toml"
printf 'tick-rate = 30\nsend-rate = 30\n' >"$work/rate.toml"
expect_2 "unsupported tick rate in config" "arena runs only at 60" --config "$work/rate.toml"
printf 'port = 7777\nfrobnicate = 1\n' >"$work/unknown.toml"
expect_2 "unknown key in config" "unknown setting 'frobnicate'" --config "$work/unknown.toml"
expect_2 "missing config file" "config" --config "$work/missing.toml"
expect_2 "unwritable stats file" "--stats-json" --stats-json "$work/no/such/dir/stats.jsonl" --duration 0.1

# A config file supplies every flag; the command line overrides it.
printf 'port = 1\nnearest = 8\nduration = 0.2\nstats-interval = 0\n' >"$work/good.toml"
if "$server_bin" --config "$work/good.toml" --bind 127.0.0.1 --port 0 >"$work/out" 2>&1; then
  echo "FAIL port 0 on the command line should override the file and be refused"; cat "$work/out"; fail=1
elif grep -q -- "--port" "$work/out"; then
  echo "ok   command line overrides config"
else
  echo "FAIL command line override: unclear message"; cat "$work/out"; fail=1
fi

"$server_bin" --help >"$work/help" 2>&1 && grep -q -- "--tick-rate" "$work/help" && grep -q -- "--nearest" "$work/help" \
  && grep -q "Advanced" "$work/help" && echo "ok   --help" || { echo "FAIL --help"; cat "$work/help"; fail=1; }
"$server_bin" --version 2>&1 | grep -q "^tickwire-server [0-9]" && echo "ok   --version" || { echo "FAIL --version"; fail=1; }
exit $fail
