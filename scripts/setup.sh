#!/usr/bin/env bash
# Installs the Debian packages Tickwire needs (only the missing ones) and
# configures a Release build in build/. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config ninja-build
  libenet-dev libspdlog-dev libfmt-dev libcli11-dev
  prometheus-cpp-dev libcpp-httplib-dev libsodium-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsdl2-dev libimgui-dev xvfb xauth
  clang clang-format clang-tidy libclang-rt-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

build_dir=${TICKWIRE_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${TICKWIRE_CMAKE_ARGS:-} >/dev/null
echo "setup: configured $build_dir (Release)"
