// One test per receiver obligation of docs/wire-format.md, "Snapshot".
// Hostile packets are built with the same primitives the encoder uses, so
// each one is wrong in exactly the way the test names.

#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "snapshot_fixture.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/snapshot/field_codec.h"
#include "tickwire/snapshot/range_coder.h"
#include "tickwire/snapshot/residual_code.h"
#include "tickwire/snapshot/snapshot_codec.h"
#include "tickwire/snapshot/snapshot_header.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

constexpr std::uint32_t kMaxEntities = 100;

struct Victim {
  KitchenSink k;
  World world{k.schema};
  SnapshotSender sender{k.schema};
  SnapshotReceiver receiver{k.schema, ReceiverConfig{64, kMaxEntities, 1200}};
  std::vector<std::uint8_t> full;   // a valid full snapshot at tick 10
  std::vector<std::uint8_t> delta;  // a valid delta at tick 12 against 10 (not yet delivered)

  Victim() {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3; ++i) testing::randomize_thing(k, world, world.spawn(k.thing), rng);
    world.spawn(k.pebble);  // id 3, at its defaults
    WorldState s;
    capture(world, Tick(10), s);
    full = sender.encode(s);
    EXPECT_TRUE(receiver.receive(full).ok());
    sender.acknowledge(Tick(10));
    testing::randomize_thing(k, world, EntityId{1}, rng);
    capture(world, Tick(12), s);
    delta = sender.encode(s);
  }

  // Receives `bytes`, expecting a drop for `reason` that changes nothing.
  void expect_dropped(std::span<const std::uint8_t> bytes, DropReason reason, const char* what) {
    const auto before = receiver.stats().dropped_for(reason);
    const auto newest = receiver.newest();
    std::vector<Tick> held_before;
    receiver.held_ticks(held_before);
    const auto r = receiver.receive(bytes);
    EXPECT_FALSE(r.ok()) << what;
    EXPECT_EQ(receiver.stats().dropped_for(reason), before + 1)
        << what << ": dropped as " << (receiver.last_drop() ? to_string(*receiver.last_drop()) : "nothing");
    EXPECT_EQ(receiver.newest(), newest) << what;
    std::vector<Tick> held_after;
    receiver.held_ticks(held_after);
    EXPECT_EQ(held_before, held_after) << what;
  }
};

std::vector<std::uint8_t> header(const SnapshotHeader& h) {
  BitWriter w(32);
  SnapshotHeader copy = h;
  EXPECT_TRUE(serialize(w, copy));
  return w.take();
}

SnapshotHeader full_header(std::uint32_t tick) {
  SnapshotHeader h;
  h.tick = tick;
  h.static_models = true;  // fixed codes: every decision at one half, so bodies are easy to write by hand
  h.has_body = true;
  return h;
}

SnapshotHeader delta_header(std::uint32_t baseline, std::uint32_t age) {
  SnapshotHeader h;
  h.has_baseline = true;
  h.baseline_low = static_cast<std::uint16_t>(baseline & 0xFFFFU);
  h.age = age;
  h.static_models = true;
  h.has_body = true;
  return h;
}

// A body of spawns in fixed codes: count, then id gap, type and raw codes.
struct SpawnBody {
  std::vector<std::uint8_t> bytes;
  RangeEncoder rc{bytes, false};
  MagnitudeModel count;
  MagnitudeModel gap;
  MagnitudeModel generation;
  std::uint32_t next_min = 0;
  std::uint32_t generation_value = 1;  // of the spawns to come
  void spawns(std::uint32_t n) { encode_magnitude(rc, count, n + 1, kMaxExponent); }
  void spawn(std::uint32_t id, std::uint32_t type, const TypeSpec& spec, std::size_t bad_slot = ~std::size_t{0},
             std::uint32_t bad_code = 0) {
    encode_magnitude(rc, gap, id - next_min + 1, kMaxExponent);
    next_min = id + 1;
    rc.direct(type, 2);  // three types: two bits
    encode_magnitude(rc, generation, generation_value + 1, kMaxExponent);
    for (std::size_t i = 0; i < spec.components.size(); ++i) {
      if (spec.components[i].bits == 0) continue;
      rc.direct(i == bad_slot ? bad_code : 0, spec.components[i].bits);
    }
  }
  std::vector<std::uint8_t> finish(std::vector<std::uint8_t> head) {
    rc.finish();
    head.insert(head.end(), bytes.begin(), bytes.end());
    return head;
  }
};

