// A game's bots binary: its game, one script, and the whole runner.
#include <memory>

#include "tickwire/arena/arena.h"
#include "tickwire/bots/bots.h"

namespace {

class Still final : public tickwire::bots::BotScript {
 public:
  void input(const tickwire::bots::BotView&, tickwire::Tick, tickwire::snapshot::Record&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  tickwire::bots::BotsSpec spec;
  spec.program = "game-bots";
  spec.game_name = "a packaged game";
  spec.make_game = [] { return std::make_unique<tickwire::arena::Game>(); };
  spec.scripts = {{"still", "stands still", [](std::uint64_t) { return std::make_unique<Still>(); }}};
  return tickwire::bots::run_bots(argc, argv, spec);
}
