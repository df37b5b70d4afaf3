#pragma once
// How a bot plays: one small class per behaviour behind BotScript, found by
// name. To add one, write the class in scripts.cpp and add a line to the
// table there.
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
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_model.h"

namespace tickwire::bots {

using arena::Vec2;

// What a bot sees when it picks an input: its avatar and the other players
// as drawn this frame.
struct BotView {
  std::optional<Vec2> self;
  std::span<const Vec2> others;
};

// Where a bot stands, for scripts that come and go.
struct Presence {
  bool joined = false;     // it has a client: connecting or connected
  bool connected = false;  // the server welcomed it
  Duration since_change;   // since it joined, was welcomed or left, whichever came last
};

class BotScript {
 public:
  virtual ~BotScript() = default;
  BotScript() = default;
  BotScript(const BotScript&) = delete;
  BotScript& operator=(const BotScript&) = delete;

  // The input for one predicted tick; `out` starts neutral.
  virtual void input(const BotView& view, Tick tick, arena::Input& out) = 0;
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
  std::unique_ptr<BotScript> (*make)(std::uint64_t seed);
};

// Every script, in the order --help lists them.
const std::vector<ScriptInfo>& scripts();
// Null for an unknown name.
std::unique_ptr<BotScript> make_script(std::string_view name, std::uint64_t seed);
// "idle, wander, ...".
std::string script_names();

// The seed of bot `index` in a run seeded with `run_seed`: distinct per
// bot, and the same on every machine.
std::uint64_t bot_seed(std::uint64_t run_seed, std::size_t index);

// Walks at random with the odd dash, turning back from the walls. Shared by
// the scripts that play like it and by the sync test's input.
class Wander {
 public:
  explicit Wander(std::uint64_t seed) : rng_(seed) {}
  void input(const BotView& view, arena::Input& out);

 private:
  transport::SimRng rng_;
  float heading_ = 0.0F;
  int ticks_to_turn_ = 0;
};

}  // namespace tickwire::bots
