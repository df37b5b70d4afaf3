#!/usr/bin/env bash
# End to end over real UDP on loopback: a tickwire-server that requires
# connect tokens, bots minting tokens under its key (admitted, and the
# server logs who they are), under another key (denied: invalid) and
# without any (denied: required). Keys and tokens come from tickwire-token,
# and so does the server's identity, whose public key the server logs and
# the good bots pin.
# Usage: tokens_e2e.sh SERVER_BIN BOTS_BIN TOKEN_BIN
set -u
server_bin=${1:?server binary}
bots_bin=${2:?bots binary}
token_bin=${3:?token binary}
work=$(mktemp -d)
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() {
  echo "--- server log (tail)"
  tail -n 40 "$work/server.log"
  echo "$1"
  exit 1
}

"$token_bin" keygen --out "$work/key.hex" >/dev/null || fail "keygen failed"
"$token_bin" keygen --out "$work/other.hex" >/dev/null || fail "keygen failed"
server_key=$("$token_bin" identity --out "$work/server.id" 2>/dev/null) || fail "identity failed"
port=$((20000 + ($$ + 13) % 20000))
"$server_bin" --bind 127.0.0.1 --port "$port" --token-key-file "$work/key.hex" --server-identity "$work/server.id" \
  --log-format json >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
grep -q "listening on" "$work/server.log" || fail "server did not start"
grep -q "server key $server_key (from $work/server.id)" "$work/server.log" || fail "the server did not log its public key"
grep -qi "$(cat "$work/server.id")" "$work/server.log" && fail "the server logged its identity's secret"

"$bots_bin" --connect "127.0.0.1:$port" --bots 4 --duration 3 --token-key-file "$work/key.hex" \
  --server-key "$server_key" >"$work/good.log" 2>&1 || { cat "$work/good.log"; fail "bots with good tokens failed"; }
grep -q '"token_client_id":3' "$work/server.log" || fail "the server did not log the token's client id"

expect_denied() {  # NAME REASON [BOTS ARGS...]
  local name=$1 reason=$2
  shift 2
  "$bots_bin" --connect "127.0.0.1:$port" --bots 2 --duration 2 --report-json "$work/$name.json" "$@" \
    >"$work/$name.log" 2>&1 && fail "bots $name were admitted"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['summary']; \
sys.exit(0 if r['connected'] == 0 and r['denials_by_reason'].get(sys.argv[2]) == 2 else 1)" \
    "$work/$name.json" "$reason" || { cat "$work/$name.log"; fail "bots $name were not denied with '$reason'"; }
}
expect_denied none "connect token required"
expect_denied other "connect token invalid" --token-key-file "$work/other.hex"

kill -INT "$server_pid"
wait "$server_pid" || fail "server exited with $? after SIGINT"
server_pid=
echo "e2e ok: token holders admitted, tokens under another key and missing tokens denied with their reasons"
