// Whole matches over SimNetwork at 50, 150 and 300 ms round trip with 5%
// loss each way, in virtual time. Seeds are fixed (the runs are
// deterministic) and printed.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sim_match.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;
using testing::MatchSetup;
using testing::SimMatch;

// Virtual durations. The Release suite plays the whole ten minutes the
// targets name; under sanitizers (Debug) the same scenarios run shorter so
// the suite stays quick, and the long runs are the Release suite's job.
#ifdef NDEBUG
constexpr int kLongRunSeconds = 600;
constexpr int kRunSeconds = 60;
#else
constexpr int kLongRunSeconds = 20;
constexpr int kRunSeconds = 15;
#endif

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  return x ^ (x >> 29);
}

// Client 0 plays: a new stick direction every half second, a shot now and
// then. Every other client stands still.
testing::MatchSampler pilot(std::uint64_t seed, const testing::TestSchema& s) {
  return [seed, &s](std::size_t client, Tick t, snapshot::Record& r) {
    if (client != 0) return;
    const std::uint64_t h = mix(seed, t.value() / 30);
    const float angle = static_cast<float>(h % 3600) * 0.1F * 3.14159265F / 180.0F;
    const float magnitude = static_cast<float>((h >> 12) % 5) / 4.0F;
    r.set(s.move, Vec2{std::cos(angle) * magnitude, std::sin(angle) * magnitude});
    r.set(s.fire, mix(seed ^ 0xF1, t.value()) % 40 == 0);
  };
}

MatchSetup setup_for(int rtt_ms, double loss, std::uint64_t seed) {
  MatchSetup m;
  m.seed = seed;
  m.link.latency = Duration::millis(rtt_ms / 2);
  m.link.loss = loss;
  std::printf("seed %llu, rtt %d ms, loss %.0f%%\n", static_cast<unsigned long long>(seed), rtt_ms, loss * 100);
  return m;
}

class PredictionSim : public ::testing::TestWithParam<int> {};

TEST_P(PredictionSim, NoMispredictionsWhenOnlyTheLocalPlayerActs) {
  MatchSetup m = setup_for(GetParam(), 0.05, 1000 + static_cast<std::uint64_t>(GetParam()));
  m.prediction.audit_skipped_replays = true;  // and measure whether skipping replays holds
  testing::TestSchema schema;
  SimMatch match(m, 2, pilot(m.seed, schema));
  for (auto& c : match.clients()) c.record = false;
  match.run_for(Duration::seconds(kLongRunSeconds));
  const auto& me = match.clients()[0];
  const PredictionStats& st = me.prediction->stats();
  const auto* remote = match.remote(me.player);
  ASSERT_NE(remote, nullptr);
  std::printf(
      "predicted %llu ticks, %llu snapshots, %llu replays skipped (%llu audited, %llu divergent), %llu replays "
      "(max depth %u), %llu stalled; shots %llu predicted %llu confirmed %llu rejected; server: %llu missing, %llu "
      "late, %llu duplicates\n",
      static_cast<unsigned long long>(st.predicted_ticks), static_cast<unsigned long long>(st.snapshots),
      static_cast<unsigned long long>(st.skipped_replays), static_cast<unsigned long long>(st.audited_skips),
      static_cast<unsigned long long>(st.audit_divergences), static_cast<unsigned long long>(st.replays),
      st.max_replay_depth, static_cast<unsigned long long>(st.stalled_ticks),
      static_cast<unsigned long long>(st.spawns_predicted), static_cast<unsigned long long>(st.spawns_confirmed),
      static_cast<unsigned long long>(st.spawns_rejected),
      static_cast<unsigned long long>(remote->queue.stats().missing),
      static_cast<unsigned long long>(remote->queue.stats().late),
      static_cast<unsigned long long>(remote->queue.stats().duplicates));
  EXPECT_GT(st.predicted_ticks, static_cast<std::uint64_t>(kLongRunSeconds) * 59);
  EXPECT_EQ(st.mispredictions, 0U);
  EXPECT_EQ(st.audit_divergences, 0U);
  EXPECT_GT(st.audited_skips, 1000U);
  EXPECT_GT(st.spawns_confirmed, static_cast<std::uint64_t>(kLongRunSeconds) / 2);
  EXPECT_EQ(st.spawns_rejected, 0U);
  EXPECT_EQ(st.stalled_ticks, 0U);
  EXPECT_EQ(remote->queue.stats().late, 0U);
  EXPECT_EQ(me.bad_packets, 0U);
  EXPECT_EQ(remote->bad_packets, 0U);
}

