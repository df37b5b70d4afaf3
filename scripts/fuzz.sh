#!/usr/bin/env bash
# Builds libFuzzer targets with clang (ASan + UBSan) into build-fuzz/ and
# runs each for SECONDS, starting from its seed corpus in
# tests/fuzz/corpus/TARGET with the dictionary tests/fuzz/dict/TARGET.dict.
# Inputs the fuzzer finds go to build-fuzz/corpus/TARGET, so the checked-in
# seeds stay as they are; a crash leaves its input in build-fuzz/ and fails
# the script (with `all`, after the other targets have run).
#
#   scripts/fuzz.sh snapshot_decode 30
#   scripts/fuzz.sh all 8            every target, one after another
#   scripts/fuzz.sh list             the target names
#
# Targets and what they take: docs/security.md ("Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(packet_header handshake snapshot_timing input_packet snapshot_decode snapshot_codebook_decode server_receive
  client_receive connect_token address_validation enet_receive schema_file agones_watch sealed_datagram)
usage="usage: scripts/fuzz.sh TARGET|all|list SECONDS (targets: ${targets[*]})"

target=${1:?$usage}
if [ "$target" = list ]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
seconds=${2:?$usage}
if [ "$target" = all ]; then
  selected=("${targets[@]}")
  build_target=fuzz_targets
else
  [[ " ${targets[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target '$target'"; echo "$usage"; exit 2; }
  selected=("$target")
  build_target=$target
fi

cxx=${TICKWIRE_FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  for candidate in clang++ clang++-14; do
    if command -v "$candidate" >/dev/null; then cxx=$candidate; break; fi
  done
fi
[ -n "$cxx" ] || { echo "fuzz.sh: clang++ not found (apt-get install clang)"; exit 1; }

started=$SECONDS
cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build build-fuzz --target "$build_target" -j"${TICKWIRE_JOBS:-2}"
echo "== fuzz build took $((SECONDS - started))s"

# run NAME: fuzzes one target; returns libFuzzer's exit status.
run() {
  local name=$1 seeds=tests/fuzz/corpus/$1 found=build-fuzz/corpus/$1 dict=tests/fuzz/dict/$1.dict
  local options=(-max_total_time="$seconds" -max_len=1200 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1)
  [ -f "$dict" ] && options+=(-dict="../$dict")
  mkdir -p "$found"
  echo "== fuzzing $name for ${seconds}s (seeds: $seeds)"
  local status=0
  (cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "./$name" "${options[@]}" "corpus/$name" "../$seeds") > "build-fuzz/$name.log" 2>&1 || status=$?
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|Done [0-9]+ runs" \
    "build-fuzz/$name.log" || true
  if [ $status -ne 0 ]; then
    tail -40 "build-fuzz/$name.log"
    echo "fuzz.sh: $name failed (exit $status); log in build-fuzz/$name.log"
    return $status
  fi
  echo "== $name: no failure in ${seconds}s"
}

failed=()
for name in "${selected[@]}"; do
  run "$name" || failed+=("$name")
done
echo "== fuzz step took $((SECONDS - started))s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: failures in: ${failed[*]}"
  exit 1
fi
