// Why corrections happen: each rule of correction_causes.h on its own, and
// a deterministic match in which a late own input, a remote player's
// contact, an unowned object, a server-only event and a despawn are each
// blamed on what caused them.
#include "tickwire/prediction/correction_causes.h"

#include <gtest/gtest.h>

#include <set>

#include "lockstep.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::Lockstep;

CorrectionFacts facts(PredictedRole role) {
  CorrectionFacts f;
  f.role = role;
  return f;
}

TEST(CorrectionCauses, NamesAreTheBotsJsonKeys) {
  EXPECT_EQ(to_string(CorrectionCause::kOwnInput), "own_input");
  EXPECT_EQ(to_string(CorrectionCause::kRemotePlayer), "remote_player");
  EXPECT_EQ(to_string(CorrectionCause::kUnowned), "unowned");
  EXPECT_EQ(to_string(CorrectionCause::kSpawn), "spawn");
  EXPECT_EQ(to_string(CorrectionCause::kServerEvent), "server_event");
}

TEST(CorrectionCauses, ASpawnOrDespawnComesFirst) {
  for (const PredictedRole role : {PredictedRole::kOwn, PredictedRole::kRemotePlayer, PredictedRole::kUnowned}) {
    CorrectionFacts f = facts(role);
    f.spawn = true;
    f.own_input_stood_in = true;
    f.near_other_player = true;
    EXPECT_EQ(classify_correction(f), CorrectionCause::kSpawn);
  }
}

TEST(CorrectionCauses, AStoodInInputBlamesOnlyThePlayersOwnEntities) {
  CorrectionFacts f = facts(PredictedRole::kOwn);
  f.own_input_stood_in = true;
  f.near_other_player = true;  // the own input comes first
  EXPECT_EQ(classify_correction(f), CorrectionCause::kOwnInput);
  f.role = PredictedRole::kUnowned;
  EXPECT_EQ(classify_correction(f), CorrectionCause::kRemotePlayer);
  f.near_other_player = false;
  EXPECT_EQ(classify_correction(f), CorrectionCause::kUnowned);
}

TEST(CorrectionCauses, ARemotePlayersGuessOrContactWithOneIsTheRemotePlayers) {
  EXPECT_EQ(classify_correction(facts(PredictedRole::kRemotePlayer)), CorrectionCause::kRemotePlayer);
  CorrectionFacts own = facts(PredictedRole::kOwn);
  own.near_other_player = true;
  EXPECT_EQ(classify_correction(own), CorrectionCause::kRemotePlayer);
  CorrectionFacts unowned = facts(PredictedRole::kUnowned);
  unowned.near_other_player = true;
  EXPECT_EQ(classify_correction(unowned), CorrectionCause::kRemotePlayer);
}

TEST(CorrectionCauses, AnUnownedObjectAloneIsUnowned) {
  EXPECT_EQ(classify_correction(facts(PredictedRole::kUnowned)), CorrectionCause::kUnowned);
}

TEST(CorrectionCauses, AnythingElseIsAServerEvent) {
  EXPECT_EQ(classify_correction(facts(PredictedRole::kOwn)), CorrectionCause::kServerEvent);
}

TEST(CorrectionCauses, TouchingDistanceIsTheRadiiPlusWhatBothCanMove) {
  const Reach a{{0.0F, 0.0F, 0.0F}, 0.5F, 0.0F};
  Reach b{{1.2F, 0.0F, 0.0F}, 0.5F, 0.0F};
  EXPECT_FALSE(within_touching_distance(a, b, 0.1));
  b.speed = 3.0F;  // 0.3 in 0.1 s closes the 0.2 gap
  EXPECT_TRUE(within_touching_distance(a, b, 0.1));
  EXPECT_FALSE(within_touching_distance(a, b, 0.05));
  EXPECT_TRUE(within_touching_distance(a, Reach{{0.0F, 0.9F, 0.0F}, 0.5F, 0.0F}, 0.0));
}

TEST(CorrectionCauses, ContactIsFoundInTheServersStateOrThePredictions) {
  testing::TestSchema s;
  snapshot::World server(s.schema);
  const EntityId mine = server.spawn(s.player);
  const EntityId theirs = server.spawn(s.player);
  server.set(mine, s.position, Vec2{0.0F, 0.0F});
  server.set(theirs, s.position, Vec2{5.0F, 0.0F});
  CorrectionClassifier c;
  const std::vector<MotionFields> motion{MotionFields::of(s.position, s.velocity, 0.5F)};
  c.set_motion_fields(motion);
  c.set_context({false, {theirs}});
  EXPECT_FALSE(c.near_other_player(mine, server, nullptr, 1.0 / 60));
  EXPECT_EQ(c.classify(mine, PredictedRole::kOwn, false, server, nullptr, 1.0 / 60), CorrectionCause::kServerEvent);
  // Predicted beside it (the prediction's state of `mine`): contact.
  snapshot::World predicted = server;
  predicted.set(mine, s.position, Vec2{4.2F, 0.0F});
  StateBlock block;
  const std::vector<EntityId> ids{mine};
  block.capture(Tick(1), predicted, ids);
  EXPECT_TRUE(c.near_other_player(mine, server, &block, 1.0 / 60));
  EXPECT_EQ(c.classify(mine, PredictedRole::kOwn, false, server, &block, 1.0 / 60), CorrectionCause::kRemotePlayer);
  // Fast enough to reach it within the interval, in the server's state.
  server.set(theirs, s.velocity, Vec2{-40.0F, 0.0F});
  EXPECT_TRUE(c.near_other_player(mine, server, nullptr, 0.1));
  // An entity is never in contact with itself, and a type without motion
  // fields is never in contact.
  c.set_context({false, {mine}});
  EXPECT_FALSE(c.near_other_player(mine, server, &block, 1.0));
  c.set_motion_fields({});
  c.set_context({false, {theirs}});
  EXPECT_FALSE(c.near_other_player(mine, server, &block, 1.0));
}

