#!/usr/bin/env bash
# Tickwire as a game consumes it:
#   1. `cmake --install` of the build tree into a fresh prefix;
#   2. examples/embed built as an outside project with find_package(tickwire),
#      and its binary run (no arguments: usage and exit 2);
#   2b. when the viewer was installed, a viewer main built with
#      find_package(tickwire COMPONENTS viewer), and its --help run;
#   3. pkg-config --cflags --libs tickwire compiles and links a client program;
#   3b. a game's own bots binary (tickwire::bots) with find_package, run
#      with --write-schema;
#   4. add_subdirectory of the source tree from an outside project: only the
#      libraries are generated (no tests, tools or examples) and they link;
#   5. a game's dedicated server built outside on tickwire::host
#      (find_package(tickwire COMPONENTS host)), and run.
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
if grep -q -e tickwire_warnings -e '-Werror' -e '-Wconversion' "$(dirname "$config")"/tickwire*Targets*.cmake; then
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

# 2b. The viewer part, when it was built (SDL2 and Dear ImGui found).
if [ -f "$prefix/include/tickwire/viewer/viewer.h" ]; then
  if run "$work/viewer-configure.log" cmake -S "$here/viewer_consumer" -B "$work/viewer" -G Ninja \
       -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
     && run "$work/viewer-build.log" cmake --build "$work/viewer" -j"$jobs" \
     && run "$work/viewer-help.log" "$work/viewer/viewer_consumer" --help \
     && grep -q "hosting packaged" "$work/viewer-help.log"; then
    ok "a viewer main builds with find_package(tickwire COMPONENTS viewer) and runs --help"
  else
    bad "the viewer part as an outside project"
  fi
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

# 5. A dedicated server on tickwire::host against the installed package
# (when the build made the host: TICKWIRE_BUILD_HOST).
host_build=$work/host-server
if [ ! -f "$prefix/include/tickwire/host/server_host.h" ]; then
  echo "skip tickwire::host was not built"
elif run "$work/host-configure.log" cmake -S "$here/host_server" -B "$host_build" -G Ninja \
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" \
   && run "$work/host-build.log" cmake --build "$host_build" -j"$jobs"; then
  ok "a server on tickwire::host builds with find_package(tickwire COMPONENTS host)"
  server=$host_build/outside-server
  if "$server" --version 2>&1 | grep -q "^outside-server [0-9.]* (outside 3.1.4)" \
     && "$server" --help 2>&1 | grep -q -- "--nearest" && "$server" --help 2>&1 | grep -q -- "--agones-counter"; then
    ok "outside-server --version and --help name the game, its flags and the host's"
  else
    bad "outside-server --version / --help:"; "$server" --version; "$server" --help | head -20
  fi
  "$server" --nearest 5000 >"$work/host-bad.out" 2>&1
  status=$?
  if [ "$status" -eq 2 ] && grep -q -- "--nearest" "$work/host-bad.out"; then
    ok "outside-server: a bad game flag exits 2 naming it"
  else
    bad "outside-server --nearest 5000: exit $status, output:"; cat "$work/host-bad.out"
  fi
  # Loopback, a port of this test's range; --duration ends it.
  "$server" --bind 127.0.0.1 --port "${TICKWIRE_PACKAGE_PORT:-17042}" --duration 0.5 --stats-interval 0 \
    >"$work/host-run.out" 2>&1
  status=$?
  if [ "$status" -eq 0 ] && grep -q "outside 3.1.4, listening on 127.0.0.1:" "$work/host-run.out" \
     && grep -q "stopped at tick" "$work/host-run.out"; then
    ok "outside-server serves, stops after --duration and exits 0"
  else
    bad "outside-server run: exit $status, output:"; cat "$work/host-run.out"
  fi
else
  bad "a server on tickwire::host as an outside project"
fi

exit $fail
