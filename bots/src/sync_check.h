#pragma once
// The prediction sync test run on a live bot: takes the bot's predicted
// world as it stands, and replays it through prediction::SyncTest (rolled
// back and simulated again every few ticks, checksums compared) with a
// game object of its own and inputs from a fresh script of the bot's kind.
// A difference means the game's simulate is not deterministic on the
// states real play reaches, which scripted unit worlds may never reach.

#include <cstdint>
#include <optional>
#include <string>

#include "game_setup.h"
#include "tickwire/bots/bots.h"
#include "tickwire/core/tick.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::bots {

struct SyncCheckConfig {
  std::uint32_t ticks = 32;          // simulated from the bot's state
  std::uint32_t check_distance = 8;  // ticks rolled back at each check
};

struct SyncCheckResult {
  std::uint64_t checks = 0;            // comparisons made
  std::optional<std::string> failure;  // the first desync, described
};

// The game to test and the script whose kind draws the inputs.
struct SyncCheckGame {
  const GameSetup* game = nullptr;
  const ScriptInfo* script = nullptr;
};

// `world` is the bot's predicted world at `tick`, `player` its client id,
// `tick_rate` the server's (the test's game is told it, as the bot's was),
// `seed` seeds the inputs' script. Entities predicted locally and not yet
// confirmed by the server (ids of 65536 and up) are left out. A game hook
// that fails (make_game giving none, or throwing) is reported as the failure.
SyncCheckResult run_sync_check(const snapshot::World& world, Tick tick, std::uint32_t player, std::uint32_t tick_rate,
                               SyncCheckGame game, std::uint64_t seed, SyncCheckConfig config = {});

}  // namespace tickwire::bots
