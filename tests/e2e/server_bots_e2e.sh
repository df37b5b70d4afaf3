#!/usr/bin/env bash
# End to end over real UDP on loopback: the real tickwire-server, real bots,
# then SIGTERM. Checks that every bot connects and stays connected, and that
# the server shuts down cleanly within 2 s, exiting 0; and that the bots'
# JSON report carries every bot's input margins and late-burst seconds,
# within what 3 s on loopback allow.
# Usage: server_bots_e2e.sh SERVER_BIN BOTS_BIN
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

# An ephemeral-range port derived from the PID keeps parallel runs apart.
port=$((20000 + $$ % 20000))
"$server_bin" --bind 127.0.0.1 --port "$port" --stats-interval 1 --stats-json "$work/stats.jsonl" \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; echo "server did not start"; exit 1; }

"$bots_bin" --connect "127.0.0.1:$port" --bots 6 --duration 3 --ramp 0.5 --report-json "$work/report.json" \
  >"$work/bots.log" 2>&1
bots_status=$?
cat "$work/bots.log"
[ "$bots_status" -eq 0 ] || { cat "$work/server.log"; echo "bots failed ($bots_status)"; exit 1; }
grep -Eq "^  connected +6/6" "$work/bots.log" || { echo "not every bot connected"; exit 1; }
grep -Eq "^  still connected +6$" "$work/bots.log" || { echo "not every bot stayed connected"; exit 1; }
python3 - "$work/report.json" <<'PY' || { echo "the report's input margins are missing or not sane"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
s, bots, series = r["summary"], r["bots"], r["series"]
def margin(v):  # a margin in ms within the client's histogram
    return isinstance(v, (int, float)) and -250 <= v <= 750
assert len(bots) == 6, bots
for b in bots:
    assert margin(b["input_margin_ms_p50"]) and margin(b["input_margin_ms_p99"]), b
    assert b["input_margin_ms_p99"] <= b["input_margin_ms_p50"], b
    assert 0 < b["input_margins_exact"] <= b["input_margins"], b
    # Whole seconds of a 3 s run.
    assert 0 <= b["late_burst_seconds"] <= 3, b
assert s["bots_with_margins"] == 6, s
assert s["input_margin_ms_p50"] == sorted(b["input_margin_ms_p50"] for b in bots)[2], s
assert s["input_margin_ms_p99"] == min(b["input_margin_ms_p99"] for b in bots), s
assert s["late_burst_seconds"] == sum(b["late_burst_seconds"] for b in bots), s
assert s["input_margins"] == sum(b["input_margins"] for b in bots) > 0, s
assert 0 < s["input_margins_exact_fraction"] <= 1, s
assert all("input_margins" in p and "late_burst_bots" in p for p in series), series
CAUSES = ["own_input", "remote_player", "unowned", "spawn", "server_event"]
def corrections(x, types):  # the correction figures of one bot or of the run
    assert list(x["mispredictions_by_cause"]) == CAUSES, x
    assert sorted(x["mispredictions_by_type"]) == sorted(types), x
    assert sum(x["mispredictions_by_cause"].values()) == sum(x["mispredictions_by_type"].values()), x
    # A snapshot that corrects counts once, each entity it corrects once.
    assert sum(x["mispredictions_by_cause"].values()) >= x.get("mispredictions", 0), x
    for key in ("correction_m_p50", "correction_m_p99", "visual_pops_per_min", "corrections_drawn", "visual_pops"):
        assert x[key] >= 0, (key, x)
for x in [s] + bots:
    corrections(x, ["player", "projectile", "platform", "shot"])
for c in CAUSES:
    assert s["mispredictions_by_cause"][c] == sum(b["mispredictions_by_cause"][c] for b in bots), s
print("margins: p50 %.1f ms, p99 %.1f ms over %d inputs, %d late-burst seconds"
      % (s["input_margin_ms_p50"], s["input_margin_ms_p99"], s["input_margins"], s["late_burst_seconds"]))
PY

# A second server on the same port must fail with a clear message.
"$server_bin" --bind 127.0.0.1 --port "$port" >"$work/second.log" 2>&1
second_status=$?
[ "$second_status" -ne 0 ] || { echo "second server on a used port did not fail"; exit 1; }
grep -q "cannot listen on 127.0.0.1:$port" "$work/second.log" || { cat "$work/second.log"; echo "no clear message for a port in use"; exit 1; }

start=$(date +%s%N)
kill -TERM "$server_pid"
wait "$server_pid"
status=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$work/server.log"
[ "$status" -eq 0 ] || { echo "server exited with $status after SIGTERM"; exit 1; }
[ "$elapsed_ms" -le 2000 ] || { echo "shutdown took ${elapsed_ms} ms"; exit 1; }
grep -q '"clients":6' "$work/stats.jsonl" || { echo "stats JSON never showed 6 clients"; exit 1; }
echo "e2e ok: 6 bots, shutdown in ${elapsed_ms} ms"
