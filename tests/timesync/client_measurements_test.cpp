// What the client learns from snapshots and feedback, and what it refuses.
#include "tickwire/timesync/client_measurements.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;

// Server time = local time + 10 s; 20 ms each way.
NetworkTime server_at_local(double local_us) {
  return NetworkTime::from_duration(kRate, Duration::micros(std::llround(local_us + 10e6)));
}

SnapshotReceipt receipt(double local_us, std::optional<InputFeedback> feedback = std::nullopt) {
  return SnapshotReceipt{Time::from_micros(std::llround(local_us)),
                         SnapshotTiming::from(server_at_local(local_us - 20000)), Duration::millis(40), feedback};
}

TEST(ClientMeasurements, LearnsTheClockAndTheRoundTrip) {
  ClientMeasurements m(kRate);
  for (int i = 0; i < 60; ++i) m.on_snapshot(receipt(1e6 + i * 16667.0));
  ASSERT_TRUE(m.clock().has_estimate());
  EXPECT_EQ(m.rtt().min(), Duration::millis(40));
  const auto est = m.clock().server_time(Time::from_micros(2'000'000));
  EXPECT_NEAR(est->seconds() - server_at_local(2e6).seconds(), 0.0, 1e-5);
  EXPECT_EQ(m.newest()->sent, server_at_local(1e6 + 59 * 16667.0 - 20000));
  EXPECT_TRUE(m.first_sync().has_value());
}

TEST(ClientMeasurements, NeedIsTheLeadThatWouldHaveArrivedJustInTime) {
  ClientMeasurements m(kRate);
  for (int i = 0; i < 60; ++i) m.on_snapshot(receipt(1e6 + i * 16667.0));
  // Tick 1000 runs at local 2 s, 3 ms after its boundary on the predicted
  // timeline; the server says it arrived 1.5 ticks before it ran it, at
  // server time 998.5 ticks.
  m.on_predicted_tick(Tick(1000), Time::from_micros(2'000'000), Duration::millis(3), false);
  InputFeedback f;
  f.lead = InputFeedback::Lead{Tick(1000), 384};
  const SnapshotObservation obs = m.on_snapshot(receipt(2.1e6, f));
  ASSERT_TRUE(obs.need.has_value());
  // need = overshoot + (arrival - server time at send)
  const double arrival_us = 998.5 * 1e6 / kRate;
  const double sent_us = server_at_local(2e6).seconds() * 1e6;
  EXPECT_NEAR(static_cast<double>(obs.need->micros()), 3000 + arrival_us - sent_us, 2.0);
}

TEST(ClientMeasurements, IgnoresFeedbackAboutTicksItDidNotSend) {
  ClientMeasurements m(kRate);
  for (int i = 0; i < 60; ++i) m.on_snapshot(receipt(1e6 + i * 16667.0));
  InputFeedback f;
  f.lead = InputFeedback::Lead{Tick(123), 10};
  EXPECT_FALSE(m.on_snapshot(receipt(2e6, f)).need.has_value());
  EXPECT_EQ(m.stats().rejected_feedback, 1u);
}

TEST(ClientMeasurements, IgnoresTicksRunInTheUpdateThatJumped) {
  ClientMeasurements m(kRate);
  for (int i = 0; i < 60; ++i) m.on_snapshot(receipt(1e6 + i * 16667.0));
  m.on_predicted_tick(Tick(1000), Time::from_micros(2'000'000), Duration::millis(15), true);
  InputFeedback f;
  f.lead = InputFeedback::Lead{Tick(1000), 10};
  EXPECT_FALSE(m.on_snapshot(receipt(2.1e6, f)).need.has_value());
}

TEST(ClientMeasurements, DifferencesTheRunningTotalsAcrossWrapAndIgnoresStaleOnes) {
  ClientMeasurements m(kRate);
  InputFeedback f;
  f.missed_total = 65530;
  f.late_total = 3;
  auto obs = m.on_snapshot(receipt(1e6, f));  // the first report is the base
  EXPECT_EQ(obs.newly_missed, 0u);
  f.missed_total = 4;  // wrapped: 10 more
  f.late_total = 5;
  obs = m.on_snapshot(receipt(1.02e6, f));
  EXPECT_EQ(obs.newly_missed, 10u);
  EXPECT_EQ(obs.newly_late, 2u);
  f.missed_total = 65531;  // an old report, reordered
  obs = m.on_snapshot(receipt(1.04e6, f));
  EXPECT_EQ(obs.newly_missed, 0u);
  EXPECT_EQ(m.stats().stale_totals, 1u);
  EXPECT_EQ(m.stats().missed, 10u);
}

TEST(ClientMeasurements, AnOlderSnapshotIsNotTheNewest) {
  ClientMeasurements m(kRate);
  m.on_snapshot(receipt(1.1e6));
  const auto obs = m.on_snapshot(receipt(1.0e6));
  EXPECT_FALSE(obs.newest);
  EXPECT_EQ(m.stats().stale_snapshots, 1u);
}

TEST(ClientMeasurements, RefusesImpossibleRoundTrips) {
  ClientMeasurements m(kRate);
  SnapshotReceipt r = receipt(1e6);
  r.rtt = Duration::seconds(30);
  EXPECT_FALSE(m.on_snapshot(r).rtt.has_value());
  EXPECT_EQ(m.stats().rejected_rtt, 1u);
  EXPECT_FALSE(m.clock().has_estimate());
}

}  // namespace
}  // namespace tickwire::timesync
