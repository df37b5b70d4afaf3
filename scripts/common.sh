# Helpers shared by the run scripts; sourced, not run.

# require_built SCRIPT BIN...: exits 2 naming the first binary not built.
require_built() {
  local script=$1 bin
  shift
  for bin in "$@"; do
    [ -x "$bin" ] || { echo "$script: $bin is not built (run scripts/setup.sh)" >&2; exit 2; }
  done
}

# wait_for_line FILE PATTERN: waits up to 5 s for PATTERN to show in FILE.
wait_for_line() {
  local _
  for _ in $(seq 50); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
