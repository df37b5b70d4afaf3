// The shared path: with a codebook, clients' senders that share an
// EntityBitsCache send exactly the bytes each would have coded alone,
// while coding each entity's change once per baseline. Spinning,
// orbiting, churning entities (quaternions, wide and narrow fields) seen
// by clients with different relevancy, loss and ack delays.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sharing_client.h"
#include "snapshot_fixture.h"
#include "test_seed.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {
namespace {

constexpr std::uint32_t kHistory = 64;

struct Spinners {
  TypeId type;
  Field<Vec3> position;
  Field<Quat> rotation;
  Field<std::int32_t> health;
  Schema schema;
  World world;
  std::vector<EntityId> ids;

  Schema make() {
    SchemaBuilder b;
    TypeBuilder t = b.entity_type("spinner");
    type = t.id();
    position = t.add_vec3("position", {-200.0F, -20.0F, -200.0F}, {200.0F, 20.0F, 200.0F}, 0.01F);
    rotation = t.add_quat("rotation", 0.001F);
    health = t.add_int("health", 0, 100);
    return b.build();
  }
  Spinners() : schema(make()), world(schema) {
    for (int i = 0; i < 30; ++i) ids.push_back(world.spawn(type));
  }
  void step(std::uint32_t t) {
    if (t % 19 == 0) {  // one leaves, another joins
      world.despawn(ids[t % ids.size()]);
      ids[t % ids.size()] = world.spawn(type);
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const float k = static_cast<float>(i);
      const float phase = 0.02F * static_cast<float>(t) * (1.0F + 0.07F * k);
      // Every fifth one jumps now and then: large residuals.
      const float jump = (i % 5 == 0 && (t / 40) % 2 == 1) ? 30.0F : 0.0F;
      world.set(ids[i], position,
                Vec3{(10.0F + k) * std::cos(phase) + jump, std::sin(phase * 3.0F), (10.0F + k) * std::sin(phase)});
      const float half = 0.5F * phase * (1.0F + 0.3F * k);
      world.set(ids[i], rotation, Quat{std::cos(half), 0.0F, std::sin(half), 0.0F});
      if ((t + i) % 29 == 0) world.set(ids[i], health, static_cast<std::int32_t>((t + i) % 101));
    }
    world.quantize();
  }
};

SenderConfig sender_config(std::shared_ptr<const ModelState> codebook) {
  SenderConfig c;
  c.history_ticks = kHistory;
  c.codebook = std::move(codebook);
  return c;
}

ReceiverConfig receiver_config(std::shared_ptr<const ModelState> codebook) {
  ReceiverConfig c;
  c.history_ticks = kHistory;
  c.codebook = std::move(codebook);
  return c;
}

std::shared_ptr<const ModelState> trained(std::uint32_t ticks) {
  Spinners s;
  return snapshot::testing::train_codebook(s.world, ticks, 3, kHistory, [&s](std::uint32_t t) { s.step(t); });
}

struct Client : testing::SharingClient {
  std::deque<std::pair<std::uint32_t, Tick>> acks;  // (due, acked)
  Client(const Schema& schema, const std::shared_ptr<const ModelState>& book)
      : SharingClient(schema, sender_config(book), receiver_config(book)) {}
};

TEST(SharedBits, ClientsSharingACacheGetTheBytesEachWouldCodeAloneWithEachChangeCodedOnce) {
  const std::uint64_t seed = tickwire::testing::test_seed("SharedBits.ClientsSharingACache");
  std::mt19937_64 rng(seed);
  const auto book = trained(300);
  Spinners s;
  WorldHistory history(2 * kHistory);
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 0; c < 6; ++c) clients.push_back(std::make_unique<Client>(s.schema, book));
  EntityBitsCache cache;
  std::uint64_t decoded = 0;
  for (std::uint32_t t = 1; t <= 400; ++t) {
    s.step(t);
    history.capture(s.world, Tick(t));
    for (std::size_t c = 0; c < clients.size(); ++c) {
      Client& cl = *clients[c];
      // Clients 0 and 1 see everything and ack alike; the rest see a
      // changing part of the world, with their own loss and delays.
      if (c >= 2) {
        std::vector<EntityId> ids;
        for (std::size_t i = 0; i < s.ids.size(); ++i) {
          if ((i + c + t / 50) % 3 != 0) ids.push_back(s.ids[i]);
        }
        cl.see(std::move(ids));
      }
      const std::uint64_t misses = cache.misses();
      const bool lost = c >= 2 && rng() % 4 == 0;
      const std::string where =
          "client " + std::to_string(c) + ", tick " + std::to_string(t) + ", seed " + std::to_string(seed);
      const std::optional<Tick> got = cl.step(history, Tick(t), cache, lost, where);
      // Client 1 sees and acks as client 0 does: its changes are all coded.
      if (c == 1) {
        EXPECT_EQ(cache.misses(), misses) << where;
      }
      ASSERT_FALSE(::testing::Test::HasFailure()) << where;
      if (!got) continue;
      ++decoded;
      const std::uint32_t delay = c < 2 ? 2 : 1 + static_cast<std::uint32_t>(rng() % 8);
      cl.acks.emplace_back(t + delay, *got);
    }
    for (auto& cl : clients) {
      while (!cl->acks.empty() && cl->acks.front().first <= t) {
        cl->acknowledge(cl->acks.front().second);
        cl->acks.pop_front();
      }
    }
  }
  std::printf("seed %llu: %llu cache hits, %llu misses, %llu decoded\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(cache.hits()), static_cast<unsigned long long>(cache.misses()),
              static_cast<unsigned long long>(decoded));
  EXPECT_GT(cache.hits(), 0U);
}