TEST(SnapshotReceiverObligations, RejectsEveryTruncation) {
  Victim v;
  for (std::size_t cut = 0; cut < v.delta.size(); ++cut) {
    const auto r = v.receiver.receive(std::span(v.delta).first(cut));
    EXPECT_FALSE(r.ok()) << "delta cut at " << cut << " of " << v.delta.size();
  }
  Victim w;
  for (std::size_t cut = 0; cut < w.full.size(); ++cut) {
    SnapshotReceiver fresh(w.k.schema);
    EXPECT_FALSE(fresh.receive(std::span(w.full).first(cut)).ok()) << "full cut at " << cut;
    EXPECT_EQ(fresh.stats().dropped_total(), 1U);
  }
  EXPECT_TRUE(v.receiver.receive(v.delta).ok());
}

TEST(SnapshotReceiverObligations, RejectsTrailingBytes) {
  Victim v;
  auto longer = v.delta;
  longer.push_back(0);
  v.expect_dropped(longer, DropReason::kMalformed, "a zero byte after the body");
  SnapshotHeader h = delta_header(10, 3);
  h.has_body = false;
  auto bodyless = header(h);
  EXPECT_TRUE(v.receiver.receive(bodyless).ok());
  h.age = 4;
  bodyless = header(h);
  bodyless.push_back(0x5A);
  v.expect_dropped(bodyless, DropReason::kMalformed, "bytes after a snapshot without a body");
}

TEST(SnapshotReceiverObligations, RejectsOversizedSnapshots) {
  Victim v;
  std::vector<std::uint8_t> big(1201, 0);
  v.expect_dropped(big, DropReason::kOversized, "1201 bytes");
}

TEST(SnapshotReceiverObligations, RejectsSnapshotsWhoseBaselineIsNotHeld) {
  Victim v;
  v.expect_dropped(header(delta_header(11, 3)), DropReason::kMissingBaseline, "baseline 11 never decoded");
  SnapshotReceiver empty(v.k.schema);
  EXPECT_FALSE(empty.receive(v.delta).ok());
  EXPECT_EQ(empty.stats().dropped_for(DropReason::kMissingBaseline), 1U);
}

TEST(SnapshotReceiverObligations, RejectsSnapshotsWhoseReferenceIsNotHeld) {
  Victim v;
  SnapshotHeader h = delta_header(10, 2);
  h.has_reference = true;
  h.reference_gap = 4;  // tick 6: never held
  // The references are checked before the body is read, so any body will do.
  auto bytes = header(h);
  bytes.insert(bytes.end(), {0x12, 0x34, 0x56, 0x78});
  v.expect_dropped(bytes, DropReason::kMissingReference, "reference at tick 6");
  h.reference_gap = 2;  // tick 8: not held either
  h.has_reference2 = true;
  h.reference2_gap = 1;
  bytes = header(h);
  bytes.insert(bytes.end(), {0x12, 0x34, 0x56, 0x78});
  v.expect_dropped(bytes, DropReason::kMissingReference, "references at ticks 8 and 7");
}

// A body whose models start from an older state than its baseline names
// that state; one not held (or before tick 0) drops the snapshot before
// its body is read.
TEST(SnapshotReceiverObligations, RejectsSnapshotsWhoseModelsStateIsNotHeld) {
  Victim v;
  SnapshotHeader h = delta_header(10, 2);
  h.static_models = false;
  h.models_elsewhere = true;
  h.models_gap = 3;  // tick 7: never held
  auto bytes = header(h);
  bytes.insert(bytes.end(), {0x12, 0x34, 0x56, 0x78});
  v.expect_dropped(bytes, DropReason::kMissingBaseline, "models from tick 7");
  h.models_gap = 11;  // before tick 0
  bytes = header(h);
  bytes.insert(bytes.end(), {0x12, 0x34, 0x56, 0x78});
  v.expect_dropped(bytes, DropReason::kOutOfRange, "models from before tick 0");
}

