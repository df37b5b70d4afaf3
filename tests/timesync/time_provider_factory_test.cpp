// The providers by name: each one the factory makes runs a client's time
// system against a server over a clean link, a bad name or rate is an
// error, and n4e rebuilds the command age from the arrival margins the
// real server sends.
#include "tickwire/timesync/time_provider_factory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>

#include "tickwire/timesync/input_arrival_tracker.h"
#include "tickwire/timesync/n4e_time_provider.h"
#include "tickwire/timesync/time_system.h"

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;
constexpr std::uint32_t kSnapshotEvery = 2;  // 30 Hz snapshots
constexpr std::int64_t kOneWayUs = 20'000;
constexpr std::int64_t kFrameUs = 4'000;

// A server (local clock + 10 s) and one client 20 ms away each way, in
// 1 ms steps: the client's inputs reach the server's arrival tracker, and
// its snapshots carry the tracker's reports, as in the runtime.
class CleanLink {
 public:
  explicit CleanLink(std::unique_ptr<TimeProvider> provider)
      : client_(TimeSystem::client(TimeSystemConfig{kRate, 8, {}}, std::move(provider))),
        tracker_(InputArrivalTrackerConfig{kRate, 256}) {}

  // Runs `seconds` of local time; counts the ticks the server ran without
  // the client's input from `count_missed_after_s` on.
  void run(double seconds, double count_missed_after_s) {
    const auto end = now_us_ + static_cast<std::int64_t>(seconds * 1e6);
    const auto count_from = now_us_ + static_cast<std::int64_t>(count_missed_after_s * 1e6);
    for (; now_us_ < end; now_us_ += 1000) {
      deliver_inputs();
      run_server(now_us_ >= count_from);
      deliver_snapshots();
      if (now_us_ % kFrameUs == 0) client_frame();
    }
  }

  const TimeSystem& client() const { return client_; }
  std::uint64_t ticks_run() const { return ticks_run_; }
  std::uint64_t missed() const { return missed_; }

 private:
  struct InFlight {
    std::int64_t arrives_us;
    Tick tick;
  };
  struct SnapshotInFlight {
    std::int64_t arrives_us;
    SnapshotTimeBlock block;
  };

  NetworkTime server_now() const { return NetworkTime::from_duration(kRate, Duration::micros(now_us_ + 10'000'000)); }

  void deliver_inputs() {
    while (!inputs_.empty() && inputs_.front().arrives_us <= now_us_) {
      tracker_.on_input(inputs_.front().tick, server_now());
      arrived_.insert(inputs_.front().tick.value());
      inputs_.pop_front();
    }
  }

  void run_server(bool count_missed) {
    const Tick due = server_now().tick();
    if (!next_server_tick_) next_server_tick_ = due;
    for (; *next_server_tick_ <= due; next_server_tick_ = *next_server_tick_ + 1) {
      const Tick tick = *next_server_tick_;
      const bool had = arrived_.count(tick.value()) > 0;
      tracker_.on_tick_consumed(tick, had);
      if (!had && count_missed && client_.initialized()) ++missed_;
      if (tick.value() % kSnapshotEvery == 0) {
        SnapshotTimeBlock block{SnapshotTiming::from(server_now()), tracker_.make_report(tick)};
        snapshots_.push_back({now_us_ + kOneWayUs, block});
      }
    }
  }

  void deliver_snapshots() {
    while (!snapshots_.empty() && snapshots_.front().arrives_us <= now_us_) {
      const SnapshotTimeBlock& b = snapshots_.front().block;
      client_.on_snapshot(
          SnapshotReceipt{Time::from_micros(now_us_), b.timing, Duration::micros(2 * kOneWayUs), b.feedback});
      snapshots_.pop_front();
    }
  }

  void client_frame() {
    client_.update(Time::from_micros(now_us_), [&](const TickContext& ctx) {
      ++ticks_run_;
      inputs_.push_back({now_us_ + kOneWayUs, ctx.tick});
    });
  }

  std::int64_t now_us_ = 1'000'000;
  TimeSystem client_;
  InputArrivalTracker tracker_;
  std::optional<Tick> next_server_tick_;
  std::deque<InFlight> inputs_;
  std::deque<SnapshotInFlight> snapshots_;
  std::set<Tick::Rep> arrived_;
  std::uint64_t ticks_run_ = 0;
  std::uint64_t missed_ = 0;
};

