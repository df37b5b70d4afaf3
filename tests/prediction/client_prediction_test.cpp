#include <gtest/gtest.h>

#include <algorithm>

#include "lockstep.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::Lockstep;

bool same_entity(const snapshot::World& a, const snapshot::World& b, EntityId id) {
  const auto x = a.slots(id);
  const auto y = b.slots(id);
  return a.type_of(id) == b.type_of(id) && std::equal(x.begin(), x.end(), y.begin(), y.end());
}

TEST(ClientPrediction, WaitsForTheFirstServerState) {
  Lockstep l;
  EXPECT_EQ(l.client->sample_and_simulate(Tick(1)), TickOutcome::kWaiting);
  EXPECT_NE(l.client->inputs().find(Tick(1)), nullptr);  // sampled and sendable anyway
  EXPECT_FALSE(l.client->predicted_tick().has_value());
}

TEST(ClientPrediction, EachSampledInputClaimsTheViewTimeItWasSampledAt) {
  Lockstep l;
  // Frames that sample tick 1, then ticks 2 and 3, while drawing others at
  // tick 0.5: each input claims that time, measured from its own tick.
  const NetworkTime view = NetworkTime::from_tick(60, Tick(0), NetworkTime::kUnitsPerTick / 2);
  l.client->sample_and_simulate(Tick(1), view);
  l.client->sample_and_simulate(Tick(3), view);
  ASSERT_NE(l.client->inputs().find_view(Tick(1)), nullptr);
  ASSERT_NE(l.client->inputs().find_view(Tick(3)), nullptr);
  EXPECT_EQ(*l.client->inputs().find_view(Tick(1)), ViewClaim{125});
  EXPECT_EQ(*l.client->inputs().find_view(Tick(2)), ViewClaim{375});
  EXPECT_EQ(*l.client->inputs().find_view(Tick(3)), ViewClaim{625});
  const auto packet = l.client->make_input_packet(std::nullopt);
  ASSERT_TRUE(packet);
  ASSERT_EQ(packet->view_claims.size(), packet->inputs.size());
  EXPECT_EQ(claimed_view_time(packet->last_tick(), packet->view_claims.back(), 60), view);
  // Without a view time, no claim.
  l.client->sample_and_simulate(Tick(4));
  EXPECT_EQ(l.client->inputs().find_view(Tick(4)), nullptr);
}

TEST(ClientPrediction, PredictsItsOwnInputAtOnce) {
  Lockstep l;
  l.start();
  const Vec2 before = l.client->world().get(l.avatar, l.s.position);
  ASSERT_EQ(l.step(), TickOutcome::kPredicted);
  const Vec2 after = l.client->world().get(l.avatar, l.s.position);
  const Vec2 stick = l.client->inputs().find(Tick(1))->get(l.s.move);
  EXPECT_NEAR(after.x - before.x, stick.x * testing::TestGame::kSpeed / 60.0F, 0.011F);
  EXPECT_NEAR(after.y - before.y, stick.y * testing::TestGame::kSpeed / 60.0F, 0.011F);
  EXPECT_EQ(l.client->predicted_tick(), std::optional<Tick>(Tick(1)));
}

TEST(ClientPrediction, MatchingSnapshotsSkipTheReplay) {
  Lockstep l;
  l.start();
  l.run(300);
  const PredictionStats& st = l.client->stats();
  EXPECT_EQ(st.mispredictions, 0U);
  EXPECT_EQ(st.replays, 0U);
  EXPECT_EQ(st.skipped_replays, st.snapshots - st.resets);
  EXPECT_GT(st.skipped_replays, 250U);
  EXPECT_EQ(l.client_game.resimulate_calls, 0);
  EXPECT_TRUE(same_entity(l.client->world(), l.server_at_client_tick(), l.avatar));
}

TEST(ClientPrediction, ACorrectionRestoresAndReplays) {
  Lockstep l;
  l.server_hook = [&](Tick t, snapshot::World& w) {
    if (t != Tick(50)) return;
    Vec2 p = w.get(l.avatar, l.s.position);
    p.x += 3.0F;  // a push the client cannot know about
    w.set(l.avatar, l.s.position, p);
  };
  l.start();
  l.run(120);
  const PredictionStats& st = l.client->stats();
  EXPECT_EQ(st.mispredictions, 1U);
  EXPECT_EQ(st.replays, 1U);
  EXPECT_EQ(st.replayed_ticks, l.lead + l.delay);
  EXPECT_EQ(st.max_replay_depth, l.lead + l.delay);
  EXPECT_TRUE(same_entity(l.client->world(), l.server_at_client_tick(), l.avatar));
}

TEST(ClientPrediction, ReplayTellsTheGameItIsResimulating) {
  Lockstep l;
  l.server_hook = [&](Tick t, snapshot::World& w) {
    if (t.value() % 40 == 0) w.set(l.avatar, l.s.position, Vec2{0, 0});
  };
  l.start();
  l.run(200);
  EXPECT_GT(l.client->stats().replays, 0U);
  EXPECT_EQ(static_cast<std::uint64_t>(l.client_game.resimulate_calls), l.client->stats().replayed_ticks);
  EXPECT_EQ(static_cast<std::uint64_t>(l.client_game.simulate_calls - l.client_game.resimulate_calls),
            l.client->stats().predicted_ticks);
}

