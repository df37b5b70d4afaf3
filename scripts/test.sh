#!/usr/bin/env bash
# Sets up, builds and runs every test suite: the Release build with warnings
# as errors runs everything; an ASan+UBSan build runs the deterministic
# suites (unit, sim, adversarial). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${TICKWIRE_JOBS:-2}
./scripts/setup.sh

echo "== build (Release, warnings as errors)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTICKWIRE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"

echo "== tests (Release): every suite"
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300

echo "== benchmarks, short runs (the full sweeps are run by hand: see README)"
mkdir -p build/bench-results
build/bench/timesync/bench_timesync --minutes 1 --profile broadband,wifi --json build/bench-results/timesync.json
build/bench/snapshot/bench_snapshot --seconds 10 --json build/bench-results/snapshot.json
build/bench/snapshot/bench_snapshot --transport enet --scene asteroids --seconds 3 \
  --json build/bench-results/snapshot_enet.json
build/bench/rollback/bench_rollback --entities 32 --depth 15 --json build/bench-results/rollback.json
build/bench/lagcomp/bench_lagcomp --json build/bench-results/lagcomp.json
build/bench/lagcomp/bench_hit_registration --seconds 10 --json build/bench-results/hit_registration.json
build/bench/prediction/bench_prediction --seconds 10 --json build/bench-results/prediction.json

echo "== build (ASan+UBSan)"
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTICKWIRE_WERROR=ON -DTICKWIRE_SANITIZE=ON \
  -DTICKWIRE_BUILD_BENCH=OFF >/dev/null
cmake --build build-sanitize -j"$jobs"

echo "== tests (ASan+UBSan): deterministic suites"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -L 'unit|sim|adversarial' --timeout 600

echo "== fuzzing: every target, a short run each (scripts/fuzz.sh TARGET SECONDS for longer)"
./scripts/fuzz.sh all "${TICKWIRE_FUZZ_SECONDS:-5}"

echo "== all test suites passed"
