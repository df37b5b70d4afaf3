// Netcode for Entities' NetworkTimeSystem, reproduced: the server's command
// age, the client's targets at the first snapshot, its control law and its
// fall-backs, against a clean, known world.
#include "tickwire/timesync/n4e_time_provider.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/client_measurements.h"

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;

// Server time = local time + 10 s; 20 ms each way, so a 40 ms round trip.
struct World {
  ClientMeasurements m{kRate};
  double now_us = 1e6;

  NetworkTime server_at(double local_us) const {
    return NetworkTime::from_duration(kRate, Duration::micros(std::llround(local_us + 10e6)));
  }
  Time now() const { return Time::from_micros(std::llround(now_us)); }
  ProviderInputs in() const { return {now(), &m}; }
  // A snapshot sent 20 ms ago arrives now.
  void snapshot(N4eTimeProvider& p) {
    const auto obs = m.on_snapshot(
        SnapshotReceipt{now(), SnapshotTiming::from(server_at(now_us - 20000)), Duration::millis(40), std::nullopt});
    p.on_snapshot(in(), obs);
  }
  Tick newest_tick() const { return m.newest()->sent.tick(); }
};

NetworkTime at_tick(std::int64_t tick) { return NetworkTime::from_tick(kRate, Tick(static_cast<Tick::Rep>(tick))); }

TEST(N4eCommandAge, AveragesTheTicksBetweenTheServerAndTheNewestCommand) {
  N4eCommandAge age;
  age.on_tick(Tick(100));
  EXPECT_EQ(age.value(), 0);  // no command yet
  age.on_input(Tick(103));
  age.on_input(Tick(101));  // an older packet: not the newest
  for (std::uint32_t t = 101; t < 200; ++t) {
    age.on_tick(Tick(t));
    age.on_input(Tick(t + 3));  // the command for t + 3 arrives while t runs
  }
  // So as each tick runs, the newest command is two ticks ahead: the
  // average settles within its integer rounding (toward zero) of -2 ticks.
  EXPECT_NEAR(age.value() / 256.0, -2.0, 8 / 256.0);
  const std::int32_t before = age.value();
  age.on_tick(Tick(200));
  age.on_tick(Tick(201));  // a stall: the newest command grows older each tick
  EXPECT_GT(age.value(), before);
}

TEST(N4eTimeProvider, StartsAtTheSnapshotPlusTheRoundTripAndSlack) {
  World w;
  N4eTimeProvider p;
  EXPECT_FALSE(p.ready(w.in()));
  w.snapshot(p);
  ASSERT_TRUE(p.ready(w.in()));
  Timelines t(kRate);
  p.initialize(t, w.in());
  const std::int64_t snapshot = w.newest_tick().value();
  // ceil(40 ms x 60 / 1000) = 3 ticks of round trip, plus a slack of 2.
  EXPECT_EQ(t.predicted, at_tick(snapshot + 5));
  // Two snapshot intervals behind (no deviation measured yet).
  EXPECT_EQ(t.interpolation, at_tick(snapshot - 2));
  EXPECT_DOUBLE_EQ(p.interpolation_frames(), 2.0);
}

TEST(N4eTimeProvider, TheInterpolationBufferCountsSnapshotIntervals) {
  World w;
  N4eTimeProviderConfig config;
  config.network_tick_rate = 30;  // a snapshot every other tick
  N4eTimeProvider p(config);
  w.snapshot(p);
  Timelines t(kRate);
  p.initialize(t, w.in());
  EXPECT_EQ(t.interpolation, at_tick(w.newest_tick().value() - 4));
}

// Runs frames of 1/144 s with a fixed reported command age and no new
// snapshot; returns how far the predicted timeline ran beyond the elapsed
// time, in ticks.
double extra_ticks(N4eTimeProvider& p, World& w, Timelines& t, std::int32_t age_units, int frames) {
  p.on_command_age(age_units);
  const NetworkTime start = t.predicted;
  double elapsed_ticks = 0;
  for (int i = 0; i < frames; ++i) {
    w.now_us += 6944;
    elapsed_ticks += 6944e-6 * kRate;
    EXPECT_EQ(p.advance(t, w.in(), Duration::micros(6944)), Advance::kSmooth);
  }
  return (t.predicted - start).ticks_f() - elapsed_ticks;
}