// The header's models field round-trips: the baseline's (one bit), fresh,
// or an older state's at any gap the format carries.
TEST(SnapshotHeaderFormat, ModelsFieldRoundTrips) {
  for (std::uint32_t gap : {0U, 1U, 2U, 100U, kMaxHistoryTicks}) {
    for (bool fresh : {false, true}) {
      if (fresh && gap != 0) continue;
      SnapshotHeader h = delta_header(10, 2);
      h.static_models = false;
      h.fresh_models = fresh;
      h.models_elsewhere = gap != 0;
      h.models_gap = gap;
      const auto bytes = header(h);
      BitReader r(bytes);
      SnapshotHeader back;
      ASSERT_TRUE(serialize(r, back)) << gap;
      EXPECT_EQ(back.fresh_models, fresh) << gap;
      EXPECT_EQ(back.models_elsewhere, gap != 0) << gap;
      if (gap != 0) {
        EXPECT_EQ(back.models_gap, gap);
      }
    }
  }
}

// A writer refuses a models field the format cannot carry instead of
// sending one a receiver would read as something else.
TEST(SnapshotHeaderFormat, ModelsGapsOutsideTheFormatAreRefused) {
  for (std::uint32_t gap : {0U, kMaxHistoryTicks + 1}) {
    SnapshotHeader h = delta_header(10, 2);
    h.static_models = false;
    h.models_elsewhere = true;
    h.models_gap = gap;
    BitWriter w(32);
    EXPECT_FALSE(serialize(w, h)) << gap;
  }
  SnapshotHeader both = delta_header(10, 2);
  both.static_models = false;
  both.fresh_models = true;
  both.models_elsewhere = true;
  both.models_gap = 3;
  BitWriter w(32);
  EXPECT_FALSE(serialize(w, both));
}