// A match of three players' avatars: this player's (predicted as its
// own), another player's (interpolated) and one nobody steers (predicted
// as unowned). The server does one thing the client could not foresee at
// a time; each correction must land under its own cause.
struct CauseMatch {
  CauseMatch() : l({}, {1, 2, 9}) {
    theirs = l.server_game.find_avatar(l.server, PlayerId{2});
    ball = l.server_game.find_avatar(l.server, PlayerId{9});
    l.client->predict(ball, PredictedRole::kUnowned);
    const std::vector<MotionFields> motion{MotionFields::of(l.s.position, l.s.velocity, 0.5F)};
    l.client->correction_classifier().set_motion_fields(motion);
    // A stick that turns every tick: an input the server repeats is wrong.
    l.stick = [](Tick t, snapshot::Record& r, const testing::TestSchema& sc) {
      r.set(sc.move, Vec2{t.value() % 2 == 0 ? 1.0F : -1.0F, 0.5F});
    };
    l.server_hook = [this](Tick t, snapshot::World& w) {
      if (!l.deliver_inputs) stood_in.insert(t.value());
      if (edit) edit(w);
      edit = nullptr;
    };
    // What the runtime tells prediction with each snapshot: the ticks the
    // server stood in for since the previous one, and who steers what.
    l.carry = [this](const snapshot::World& w) {
      const Tick at = l.client_tick - static_cast<std::int64_t>(l.lead + l.delay);
      CorrectionContext context;
      context.own_input_stood_in = std::any_of(stood_in.begin(), stood_in.end(),
                                               [&](std::uint32_t t) { return t > last_snapshot && t <= at.value(); });
      context.other_players = {theirs};
      l.client->correction_classifier().set_context(context);
      last_snapshot = at.value();
      std::vector<EntityId> ids = Lockstep::carried_ids(w);
      if (!w.contains(ball)) ids.push_back(ball);  // a despawn is carried too
      return ids;
    };
  }

  // Runs until every edit made so far has reached the client.
  CorrectionCounts settle() {
    l.run(static_cast<int>(l.lead + l.delay) + 4);
    return l.client->stats().corrections_by_cause;
  }
  static std::uint64_t of(const CorrectionCounts& counts, CorrectionCause cause) {
    return counts[static_cast<std::size_t>(cause)];
  }

  Lockstep l;
  EntityId theirs;
  EntityId ball;
  std::set<std::uint32_t> stood_in;
  std::uint32_t last_snapshot = 0;
  std::function<void(snapshot::World&)> edit;
};

TEST(CorrectionCauses, EachCorrectionOfAMatchIsBlamedOnItsCause) {
  CauseMatch m;
  Lockstep& l = m.l;
  l.start();
  EXPECT_EQ(m.settle(), CorrectionCounts{});

  // A late own input: the server repeats the previous one.
  l.deliver_inputs = false;
  l.step();
  l.deliver_inputs = true;
  CorrectionCounts c = m.settle();
  EXPECT_EQ(CauseMatch::of(c, CorrectionCause::kOwnInput), 1U);
  EXPECT_EQ(l.client->stats().mispredicted_entities, 1U);

  // The other player walks into this one and pushes it.
  m.edit = [&](snapshot::World& w) {
    const Vec2 p = w.get(l.avatar, l.s.position);
    w.set(m.theirs, l.s.position, Vec2{p.x + 0.9F, p.y});
    w.set(l.avatar, l.s.position, Vec2{p.x - 0.3F, p.y});
  };
  l.step();
  c = m.settle();
  EXPECT_EQ(CauseMatch::of(c, CorrectionCause::kRemotePlayer), 1U);
  m.edit = [&](snapshot::World& w) { w.set(m.theirs, l.s.position, Vec2{-50.0F, -50.0F}); };
  l.step();
  c = m.settle();
  EXPECT_EQ(l.client->stats().mispredicted_entities, 2U) << "moving an interpolated entity corrects nothing";

  // The unowned object moves by a rule only the server knows.
  m.edit = [&](snapshot::World& w) { w.set(m.ball, l.s.position, Vec2{91.0F, 0.0F}); };
  l.step();
  c = m.settle();
  EXPECT_EQ(CauseMatch::of(c, CorrectionCause::kUnowned), 1U);

  // A server-only change to this player's own avatar.
  m.edit = [&](snapshot::World& w) { w.set(l.avatar, l.s.cooldown, 40); };
  l.step();
  c = m.settle();
  EXPECT_EQ(CauseMatch::of(c, CorrectionCause::kServerEvent), 1U);

  // The server removes the unowned object.
  m.edit = [&](snapshot::World& w) { w.despawn(m.ball); };
  l.step();
  c = m.settle();
  EXPECT_EQ(CauseMatch::of(c, CorrectionCause::kSpawn), 1U);

  const CorrectionCounts expected{1, 1, 1, 1, 1};
  EXPECT_EQ(c, expected);
  const PredictionStats& st = l.client->stats();
  EXPECT_EQ(st.mispredicted_entities, 5U);
  EXPECT_EQ(st.mispredictions, 5U);
  ASSERT_GT(st.corrections_by_type.size(), l.s.player.value);
  EXPECT_EQ(st.corrections_by_type[l.s.player.value], 5U);
}

}  // namespace
}  // namespace tickwire::prediction
