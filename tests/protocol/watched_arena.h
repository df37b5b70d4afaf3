#pragma once
// The arena as the server hosts it, with a look at every tick's inputs
// before the arena simulates them: how tests see what the server hands the
// game (view times, rewinds) without a game of their own.

#include "tickwire/arena/arena.h"

namespace tickwire::testing {

class WatchedArena : public prediction::NetGame {
 public:
  const snapshot::Schema& schema() const override { return inner_.schema(); }
  prediction::TypeId input_type() const override { return inner_.input_type(); }
  bool supports_tick_rate(std::uint32_t rate) const override { return inner_.supports_tick_rate(rate); }
  std::shared_ptr<const snapshot::ModelState> snapshot_codebook() const override { return inner_.snapshot_codebook(); }
  void populate(snapshot::World& world) override { inner_.populate(world); }
  void player_joined(snapshot::World& world, prediction::PlayerId player) override {
    inner_.player_joined(world, player);
  }
  void player_left(snapshot::World& world, prediction::PlayerId player) override { inner_.player_left(world, player); }
  void before_snapshots(const snapshot::World& world) override { inner_.before_snapshots(world); }
  snapshot::Relevancy relevancy(const snapshot::World& world, prediction::PlayerId player) override {
    return inner_.relevancy(world, player);
  }
  std::optional<snapshot::EntityId> avatar(const snapshot::World& world, prediction::PlayerId player) const override {
    return inner_.avatar(world, player);
  }
  void predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                          std::vector<snapshot::EntityId>& out) const override {
    inner_.predicted_entities(world, player, out);
  }
  void simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs,
                prediction::SimContext& ctx) final {
    watch(tick, inputs);
    inner_.simulate(world, tick, inputs, ctx);
  }

 protected:
  // Sees the inputs of `tick` before the arena simulates them.
  virtual void watch(Tick tick, const prediction::Inputs& inputs) = 0;

 private:
  arena::Game inner_;
};

}  // namespace tickwire::testing