TEST(ClientPrediction, SelectiveRollbackLeavesEntitiesTheSnapshotDidNotCarry) {
  Lockstep l;
  // A second predicted entity that moves by itself: a projectile.
  const EntityId shot = l.server.spawn(l.s.projectile);
  l.server.set(shot, l.s.shot_velocity, Vec2{12.0F, -3.0F});
  l.server.set(shot, l.s.life, 255);
  l.server.quantize();
  l.client->predict(shot);
  l.server_hook = [&](Tick t, snapshot::World& w) {
    if (t.value() % 25 == 0) w.set(l.avatar, l.s.position, Vec2{1, 1});
  };
  l.start();
  // From now on snapshots carry only the avatar.
  l.carry = [&](const snapshot::World&) { return std::vector<EntityId>{l.avatar}; };
  l.run(100);  // shorter than the projectile's life
  EXPECT_GT(l.client->stats().replays, 2U);
  // The projectile was simulated exactly once per predicted tick: it is
  // where the server has it at the same tick, not further along.
  ASSERT_TRUE(l.client->world().contains(shot));
  const snapshot::World ref = l.server_at_client_tick();
  EXPECT_EQ(l.client->world().get(shot, l.s.shot_position), ref.get(shot, l.s.shot_position));
  EXPECT_TRUE(same_entity(l.client->world(), ref, l.avatar));
}

TEST(ClientPrediction, StopsPredictingBeyondTheReplayBoundAndResumes) {
  Lockstep l({.max_replay_ticks = 12});
  l.start();
  l.run(30);
  l.deliver_snapshots = false;
  int stalled = 0;
  for (int i = 0; i < 30; ++i) stalled += l.step() == TickOutcome::kStalled ? 1 : 0;
  const Tick newest_auth = *l.client->authoritative_tick();
  EXPECT_EQ(*l.client->predicted_tick() - newest_auth, 12);
  EXPECT_GT(stalled, 10);
  EXPECT_LE(l.client->stats().max_replay_depth, 12U);
  // Snapshots again: prediction catches up within the bound and converges.
  l.deliver_snapshots = true;
  l.run(40);
  EXPECT_EQ(l.client->predicted_tick(), std::optional<Tick>(l.client_tick));
  EXPECT_LE(l.client->stats().max_replay_depth, 12U);
  EXPECT_TRUE(same_entity(l.client->world(), l.server_at_client_tick(), l.avatar));
}

TEST(ClientPrediction, ToleranceDecidesWhatCountsAsAMisprediction) {
  for (const std::uint32_t tolerance : {0U, 2U}) {
    Lockstep l;
    l.client->set_tolerance(l.s.position, tolerance);
    l.server_hook = [&](Tick t, snapshot::World& w) {
      if (t != Tick(40)) return;
      Vec2 p = w.get(l.avatar, l.s.position);
      p.x += 0.01F;  // one quantization step
      w.set(l.avatar, l.s.position, p);
    };
    l.start();
    l.run(100);
    EXPECT_EQ(l.client->stats().mispredictions, tolerance == 0 ? 1U : 0U) << tolerance;
  }
}

// The checks as data (what a client's config carries): the same tolerance
// set through set_checks decides the same way, a later set_checks replaces
// it, and a tolerance outside the schema is refused without a change.
TEST(ClientPrediction, ChecksSetWhileRunningReplaceTheTolerances) {
  for (const bool tolerant : {false, true}) {
    Lockstep l;
    PredictionChecks checks;
    checks.tolerances.push_back(FieldTolerance::of(l.s.position, 2));
    l.client->set_checks(checks);
    if (!tolerant) l.client->set_checks({});
    l.server_hook = [&](Tick t, snapshot::World& w) {
      if (t != Tick(40)) return;
      Vec2 p = w.get(l.avatar, l.s.position);
      p.x += 0.01F;  // one quantization step
      w.set(l.avatar, l.s.position, p);
    };
    l.start();
    l.run(100);
    EXPECT_EQ(l.client->stats().mispredictions, tolerant ? 0U : 1U) << tolerant;
  }
  Lockstep l;
  PredictionChecks bad;
  bad.audit_skipped_replays = true;
  bad.tolerances.push_back(FieldTolerance::of(l.s.position, 1));
  bad.tolerances.push_back({TypeId{200}, 0, 1, 1});
  EXPECT_THROW(l.client->set_checks(bad), std::invalid_argument);
  bad.tolerances.back() = {l.s.position.type(), 0, 0, 1};  // no slots
  EXPECT_THROW(bad.validate(l.s.schema), std::invalid_argument);
  bad.tolerances.back() = {l.s.position.type(), 60000, 1, 1};  // past the type's slots
  EXPECT_THROW(l.client->set_tolerance(bad.tolerances.back()), std::invalid_argument);
  l.start();
  l.run(100);
  EXPECT_EQ(l.client->stats().audited_skips, 0U) << "a refused set_checks changed the audit";
}

