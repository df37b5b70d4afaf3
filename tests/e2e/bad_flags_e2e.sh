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
printf 'port = 99999\n' >"$work/bad.toml"
expect_2 "bad value in config" "port" --config "$work/bad.toml"
expect_2 "missing config file" "config" --config "$work/missing.toml"
"$server_bin" --help >"$work/help" 2>&1 && grep -q -- "--tick-rate" "$work/help" && echo "ok   --help" || { echo "FAIL --help"; fail=1; }
exit $fail