TEST(SharedBits, AClientLikeAnotherCodesNothingNew) {
  const auto book = trained(200);
  Spinners s;
  WorldHistory history(2 * kHistory);
  SnapshotSender first(s.schema, sender_config(book));
  SnapshotSender second(s.schema, sender_config(book));
  EntityBitsCache cache;
  for (std::uint32_t t = 1; t <= 120; ++t) {
    s.step(t);
    history.capture(s.world, Tick(t));
    std::vector<std::uint8_t> a;
    std::vector<std::uint8_t> b;
    first.encode(history, Tick(t), a, &cache);
    const std::uint64_t misses = cache.misses();
    const std::uint64_t hits = cache.hits();
    second.encode(history, Tick(t), b, &cache);
    ASSERT_EQ(a, b) << "tick " << t;
    EXPECT_EQ(cache.misses(), misses) << "tick " << t;
    if (t > 5) {  // deltas from tick 5 on
      EXPECT_GT(cache.hits(), hits) << "tick " << t;
    }
    if (t > 3) {
      first.acknowledge(Tick(t - 3));
      second.acknowledge(Tick(t - 3));
    }
  }
}

TEST(SharedBits, AnEncoderRefusesACodebookItWasNotGiven) {
  const auto book = trained(60);
  const auto other = std::make_shared<ModelState>(*book);
  Spinners s;
  SnapshotEncoder encoder(s.schema);
  encoder.set_codebook(book);
  WorldState current;
  capture(s.world, Tick(1), current);
  EncodeInput in;
  in.current = &current;
  in.codebook = other.get();
  std::vector<std::uint8_t> bytes;
  WorldState view;
  EXPECT_THROW(encoder.encode(in, {}, bytes, view), std::invalid_argument);
}

TEST(SharedBits, HeldTablesAreTheOnesEveryCoderOfTheCodebookShares) {
  const auto book = trained(30);
  Spinners s;
  const auto held = hold_codebook_tables(book, s.schema);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(hold_codebook_tables(book, s.schema), held);  // found, not built again
  // Another codebook (even an equal copy) has tables of its own.
  EXPECT_NE(hold_codebook_tables(std::make_shared<ModelState>(*book), s.schema), held);
  EXPECT_THROW(hold_codebook_tables(nullptr, s.schema), std::invalid_argument);
  SchemaBuilder other;
  other.entity_type("dot").add_int("x", 0, 7);
  EXPECT_THROW(hold_codebook_tables(book, other.build()), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::snapshot
