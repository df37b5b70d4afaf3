#!/usr/bin/env bash
# prediction/ is pure logic: numbers and bytes in, decisions and bytes out.
# Beyond the include rules (tests/rules/check_includes.sh), this checks
# that no source reads a clock, does I/O, draws randomness from the
# system, or keeps mutable global state.
# Usage: purity_check.sh PREDICTION_DIR
set -u
dir=${1:?usage: purity_check.sh PREDICTION_DIR}
[ -d "$dir" ] || { echo "no such directory: $dir"; exit 2; }
violations=0

report() {  # report WHAT PATTERN
  local what=$1 pattern=$2
  while IFS= read -r hit; do
    echo "purity: $what: $hit"
    violations=$((violations + 1))
  done < <(grep -rnE "$pattern" "$dir" --include='*.h' --include='*.cpp' || true)
}

report "includes another part than core or snapshot" \
  '^\s*#\s*include\s*[<"]tickwire/(transport|timesync|server|client)/'
report "includes ENet" '^\s*#\s*include\s*[<"]enet/'
report "reads a clock" \
  'steady_clock|system_clock|high_resolution_clock|gettimeofday|clock_gettime|\bstd::time\(|[^_a-z.]time\(nullptr|[^_a-z]clock\(\)'
report "does I/O" \
  '#\s*include\s*<(iostream|fstream|cstdio|stdio\.h|filesystem)>|std::(cout|cerr|clog)|\b(f?printf|fopen|fwrite|puts)\(|spdlog'
report "draws system randomness" '\b(rand|srand)\(|random_device|getenv'
report "uses threads" 'thread_local|std::(thread|mutex|atomic)'
# A mutable static: `static` not followed by const/constexpr, and not a
# function (no parenthesis on the line).
while IFS= read -r hit; do
  line=${hit#*:*:}
  if [[ "$line" != *constexpr* && "$line" != *"const "* && "$line" != *"("* ]]; then
    echo "purity: mutable static: $hit"
    violations=$((violations + 1))
  fi
done < <(grep -rnE '^\s*static\s' "$dir" --include='*.h' --include='*.cpp' || true)

if [ "$violations" -gt 0 ]; then
  echo "$violations purity violation(s) in $dir"
  exit 1
fi
echo "$(basename "$dir") is pure logic"
