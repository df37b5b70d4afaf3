#!/usr/bin/env bash
# Style and static checks: clang-format (report only) and clang-tidy over the
# project's sources, using build/compile_commands.json.
# Usage: scripts/lint.sh [FILES...]   (default: every .cpp in the parts)
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f build/compile_commands.json ] || ./scripts/setup.sh
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files '*/src/*.cpp' 'server/app/*.cpp' 'tools/*.cpp'); fi

echo "== clang-format (files that differ from .clang-format)"
for f in "${files[@]}"; do
  clang-format --dry-run "$f" 2>&1 | grep -q warning && echo "  $f"
done

echo "== clang-tidy"
# The build uses GCC; clang does not know some of its warning flags.
clang-tidy -p build --quiet --extra-arg=-Wno-unknown-warning-option "${files[@]}" 2>&1 | grep -E "warning:|error:" || true
