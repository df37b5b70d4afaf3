// The server's record of one client's input arrivals and the feedback it gives.
#include "tickwire/timesync/input_arrival_tracker.h"

#include <gtest/gtest.h>

#include <array>

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;
NetworkTime ticks(double t) { return NetworkTime::from_ticks_f(kRate, t); }

TEST(InputArrivalTracker, TheMarginIsTheTickMinusTheFirstArrival) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(100), ticks(98.5));
  tracker.on_input(Tick(100), ticks(99.5));  // a redundant copy: ignored
  const InputFeedback f = tracker.make_report(Tick(98));
  ASSERT_TRUE(f.lead.has_value());
  EXPECT_EQ(f.lead->input_tick, Tick(100));
  EXPECT_EQ(f.lead->units, 384);  // 1.5 ticks x 256
  EXPECT_EQ(tracker.stats().duplicates, 1u);
}

TEST(InputArrivalTracker, AReportCarriesTheWorstArrivalSinceThePreviousOne) {
  InputArrivalTracker tracker({kRate, 256});
  // Input 10 was lost; 11's packet brings 10 and 11 together.
  tracker.on_input(Tick(9), ticks(7.0));
  tracker.on_input(Tick(10), ticks(9.25));
  tracker.on_input(Tick(11), ticks(9.25));
  const InputFeedback f = tracker.make_report(Tick(9));
  EXPECT_EQ(f.lead->input_tick, Tick(10));
  EXPECT_EQ(f.lead->units, 192);
  // Nothing new since: no lead in the next report.
  EXPECT_FALSE(tracker.make_report(Tick(10)).lead.has_value());
}

TEST(InputArrivalTracker, AReportCountsItsInputsAndCarriesTheBestBesideTheWorst) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(20), ticks(18.5));   // margin 1.5 ticks
  tracker.on_input(Tick(21), ticks(19.75));  // 1.25: the worst
  tracker.on_input(Tick(21), ticks(20.0));   // a redundant copy: not counted
  tracker.on_input(Tick(22), ticks(20.0));   // 2.0: the best
  const InputFeedback f = tracker.make_report(Tick(20));
  ASSERT_TRUE(f.lead.has_value());
  EXPECT_EQ(f.lead->input_tick, Tick(21));
  EXPECT_EQ(f.lead->units, 320);
  EXPECT_EQ(f.lead->inputs, 3);
  EXPECT_EQ(f.lead->best_units(), 512);
  // Every margin but the worst's, above it, in arrival order.
  EXPECT_EQ(f.lead->spreads, (std::array<std::int32_t, 3>{64, 192, 0}));
  // A report of one input: its margin is the worst and the best.
  tracker.on_input(Tick(23), ticks(22.5));
  const InputFeedback one = tracker.make_report(Tick(22));
  EXPECT_EQ(one.lead->inputs, 1);
  EXPECT_EQ(one.lead->spreads, (std::array<std::int32_t, 3>{}));
  EXPECT_EQ(one.lead->units, 128);
}

TEST(InputArrivalTracker, TheSpreadStaysWithinTheWiresBoundsWhenMarginsSaturate) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(1000), ticks(800));  // 200 ticks early: saturates at +kMaxLeadUnits
  tracker.on_input(Tick(800), ticks(950));   // 150 ticks late: saturates at -kMaxLeadUnits
  const InputFeedback f = tracker.make_report(Tick(900));
  EXPECT_EQ(f.lead->units, -kMaxLeadUnits);
  EXPECT_EQ(f.lead->best_units(), kMaxLeadUnits);
  EXPECT_EQ(f.lead->spreads[0], 2 * kMaxLeadUnits);
}

TEST(InputArrivalTracker, TheCountSaturatesAtTheWiresBound) {
  InputArrivalTracker tracker({kRate, 256});
  // More first copies than the wire counts (a report long overdue), each a
  // tick early.
  for (std::uint32_t t = 0; t < kMaxFeedbackInputs + 10U; ++t) tracker.on_input(Tick(100 + t), ticks(99.0 + t));
  const InputFeedback f = tracker.make_report(Tick(100 + kMaxFeedbackInputs));
  EXPECT_EQ(f.lead->inputs, kMaxFeedbackInputs);
  EXPECT_EQ(tracker.stats().inputs, kMaxFeedbackInputs + 10U);
  // Beyond four, only the best beside the worst: all margins are a tick.
  EXPECT_EQ(f.lead->spread_count(), 1U);
  EXPECT_EQ(f.lead->spreads, (std::array<std::int32_t, 3>{}));
}

