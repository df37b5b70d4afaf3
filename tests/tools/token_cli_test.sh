#!/usr/bin/env bash
# tickwire-token as a backend or an operator runs it: keygen, mint, inspect
# with and without the key, identity, and bad input that must end in one
# clear line and exit status 2.
# Usage: token_cli_test.sh TOKEN_BIN
set -u
bin=${1:?usage: token_cli_test.sh TOKEN_BIN}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# expect STATUS WHAT PATTERN ARGS...: runs the tool, checks its exit status
# and that its output (stdout and stderr) matches PATTERN.
expect() {
  local want=$1 what=$2 pattern=$3
  shift 3
  "$bin" "$@" >"$work/out" 2>&1
  local status=$?
  if [ "$status" -eq "$want" ] && grep -qE -- "$pattern" "$work/out"; then
    ok "$what"
  else
    bad "$what: exit $status (wanted $want), output:"; cat "$work/out"
  fi
}

printf 'not a key\n' >"$work/badkey"

# keygen: to stdout, and to a new file with mode 0600.
key_hex=$("$bin" keygen)
if [[ "$key_hex" =~ ^[0-9a-f]{64}$ ]]; then ok "keygen prints 64 hex digits"; else bad "keygen printed '$key_hex'"; fi
"$bin" keygen --out "$work/key" 2>/dev/null
mode=$(stat -c %a "$work/key" 2>/dev/null)
if [ "$mode" = 600 ] && grep -qE '^[0-9a-f]{64}$' "$work/key"; then
  ok "keygen --out writes the key with mode 0600"
else
  bad "keygen --out: mode '$mode', contents: $(cat "$work/key" 2>/dev/null)"
fi
expect 2 "keygen --out refuses to replace a key" "already exists" keygen --out "$work/key"

# mint: two lines of hex, the token and its session key.
"$bin" mint --key-file "$work/key" --server 127.0.0.1:7777 --server 10.0.0.2:9000 \
  --client-id 42 --expires-in 600 --user-data-hex 0a0B0c >"$work/minted"
token=$(sed -n 1p "$work/minted")
session=$(sed -n 2p "$work/minted")
if [[ "$token" =~ ^[0-9a-f]+$ ]] && [ "${#token}" -eq $((2 * 375)) ]; then
  ok "mint prints a 375-byte token as hex"
else
  bad "mint printed the token '$token'"
fi
if [[ "$session" =~ ^[0-9a-f]{64}$ ]] && [ "$(wc -l <"$work/minted")" -eq 2 ]; then
  ok "mint prints the session key as a second line of 64 hex digits"
else
  bad "mint printed: $(cat "$work/minted")"
fi

# inspect without the key: the public part only.
expect 0 "inspect shows the servers" "server +10\.0\.0\.2:9000" inspect "$token"
"$bin" inspect "$token" >"$work/public" 2>&1
if grep -q "client id" "$work/public"; then bad "inspect without a key showed the private part"; else
  ok "inspect without a key shows no private part"; fi

# inspect with the key: the private part and the check.
expect 0 "inspect with the key opens the token" "client id +42" inspect "$token" --key-file "$work/key"
expect 0 "inspect with the key shows the session key" "session key +$session" inspect "$token" --key-file "$work/key"
expect 0 "inspect with the key shows the user data" "user data +3 bytes: 0a0b0c" inspect "$token" --key-file "$work/key"
expect 0 "the token checks as its second server" "check +ok" inspect "$token" --key-file "$work/key" --server 10.0.0.2:9000
expect 1 "another server is rejected" "check +wrong server" inspect "$token" --key-file "$work/key" --server 10.0.0.2:9001
"$bin" keygen --out "$work/other" 2>/dev/null
expect 1 "another key is rejected" "check +invalid" inspect "$token" --key-file "$work/other"

# mint --out, then inspect @FILE.
"$bin" mint --key-file "$work/key" --server 127.0.0.1:7777 --client-id 7 --out "$work/token"
mode=$(stat -c %a "$work/token" 2>/dev/null)
if [ "$mode" = 600 ] && [ "$(wc -l <"$work/token")" -eq 2 ] && sed -n 2p "$work/token" | grep -qE '^[0-9a-f]{64}$'; then
  ok "mint --out writes the token and its session key with mode 0600"
else
  bad "mint --out: mode '$mode', contents: $(cat "$work/token" 2>/dev/null)"
fi
expect 0 "inspect @FILE reads a minted file" "client id +7" inspect "@$work/token" --key-file "$work/key"
expect 0 "inspect @FILE shows the file's session key" "session key +$(sed -n 2p "$work/token")" \
  inspect "@$work/token" --key-file "$work/key"

# identity: the secret seed to a new file, the public key printed.
public=$("$bin" identity --out "$work/server.id" 2>"$work/identity.err")
mode=$(stat -c %a "$work/server.id" 2>/dev/null)
if [[ "$public" =~ ^[0-9a-f]{64}$ ]] && [ "$mode" = 600 ] && grep -qE '^[0-9a-f]{64}$' "$work/server.id" &&
  ! grep -q "$public" "$work/server.id"; then
  ok "identity writes a 0600 seed file and prints a different public key"
else
  bad "identity: printed '$public', mode '$mode', file: $(cat "$work/server.id" 2>/dev/null)"
fi
grep -q -- "--server-key" "$work/identity.err" && ok "identity says how clients pin the key" ||
  bad "identity: $(cat "$work/identity.err")"
expect 0 "identity --public prints the same public key" "^$public\$" identity --public "$work/server.id"
expect 2 "identity --out refuses to replace an identity" "already exists" identity --out "$work/server.id"
expect 2 "identity --public of a file that is not one" "server identity is 64 hexadecimal digits" \
  identity --public "$work/badkey"
expect 2 "identity --public of a missing file" "nope.*cannot be read" identity --public "$work/nope"
expect 2 "identity needs --out or --public" "out|public" identity
expect 2 "identity takes --out or --public, not both" "excludes" identity --out "$work/x.id" --public "$work/server.id"

# Bad input: a clear line, exit 2.
expect 2 "missing key file" "nope.*cannot be read" mint --key-file "$work/nope" --server 127.0.0.1:7777 --client-id 1
expect 2 "key file that is not 64 hex digits" "64 hexadecimal digits" \
  mint --key-file "$work/badkey" --server 127.0.0.1:7777 --client-id 1
expect 2 "bad user data hex" "user-data-hex.*not a hexadecimal digit" \
  mint --key-file "$work/key" --server 127.0.0.1:7777 --client-id 1 --user-data-hex 0g
expect 2 "user data over 256 bytes" "257 bytes" \
  mint --key-file "$work/key" --server 127.0.0.1:7777 --client-id 1 --user-data-hex "$(printf 'ab%.0s' {1..257})"
expect 2 "server that is not IPv4" "not an IPv4 address" mint --key-file "$work/key" --server localhost:7777 --client-id 1
expect 2 "server without a port" "missing port" mint --key-file "$work/key" --server 127.0.0.1 --client-id 1
expect 2 "negative client id" "client-id" mint --key-file "$work/key" --server 127.0.0.1:7777 --client-id -1
expect 2 "token that is not hex" "not a hexadecimal digit" inspect "xyz"
expect 2 "token cut short" "shorter than the header" inspect "${token:0:40}"
expect 2 "token file missing" "cannot be read" inspect "@$work/none"

if [ "$(wc -l <"$work/out")" -ne 1 ]; then bad "an error took more than one line"; cat "$work/out"; fi

exit $fail
