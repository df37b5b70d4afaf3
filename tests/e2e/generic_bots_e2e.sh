#!/usr/bin/env bash
# End to end over real UDP on loopback: thin bots with no game code play the
# real tickwire-server from a schema file alone. The bots binary writes its
# game's schema (--write-schema); the run then builds its game from that
# file (--thin --schema), draws inputs within the input fields' ranges with
# every generic script, and must connect, stay connected and pass.
# Usage: generic_bots_e2e.sh SERVER_BIN BOTS_BIN CODEBOOK
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
codebook=${3:?the codebook the server ships}
work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

port=$((18000 + $$ % 100))
"$server_bin" --bind 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || { cat "$work/server.log"; echo "server did not start"; exit 1; }

"$bots_bin" --write-schema "$work/game.twschema" || { echo "--write-schema failed"; exit 1; }
head -n 1 "$work/game.twschema" | grep -q "^tickwire-schema 1$" || { cat "$work/game.twschema"; echo "not a schema file"; exit 1; }

# A schema file needs thin bots, and a bad one is refused with status 2.
"$bots_bin" --connect "127.0.0.1:$port" --schema "$work/game.twschema" --duration 1 >"$work/refused.log" 2>&1
[ $? -eq 2 ] && grep -q -- "--thin" "$work/refused.log" || { cat "$work/refused.log"; echo "--schema without --thin"; exit 1; }
printf 'tickwire-schema 1\ntype a entity\nfield x float min 0 max nan precision 1\n' >"$work/bad.twschema"
"$bots_bin" --connect "127.0.0.1:$port" --thin --schema "$work/bad.twschema" --duration 1 >"$work/bad.log" 2>&1
[ $? -eq 2 ] && grep -q "line 3" "$work/bad.log" || { cat "$work/bad.log"; echo "a bad schema file was not refused"; exit 1; }

for script in generic-walk generic-bursts generic-held generic-idle; do
  "$bots_bin" --connect "127.0.0.1:$port" --thin --schema "$work/game.twschema" --codebook "$codebook" \
    --script "$script" --bots 4 --duration 3 --ramp 0.3 --seed 7 >"$work/bots.log" 2>&1
  status=$?
  cat "$work/bots.log"
  [ "$status" -eq 0 ] || { cat "$work/server.log"; echo "$script: bots failed ($status)"; exit 1; }
  grep -Eq "^  connected +4/4" "$work/bots.log" || { echo "$script: not every bot connected"; exit 1; }
  grep -Eq "^  still connected +4$" "$work/bots.log" || { echo "$script: not every bot stayed connected"; exit 1; }
  grep -Eq "^  disconnects +0 " "$work/bots.log" || { echo "$script: disconnects"; exit 1; }
done
kill -0 "$server_pid" || { cat "$work/server.log"; echo "the server died"; exit 1; }
echo "generic thin bots played the server from its schema file"