TEST(ClientPrediction, StaleAndDuplicateSnapshotsAreIgnored) {
  Lockstep l;
  l.start();
  l.run(20);
  const Tick t = *l.client->authoritative_tick();
  EXPECT_EQ(l.client->on_authoritative(t, l.server_states.at(t.value()), {&l.avatar, 1}), SnapshotOutcome::kStale);
  EXPECT_EQ(l.client->on_authoritative(t - 3, l.server_states.at(t.value() - 3), {&l.avatar, 1}),
            SnapshotOutcome::kStale);
  EXPECT_EQ(l.client->stats().stale_snapshots, 2U);
}

TEST(ClientPrediction, OtherPlayersAreReadOnlyContext) {
  Lockstep l({}, {1, 2});
  const EntityId other = l.server_game.find_avatar(l.server, PlayerId{2});
  // The server moves player 2 by hand; the client never predicts it.
  l.server_hook = [&](Tick t, snapshot::World& w) {
    w.set(other, l.s.position, Vec2{static_cast<float>(t.value()) * 0.5F, 7.0F});
  };
  l.start();
  l.run(50);
  EXPECT_FALSE(l.client->predicts(other));
  const Tick t = *l.client->authoritative_tick();
  EXPECT_EQ(l.client->world().get(other, l.s.position), l.server_states.at(t.value()).get(other, l.s.position));
  EXPECT_EQ(l.client->stats().mispredictions, 0U);
}

TEST(ClientPrediction, AuditConfirmsThatSkippedReplaysChangeNothing) {
  Lockstep l({.audit_skipped_replays = true});
  l.start();
  l.run(200);
  EXPECT_GT(l.client->stats().audited_skips, 150U);
  EXPECT_EQ(l.client->stats().audit_divergences, 0U);
}

TEST(ClientPrediction, SamplesEveryTickOfAClockJump) {
  Lockstep l;
  l.start();
  int calls = 0;
  l.stick = [&](Tick, snapshot::Record&, const testing::TestSchema&) { ++calls; };
  EXPECT_EQ(l.client->sample_and_simulate(Tick(1)), TickOutcome::kPredicted);
  EXPECT_EQ(l.client->sample_and_simulate(Tick(5)), TickOutcome::kPredicted);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(l.client->predicted_tick(), std::optional<Tick>(Tick(5)));
  EXPECT_EQ(l.client->sample_and_simulate(Tick(5)), TickOutcome::kPredicted);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(l.client->stats().missing_inputs, 0U);
}

TEST(ClientPrediction, TicksBeforeTheFirstSampleUseTheServersStandIn) {
  Lockstep l;
  l.start();
  int calls = 0;
  l.stick = [&](Tick, snapshot::Record& r, const testing::TestSchema& s) {
    ++calls;
    r.set(s.move, Vec2{1, 0});
  };
  // The client's clock starts at tick 4: ticks 1..3 were never sampled.
  EXPECT_EQ(l.client->sample_and_simulate(Tick(4)), TickOutcome::kPredicted);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(l.client->stats().missing_inputs, 3U);
  // Neutral stand-ins: the avatar moved one tick's worth, not four.
  EXPECT_NEAR(l.client->world().get(l.avatar, l.s.position).x, 10.0F + testing::TestGame::kSpeed / 60.0F, 0.011F);
}

TEST(ClientPrediction, IgnoresServerIdsInItsLocalSpawnRange) {
  Lockstep l;
  l.start();
  l.run(5);
  // A snapshot naming an id the server may not use must not touch the
  // local range, where predicted spawns live.
  snapshot::World bad(l.s.schema, {.max_entities = 70000});
  ASSERT_TRUE(bad.spawn_at(EntityId{65600}, l.s.projectile));
  const EntityId ids[] = {EntityId{65600}};
  l.client->on_authoritative(Tick(3), bad, ids);
  EXPECT_FALSE(l.client->world().contains(EntityId{65600}));
}

TEST(ClientPrediction, RejectsBadConfiguration) {
  testing::TestSchema s;
  testing::TestGame g(s);
  const auto sampler = [](Tick, snapshot::Record&) {};
  EXPECT_THROW(ClientPrediction(s.schema, g, sampler, {.input_type = s.player}), std::invalid_argument);
  EXPECT_THROW(ClientPrediction(s.schema, g, sampler, {.input_type = s.input, .max_replay_ticks = 0}),
               std::invalid_argument);
  EXPECT_THROW(ClientPrediction(s.schema, g, sampler, {.input_type = s.input, .tick_rate = 0}), std::invalid_argument);
  EXPECT_THROW(ClientPrediction(s.schema, g, {}, {.input_type = s.input}), std::invalid_argument);
  ClientPrediction ok(s.schema, g, sampler, {.input_type = s.input});
  EXPECT_THROW(ok.predict(EntityId{70000}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::prediction
