#!/usr/bin/env bash
# The second reference game, examples/pitch, as a game outside Tickwire
# builds and runs it, end to end:
#   1. `cmake --install` of this build tree into a fresh prefix;
#   2. examples/pitch configured and built as its own project against that
#      prefix alone (find_package(tickwire)), and its unit and sync tests run;
#   3. its server on loopback, its own bots (8, a few seconds) held to their
#      report's thresholds: every bot connected and stayed, none dropped;
#   4. Tickwire's generic thin bots against it, speaking its schema from
#      the file the server writes;
#   5. its viewer under a virtual display: a screenshot that is a picture;
#   6. SIGTERM: the server stops within 2 s with status 0.
# Steps whose programs this Tickwire lacks (no host, bots or viewer library,
# no Xvfb) are skipped with a message.
# Usage: pitch_e2e.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [TICKWIRE_BOTS_BIN]
set -u
build_dir=${1:?usage: pitch_e2e.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [TICKWIRE_BOTS_BIN]}
source_dir=${2:?usage: pitch_e2e.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [TICKWIRE_BOTS_BIN]}
cxx=${3:?usage: pitch_e2e.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [TICKWIRE_BOTS_BIN]}
thin_bots_bin=${4:-}
jobs=${TICKWIRE_JOBS:-2}
work=$(mktemp -d)
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
prefix=$work/prefix
game=$work/pitch

ok() { echo "ok   $* (${SECONDS}s)"; }
skip() { echo "skip $*"; }
fail() { echo "FAIL $*"; exit 1; }
# run LOG CMD...: runs CMD with its output in LOG, shown only on failure.
run() {
  local log=$1
  shift
  if "$@" >"$log" 2>&1; then return 0; fi
  echo "---- $* failed:"; tail -n 60 "$log"; return 1
}

# 1. Install.
run "$work/install.log" cmake --install "$build_dir" --prefix "$prefix" || fail "cmake --install"
ok "installed into a fresh prefix"

# 2. The game as its own project, against the installed package alone.
run "$work/configure.log" cmake -S "$source_dir/examples/pitch" -B "$game" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" -DPITCH_WERROR=ON || fail "configure examples/pitch"
run "$work/build.log" cmake --build "$game" -j"$jobs" || fail "build examples/pitch"
ok "examples/pitch builds against the installed package"
run "$work/tests.log" ctest --test-dir "$game" --output-on-failure --timeout 60 || fail "the game's own tests"
ok "the game's tests: $(grep -Eo '[0-9]+ tests passed.*' "$work/tests.log" || grep -Eo '[0-9]+% tests passed.*' "$work/tests.log")"

server_bin=$game/pitch-server
bots_bin=$game/pitch-bots
viewer_bin=$game/pitch-viewer
if [ ! -x "$server_bin" ]; then
  skip "the network steps: this Tickwire has no tickwire::host, so no pitch-server"
  exit 0
fi

# 3. The server on loopback. The schema file for generic clients comes
# from the game's bots binary (or its server, whichever offers it).
port=${PITCH_E2E_PORT:-$((20000 + ($$ + 11) % 20000))}
schema_args=()
if [ -x "$bots_bin" ] && "$bots_bin" --help 2>&1 | grep -q -- "--write-schema"; then
  run "$work/schema.log" "$bots_bin" --write-schema "$work/pitch.schema" || fail "pitch-bots --write-schema"
elif "$server_bin" --help 2>&1 | grep -q -- "--write-schema"; then
  schema_args=(--write-schema "$work/pitch.schema")
fi
"$server_bin" --bind 127.0.0.1 --port "$port" --tick-rate 30 --stats-interval 1 --stats-json "$work/stats.jsonl" \
  "${schema_args[@]}" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; fail "pitch-server did not start"; }
ok "pitch-server listening on 127.0.0.1:$port at 30 Hz"

