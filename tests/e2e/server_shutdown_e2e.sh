#!/usr/bin/env bash
# The server alone over real UDP: startup banner, a stats JSON line, a clear
# message for a port in use, a clean exit 0 within 2 s of SIGTERM and of
# SIGINT, and a refusal to write a codebook trained on no play. Needs no
# client, so it runs even when the bots do not build.
# Usage: server_shutdown_e2e.sh SERVER_BIN
set -u
server_bin=${1:?server binary}
work=$(mktemp -d)
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL $*"; cat "$work/server.log" 2>/dev/null; exit 1; }

# An ephemeral-range port derived from the PID keeps parallel runs apart.
port=$((20000 + ($$ + 7919) % 20000))

start_server() {  # start_server: runs the server in the background, waits for the banner
  "$server_bin" --bind 127.0.0.1 --port "$port" --stats-interval 0.5 --stats-json "$work/stats.jsonl" \
    >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 50); do
    grep -q "listening on" "$work/server.log" && return 0
    sleep 0.1
  done
  fail "server did not start"
}

stop_server() {  # stop_server SIGNAL: expects exit 0 within 2 s
  local sig=$1 start status elapsed_ms
  start=$(date +%s%N)
  kill "-$sig" "$server_pid"
  wait "$server_pid"
  status=$?
  server_pid=
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ "$status" -eq 0 ] || fail "exit $status after SIG$sig"
  [ "$elapsed_ms" -le 2000 ] || fail "shutdown after SIG$sig took ${elapsed_ms} ms"
  grep -q "shutting down (SIG$sig)" "$work/server.log" || fail "no shutdown line for SIG$sig"
  grep -q "stopped at tick" "$work/server.log" || fail "no final totals after SIG$sig"
  echo "ok   SIG$sig: exit 0 in ${elapsed_ms} ms"
}

start_server
grep -q "tickwire-server [0-9.]*: arena [0-9.]*, listening on 127.0.0.1:$port (udp), tick 60 Hz, send 30 Hz" \
  "$work/server.log" || fail "banner"
echo "ok   banner"

"$server_bin" --bind 127.0.0.1 --port "$port" >"$work/second.log" 2>&1
[ $? -ne 0 ] || fail "a second server on a used port did not fail"
grep -q "cannot listen on 127.0.0.1:$port" "$work/second.log" || { cat "$work/second.log"; fail "port in use message"; }
echo "ok   port in use"

sleep 1.2
grep -q '"tick_us_p99":' "$work/stats.jsonl" && grep -q '"rss_kb":' "$work/stats.jsonl" || fail "no stats JSON line"
echo "ok   stats JSON"
stop_server TERM

start_server
stop_server INT

# Training a codebook while no client plays sees no snapshot: the server
# says so and exits nonzero rather than write an untrained codebook.
"$server_bin" --bind 127.0.0.1 --port "$port" --duration 0.3 --train-codebook "$work/none.twcb" \
  >"$work/train.log" 2>&1
status=$?
[ "$status" -ne 0 ] || { cat "$work/train.log"; fail "training without play exited 0"; }
grep -q "no snapshot was sent while training" "$work/train.log" || { cat "$work/train.log"; fail "no refusal"; }
[ ! -s "$work/none.twcb" ] || fail "an untrained codebook was written"
echo "ok   untrained codebook refused (exit $status)"
echo "e2e ok: server startup and shutdown"
