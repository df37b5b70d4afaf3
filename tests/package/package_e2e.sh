#!/usr/bin/env bash
# Tickwire as a game consumes it:
#   1. `cmake --install` of the build tree into a fresh prefix;
#   2. examples/embed built as an outside project with find_package(tickwire),
#      and its binary run (no arguments: usage and exit 2);
#   3. pkg-config --cflags --libs tickwire compiles and links a client program;
#   3b. a game's own bots binary (tickwire::bots) with find_package, run
#      with --write-schema;
#   4. add_subdirectory of the source tree from an outside project: only the
#      libraries are generated (no tests, tools or examples) and they link.
# Usage: package_e2e.sh BUILD_DIR SOURCE_DIR [CXX_COMPILER]
set -u
build_dir=${1:?usage: package_e2e.sh BUILD_DIR SOURCE_DIR [CXX_COMPILER]}
source_dir=${2:?usage: package_e2e.sh BUILD_DIR SOURCE_DIR [CXX_COMPILER]}
# The installed static libraries must be linked by the compiler that built them.
cxx=${3:-${CXX:-c++}}
here=$(cd "$(dirname "$0")" && pwd)
jobs=${TICKWIRE_JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail=0

ok() { echo "ok   $* (${SECONDS}s)"; }
bad() { echo "FAIL $*"; fail=1; }
# run LOG CMD...: runs CMD with its output in LOG, shown only on failure.
run() {
  local log=$1
  shift
  if "$@" >"$log" 2>&1; then return 0; fi
  echo "---- $* failed:"; tail -n 60 "$log"; return 1
}

# 1. Install.
if ! run "$work/install.log" cmake --install "$build_dir" --prefix "$prefix"; then
  bad "cmake --install"; exit 1
fi
config=$(find "$prefix" -name tickwireConfig.cmake -print -quit)
version=$(find "$prefix" -name tickwireConfigVersion.cmake -print -quit)
pc=$(find "$prefix" -name tickwire.pc -print -quit)
if [ -n "$config" ] && [ -n "$version" ] && [ -n "$pc" ] && [ -f "$prefix/include/tickwire/client/client.h" ] \
   && [ -f "$prefix/include/tickwire/arena/arena.h" ]; then
  ok "install: headers, CMake package and pkg-config file"
else
  bad "install: missing files under $prefix:"; (cd "$prefix" && find . -type f | sort)
  exit 1
fi
# Tickwire's warning flags (and -Werror) are its own, never a game's.
if grep -q -e tickwire_warnings -e '-Werror' -e '-Wconversion' "$(dirname "$config")"/tickwireTargets*.cmake; then
  bad "installed targets leak Tickwire's warning flags"
else
  ok "installed targets carry no warning flags"
fi

# 2. examples/embed against the installed package.
if run "$work/embed-configure.log" cmake -S "$source_dir/examples/embed" -B "$work/embed" -G Ninja \
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
   && run "$work/embed-build.log" cmake --build "$work/embed" -j"$jobs"; then
  ok "examples/embed builds with find_package(tickwire)"
  "$work/embed/tickwire-embed" >"$work/embed.out" 2>&1
  status=$?
  if [ "$status" -eq 2 ] && grep -q "usage: tickwire-embed" "$work/embed.out"; then
    ok "tickwire-embed without arguments: usage, exit 2"
  else
    bad "tickwire-embed without arguments: exit $status, output:"; cat "$work/embed.out"
  fi
else
  bad "examples/embed as an outside project"
fi

# 3. pkg-config.
PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
if flags=$(pkg-config --cflags --libs tickwire 2>"$work/pkg-config.err"); then
  ok "pkg-config --cflags --libs tickwire: $flags"
  # shellcheck disable=SC2086  # the flags are words
  if run "$work/pc-build.log" "$cxx" -std=c++20 -o "$work/pc_consumer" "$here/consumer.cpp" $flags \
     && run "$work/pc-run.log" "$work/pc_consumer"; then
    ok "program built with the pkg-config flags links and runs"
  else
    bad "program built with the pkg-config flags"
  fi
else
  bad "pkg-config --cflags --libs tickwire:"; cat "$work/pkg-config.err"
fi

# 3b. A game's own bots binary: the runner's public header carries no
# CLI11 or spdlog, and the package needs neither CLI11 to be found.
if grep -rqE '#\s*include\s*[<"](CLI|spdlog)/' "$prefix/include/tickwire/bots"; then
  bad "the installed bots header includes CLI11 or spdlog"
elif run "$work/bots-configure.log" cmake -S "$here/bots" -B "$work/bots" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
     && run "$work/bots-build.log" cmake --build "$work/bots" -j"$jobs" \
     && run "$work/bots-run.log" "$work/bots/game-bots" --write-schema "$work/game.twschema" \
     && grep -q "^tickwire-schema 1$" "$work/game.twschema"; then
  ok "a game's bots binary builds on tickwire::bots and writes its schema"
else
  bad "a game's bots binary on the installed tickwire::bots"
fi

# 4. add_subdirectory from an outside project. It compiles the libraries
# the client needs again, the slow part: without optimisation, since this
# checks the configuration and the link, not the generated code.
sub=$work/subdir
if run "$work/subdir-configure.log" cmake -S "$here/subdir" -B "$sub" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
     -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_CXX_COMPILER="$cxx" -DTICKWIRE_SOURCE_DIR="$source_dir"; then
  leaked=""
  for target in core_unit_tests runtime_e2e_tests tickwire-server tickwire-bots tickwire-netsim tickwire-embed \
                tickwire_arena; do
    grep -qw -- "$target" "$sub/build.ninja" && leaked="$leaked $target"
  done
  if [ -z "$leaked" ]; then
    ok "add_subdirectory: no tests, tools or examples generated"
  else
    bad "add_subdirectory generated targets a game did not ask for:$leaked"
  fi
  if run "$work/subdir-build.log" cmake --build "$sub" -j"$jobs" --target subdir_consumer \
     && run "$work/subdir-run.log" "$sub/subdir_consumer"; then
    ok "add_subdirectory: tickwire::client links and runs"
  else
    bad "add_subdirectory: build of a tickwire::client consumer"
  fi
else
  bad "add_subdirectory: configure"
fi

exit $fail
