#pragma once
// What a run plays: the game object every bot makes, the scripts it may
// use, and what the evil bots need to speak its protocol by hand. From
// the binary's BotsSpec, or, with --schema, from a schema file alone.

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "options.h"
#include "tickwire/bots/bots.h"
#include "tickwire/core/result.h"

namespace tickwire::bots {

struct GameSetup {
  std::function<std::unique_ptr<prediction::NetGame>()> make_game;
  std::vector<ScriptInfo> scripts;  // the game's, then the generic ones
  snapshot::Schema schema;
  snapshot::TypeId input_type;
  // The schema hash an honest client's Hello carries (the game's codebook
  // folded in), for the evil bots.
  std::uint64_t hello_schema_hash = 0;

  // Null for an unknown name.
  const ScriptInfo* find(std::string_view name) const;
};

// Every script name a spec offers, the generic ones included.
std::vector<ScriptInfo> all_scripts(const BotsSpec& spec);

// Resolves the game for parsed options: loads --schema and --codebook and
// checks the script against the game. The error is worded for the user.
Result<std::shared_ptr<const GameSetup>> make_game_setup(Options& options, const BotsSpec& spec);

}  // namespace tickwire::bots
