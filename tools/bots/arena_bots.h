#pragma once
// The arena's side of tickwire-bots: its scripts (scripts.h) played by the
// game-agnostic runner (tickwire/bots/bots.h). The adapter shows a script
// the players' positions, turns its arena::Input into the wire record and,
// for the shooter scripts, scores their hitscan shots (shooting.h): what
// the runner reports as hit registration.

#include <memory>
#include <vector>

#include "scripts.h"
#include "shooting.h"
#include "tickwire/bots/bots.h"

namespace tickwire::arena_bots {

class ArenaBotScript final : public bots::BotScript {
 public:
  explicit ArenaBotScript(std::unique_ptr<ArenaScript> script) : script_(std::move(script)) {}

  void input(const bots::BotView& view, Tick tick, snapshot::Record& out) override;
  bool wants_connected(const Presence& presence) override { return script_->wants_connected(presence); }
  bool runs_sync_test() const override { return script_->runs_sync_test(); }
  // A script that aims sees the others at its input's view time, fires
  // from its predicted position before the tick, and reads the server's
  // verdict on its last shot every frame.
  bool views_at_input_time() const override { return script_->aims(); }
  bool observes() const override { return script_->aims(); }
  void observe(const bots::BotView& newest) override;
  void client_closed() override { shots_.close(); }
  ShotFigures shots() const override { return shots_.figures(); }

 private:
  std::unique_ptr<ArenaScript> script_;
  std::vector<Vec2> others_;
  ShotLedger shots_;
};

// tickwire-bots: the arena's game and scripts for bots::run_bots.
bots::BotsSpec spec();

}  // namespace tickwire::arena_bots