TEST(TimeProviderFactory, EveryNameMakesAProviderThatKeepsInputsOnTime) {
  for (const std::string_view name : kTimeProviderNames) {
    SCOPED_TRACE(std::string(name));
    TimeProviderOptions options;
    options.snapshot_rate = kRate / kSnapshotEvery;
    auto made = make_time_provider(name, kRate, options);
    ASSERT_TRUE(made.ok()) << made.error().detail;
    EXPECT_EQ(made.value()->name(), name);
    CleanLink link(std::move(made).value());
    link.run(20.0, 10.0);
    ASSERT_TRUE(link.client().initialized());
    EXPECT_GT(link.ticks_run(), 18u * kRate);
    // A clean 40 ms round trip: every provider settles ahead of the server
    // by more than the one-way delay, so no input misses its tick.
    EXPECT_EQ(link.missed(), 0u);
    ASSERT_TRUE(link.client().lead().has_value());
    EXPECT_GT(link.client().lead()->micros(), kOneWayUs);
    if (const auto* n4e = dynamic_cast<const N4eTimeProvider*>(&link.client().provider())) {
      // Its control law holds the newest command TargetCommandSlack (2)
      // ticks ahead, and the age rebuilt from the margins says so.
      EXPECT_NEAR(n4e->command_age() / 256.0, -2.0, 0.5);
    }
  }
}

TEST(TimeProviderFactory, ABadNameIsAnErrorListingTheNames) {
  auto made = make_time_provider("n4e2", kRate);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().detail.find("n4e2"), std::string::npos);
  EXPECT_NE(made.error().detail.find(time_provider_names()), std::string::npos);
  EXPECT_FALSE(time_provider_factory("").ok());
  EXPECT_FALSE(make_time_provider("oneshot", kRate).ok());  // a bench baseline, not offered to the runtime
}

TEST(TimeProviderFactory, ABadRateIsAnError) {
  EXPECT_FALSE(make_time_provider("rfc", 0).ok());
  EXPECT_FALSE(make_time_provider("rfc", NetworkTime::kMaxTickRate + 1).ok());
  TimeProviderOptions options;
  options.snapshot_rate = 60;
  EXPECT_FALSE(make_time_provider("n4e", 30, options).ok());
}

TEST(TimeProviderFactory, TheFactoryChecksTheNameNowAndTheRateWhenCalled) {
  auto factory = time_provider_factory("rtt_half_slack");
  ASSERT_TRUE(factory.ok());
  EXPECT_EQ(factory.value()(kRate)->name(), "rtt_half_slack");
  EXPECT_THROW((void)factory.value()(0), std::invalid_argument);
}

InputFeedback::Lead arrivals(std::int32_t worst_units, std::uint16_t inputs, std::int32_t spread = 0) {
  InputFeedback::Lead lead;
  lead.input_tick = Tick(100);
  lead.units = worst_units;
  lead.inputs = inputs;
  for (std::size_t i = 0; i + 1 < inputs && i < lead.spreads.size(); ++i) lead.spreads[i] = spread;
  return lead;
}

TEST(N4eCommandAgeFromMargins, InputsMTicksEarlyMeanAnAgeOfMinusFloorM) {
  N4eCommandAgeFromMargins age;
  for (int i = 0; i < 100; ++i) {
    const auto lead = arrivals(2 * 256 + 100, 2);  // 2.4 ticks early
    age.on_report(&lead, 0);
  }
  EXPECT_NEAR(age.value() / 256.0, -2.0, 8 / 256.0);
  N4eCommandAgeFromMargins late;
  for (int i = 0; i < 100; ++i) {
    const auto lead = arrivals(-100, 1);  // 0.4 ticks late: the newest command was a tick old
    late.on_report(&lead, 0);
  }
  EXPECT_NEAR(late.value() / 256.0, 1.0, 8 / 256.0);
}

TEST(N4eCommandAgeFromMargins, MissedInputsAgeItAndLongReportsAreBounded) {
  N4eCommandAgeFromMargins age;
  const auto early = arrivals(3 * 256, 4, 256);
  for (int i = 0; i < 50; ++i) age.on_report(&early, 0);
  const std::int32_t before = age.value();
  age.on_report(nullptr, 3);
  EXPECT_GT(age.value(), before);
  // A hostile report of 4095 inputs and 65535 misses: bounded work, bounded value.
  const auto huge = arrivals(-kMaxLeadUnits, kMaxFeedbackInputs, 0);
  age.on_report(&huge, 65535);
  EXPECT_LE(age.value(), 256);
  EXPECT_GE(age.value(), -kMaxLeadUnits);
}

TEST(N4eTimeProvider, FromMarginsItIgnoresAnAgeFedBeside) {
  N4eTimeProviderConfig config;
  config.command_age_from_margins = true;
  N4eTimeProvider p(config);
  p.on_command_age(-10 * 256);
  EXPECT_EQ(p.command_age(), 0);
}

}  // namespace
}  // namespace tickwire::timesync
