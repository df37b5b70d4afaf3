#!/usr/bin/env bash
# Checks the include rules between parts (docs/architecture in DESIGN):
#   core        <- nothing of ours
#   transport   <- core              (the only place ENet appears)
#   timesync    <- core
#   snapshot    <- core
#   prediction  <- core, snapshot
#   lagcomp     <- core, snapshot    (beside prediction, never inside server)
#   server      <- everything but client
#   host        <- everything but client (a game's dedicated server; it
#                  hosts any prediction::NetGame and never sees a game)
#   server/app  <- the host and the reference game it hosts (the
#                  dedicated server binary's main)
#   client      <- everything but server
#   viewer      <- everything but server (a window onto any game: never a
#                  game's headers); SDL and Dear ImGui only in its sources,
#                  never in its public headers
#   bots        <- everything but server (the bots runner; never a game, and
#                  its public headers carry no CLI11 or spdlog)
#   tools, examples <- never ENet
# Only the ENet-facing sources of the transport, transport/src/enet_*.cpp,
# may include <enet/...>.
# Usage: check_includes.sh SOURCE_DIR
set -u
root=${1:?usage: check_includes.sh SOURCE_DIR}
cd "$root" || exit 2
violations=0

# check DIR ALLOWED...: every tickwire/<dep>/ include under DIR (a part, or
# part/app for a part's binary) must be that part or in ALLOWED. A part's
# check leaves out its app/ directory, which has a rule of its own.
check() {
  local dir=$1
  local part=${dir%%/*}
  shift
  local allowed=" $* "
  [ -d "$dir" ] || return 0
  local exclude=()
  [ "$dir" = "$part" ] && exclude=(--exclude-dir=app)
  while IFS=: read -r file line text; do
    dep=$(sed -E 's/.*[<"]tickwire\/([a-z_]+)\/.*/\1/' <<<"$text")
    if [[ "$dep" != "$part" && "$allowed" != *" $dep "* ]]; then
      echo "include rule: $file:$line: part '$part' may not include tickwire/$dep/ ($text)"
      violations=$((violations + 1))
    fi
  done < <(grep -rnE '^\s*#\s*include\s*[<"]tickwire/[a-z_]+/' "$dir" "${exclude[@]}" --include='*.h' --include='*.cpp' --include='*.hpp' || true)
}

check core
check transport core
check timesync core
check snapshot core
check prediction core snapshot
check lagcomp core snapshot
check server core transport timesync snapshot prediction lagcomp
check host core transport timesync snapshot prediction lagcomp server
check server/app core prediction host arena
check client core transport timesync snapshot prediction lagcomp
check viewer core transport timesync snapshot prediction lagcomp client
check bots core transport timesync snapshot prediction lagcomp client

# A game includes tickwire/bots/bots.h: only our own headers and the
# standard library there, so the runner's command-line parser and logger
# stay private to it.
while IFS=: read -r file line text; do
  echo "include rule: $file:$line: the bots' public headers may include only tickwire/ and standard headers ($text)"
  violations=$((violations + 1))
done < <(grep -rnE '^\s*#\s*include\s*[<"](CLI|spdlog|fmt|enet)/' bots/include 2>/dev/null || true)

while IFS=: read -r file line text; do
  if [[ "$file" != transport/src/enet_*.cpp ]]; then
    echo "include rule: $file:$line: only transport/src/enet_*.cpp may include ENet ($text)"
    violations=$((violations + 1))
  fi
done < <(grep -rnE '^\s*#\s*include\s*[<"]enet/' --include='*.h' --include='*.cpp' --include='*.hpp' \
  core transport timesync snapshot prediction lagcomp server host client viewer bots tools examples bench tests 2>/dev/null || true)

# Public headers of transport must not mention ENet types either.
if grep -rnE '\bENet[A-Z][A-Za-z]*\b|\benet_[a-z_]+\(' transport/include 2>/dev/null; then
  echo "include rule: ENet names appear in transport's public headers"
  violations=$((violations + 1))
fi

# The host's public header shows a game none of the libraries it is built
# on (CLI11, spdlog, fmt, prometheus-cpp, cpp-httplib, ENet).
if grep -rnE '^\s*#\s*include\s*[<"](CLI/|spdlog/|fmt/|prometheus/|httplib|enet/)' host/include 2>/dev/null; then
  echo "include rule: host's public headers include a third-party library"
  violations=$((violations + 1))
fi

# The viewer's public headers: no SDL or Dear ImGui, by include or by name,
# so a game's viewer main builds against them alone.
while IFS=: read -r file line text; do
  [[ "$text" =~ ^[[:space:]]*// ]] && continue  # prose may name them
  echo "include rule: $file:$line: the viewer's public headers may not name SDL or Dear ImGui ($text)"
  violations=$((violations + 1))
done < <(grep -rnE '^\s*#\s*include\s*[<"](SDL|imgui|backends/)|\bSDL_[A-Za-z]+|\bIm(Gui::|Gui[A-Z_]|Vec[24]\b|Draw[A-Z]|U32\b)' \
  viewer/include 2>/dev/null || true)

if [ "$violations" -gt 0 ]; then
  echo "$violations include rule violation(s)"
  exit 1
fi
echo "include rules hold"
