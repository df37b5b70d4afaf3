#pragma once
// How a bot of the arena plays: one small class per behaviour behind
// ArenaScript, found by name. To add one, write the class in scripts.cpp
// and add a line to the table there. The bots runner (tickwire/bots)
// plays them through the adapter in arena_bots.h.
//
// A script is deterministic given its seed and what it is shown: it draws
// only from its own generator, seeded per bot from --seed and the bot's
// index, so a run can be replayed bot for bot.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tickwire/arena/arena.h"
#include "tickwire/bots/bots.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_model.h"

namespace tickwire::arena_bots {

using arena::Vec2;
using bots::Presence;

// What a bot sees when it picks an input: its avatar and the other players
// as drawn this frame.
struct ArenaView {
  std::optional<Vec2> self;
  std::span<const Vec2> others;
};

class ArenaScript {
 public:
  virtual ~ArenaScript() = default;
  ArenaScript() = default;
  ArenaScript(const ArenaScript&) = delete;
  ArenaScript& operator=(const ArenaScript&) = delete;

  // The input for one predicted tick; `out` starts neutral.
  virtual void input(const ArenaView& view, Tick tick, arena::Input& out) = 0;
  // Asked every frame: whether the bot should be in the game now. Leaving
  // because of it is not a failure.
  virtual bool wants_connected(const Presence& /*presence*/) { return true; }
  // Whether the runtime runs the prediction sync test on this bot.
  virtual bool runs_sync_test() const { return false; }
  // Whether the script aims the hitscan weapon: its view is then the other
  // players interpolated at exactly the view time its input claims, and
  // itself where the server will fire from (its predicted position before
  // the tick), and its shots are scored (shooting.h).
  virtual bool aims() const { return false; }
};

struct ScriptInfo {
  std::string name;
  std::string description;
  std::unique_ptr<ArenaScript> (*make)(std::uint64_t seed);
};

// Every script, in the order --help lists them.
const std::vector<ScriptInfo>& scripts();
// Null for an unknown name.
std::unique_ptr<ArenaScript> make_script(std::string_view name, std::uint64_t seed);
// "idle, wander, ...".
std::string script_names();

using bots::bot_seed;

// Walks at random with the odd dash, turning back from the walls. Shared by
// the scripts that play like it and by the sync test's input.
class Wander {
 public:
  explicit Wander(std::uint64_t seed) : rng_(seed) {}
  void input(const ArenaView& view, arena::Input& out);

 private:
  transport::SimRng rng_;
  float heading_ = 0.0F;
  int ticks_to_turn_ = 0;
};

}  // namespace tickwire::arena_bots
