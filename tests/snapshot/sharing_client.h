#pragma once
// One client of the shared-path tests: two senders of the same config and
// what they are told alike, one coding with a shared EntityBitsCache and
// one alone, and a receiver of the first's packets. A step encodes a tick
// both ways, checks the bytes are the same, and (unless lost) decodes them
// and checks the client holds what its sender recorded.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"

namespace tickwire::snapshot::testing {

struct SharingClient {
  SnapshotSender shared;  // given the cache
  SnapshotSender alone;   // codes everything itself
  SnapshotReceiver receiver;
  std::vector<EntityId> relevant;

  SharingClient(const Schema& schema, const SenderConfig& sender, const ReceiverConfig& receiver_config)
      : shared(schema, sender), alone(schema, sender), receiver(schema, receiver_config), schema_(&schema) {}

  // Both senders see `ids` (any order).
  void see(std::vector<EntityId> ids) {
    relevant = std::move(ids);
    std::sort(relevant.begin(), relevant.end());
    shared.set_relevancy(Relevancy::of_ids(relevant));
    alone.set_relevancy(Relevancy::of_ids(relevant));
  }
  void acknowledge(Tick tick) {
    shared.acknowledge(tick);
    alone.acknowledge(tick);
  }
  // Encodes `tick` both ways and, unless `lost`, decodes it. Returns the
  // tick decoded (none when lost); a failure names `where`.
  std::optional<Tick> step(const WorldHistory& history, Tick tick, EntityBitsCache& cache, bool lost,
                           const std::string& where) {
    std::vector<std::uint8_t> with_cache;
    std::vector<std::uint8_t> without;
    shared.encode(history, tick, with_cache, &cache);
    alone.encode(history, tick, without);
    EXPECT_EQ(with_cache, without) << where;
    if (lost || with_cache != without) return std::nullopt;
    auto got = receiver.receive(with_cache);
    EXPECT_TRUE(got.ok()) << where;
    if (!got.ok()) return std::nullopt;
    const WorldState* ours = shared.view(got.value());
    EXPECT_TRUE(ours != nullptr && receiver.state(got.value())->same_content(*ours, *schema_)) << where;
    return got.value();
  }

 private:
  const Schema* schema_;  // the world's, which outlives the client
};

}  // namespace tickwire::snapshot::testing