TEST(SnapshotReceiverObligations, RejectsBaselinesOlderThanItsHistory) {
  Victim v;
  SnapshotHeader h = delta_header(10, 64);
  h.has_body = false;
  v.expect_dropped(header(h), DropReason::kOutOfRange, "age 64 with a 64-tick history");
  // A baseline near the end of tick time whose age would overflow it.
  SnapshotReceiver r(v.k.schema);
  SpawnBody body;
  body.spawns(0);
  ASSERT_TRUE(r.receive(body.finish(header(full_header(0xFFFF'FFFEU)))).ok());
  SnapshotHeader over = delta_header(0xFFFF'FFFEU, 5);
  over.has_body = false;
  EXPECT_FALSE(r.receive(header(over)).ok());
  EXPECT_EQ(r.stats().dropped_for(DropReason::kOutOfRange), 1U);
}

TEST(SnapshotReceiverObligations, RejectsOutOfRangeEntityIds) {
  Victim v;
  SpawnBody body;
  body.spawns(1);
  body.spawn(kMaxEntities, v.k.pebble.value, v.k.schema.type(v.k.pebble));
  v.expect_dropped(body.finish(header(full_header(20))), DropReason::kOutOfRange, "id at the entity limit");
}

// Generations go modulo 65,536 (protocol version 4): a larger one is
// malformed, the largest is an entity like any other.
TEST(SnapshotReceiverObligations, RejectsGenerationsBeyondSixteenBits) {
  Victim v;
  SpawnBody body;
  body.generation_value = 0x1'0000U;
  body.spawns(1);
  body.spawn(5, v.k.pebble.value, v.k.schema.type(v.k.pebble));
  v.expect_dropped(body.finish(header(full_header(20))), DropReason::kOutOfRange, "generation 65536");
  SpawnBody largest;
  largest.generation_value = 0xFFFFU;
  largest.spawns(1);
  largest.spawn(5, v.k.pebble.value, v.k.schema.type(v.k.pebble));
  SnapshotReceiver fresh(v.k.schema);
  const auto got = fresh.receive(largest.finish(header(full_header(21))));
  ASSERT_TRUE(got.ok());
  const EntityState* e = fresh.state(got.value())->find(EntityId{5});
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->generation, 0xFFFFU);
}

TEST(SnapshotReceiverObligations, RejectsUnknownEntityTypes) {
  Victim v;
  SpawnBody unknown;
  unknown.spawns(1);
  unknown.spawn(5, 3, v.k.schema.type(v.k.pebble));  // only types 0..2 exist
  v.expect_dropped(unknown.finish(header(full_header(20))), DropReason::kOutOfRange, "type 3");
  SpawnBody record;
  record.spawns(1);
  record.spawn(5, v.k.input.value, v.k.schema.type(v.k.input));  // a record type, not an entity
  v.expect_dropped(record.finish(header(full_header(21))), DropReason::kOutOfRange, "a record type");
}

TEST(SnapshotReceiverObligations, RejectsOutOfRangeFieldValues) {
  Victim v;
  const TypeSpec& thing = v.k.schema.type(v.k.thing);
  SpawnBody spawn;
  spawn.spawns(1);
  spawn.spawn(5, v.k.thing.value, thing, 3, 3);  // mood: codes 0..2
  v.expect_dropped(spawn.finish(header(full_header(20))), DropReason::kOutOfRange, "a spawned enum of value 3");

  // A residual that takes a value below its range: the pebble (id 3) sits
  // at position x = 0, code 2000 of [0, 4000]; -2001 overshoots.
  const TypeSpec& pebble = v.k.schema.type(v.k.pebble);
  std::vector<std::uint8_t> body;
  {
    RangeEncoder rc(body, false);
    BitModel half;
    for (int e = 0; e < 3; ++e) rc.bit(half, true);  // things 0..2: unchanged
    rc.bit(half, false);                             // pebble: not unchanged
    rc.bit(half, true);                              // ... changed
    const auto max_e = max_exponent_for(pebble.components[0].max_code);
    encode_residual_fixed(rc, -2001, max_e);
    for (std::size_t i = 1; i < pebble.components.size(); ++i) encode_residual_fixed(rc, 0, max_e);
    MagnitudeModel mm;
    encode_magnitude(rc, mm, 1, kMaxExponent);  // no spawns
    rc.finish();
  }
  auto bytes = header(delta_header(10, 2));
  bytes.insert(bytes.end(), body.begin(), body.end());
  v.expect_dropped(bytes, DropReason::kOutOfRange, "a residual below the range");
}

TEST(SnapshotReceiverObligations, RejectsSpawnsOfEntitiesItHolds) {
  Victim v;
  std::vector<std::uint8_t> body;
  {
    RangeEncoder rc(body, false);
    BitModel half;
    for (int e = 0; e < 4; ++e) rc.bit(half, true);  // all four unchanged
    MagnitudeModel count;
    MagnitudeModel gap;
    MagnitudeModel generation;
    encode_magnitude(rc, count, 2, kMaxExponent);    // one spawn
    encode_magnitude(rc, gap, 2 + 1, kMaxExponent);  // id 2, which the baseline holds
    rc.direct(v.k.pebble.value, 2);
    encode_magnitude(rc, generation, 2, kMaxExponent);
    for (const ComponentSpec& c : v.k.schema.type(v.k.pebble).components) rc.direct(0, c.bits);
    rc.finish();
  }
  auto bytes = header(delta_header(10, 2));
  bytes.insert(bytes.end(), body.begin(), body.end());
  v.expect_dropped(bytes, DropReason::kMalformed, "a second entity 2");
}

TEST(SnapshotReceiverObligations, RejectsMoreEntitiesThanItsLimit) {
  Victim v;
  SpawnBody body;
  body.spawns(kMaxEntities + 1);
  const auto start = std::chrono::steady_clock::now();
  v.expect_dropped(body.finish(header(full_header(20))), DropReason::kTooManyEntities, "101 spawns");
  SpawnBody huge;
  huge.spawns(0x7FFF'FFFFU);
  v.expect_dropped(huge.finish(header(full_header(21))), DropReason::kTooManyEntities, "2^31 spawns");
  // Rejected from the count alone, before any work or allocation per entity.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(SnapshotReceiverObligations, RejectsSpawnCountsTheBodyCannotHold) {
  Victim v;
  SnapshotReceiver wide(v.k.schema, ReceiverConfig{64, 1U << 24, 1200});
  SpawnBody body;
  body.spawns(5000);  // each spawn spends at least a bit; a few bytes cannot hold 5000
  EXPECT_FALSE(wide.receive(body.finish(header(full_header(20)))).ok());
  EXPECT_EQ(wide.stats().dropped_for(DropReason::kMalformed), 1U);
}

TEST(SnapshotReceiverObligations, DropsStaleAndDuplicateSnapshots) {
  Victim v;
  ASSERT_TRUE(v.receiver.receive(v.delta).ok());
  v.expect_dropped(v.delta, DropReason::kDuplicate, "tick 12 again");
  v.expect_dropped(v.full, DropReason::kDuplicate, "tick 10 again");
  // Move the newest tick far ahead, then replay an old full snapshot.
  SpawnBody body;
  body.spawns(0);
  ASSERT_TRUE(v.receiver.receive(body.finish(header(full_header(500)))).ok());
  SpawnBody old;
  old.spawns(0);
  v.expect_dropped(old.finish(header(full_header(400))), DropReason::kStale, "tick 400 with newest 500");
}

TEST(SnapshotReceiverObligations, RejectsCorruptBodies) {
  Victim v;
  auto bytes = header(delta_header(10, 2));
  // Bytes no encoder produces: the code lies outside the coder's interval.
  for (int i = 0; i < 8; ++i) bytes.push_back(0xFF);
  const auto r = v.receiver.receive(bytes);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(v.receiver.newest(), Tick(10));
}

TEST(SnapshotReceiverObligations, DroppedSnapshotsChangeNothing) {
  Victim v;
  const WorldState before = *v.receiver.state(Tick(10));
  // A delta that decodes most of the way, then fails: its partial result
  // must not replace or touch anything held.
  auto cut = v.delta;
  cut.pop_back();
  EXPECT_FALSE(v.receiver.receive(cut).ok());
  auto bad = v.delta;
  bad.push_back(0);  // decodes in full, then fails on the trailing byte
  EXPECT_FALSE(v.receiver.receive(bad).ok());
  EXPECT_TRUE(v.receiver.state(Tick(10))->same_content(before, v.k.schema));
  EXPECT_EQ(v.receiver.newest(), Tick(10));
  // And the real one still decodes against the untouched baseline.
  ASSERT_TRUE(v.receiver.receive(v.delta).ok());
  EXPECT_TRUE(v.receiver.state(Tick(12))->same_content(*v.sender.view(Tick(12)), v.k.schema));
}

TEST(SnapshotReceiverObligations, SurvivesRandomBytes) {
  const auto seed = testing::test_seed("SnapshotReceiverObligations.SurvivesRandomBytes");
  Victim v;
  testing::receive_damaged_packets(v.receiver, v.k.schema, v.delta, v.full, kMaxEntities, seed, 20000);
}

TEST(SnapshotSenderObligations, IgnoresAcksOfTicksNeverSent) {
  Victim v;
  const auto ignored = v.sender.stats().acks_ignored;
  v.sender.acknowledge(Tick(11));  // never sent
  v.sender.acknowledge(Tick(1'000'000));
  EXPECT_EQ(v.sender.stats().acks_ignored, ignored + 2);
  EXPECT_EQ(v.sender.newest_acked(), Tick(10));
  // The next snapshot still deltas against a state the client holds.
  ASSERT_TRUE(v.receiver.receive(v.delta).ok());
}

}  // namespace
}  // namespace tickwire::snapshot
