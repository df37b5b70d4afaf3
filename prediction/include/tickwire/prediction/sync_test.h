#pragma once
// The sync test, after GGPO's SyncTest: catches a `simulate` that is not
// deterministic before the network makes it look like lag. It runs the
// game on the client's own prediction machinery with no server: every
// check_distance ticks it rolls every entity back check_distance ticks,
// simulates those ticks again with the same inputs (as a replay after a
// correction would), and compares a checksum of the state after each tick
// with the one from the first time. A difference fails with the tick and
// both states, field by field.
//
// Typical causes it finds: state kept outside the World (a member counter,
// a cache, a random generator not seeded from the tick), reading the
// clock, iterating a hash container, uninitialized values. Spawns must go
// through SimContext::spawn to be rolled back and checked.
//
//   SyncTest test(schema, game, sampler, initial_world, Tick(0), {.input_type = input});
//   for (int i = 0; i < 600; ++i) {
//     if (auto failure = test.advance()) FAIL() << failure->describe();
//   }

#include <cstdint>
#include <optional>
#include <string>

#include "tickwire/core/tick.h"
#include "tickwire/prediction/client_prediction.h"
#include "tickwire/prediction/game.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction {

struct SyncTestConfig {
  snapshot::TypeId input_type{};
  PlayerId player{};
  std::uint32_t tick_rate = 60;
  // Ticks rolled back and simulated again, every this many ticks (1..511).
  std::uint32_t check_distance = 8;
};

struct SyncFailure {
  Tick tick;                          // the first tick whose second simulation differed
  std::uint64_t first_checksum = 0;   // after simulating it the first time
  std::uint64_t second_checksum = 0;  // after rolling back and simulating it again
  std::string first_state;
  std::string second_state;
  std::string differences;  // the entities and fields that differ
  std::string describe() const;
};

class SyncTest {
 public:
  // Every entity of `initial` (ids below 65536) is simulated, from its
  // state at `start`. Throws std::invalid_argument for a bad config.
  SyncTest(snapshot::Schema schema, Game& game, InputSampler sampler, const snapshot::World& initial, Tick start,
           SyncTestConfig config);

  // Simulates the next tick and, every check_distance ticks, checks. The
  // first failure is returned by this call and every later one.
  std::optional<SyncFailure> advance();

  Tick tick() const { return tick_; }
  std::uint64_t checks() const { return checks_; }
  const ClientPrediction& prediction() const { return prediction_; }

 private:
  void check(Tick from);

  snapshot::Schema schema_;
  SyncTestConfig config_;
  ClientPrediction prediction_;
  Tick start_;
  Tick tick_;
  std::uint64_t checks_ = 0;
  std::vector<StateBlock> first_;
  std::optional<SyncFailure> failure_;
};

}  // namespace tickwire::prediction
