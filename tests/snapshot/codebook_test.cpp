// Codebooks: models trained on one run's packets and held fixed. A sender
// and receiver that share one decode a different, lossy, churning run
// exactly, keep no models per state, and code better than fixed codes;
// a codebook that does not fit the schema is refused; training averages.

#include "tickwire/snapshot/codebook.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "circle_movers.h"
#include "test_seed.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {
namespace {

constexpr std::uint32_t kHistory = 64;

// Walkers on circles (circle_movers.h); with churn one leaves and another
// joins every 23 ticks.
struct Walkers : testing::CircleMovers {
  explicit Walkers(float speed) : CircleMovers(Shape{20, 4.0F, 13, speed}) {}
};

SenderConfig sender_config(std::shared_ptr<const ModelState> codebook = nullptr, bool adaptive = true) {
  SenderConfig c;
  c.history_ticks = kHistory;
  c.adaptive_coding = adaptive;
  c.codebook = std::move(codebook);
  return c;
}

ReceiverConfig receiver_config(std::shared_ptr<const ModelState> codebook = nullptr) {
  ReceiverConfig c;
  c.history_ticks = kHistory;
  c.codebook = std::move(codebook);
  return c;
}

// A lossy, churning match: a fifth of the packets lost, acks 2 to 12 ticks
// late and out of order. Each decoded state must be the sender's; returns
// the bytes sent. `each` sees the sender after every tick.
template <class Each>
std::uint64_t play(Walkers& w, SnapshotSender& sender, SnapshotReceiver& receiver, std::uint32_t ticks,
                   std::mt19937_64& rng, Each&& each) {
  WorldHistory history(2 * kHistory);
  std::deque<std::pair<std::uint32_t, Tick>> acks;  // (due, acked)
  std::uint64_t bytes = 0;
  std::size_t decoded = 0;
  for (std::uint32_t t = 1; t <= ticks; ++t) {
    w.step(t, true);
    history.capture(w.world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(history, Tick(t), out);
    bytes += out.size();
    each(sender, t);
    if (rng() % 5 != 0) {
      auto got = receiver.receive(out);
      EXPECT_TRUE(got.ok()) << "tick " << t;
      if (!got.ok()) return bytes;
      const WorldState* ours = sender.view(got.value());
      EXPECT_TRUE(ours != nullptr && receiver.state(got.value())->same_content(*ours, w.schema)) << "tick " << t;
      ++decoded;
      acks.emplace_back(t + 2 + static_cast<std::uint32_t>(rng() % 11), got.value());
    }
    for (auto it = acks.begin(); it != acks.end();) {
      if (it->first > t) {
        ++it;
        continue;
      }
      sender.acknowledge(it->second);
      it = acks.erase(it);
    }
  }
  EXPECT_GT(decoded, ticks / 2);
  return bytes;
}

// Trains on a match like the ones it will code, at another speed and seed:
// every packet's models.
std::shared_ptr<const ModelState> trained(std::uint32_t ticks, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Walkers w(1.0F);
  SnapshotSender sender(w.schema, sender_config());
  SnapshotReceiver receiver(w.schema, receiver_config());
  CodebookTrainer trainer(w.schema);
  play(w, sender, receiver, ticks, rng, [&trainer](const SnapshotSender& s, std::uint32_t t) {
    if (const WorldState* view = s.view(Tick(t)); view != nullptr && view->models() != nullptr) {
      trainer.add(*view->models(), s.last_baseline_age());
    }
  });
  EXPECT_EQ(trainer.packets(), ticks);
  return trainer.codebook();
}

TEST(Codebook, TrainedOnOneMatchDecodesAnotherExactlyAndCodesBetterThanFixedCodes) {
  const std::uint64_t seed = testing::test_seed("Codebook.TrainedOnOneMatchDecodesAnotherExactly");
  const auto book = trained(400, seed + 1);
  std::uint64_t bytes[3] = {};  // codebook, fixed codes, adaptive
  for (int mode = 0; mode < 3; ++mode) {
    std::mt19937_64 rng(seed);
    Walkers w(1.3F);
    SnapshotSender sender(w.schema, sender_config(mode == 0 ? book : nullptr, mode != 1));
    SnapshotReceiver receiver(w.schema, receiver_config(mode == 0 ? book : nullptr));
    bytes[mode] = play(w, sender, receiver, 600, rng, [mode](const SnapshotSender& s, std::uint32_t t) {
      if (mode == 0) {
        EXPECT_EQ(s.states_with_models(), 0U) << "tick " << t;
      }
    });
    ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed << ", mode " << mode;
  }
  std::printf("seed %llu: %llu bytes with the codebook, %llu with fixed codes, %llu adaptive\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(bytes[0]),
              static_cast<unsigned long long>(bytes[1]), static_cast<unsigned long long>(bytes[2]));
  EXPECT_LT(bytes[0], bytes[1]);
}

// A receiver given a codebook reads hostile bodies as safely as any: cut,
// flipped and random bytes end in a drop or a state, never a crash.
TEST(Codebook, HostileBytesToACodebookReceiverAreDroppedOrDecoded) {
  const std::uint64_t seed = testing::test_seed("Codebook.HostileBytesToACodebookReceiver");
  std::mt19937_64 rng(seed);
  const auto book = trained(120, seed);
  Walkers w(1.0F);
  SnapshotSender sender(w.schema, sender_config(book));
  SnapshotReceiver receiver(w.schema, receiver_config(book));
  std::size_t dropped = 0;
  for (std::uint32_t t = 1; t <= 300; ++t) {
    w.step(t, true);
    WorldState state;
    capture(w.world, Tick(t), state);
    std::vector<std::uint8_t> out;
    sender.encode(state, out);
    std::vector<std::uint8_t> bad = out;
    switch (rng() % 3) {
      case 0: bad.resize(rng() % (bad.size() + 1)); break;
      case 1:
        if (!bad.empty()) bad[rng() % bad.size()] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
        break;
      default:
        for (std::size_t i = 1; i < bad.size(); ++i) bad[i] = static_cast<std::uint8_t>(rng());
        break;
    }
    dropped += receiver.receive(bad).ok() ? 0U : 1U;
    const auto got = receiver.receive(out);  // the honest one still decodes, unless its baseline was clobbered
    if (got.ok()) sender.acknowledge(got.value());
  }
  EXPECT_GT(dropped, 0U) << "seed " << seed;
}

TEST(Codebook, OneForAnotherSchemaOrWithoutAdaptiveCodingIsRefused) {
  const auto book = trained(60, 7);
  SchemaBuilder b;
  TypeBuilder t = b.entity_type("other");
  t.add_float("x", 0.0F, 1.0F, 0.5F);
  const Schema other = b.build();
  EXPECT_THROW(SnapshotSender(other, sender_config(book)), std::invalid_argument);
  EXPECT_THROW(SnapshotReceiver(other, receiver_config(book)), std::invalid_argument);
  const Walkers w(1.0F);
  EXPECT_THROW(SnapshotSender(w.schema, sender_config(book, false)), std::invalid_argument);
  EXPECT_NO_THROW(SnapshotSender(w.schema, sender_config(book)));
  // A certain decision would give the coder an empty interval.
  for (const std::uint16_t p : {std::uint16_t{0}, static_cast<std::uint16_t>(kProbOne)}) {
    auto certain = std::make_shared<ModelState>(*book);
    certain->spawn_gap.exponent[2].p = p;
    EXPECT_THROW(SnapshotSender(w.schema, sender_config(certain)), std::invalid_argument) << p;
    EXPECT_THROW(SnapshotReceiver(w.schema, receiver_config(certain)), std::invalid_argument) << p;
    auto table = std::make_shared<ModelState>(*book);
    auto types = std::make_shared<TypeModels>(*book->types[0]);
    types->bits()[1].p = p;
    table->types[0] = types;
    EXPECT_THROW(SnapshotReceiver(w.schema, receiver_config(table)), std::invalid_argument) << p;
  }
}

TEST(CodebookTrainer, AveragesEachModelOverThePacketsThatHadIt) {
  const Walkers w(1.0F);
  CodebookTrainer trainer(w.schema);
  TypeModels table;
  table.reset(w.schema.type(w.mover));
  ModelState a;
  a.ops.same[0].p = 1000;
  a.types.resize(1);
  table.bits()[3].p = 20000;
  a.types[0] = std::make_shared<TypeModels>(table);
  ModelState b;
  b.ops.same[0].p = 3000;  // its type table untouched: left out of the type's mean
  trainer.add(a, 2);
  trainer.add(b, 2);
  const auto book = trainer.codebook();
  EXPECT_EQ(book->ops.same[0].p, 2000);
  EXPECT_EQ(book->ops.same[1].p, kProbOne / 2);
  ASSERT_EQ(book->types.size(), 1U);
  ASSERT_NE(book->types[0], nullptr);
  EXPECT_EQ(book->types[0]->bits()[3].p, 20000);
  EXPECT_EQ(book->types[0]->bits()[4].p, kProbOne / 2);
  // Kept where adaptation keeps a probability: no decision is free.
  ModelState extreme;
  extreme.ops.same[0].p = 1;
  CodebookTrainer clamped(w.schema);
  clamped.add(extreme, 2);
  EXPECT_EQ(clamped.codebook()->ops.same[0].p, kProbOne >> kAdaptShift);
  EXPECT_TRUE(codebook_fits(*book, w.schema));
}

// A trainer that saw no packet has nothing to write: saving refuses with
// an error that says why and leaves the path alone; one packet suffices.
TEST(CodebookTrainer, RefusesToSaveBeforeAnyPacket) {
  const Walkers w(1.0F);
  CodebookTrainer trainer(w.schema);
  const std::string path = ::testing::TempDir() + "tickwire_untrained.twcb";
  std::remove(path.c_str());
  const auto refused = trainer.save(path, w.schema);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.error().detail.find("no snapshot"), std::string::npos) << refused.error().detail;
  EXPECT_NE(refused.error().detail.find(path), std::string::npos) << refused.error().detail;
  EXPECT_FALSE(std::filesystem::exists(path));

  trainer.add(ModelState{}, 0);
  const auto saved = trainer.save(path, w.schema);
  ASSERT_TRUE(saved.ok()) << saved.error().detail;
  auto back = load_codebook(path, w.schema);
  ASSERT_TRUE(back.ok()) << back.error().detail;
  EXPECT_EQ(write_codebook(*back.value(), w.schema), write_codebook(*trainer.codebook(), w.schema));
  std::remove(path.c_str());
}

// The file format: what is written reads back the same, and every kind of
// damage is an error that says what, never a codebook.
TEST(CodebookFile, RoundTripsAndRefusesEveryKindOfDamage) {
  const auto book = trained(80, 11);
  const Walkers w(1.0F);
  const std::vector<std::uint8_t> bytes = write_codebook(*book, w.schema);
  auto back = read_codebook(bytes, w.schema);
  ASSERT_TRUE(back.ok()) << back.error().detail;
  EXPECT_EQ(write_codebook(*back.value(), w.schema), bytes);
  EXPECT_EQ(codebook_hash(*back.value(), w.schema), codebook_hash(*book, w.schema));

  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const auto cut = read_codebook(std::span(bytes).first(n), w.schema);
    EXPECT_FALSE(cut.ok()) << "cut at " << n;
  }
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(read_codebook(longer, w.schema).error().code, ErrorCode::kMalformed);
  auto damaged = [&](std::size_t at, std::uint8_t value) {
    std::vector<std::uint8_t> d = bytes;
    d[at] = value;
    return read_codebook(d, w.schema);
  };
  EXPECT_EQ(damaged(0, 'X').error().code, ErrorCode::kBadProtocolId);
  EXPECT_EQ(damaged(4, 1).error().code, ErrorCode::kBadVersion);  // the format before age sets
  EXPECT_EQ(damaged(5, static_cast<std::uint8_t>(bytes[5] ^ 1U)).error().code, ErrorCode::kMalformed);  // schema hash
  // The first op model's probability (after magic, version and hash) made 0.
  std::vector<std::uint8_t> certain = bytes;
  certain[13] = 0;
  certain[14] = 0;
  EXPECT_EQ(read_codebook(certain, w.schema).error().code, ErrorCode::kOutOfRange);
  // The fixed models are 12 ops and 3 x 64 spawn models: the number of age
  // sets follows them, then the first set's type count, the walker's
  // presence byte and its model count.
  const std::size_t sets_at = 13 + 2 * (12 + 3 * 64);
  EXPECT_EQ(bytes[sets_at], kAgeSets);
  EXPECT_EQ(damaged(sets_at, 0).error().code, ErrorCode::kMalformed);
  EXPECT_EQ(damaged(sets_at, kAgeSets + 1).error().code, ErrorCode::kMalformed);
  const std::size_t types_at = sets_at + 1;
  EXPECT_EQ(damaged(types_at, 2).error().code, ErrorCode::kMalformed);
  EXPECT_EQ(damaged(types_at + 4, 7).error().code, ErrorCode::kMalformed);
  EXPECT_EQ(damaged(types_at + 5, static_cast<std::uint8_t>(bytes[types_at + 5] + 1)).error().code,
            ErrorCode::kMalformed);
  // Another codebook hashes differently.
  auto other = std::make_shared<ModelState>(*book);
  other->ops.same[1].p = static_cast<std::uint16_t>(other->ops.same[1].p ^ 1U);
  EXPECT_NE(codebook_hash(*other, w.schema), codebook_hash(*book, w.schema));
  EXPECT_NE(with_codebook(42, book.get(), w.schema), 42U);
  EXPECT_EQ(with_codebook(42, nullptr, w.schema), 42U);
}

TEST(CodebookFile, SavesAndLoadsAndNamesThePathOnFailure) {
  const auto book = trained(40, 12);
  const Walkers w(1.0F);
  const std::string path = ::testing::TempDir() + "tickwire-codebook-test.twcb";
  ASSERT_TRUE(save_codebook(path, *book, w.schema).ok());
  auto loaded = load_codebook(path, w.schema);
  ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
  EXPECT_EQ(write_codebook(*loaded.value(), w.schema), write_codebook(*book, w.schema));
  const auto missing = load_codebook(path + ".absent", w.schema);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kIo);
  EXPECT_NE(missing.error().detail.find(path), std::string::npos);
  EXPECT_FALSE(save_codebook("/nonexistent-dir/x.twcb", *book, w.schema).ok());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tickwire::snapshot
