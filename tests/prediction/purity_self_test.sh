#!/usr/bin/env bash
# The purity check must catch each kind of violation.
set -u
check=${1:?usage: purity_self_test.sh PURITY_CHECK}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
expect_caught() {
  rm -rf "$tmp/p" && mkdir -p "$tmp/p/src"
  printf '%s\n' "$1" > "$tmp/p/src/bad.cpp"
  if bash "$check" "$tmp/p" > /dev/null; then
    echo "not caught: $1"
    failures=$((failures + 1))
  fi
}
expect_caught '#include "tickwire/transport/transport.h"'
expect_caught 'auto t = std::chrono::steady_clock::now();'
expect_caught '#include <iostream>'
expect_caught 'std::printf("x");'
expect_caught 'int r = rand();'
expect_caught 'static int counter = 0;'
expect_caught 'thread_local int x;'
rm -rf "$tmp/p" && mkdir -p "$tmp/p/src"
printf '%s\n' 'static constexpr int kFine = 1;' 'static int helper(int x);' > "$tmp/p/src/ok.cpp"
bash "$check" "$tmp/p" > /dev/null || { echo "false positive"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] && echo "purity check catches every violation"
exit "$failures"