TEST_P(PredictionSim, ConvergesWithinOneRoundTripAfterAServerPush) {
  const int rtt_ms = GetParam();
  MatchSetup m = setup_for(rtt_ms, 0.05, 2000 + static_cast<std::uint64_t>(rtt_ms));
  m.prediction.smoothing.duration = Duration::millis(100);
  testing::TestSchema schema;
  SimMatch match(m, 1, pilot(m.seed, schema));
  constexpr float kPush = 2.0F;
  std::vector<Time> pushes;
  std::vector<Tick> push_ticks;
  match.server_hook = [&](Tick t, snapshot::World& w) {
    if (t.value() % 180 != 0 || t.value() < 120) return;  // every 3 s
    for (EntityId id : w.entities(match.schema().player)) {
      Vec2 p = w.get(id, match.schema().position);
      p.x += kPush;  // something the client cannot know: an explosion, a collision
      w.set(id, match.schema().position, p);
    }
    pushes.push_back(match.now());
    push_ticks.push_back(t);
  };
  match.run_for(Duration::seconds(kRunSeconds));
  match.server_hook = nullptr;
  match.run_for(Duration::seconds(1));  // the last push reaches the client
  const auto& me = match.clients()[0];
  const auto& server = match.server_states(me.player);
  ASSERT_GE(pushes.size(), static_cast<std::size_t>(kRunSeconds / 3 - 1));
  EXPECT_EQ(me.prediction->stats().mispredictions, pushes.size());

  // The client agrees with the server when its state at its predicted tick
  // is the server's state at that tick (computed later, with the same
  // inputs). After each push, find when it last disagreed.
  const Duration bound = Duration::millis(rtt_ms) + Duration::micros(16'667);
  Duration worst;
  for (std::size_t k = 0; k < pushes.size(); ++k) {
    const Time from = pushes[k];
    // Predictions of ticks from the next push on are that push's business.
    const Tick until = k + 1 < push_ticks.size() ? push_ticks[k + 1] : Tick(0xFFFF'FFFFU);
    // When the client last disagreed, and when it first agreed after that.
    bool wrong = false;
    bool agreed = false;
    Time agreed_at;
    for (const auto& sample : me.samples) {
      if (sample.at < from || sample.tick >= until) continue;
      auto it = server.find(sample.tick.value());
      if (it == server.end()) continue;
      if (it->second != sample.slots) {
        wrong = true;
        agreed = false;
      } else if (wrong && !agreed) {
        agreed = true;
        agreed_at = sample.at;
      }
    }
    if (wrong) {
      ASSERT_TRUE(agreed) << "push " << k << " was never corrected";
      worst = std::max(worst, agreed_at - from);
    }
  }
  std::printf("%zu pushes: the client agreed with the server again %.1f ms after a push at worst (bound %.1f ms)\n",
              pushes.size(), worst.millis_f(), bound.millis_f());
  EXPECT_LT(worst, bound);

  // Drawn position: the avatar's own motion plus the push shared out over
  // the smoothing time, never a jump.
  const float frame_s = 0.004F;
  const float allowed = testing::TestGame::kSpeed * std::sqrt(2.0F) * frame_s + kPush * frame_s / 0.1F + 0.01F;
  float largest = 0.0F;
  for (std::size_t i = 1; i < me.frames.size(); ++i) {
    const Vec2 a = me.frames[i - 1].position;
    const Vec2 b = me.frames[i].position;
    largest = std::max(largest, std::hypot(b.x - a.x, b.y - a.y));
  }
  std::printf("largest drawn step %.4f per frame (allowed %.4f; the push is %.1f)\n", static_cast<double>(largest),
              static_cast<double>(allowed), static_cast<double>(kPush));
  EXPECT_LE(largest, allowed);
}

TEST_P(PredictionSim, NoLateInputsOnACleanLink) {
  MatchSetup m = setup_for(GetParam(), 0.0, 3000 + static_cast<std::uint64_t>(GetParam()));
  testing::TestSchema schema;
  SimMatch match(m, 3, pilot(m.seed, schema));
  for (auto& c : match.clients()) c.record = false;
  match.run_for(Duration::seconds(kRunSeconds));
  for (const auto& c : match.clients()) {
    const auto* remote = match.remote(c.player);
    ASSERT_NE(remote, nullptr);
    EXPECT_EQ(remote->queue.stats().late, 0U) << c.index;
    EXPECT_EQ(remote->queue.stats().stale, 0U) << c.index;
    EXPECT_EQ(c.prediction->stats().mispredictions, 0U) << c.index;
  }
}

INSTANTIATE_TEST_SUITE_P(Rtt, PredictionSim, ::testing::Values(50, 150, 300),
                         [](const ::testing::TestParamInfo<int>& p) { return std::to_string(p.param) + "ms"; });

TEST(PredictionSimSpawns, ShotsTheServerRefusesAreRemoved) {
  MatchSetup m = setup_for(150, 0.05, 4000);
  testing::TestSchema schema;
  SimMatch match(m, 1, pilot(m.seed, schema));
  match.server_game().allow_shots = false;
  match.run_for(Duration::seconds(20));
  const auto& me = match.clients()[0];
  const PredictionStats& st = me.prediction->stats();
  EXPECT_GT(st.spawns_predicted, 5U);
  EXPECT_EQ(st.spawns_confirmed, 0U);
  // All but the ones still inside their confirmation window are gone.
  EXPECT_GE(st.spawns_rejected + 2, st.spawns_predicted);
  EXPECT_LE(me.prediction->world().entities(match.schema().projectile).size(), 2U);
}

}  // namespace
}  // namespace tickwire::prediction
