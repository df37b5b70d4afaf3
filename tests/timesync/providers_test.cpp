// The time providers against a clean, known world: the seed algorithms do
// what their sources say, and ours keeps its promises.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/client_measurements.h"
#include "tickwire/timesync/client_time_provider.h"
#include "tickwire/timesync/one_shot_sync_time_provider.h"
#include "tickwire/timesync/rfc_client_time_provider.h"
#include "tickwire/timesync/rtt_half_slack_time_provider.h"
#include "tickwire/timesync/server_time_provider.h"

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;
constexpr double kTickMs = 1000.0 / kRate;

// Server time = local time + 10 s + `shift`; 20 ms each way.
struct World {
  ClientMeasurements m{kRate};
  double shift_us = 0;
  double now_us = 1e6;

  NetworkTime server_at(double local_us) const {
    return NetworkTime::from_duration(kRate, Duration::micros(std::llround(local_us + 10e6 + shift_us)));
  }
  Time now() const { return Time::from_micros(std::llround(now_us)); }
  ProviderInputs in() const { return {now(), &m}; }
  // One snapshot arriving now, and the time moving on by a frame.
  SnapshotObservation snapshot() {
    const auto obs = m.on_snapshot(
        SnapshotReceipt{now(), SnapshotTiming::from(server_at(now_us - 20000)), Duration::millis(40), std::nullopt});
    return obs;
  }
  double ms_ahead(const NetworkTime& t) const { return (t - server_at(now_us)).seconds() * 1000; }
};

TEST(ServerTimeProvider, RunsAtExactlyTheLocalRate) {
  ServerTimeProvider p(kRate, Tick(7));
  Timelines t(kRate);
  p.initialize(t, {});
  EXPECT_EQ(t.predicted, NetworkTime::from_tick(kRate, Tick(7)));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(p.advance(t, {}, Duration::micros(16667)), Advance::kSmooth);
  EXPECT_EQ(t.predicted, NetworkTime::from_tick(kRate, Tick(7)) + Duration::micros(16'667'000));
  EXPECT_EQ(t.interpolation, t.predicted);
}

TEST(RfcClientTimeProvider, TargetsAreTheRfcsFormulas) {
  World w;
  RfcClientTimeProvider p;
  EXPECT_FALSE(p.ready(w.in()));
  w.snapshot();
  ASSERT_TRUE(p.ready(w.in()));
  Timelines t(kRate);
  p.initialize(t, w.in());
  // last snapshot (20 ms old) + RTT (40) + 2 ticks; last snapshot - 1 tick.
  EXPECT_NEAR(w.ms_ahead(t.predicted), -20 + 40 + 2 * kTickMs, 0.01);
  EXPECT_NEAR(w.ms_ahead(t.interpolation), -20 - kTickMs, 0.01);
  EXPECT_NEAR(w.ms_ahead(*p.server_time(w.in())), 0.0, 0.01);
}

TEST(RfcClientTimeProvider, TheServerBufferCanBeSetInTime) {
  World w;
  RfcClientTimeProviderConfig config;
  config.server_buffer = kNgoServerBuffer;
  RfcClientTimeProvider p(config);
  w.snapshot();
  Timelines t(kRate);
  p.initialize(t, w.in());
  // last snapshot (20 ms old) + RTT (40) + 50 ms.
  EXPECT_NEAR(w.ms_ahead(t.predicted), -20 + 40 + 50, 0.01);
  config.server_buffer = Duration::millis(-1);
  EXPECT_THROW(RfcClientTimeProvider{config}, std::invalid_argument);
}

TEST(RfcClientTimeProvider, AdjustsByTheFixedRatioAndResetsPastTheThreshold) {
  World w;
  RfcClientTimeProvider p;
  w.snapshot();
  Timelines t(kRate);
  p.initialize(t, w.in());
  bool adjusted = false;
  for (int i = 0; i < 200; ++i) {
    w.now_us += 6944;
    if (i % 2 == 0) w.snapshot();
    EXPECT_EQ(p.advance(t, w.in(), Duration::micros(6944)), Advance::kSmooth);
    for (double c : {t.predicted_correction, t.interpolation_correction}) {
      EXPECT_TRUE(c == 0.0 || std::fabs(std::fabs(c) - 0.01) < 1e-12) << c;
      adjusted = adjusted || c != 0.0;
    }
  }
  EXPECT_TRUE(adjusted);  // FixedTime rounds down a tick: the error is never zero for long
  w.shift_us = 300'000;   // the server's time jumps 300 ms
  w.now_us += 6944;
  w.snapshot();
  EXPECT_EQ(p.advance(t, w.in(), Duration::micros(6944)), Advance::kHardReset);
  EXPECT_NEAR(w.ms_ahead(t.predicted), -20 + 40 + 2 * kTickMs, 0.01);
}

