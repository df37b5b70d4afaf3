#pragma once
// The arena's bots as the tests see them: its spec (tools/bots/arena_bots.h)
// resolved into the runner's GameSetup, and the command line parsed and
// resolved as run_bots does it.

#include <memory>
#include <variant>
#include <vector>

#include "arena_bots.h"
#include "game_setup.h"
#include "options.h"

namespace tickwire::bots::testing {

inline std::shared_ptr<const GameSetup> arena_setup() {
  Options options;
  options.script = "wander";
  auto setup = make_game_setup(options, arena_bots::spec());
  if (!setup) throw std::runtime_error(setup.error().detail);
  return setup.value();
}

// parse_options, then make_game_setup: 2 for what either refuses.
inline std::variant<Options, int> parse_arena(std::vector<const char*> args) {
  args.insert(args.begin(), "tickwire-bots");
  const BotsSpec spec = arena_bots::spec();
  auto parsed = parse_options(static_cast<int>(args.size()), args.data(), spec);
  if (std::holds_alternative<int>(parsed)) return parsed;
  Options& o = std::get<Options>(parsed);
  if (!make_game_setup(o, spec)) return 2;
  return parsed;
}

}  // namespace tickwire::bots::testing
