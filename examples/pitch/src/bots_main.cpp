// pitch-bots: load-testing bots that play pitch, on the bots library. The
// runner brings the fleet, network conditions, thresholds and reports;
// the game brings its computer players (pitch/ai.h) as scripts.

#include <memory>
#include <string>

#include "pitch/ai.h"
#include "pitch/game.h"
#include "tickwire/bots/bots.h"

namespace {

namespace bots = tickwire::bots;
using tickwire::Tick;
using tickwire::snapshot::Record;
using tickwire::snapshot::World;

enum class Role { kChase, kDefend, kWander, kTeam };

// One computer player; `kTeam` gives each bot a role from its seed, so a
// fleet fields about two chasers to each defender and wanderer.
class PitchBot final : public bots::BotScript {
 public:
  PitchBot(Role role, std::uint64_t seed) : role_(role), seed_(seed) {
    if (role_ == Role::kTeam) role_ = seed % 4 == 0 ? Role::kDefend : seed % 4 == 1 ? Role::kWander : Role::kChase;
  }

  void input(const bots::BotView& view, Tick tick, Record& out) override {
    pitch::Input in;
    if (view.self && view.world.contains(*view.self)) in = play(view.world, *view.self, tick);
    pitch::to_record(in, out);
  }
  // Replays of its own prediction catch a simulate that is not deterministic.
  bool runs_sync_test() const override { return true; }

 private:
  pitch::Input play(const World& world, pitch::EntityId me, Tick tick) const {
    switch (role_) {
      case Role::kDefend: return pitch::defend_goal(world, me);
      case Role::kWander: {
        const auto board = pitch::find_scoreboard(world);
        const auto rate = board ? world.get(*board, pitch::schema().tick_rate) : 0;
        return pitch::wander(world, me, seed_, tick, static_cast<std::uint32_t>(rate > 0 ? rate : 60));
      }
      default: return pitch::chase_ball(world, me);
    }
  }

  Role role_;
  std::uint64_t seed_;
};

bots::ScriptInfo script(std::string name, std::string description, Role role) {
  return {std::move(name), std::move(description),
          [role](std::uint64_t seed) { return std::make_unique<PitchBot>(role, seed); }};
}

}  // namespace

int main(int argc, char** argv) {
  bots::BotsSpec spec;
  spec.program = "pitch-bots";
  spec.game_name = std::string(pitch::kGameName);
  spec.game_version = std::string(pitch::kGameVersion);
  spec.make_game = [] { return std::make_unique<pitch::Game>(); };
  spec.scripts = {script("team", "a mix: chasers, defenders and wanderers by seed", Role::kTeam),
                  script("chase", "runs the ball at the other goal", Role::kChase),
                  script("defend", "guards its own goal, clears the ball", Role::kDefend),
                  script("wander", "roams the pitch, kicks what comes by", Role::kWander)};
  spec.default_script = "team";
  return bots::run_bots(argc, argv, spec);
}
