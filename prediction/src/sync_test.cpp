#include "tickwire/prediction/sync_test.h"

#include <limits>
#include <stdexcept>
#include <vector>

namespace tickwire::prediction {

namespace {

constexpr std::uint32_t kMaxCheckDistance = 511;

PredictionConfig prediction_config(const SyncTestConfig& c) {
  if (c.check_distance == 0 || c.check_distance > kMaxCheckDistance) {
    throw std::invalid_argument("SyncTestConfig: check_distance must be in 1..511");
  }
  PredictionConfig p;
  p.input_type = c.input_type;
  p.player = c.player;
  p.tick_rate = c.tick_rate;
  // Checks come every check_distance ticks and each confirms the state it
  // rolled back to, so prediction runs at most twice that far ahead.
  p.max_replay_ticks = 2 * c.check_distance + 1;
  p.inputs.capacity = p.max_replay_ticks + 2;
  p.skip_matching_replays = false;
  // No server will ever confirm a spawn here.
  p.spawn_confirm_ticks = std::numeric_limits<std::uint32_t>::max();
  return p;
}

}  // namespace

std::string SyncFailure::describe() const {
  return "simulate is not deterministic: tick " + std::to_string(tick.value()) + " gave checksum " +
         std::to_string(first_checksum) + " the first time and " + std::to_string(second_checksum) +
         " when simulated again\n" + differences + "first time:\n" + first_state + "second time:\n" + second_state;
}

SyncTest::SyncTest(snapshot::Schema schema, Game& game, InputSampler sampler, const snapshot::World& initial,
                   Tick start, SyncTestConfig config)
    : schema_(schema),
      config_(config),
      prediction_(std::move(schema), game, std::move(sampler), prediction_config(config)),
      start_(start),
      tick_(start) {
  std::vector<EntityId> ids;
  initial.for_each([&](EntityId id) { ids.push_back(id); });
  for (const EntityId id : ids) prediction_.predict(id);
  prediction_.on_authoritative(start, initial, ids);
}

std::optional<SyncFailure> SyncTest::advance() {
  ++tick_;
  prediction_.sample_and_simulate(tick_);
  const std::int64_t since = tick_ - start_;
  const auto n = static_cast<std::int64_t>(config_.check_distance);
  if (!failure_ && since >= n && since % n == 0) check(tick_ - n);
  return failure_;
}

void SyncTest::check(Tick from) {
  ++checks_;
  const std::int64_t depth = tick_ - from;
  first_.clear();
  for (std::int64_t i = 1; i <= depth; ++i) {
    if (const StateBlock* b = prediction_.history().find(from + i)) first_.push_back(*b);
  }
  if (!prediction_.resimulate_from(from)) return;
  for (const StateBlock& before : first_) {
    const StateBlock* after = prediction_.history().find(before.tick());
    if (after == nullptr) continue;
    const std::uint64_t a = before.checksum();
    const std::uint64_t b = after->checksum();
    if (a == b) continue;
    failure_ = SyncFailure{before.tick(),
                           a,
                           b,
                           describe(before, schema_),
                           describe(*after, schema_),
                           describe_differences(before, *after, schema_)};
    return;
  }
}

}  // namespace tickwire::prediction