if [ -x "$bots_bin" ]; then
  # The team: chasers, defenders and wanderers; each checks its prediction
  # with the sync test now and then. Players in contact with others they
  # do not predict are corrected by design (about 200-550 a bot-minute on
  # loopback): the bound is twice the runner's default.
  timeout 30 "$bots_bin" --connect "127.0.0.1:$port" --bots 8 --duration 5 --ramp 0.5 --script team \
    --max-disconnects 0 --max-late-inputs 0.02 --max-mispredictions-per-min 1200 \
    --report-json "$work/bots.json" >"$work/bots.log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || { cat "$work/bots.log" "$work/server.log"; fail "pitch-bots exited with $status"; }
  python3 - "$work/bots.json" <<'PY' || { cat "$work/bots.log"; fail "pitch-bots' report over its thresholds"; }
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
assert s["connected"] == 8 and s["still_connected"] == 8, s
assert s["disconnects"] == 0, s
assert s.get("desyncs", 0) == 0, s
CAUSES = ["own_input", "remote_player", "unowned", "spawn", "server_event"]
def corrections(x, types):  # the correction figures of one bot or of the run
    assert list(x["mispredictions_by_cause"]) == CAUSES, x
    assert sorted(x["mispredictions_by_type"]) == sorted(types), x
    assert sum(x["mispredictions_by_cause"].values()) == sum(x["mispredictions_by_type"].values()), x
    # A snapshot that corrects counts once, each entity it corrects once.
    assert sum(x["mispredictions_by_cause"].values()) >= x.get("mispredictions", 0), x
    for key in ("correction_m_p50", "correction_m_p99", "visual_pops_per_min", "corrections_drawn", "visual_pops"):
        assert x[key] >= 0, (key, x)
for x in [s] + r["bots"]:
    corrections(x, ["player", "ball", "scoreboard", "goal"])
for c in CAUSES:
    assert s["mispredictions_by_cause"][c] == sum(b["mispredictions_by_cause"][c] for b in r["bots"]), s
print("bots: 8 connected and stayed, %s sync checks, %s desyncs, %.0f mispredictions/min, corrected by cause %s"
      % (s.get("sync_checks"), s.get("desyncs"), s.get("mispredictions_per_min", 0), s["mispredictions_by_cause"]))
PY
  ok "8 pitch bots for 5 s: all connected and stayed, no desync"
else
  skip "pitch-bots: this Tickwire has no tickwire::bots"
fi

# 4. Tickwire's generic thin bots, which know the game only by its schema
# file: the whole protocol, inputs drawn within the input fields' ranges.
if [ -n "$thin_bots_bin" ] && [ -x "$thin_bots_bin" ] && "$thin_bots_bin" --help 2>&1 | grep -q -- "--thin" \
   && [ -s "$work/pitch.schema" ]; then
  timeout 30 "$thin_bots_bin" --connect "127.0.0.1:$port" --thin --schema "$work/pitch.schema" --bots 8 \
    --script generic-walk --duration 3 --ramp 0.5 --max-disconnects 0 >"$work/thin.log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || { cat "$work/thin.log"; fail "thin bots exited with $status"; }
  grep -Eq "^  still connected +8$" "$work/thin.log" || { cat "$work/thin.log"; fail "not every thin bot stayed"; }
  ok "8 generic thin bots on the schema file: all stayed"
else
  skip "thin bots: no tickwire-bots with --thin, or no schema file from the server"
fi

# 5. A screenshot from the viewer under a virtual display.
if [ -x "$viewer_bin" ] && command -v xvfb-run >/dev/null && command -v Xvfb >/dev/null; then
  timeout 40 xvfb-run -a -s "-screen 0 1280x800x24" "$viewer_bin" --connect "127.0.0.1:$port" --script chase \
    --screenshot "$work/shot.png" --after 3 --stats-json "$work/viewer.json" >"$work/viewer.log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || { cat "$work/viewer.log"; fail "pitch-viewer exited with $status"; }
  python3 - "$work/shot.png" "$work/viewer.json" <<'PY' || { cat "$work/viewer.log"; fail "the viewer's picture or figures"; }
import json, struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert w >= 320 and h >= 200 and len(data) > 4000, (w, h, len(data))
s = json.load(open(sys.argv[2]))
assert s["connected"] and s["screenshot"] and s["game"] == "pitch", s
# Its own player, the ball and both goals at least.
assert s["players_drawn"] >= 1 and s["entities_drawn"] >= 4, s
assert s["client"]["snapshots"] > 30, s["client"]
print("screenshot %dx%d, %d bytes; %d entities drawn, %d snapshots"
      % (w, h, len(data), s["entities_drawn"], s["client"]["snapshots"]))
PY
  ok "pitch-viewer took a screenshot"
else
  skip "the viewer: no pitch-viewer (tickwire::viewer) or no Xvfb"
fi

# 6. SIGTERM: a clean, quick stop.
start=$(date +%s%N)
kill -TERM "$server_pid"
wait "$server_pid"
status=$?
server_pid=
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$status" -eq 0 ] || { cat "$work/server.log"; fail "pitch-server exited with $status after SIGTERM"; }
[ "$elapsed_ms" -le 2000 ] || fail "pitch-server took ${elapsed_ms} ms to stop"
ok "pitch-server stopped in ${elapsed_ms} ms"
