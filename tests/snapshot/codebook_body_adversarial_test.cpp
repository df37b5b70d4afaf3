// The receiver obligations of codebook bodies (docs/wire-format.md,
// "Codebook bodies"): a body in two parts, the prefix-coded entities after
// their length and the range-coded rest. Cuts, lengths that do not fit,
// bytes between the parts, flipped bits and random bytes all end in a
// counted drop or a state whose every value is in range.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/field_codec.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

constexpr std::uint32_t kMaxEntities = 100;

// A codebook trained on the kitchen sink's things changing at random.
std::shared_ptr<const ModelState> kitchen_codebook(const KitchenSink& k) {
  std::mt19937_64 rng(11);
  World world(k.schema);
  std::vector<EntityId> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(world.spawn(k.thing));
  SnapshotSender sender(k.schema);
  CodebookTrainer trainer(k.schema);
  for (std::uint32_t t = 1; t <= 60; ++t) {
    testing::randomize_thing(k, world, ids[t % ids.size()], rng);
    WorldState s;
    capture(world, Tick(t), s);
    sender.encode(s);
    if (const WorldState* v = sender.view(Tick(t)); v != nullptr && v->models() != nullptr)
      trainer.add(*v->models(), sender.last_baseline_age());
    sender.acknowledge(Tick(t));
  }
  return trainer.codebook();
}

struct BookVictim {
  KitchenSink k;
  std::shared_ptr<const ModelState> book = kitchen_codebook(k);
  World world{k.schema};
  SnapshotSender sender{k.schema, config()};
  SnapshotReceiver receiver{k.schema, ReceiverConfig{64, kMaxEntities, 1200, book}};
  std::vector<std::uint8_t> full;   // a valid full snapshot at tick 10
  std::vector<std::uint8_t> delta;  // a valid delta at tick 12 against 10, with changed entities

  SenderConfig config() const {
    SenderConfig c;
    c.codebook = book;
    return c;
  }
  BookVictim() {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3; ++i) testing::randomize_thing(k, world, world.spawn(k.thing), rng);
    WorldState s;
    capture(world, Tick(10), s);
    full = sender.encode(s);
    EXPECT_TRUE(receiver.receive(full).ok());
    sender.acknowledge(Tick(10));
    testing::randomize_thing(k, world, EntityId{0}, rng);
    testing::randomize_thing(k, world, EntityId{2}, rng);
    world.spawn(k.pebble);
    capture(world, Tick(12), s);
    delta = sender.encode(s);
  }
  // Where the body starts in `delta`.
  std::size_t body_offset() const {
    SnapshotDecoder decoder(k.schema, DecodeLimits{});
    struct None : BaselineStore {
      const WorldState* held = nullptr;
      const WorldState* find(Tick) const override { return held; }
      const WorldState* find_by_low_bits(std::uint16_t) const override { return held; }
    } store;
    store.held = receiver.state(Tick(10));
    ParsedHeader p;
    EXPECT_FALSE(decoder.parse_header(delta, store, p).has_value());
    return p.body_offset;
  }
  void expect_dropped(std::span<const std::uint8_t> bytes, DropReason reason, const char* what) {
    const auto before = receiver.stats().dropped_for(reason);
    EXPECT_FALSE(receiver.receive(bytes).ok()) << what;
    EXPECT_EQ(receiver.stats().dropped_for(reason), before + 1)
        << what << ": dropped as " << (receiver.last_drop() ? to_string(*receiver.last_drop()) : "nothing");
    EXPECT_EQ(receiver.newest(), Tick(10)) << what;
  }
};

TEST(CodebookBodyObligations, RejectsEveryTruncation) {
  BookVictim v;
  for (std::size_t cut = 0; cut < v.delta.size(); ++cut) {
    EXPECT_FALSE(v.receiver.receive(std::span(v.delta).first(cut)).ok()) << "delta cut at " << cut;
  }
  for (std::size_t cut = 0; cut < v.full.size(); ++cut) {
    SnapshotReceiver fresh(v.k.schema, ReceiverConfig{64, kMaxEntities, 1200, v.book});
    EXPECT_FALSE(fresh.receive(std::span(v.full).first(cut)).ok()) << "full cut at " << cut;
  }
  ASSERT_TRUE(v.receiver.receive(v.delta).ok());
  EXPECT_TRUE(v.receiver.state(Tick(12))->same_content(*v.sender.view(Tick(12)), v.k.schema));
}

TEST(CodebookBodyObligations, RejectsPrefixLengthsTheBodyDoesNotHold) {
  BookVictim v;
  const std::size_t at = v.body_offset();
  ASSERT_LT(at, v.delta.size());
  ASSERT_LT(v.delta[at], 0x80U) << "a one-byte length";
  // One byte more than the body has.
  auto longer = v.delta;
  longer[at] = static_cast<std::uint8_t>(v.delta.size() - at);
  v.expect_dropped(longer, DropReason::kTruncated, "length past the body");
  // A length in four bytes: no body is that long.
  auto wide = v.delta;
  const std::vector<std::uint8_t> four = {0x80, 0x80, 0x80, 0x00};
  wide.erase(wide.begin() + static_cast<std::ptrdiff_t>(at));
  wide.insert(wide.begin() + static_cast<std::ptrdiff_t>(at), four.begin(), four.end());
  v.expect_dropped(wide, DropReason::kMalformed, "four-byte length");
  // Cut inside the length itself.
  const std::vector<std::uint8_t> open(v.delta.begin(), v.delta.begin() + static_cast<std::ptrdiff_t>(at));
  auto dangling = open;
  dangling.push_back(0x80);
  v.expect_dropped(dangling, DropReason::kTruncated, "length cut short");
  ASSERT_TRUE(v.receiver.receive(v.delta).ok());
}

TEST(CodebookBodyObligations, RejectsBytesBetweenThePartsAndAfterTheEnd) {
  BookVictim v;
  const std::size_t at = v.body_offset();
  const std::size_t prefix = v.delta[at];
  ASSERT_GT(prefix, 0U) << "the delta has changed entities";
  // A zero byte slipped in after the prefix-coded part, and counted in it.
  auto padded = v.delta;
  padded[at] = static_cast<std::uint8_t>(prefix + 1);
  padded.insert(padded.begin() + static_cast<std::ptrdiff_t>(at + 1 + prefix), std::uint8_t{0});
  v.expect_dropped(padded, DropReason::kMalformed, "a byte after the prefix-coded part");
  auto trailing = v.delta;
  trailing.push_back(0);
  v.expect_dropped(trailing, DropReason::kMalformed, "a byte after the body");
  ASSERT_TRUE(v.receiver.receive(v.delta).ok());
}

TEST(CodebookBodyObligations, SurvivesFlippedBitsAndRandomBytes) {
  const auto seed = testing::test_seed("CodebookBodyObligations.SurvivesFlippedBitsAndRandomBytes");
  BookVictim v;
  testing::receive_damaged_packets(v.receiver, v.k.schema, v.delta, v.full, kMaxEntities, seed, 20000);
}

}  // namespace
}  // namespace tickwire::snapshot