TEST(RfcClientTimeProvider, TheHardResetOnlyModeNeverScales) {
  World w;
  RfcClientTimeProviderConfig config;
  config.hard_reset_only = true;
  RfcClientTimeProvider p(config);
  w.snapshot();
  Timelines t(kRate);
  p.initialize(t, w.in());
  for (int i = 0; i < 200; ++i) {
    w.now_us += 6944;
    w.shift_us += 100;  // the targets move away
    w.snapshot();
    p.advance(t, w.in(), Duration::micros(6944));
    EXPECT_EQ(t.predicted_correction, 0.0);
    EXPECT_EQ(t.interpolation_correction, 0.0);
  }
}

TEST(RttHalfSlackTimeProvider, PredictsHalfTheRoundTripAndTwoTicksAheadOfTheServer) {
  World w;
  RttHalfSlackTimeProvider p;
  w.snapshot();
  Timelines t(kRate);
  p.initialize(t, w.in());
  EXPECT_NEAR(w.ms_ahead(t.predicted), 20 + 2 * kTickMs, 0.01);
  EXPECT_NEAR(w.ms_ahead(t.interpolation), -20 - 2 * kTickMs, 0.01);
  EXPECT_NEAR(w.ms_ahead(*p.server_time(w.in())), 0.0, 0.01);
}

TEST(OneShotSyncTimeProvider, SyncsOnceAndThenRunsFree) {
  World w;
  OneShotSyncTimeProvider p;
  w.snapshot();
  Timelines t(kRate);
  p.initialize(t, w.in());
  EXPECT_NEAR(w.ms_ahead(t.predicted), 20 + 2 * kTickMs, 0.01);
  w.shift_us = 50'000;  // the server moves on; a one-shot sync never hears of it
  for (int i = 0; i < 100; ++i) {
    w.now_us += 10000;
    w.snapshot();
    EXPECT_EQ(p.advance(t, w.in(), Duration::millis(10)), Advance::kSmooth);
  }
  EXPECT_NEAR(w.ms_ahead(t.predicted), 20 + 2 * kTickMs - 50, 0.01);
}

TEST(ClientTimeProvider, StartsFromTheRoundTripWithAMargin) {
  World w;
  ClientTimeProviderConfig config;
  ClientTimeProvider p(config);
  w.snapshot();
  ASSERT_TRUE(p.ready(w.in()));
  Timelines t(kRate);
  p.initialize(t, w.in());
  // RTT / 2 + the initial margin (the deviation is not trusted after one sample).
  EXPECT_NEAR(w.ms_ahead(t.predicted), 20 + config.initial_lead_margin.millis_f(), 0.01);
  EXPECT_NEAR(w.ms_ahead(t.interpolation), -config.initial_delay.millis_f(), 0.01);
}

TEST(ClientTimeProvider, TheHardResetOnlyModeNeverScalesTime) {
  World w;
  ClientTimeProviderConfig config;
  config.mode = ClientTimeMode::kHardResetOnly;
  ClientTimeProvider p(config);
  for (int i = 0; i < 30; ++i) {
    w.snapshot();
    w.now_us += 16667;
  }
  Timelines t(kRate);
  p.initialize(t, w.in());
  int resets = 0;
  for (int i = 0; i < 3000; ++i) {
    w.now_us += 6944;
    w.shift_us += 20;  // the client's clock runs 3000 ppm slow
    if (i % 2 == 0) p.on_snapshot(w.in(), w.snapshot());
    const NetworkTime before = t.predicted;
    if (p.advance(t, w.in(), Duration::micros(6944)) == Advance::kHardReset) {
      ++resets;
    } else {
      EXPECT_EQ(t.predicted, before + Duration::micros(6944));  // exactly the local rate
    }
    EXPECT_EQ(t.predicted_correction, 0.0);
    EXPECT_EQ(t.interpolation_correction, 0.0);
  }
  EXPECT_GT(resets, 0);  // the drift had to be answered somehow
}

// A client that draws no remote entities can leave the interpolation delay
// unmeasured: it then holds the initial delay while a measuring one moves
// to what the arrivals show (20 ms of transit and a 60 Hz interval here).
TEST(ClientTimeProvider, AThinClientLeavesTheInterpolationDelayUnmeasured) {
  double delay_ms[2] = {0, 0};
  for (const bool measure : {true, false}) {
    World w;
    ClientTimeProviderConfig config;
    config.measure_interpolation = measure;
    ClientTimeProvider p(config);
    p.on_snapshot(w.in(), w.snapshot());
    Timelines t(kRate);
    p.initialize(t, w.in());
    for (int i = 0; i < 600; ++i) {
      w.now_us += 16667;
      p.on_snapshot(w.in(), w.snapshot());
      p.advance(t, w.in(), Duration::micros(16667));
    }
    delay_ms[measure ? 0 : 1] = -w.ms_ahead(t.interpolation);
  }
  const double initial = ClientTimeProviderConfig{}.initial_delay.millis_f();
  EXPECT_NEAR(delay_ms[1], initial, 0.5);
  EXPECT_GT(delay_ms[0], 20 + kTickMs);
  EXPECT_GT(std::abs(delay_ms[0] - delay_ms[1]), 1.0) << delay_ms[0] << " vs " << delay_ms[1];
}

}  // namespace
}  // namespace tickwire::timesync