TEST(N4eTimeProvider, ScalesTimeByTheCommandAgeWithinItsBounds) {
  World w;
  N4eTimeProvider p;
  w.snapshot(p);
  Timelines t(kRate);
  p.initialize(t, w.in());
  // On target: commands arrive two ticks early.
  p.on_command_age(-2 * 256);
  w.now_us += 6944;
  p.advance(t, w.in(), Duration::micros(6944));
  EXPECT_DOUBLE_EQ(t.predicted_correction, 0.0);
  // Half a tick late of target: 1 + 0.1 x 0.5.
  p.on_command_age(-384);
  w.now_us += 6944;
  p.advance(t, w.in(), Duration::micros(6944));
  EXPECT_NEAR(t.predicted_correction, 0.05, 1e-9);
  // Far late and far early: held at 1.1 and 0.9.
  N4eTimeProvider late;
  World w2;
  w2.snapshot(late);
  Timelines t2(kRate);
  late.initialize(t2, w2.in());
  late.on_command_age(5 * 256);
  w2.now_us += 6944;
  late.advance(t2, w2.in(), Duration::micros(6944));
  EXPECT_NEAR(t2.predicted_correction, 0.1, 1e-9);
  N4eTimeProvider early;
  World w3;
  w3.snapshot(early);
  Timelines t3(kRate);
  early.initialize(t3, w3.in());
  early.on_command_age(-9 * 256);
  w3.now_us += 6944;
  early.advance(t3, w3.in(), Duration::micros(6944));
  EXPECT_NEAR(t3.predicted_correction, -0.1, 1e-9);
}

TEST(N4eTimeProvider, CorrectsAReportedErrorOnceNotOnEveryReport) {
  World w;
  N4eTimeProvider p;
  w.snapshot(p);
  Timelines t(kRate);
  p.initialize(t, w.in());
  // The server keeps reporting commands 1.5 ticks early (half a tick short
  // of the slack) while no newer snapshot can show the correction: the
  // client makes up the half tick and then stops, instead of speeding up
  // for as long as the stale report lasts.
  const double extra = extra_ticks(p, w, t, -384, 400);
  EXPECT_NEAR(extra, 0.5, 0.02);
  EXPECT_NEAR(t.predicted_correction, 0.0, 1e-3);
}

TEST(N4eTimeProvider, FarOffItFallsBackToTheRoundTripAndJumps) {
  World w;
  N4eTimeProvider p;
  w.snapshot(p);
  Timelines t(kRate);
  p.initialize(t, w.in());
  // A command age 30 ticks late: the round-trip estimate takes over, and
  // the predicted tick (there already) is not moved.
  p.on_command_age(28 * 256);
  w.now_us += 6944;
  EXPECT_EQ(p.advance(t, w.in(), Duration::micros(6944)), Advance::kSmooth);
  // The server's snapshots jump 60 ticks ahead (a server that skipped): the
  // estimate of the snapshot arriving now follows them over a few
  // snapshots, and once that plus the round trip and slack is 10 ticks
  // ahead, the predicted tick jumps there.
  bool jumped = false;
  NetworkTime before = t.predicted;
  for (int i = 0; i < 200 && !jumped; ++i) {
    before = t.predicted;
    w.now_us += 6944;
    if (i % 2 == 0) {
      const auto obs =
          w.m.on_snapshot(SnapshotReceipt{w.now(), SnapshotTiming::from(w.server_at(w.now_us - 20000).add_ticks(60)),
                                          Duration::millis(40), std::nullopt});
      p.on_snapshot(w.in(), obs);
    }
    jumped = p.advance(t, w.in(), Duration::micros(6944)) == Advance::kHardReset;
  }
  ASSERT_TRUE(jumped);
  EXPECT_GT((t.predicted - before).ticks_f(), 10.0);
  EXPECT_TRUE(t.predicted.on_tick_boundary());
}

TEST(N4eTimeProvider, RejectsConfigsOutsideItsRanges) {
  N4eTimeProviderConfig c;
  EXPECT_NO_THROW(N4eTimeProvider{c});
  c.prediction_time_scale_min = 1.0;
  EXPECT_THROW(N4eTimeProvider{c}, std::invalid_argument);
  c = {};
  c.prediction_time_scale_max = 2.5;
  EXPECT_THROW(N4eTimeProvider{c}, std::invalid_argument);
  c = {};
  c.command_age_correction_fraction = 0;
  EXPECT_THROW(N4eTimeProvider{c}, std::invalid_argument);
  c = {};
  c.max_predict_ahead_time_ms = 600;
  EXPECT_THROW(N4eTimeProvider{c}, std::invalid_argument);
  c = {};
  c.interpolation_delay_jitter_scale = std::nan("");
  EXPECT_THROW(N4eTimeProvider{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