TEST(InputArrivalTracker, AReportOfFiveOrMoreCarriesTheBestBesideTheWorst) {
  InputArrivalTracker tracker({kRate, 256});
  // Ticks 10..14 with margins of 2, 1.5, 1, 0.25 and 3 ticks.
  tracker.on_input(Tick(10), ticks(8.0));
  tracker.on_input(Tick(11), ticks(9.5));
  tracker.on_input(Tick(12), ticks(11.0));
  tracker.on_input(Tick(13), ticks(12.75));
  tracker.on_input(Tick(14), ticks(11.0));
  const InputFeedback f = tracker.make_report(Tick(12));
  EXPECT_EQ(f.lead->inputs, 5);
  EXPECT_EQ(f.lead->input_tick, Tick(13));
  EXPECT_EQ(f.lead->units, 64);
  EXPECT_EQ(f.lead->spread_count(), 1U);
  EXPECT_EQ(f.lead->spreads, (std::array<std::int32_t, 3>{704, 0, 0}));
  EXPECT_EQ(f.lead->best_units(), 768);
}

TEST(InputArrivalTracker, CountsMissedAndLateInputs) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(1), ticks(0.5));
  tracker.on_tick_consumed(Tick(1), true);
  tracker.on_tick_consumed(Tick(2), false);  // missing when its tick ran
  tracker.on_tick_consumed(Tick(3), false);
  tracker.on_input(Tick(2), ticks(2.25));    // ... and then it came
  tracker.on_tick_consumed(Tick(3), false);  // a tick runs once; repeats are ignored
  const InputFeedback f = tracker.make_report(Tick(3));
  EXPECT_EQ(f.missed_total, 2);
  EXPECT_EQ(f.late_total, 1);
  EXPECT_EQ(f.lead->input_tick, Tick(2));
  EXPECT_EQ(f.lead->units, -64);  // a quarter tick late
}

// The ring has 2 x window_ticks slots: a tick whose slot an older tick
// used starts fresh, neither a duplicate nor late because of it.
TEST(InputArrivalTracker, AReusedSlotCarriesNothingOfItsEarlierTick) {
  InputArrivalTracker tracker({kRate, 8});   // 16 slots
  tracker.on_tick_consumed(Tick(3), false);  // missed...
  tracker.on_input(Tick(19), ticks(18.5));   // ...and tick 19 takes its slot
  EXPECT_EQ(tracker.stats().inputs, 1u);
  EXPECT_EQ(tracker.stats().late, 0u);
  EXPECT_EQ(tracker.stats().duplicates, 0u);
  tracker.on_tick_consumed(Tick(19), true);
  tracker.on_input(Tick(19), ticks(19.5));  // a redundant copy
  EXPECT_EQ(tracker.stats().duplicates, 1u);
  // Thousands of ticks through the ring: one input each, consumed with it.
  for (std::uint32_t t = 20; t < 5000; ++t) {
    tracker.on_input(Tick(t), ticks(t - 0.5));
    tracker.on_input(Tick(t), ticks(t - 0.25));
    tracker.on_tick_consumed(Tick(t), true);
  }
  EXPECT_EQ(tracker.stats().inputs, 1u + 4980u);
  EXPECT_EQ(tracker.stats().duplicates, 1u + 4980u);
  EXPECT_EQ(tracker.stats().missed, 1u);
  EXPECT_EQ(tracker.stats().late, 0u);
}

TEST(InputArrivalTracker, TotalsWrapOnTheWire) {
  InputArrivalTracker tracker({kRate, 256});
  for (std::uint32_t t = 0; t < 70000; ++t) tracker.on_tick_consumed(Tick(t), false);
  EXPECT_EQ(tracker.stats().missed, 70000u);
  EXPECT_EQ(tracker.make_report(Tick(70000)).missed_total, static_cast<std::uint16_t>(70000 - 65536));
}

TEST(InputArrivalTracker, IgnoresInputsFarFromThePresent) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(5000), ticks(100));  // 4900 ticks early
  tracker.on_input(Tick(0), ticks(1000));    // 1000 ticks late
  EXPECT_EQ(tracker.stats().out_of_window, 2u);
  EXPECT_FALSE(tracker.make_report(Tick(1000)).lead.has_value());
}

TEST(InputArrivalTracker, SaturatesTheMarginAtTheWiresBounds) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(1000), ticks(800));  // 200 ticks early: beyond +-128
  EXPECT_EQ(tracker.make_report(Tick(800)).lead->units, kMaxLeadUnits);
}

TEST(InputArrivalTracker, LeavesOutALeadTooOldForTheSnapshot) {
  InputArrivalTracker tracker({kRate, 256});
  tracker.on_input(Tick(100), ticks(99));
  EXPECT_FALSE(tracker.make_report(Tick(100 + kMaxFeedbackTickOffset + 1)).lead.has_value());
}

TEST(InputArrivalTracker, RejectsABadConfig) {
  EXPECT_THROW(InputArrivalTracker({kRate, 4}), std::invalid_argument);
  EXPECT_THROW(InputArrivalTracker({0, 256}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
