#!/usr/bin/env bash
# Builds a libFuzzer target with clang (ASan + UBSan) into build-fuzz/ and
# runs it for SECONDS, starting from its seed corpus in
# tests/fuzz/corpus/TARGET. Inputs the fuzzer finds go to
# build-fuzz/corpus/TARGET, so the checked-in seeds stay as they are; a
# crash leaves its input in build-fuzz/ and fails the script.
#
#   scripts/fuzz.sh snapshot_decode 30
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: scripts/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
cxx=${TICKWIRE_FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  for candidate in clang++ clang++-14; do
    if command -v "$candidate" >/dev/null; then cxx=$candidate; break; fi
  done
fi
[ -n "$cxx" ] || { echo "fuzz.sh: clang++ not found (apt-get install clang)"; exit 1; }

cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build build-fuzz --target "$target" -j"${TICKWIRE_JOBS:-2}"

seeds=tests/fuzz/corpus/$target
found=build-fuzz/corpus/$target
mkdir -p "$found"
echo "== fuzzing $target for ${seconds}s (seeds: $seeds)"
set +e
(cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "./$target" -max_total_time="$seconds" -max_len=1200 -rss_limit_mb=1024 -print_final_stats=1 \
  "corpus/$target" "../$seeds") > "build-fuzz/$target.log" 2>&1
status=$?
set -e
grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs" "build-fuzz/$target.log" || true
if [ $status -ne 0 ]; then
  tail -40 "build-fuzz/$target.log"
  echo "fuzz.sh: $target failed (exit $status); log in build-fuzz/$target.log"
  exit $status
fi
echo "== $target: no failure in ${seconds}s"
