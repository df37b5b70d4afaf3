#!/usr/bin/env bash
# Builds a throwaway tree with known violations and expects the include
# checker to reject each one, and to accept a clean tree.
set -u
checker=${1:?usage: self_test.sh CHECKER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make_tree() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree"/{core,transport/src,transport/include,timesync,snapshot,prediction,lagcomp,server,client,tools}
  echo '#include "tickwire/core/tick.h"' >"$tmp/tree/snapshot/a.h"
  echo '#include <enet/enet.h>' >"$tmp/tree/transport/src/enet_transport.cpp"
}

expect() {  # expect OUTCOME DESCRIPTION
  if bash "$checker" "$tmp/tree" >/dev/null; then got=pass; else got=fail; fi
  if [ "$got" != "$1" ]; then
    echo "self test: expected $1 for $2, got $got"
    exit 1
  fi
}

make_tree; expect pass "a clean tree"
make_tree; echo '#include "tickwire/transport/transport.h"' >"$tmp/tree/timesync/b.cpp"; expect fail "timesync including transport"
make_tree; echo '#include "tickwire/prediction/x.h"' >"$tmp/tree/snapshot/b.h"; expect fail "snapshot including prediction"
make_tree; echo '#include "tickwire/client/client.h"' >"$tmp/tree/server/s.cpp"; expect fail "server including client"
make_tree; echo '#include "tickwire/server/server.h"' >"$tmp/tree/client/c.cpp"; expect fail "client including server"
make_tree; echo '#include "tickwire/snapshot/ids.h"' >"$tmp/tree/lagcomp/h.h"; expect pass "lagcomp including snapshot"
make_tree; mkdir -p "$tmp/tree/host/src"; echo '#include "tickwire/server/server.h"' >"$tmp/tree/host/src/h.cpp"; expect pass "host including server"
make_tree; mkdir -p "$tmp/tree/host/src"; echo '#include "tickwire/client/client.h"' >"$tmp/tree/host/src/h.cpp"; expect fail "host including client"
make_tree; mkdir -p "$tmp/tree/host/include"; echo '#include <CLI/CLI.hpp>' >"$tmp/tree/host/include/h.h"; expect fail "host's public header including CLI11"
make_tree; echo '#include "tickwire/server/server.h"' >"$tmp/tree/lagcomp/h.cpp"; expect fail "lagcomp including server"
make_tree; echo '#include "tickwire/prediction/x.h"' >"$tmp/tree/lagcomp/h.cpp"; expect fail "lagcomp including prediction"
make_tree; echo '#include "tickwire/lagcomp/x.h"' >"$tmp/tree/prediction/p.cpp"; expect fail "prediction including lagcomp"
make_tree; echo '#include "tickwire/lagcomp/x.h"' >"$tmp/tree/snapshot/p.cpp"; expect fail "snapshot including lagcomp"
make_tree; echo '#include "tickwire/lagcomp/x.h"' >"$tmp/tree/server/s.cpp"; expect pass "the server assembling lagcomp"
make_tree; echo '#include <enet/enet.h>' >"$tmp/tree/lagcomp/l.cpp"; expect fail "ENet in lagcomp"
make_tree; echo '#include <enet/enet.h>' >"$tmp/tree/server/s.cpp"; expect fail "ENet outside transport/src/enet_*.cpp"
make_tree; echo '#include <enet/enet.h>' >"$tmp/tree/transport/src/address.cpp"; expect fail "ENet in a transport source not named enet_*"
make_tree; echo '#include <enet/enet.h>' >"$tmp/tree/transport/src/enet_guard.h"; expect fail "ENet in a transport header"
make_tree; echo '#include <enet/enet.h>' >"$tmp/tree/transport/src/enet_guard.cpp"; expect pass "ENet in another enet_*.cpp"
make_tree; echo '#include "tickwire/arena/arena.h"' >"$tmp/tree/server/s.cpp"; expect fail "the server library including the game"
make_tree; mkdir -p "$tmp/tree/server/app"; echo '#include "tickwire/arena/arena.h"' >"$tmp/tree/server/app/main.cpp"
expect pass "the dedicated server binary hosting the game"
make_tree; mkdir -p "$tmp/tree/server/app"; echo '#include "tickwire/client/client.h"' >"$tmp/tree/server/app/main.cpp"
expect fail "the server binary including the client"
make_tree; mkdir -p "$tmp/tree/host/src"; echo '#include "tickwire/arena/arena.h"' >"$tmp/tree/host/src/h.cpp"
expect fail "the host including the game"
make_tree; mkdir -p "$tmp/tree/bots/src"; echo '#include "tickwire/client/client.h"' >"$tmp/tree/bots/src/b.cpp"
expect pass "the bots runner driving clients"
make_tree; mkdir -p "$tmp/tree/bots/src"; echo '#include "tickwire/arena/arena.h"' >"$tmp/tree/bots/src/b.cpp"
expect fail "the bots runner including a game"
make_tree; mkdir -p "$tmp/tree/bots/src"; echo '#include "tickwire/server/server.h"' >"$tmp/tree/bots/src/b.cpp"
expect fail "the bots runner including the server"
make_tree; mkdir -p "$tmp/tree/bots/include/tickwire/bots"; echo '#include <CLI/CLI.hpp>' >"$tmp/tree/bots/include/tickwire/bots/b.h"
expect fail "CLI11 in the bots' public header"
make_tree; mkdir -p "$tmp/tree/bots/src"; echo '#include <CLI/CLI.hpp>' >"$tmp/tree/bots/src/options.cpp"
expect pass "CLI11 inside the bots runner"
make_tree; echo 'struct X { ENetPeer* p; };' >"$tmp/tree/transport/include/t.h"; expect fail "ENet type in a public header"
make_tree; mkdir -p "$tmp/tree/viewer/include" "$tmp/tree/viewer/src"
echo '#include "tickwire/client/client.h"' >"$tmp/tree/viewer/src/a.cpp"; expect pass "the viewer on the client"
make_tree; mkdir -p "$tmp/tree/viewer/src"; echo '#include "tickwire/arena/arena.h"' >"$tmp/tree/viewer/src/a.cpp"
expect fail "the viewer including a game"
make_tree; mkdir -p "$tmp/tree/viewer/src"; echo '#include "tickwire/server/server.h"' >"$tmp/tree/viewer/src/a.cpp"
expect fail "the viewer including the server"
make_tree; mkdir -p "$tmp/tree/viewer/src"; echo '#include <SDL.h>' >"$tmp/tree/viewer/src/a.cpp"
expect pass "SDL in the viewer's sources"
make_tree; mkdir -p "$tmp/tree/viewer/include"; echo '#include <imgui.h>' >"$tmp/tree/viewer/include/v.h"
expect fail "Dear ImGui in the viewer's public header"
make_tree; mkdir -p "$tmp/tree/viewer/include"; echo 'void draw(SDL_Renderer* r);' >"$tmp/tree/viewer/include/v.h"
expect fail "an SDL type in the viewer's public header"
echo "include checker self test passed"
