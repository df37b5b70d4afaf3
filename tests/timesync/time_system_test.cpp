// The tick loop: which ticks run, in what order, with which times visible,
// and what happens on jumps, long frames and misuse.
#include "tickwire/timesync/time_system.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace tickwire::timesync {
namespace {

constexpr std::uint32_t kRate = 60;
Time at_us(std::int64_t us) { return Time::from_micros(us); }
NetworkTime ticks(double t) { return NetworkTime::from_ticks_f(kRate, t); }

// A client provider driven by the test: advances both timelines by the
// elapsed time, the interpolation timeline `gap` behind, and applies a
// jump when told to.
class ScriptedProvider final : public TimeProvider {
 public:
  std::string_view name() const override { return "scripted"; }
  bool ready(const ProviderInputs& /*in*/) const override { return ready_; }
  void initialize(Timelines& t, const ProviderInputs& /*in*/) override {
    t.predicted = start_;
    t.interpolation = start_ - gap_;
  }
  Advance advance(Timelines& t, const ProviderInputs& /*in*/, Duration elapsed) override {
    t.predicted += elapsed;
    t.interpolation += elapsed;
    if (jump_) {
      t.predicted += *jump_;
      t.interpolation += *jump_;
      jump_.reset();
      return Advance::kHardReset;
    }
    return Advance::kSmooth;
  }
  std::optional<NetworkTime> server_time(const ProviderInputs& /*in*/) const override { return std::nullopt; }

  bool ready_ = true;
  NetworkTime start_ = ticks(100.5);
  Duration gap_ = Duration::millis(50);
  std::optional<Duration> jump_;
};

struct Recorder {
  std::vector<TickContext> ticks;
  TimeSystem* system = nullptr;
  std::vector<NetworkTime> seen_predicted;
  std::vector<NetworkTime> seen_interpolation;

  TickCallback callback() {
    return [this](const TickContext& c) {
      ticks.push_back(c);
      seen_predicted.push_back(system->predicted_time());
      seen_interpolation.push_back(system->interpolation_time());
    };
  }
};

TimeSystem scripted_client(ScriptedProvider*& provider, std::uint32_t cap = 8) {
  auto p = std::make_unique<ScriptedProvider>();
  provider = p.get();
  return TimeSystem::client(TimeSystemConfig{kRate, cap, {}}, std::move(p));
}

TEST(TimeSystem, AServerRunsOneTickPerIntervalFromItsStart) {
  TimeSystem server = TimeSystem::server(TimeSystemConfig{kRate, 8, {}}, Tick(500));
  std::vector<Tick> seen;
  auto on_tick = [&](const TickContext& c) { seen.push_back(c.tick); };
  for (std::int64_t us = 0; us <= 1'000'000; us += 1000) server.update(at_us(10'000'000 + us), on_tick);
  ASSERT_EQ(seen.size(), 61u);  // ticks 500..560 in one second, both ends
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], Tick(500 + static_cast<Tick::Rep>(i)));
  EXPECT_EQ(server.server_time(), server.predicted_time());
  EXPECT_EQ(server.stats().hard_resets, 0u);
}

TEST(TimeSystem, EachTickSeesItsOwnTimesWhenSeveralRunInOneFrame) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p);
  Recorder run;
  run.system = &ts;
  ts.update(at_us(0), run.callback());  // initialize at 100.5: tick 100 runs
  ASSERT_EQ(run.ticks.size(), 1u);
  EXPECT_EQ(run.ticks[0].tick, Tick(100));
  // A 60 ms frame: from 100.5 to 104.1 ticks, so 101, 102, 103 and 104.
  ts.update(at_us(60'000), run.callback());
  ASSERT_EQ(run.ticks.size(), 5u);
  const NetworkTime end_predicted = ts.predicted_time();
  const NetworkTime end_interpolation = ts.interpolation_time();
  for (std::size_t i = 1; i < 5; ++i) {
    const TickContext& c = run.ticks[i];
    EXPECT_EQ(c.tick, Tick(100 + static_cast<Tick::Rep>(i)));
    EXPECT_EQ(c.index, i - 1);
    EXPECT_EQ(c.count, 4u);
    EXPECT_EQ(c.predicted, NetworkTime::from_tick(kRate, c.tick));
    // The accessors agree with the context during the callback...
    EXPECT_EQ(run.seen_predicted[i], c.predicted);
    EXPECT_EQ(run.seen_interpolation[i], c.interpolation);
    // ...and the interpolation time keeps its distance from the predicted one.
    EXPECT_EQ(c.predicted - c.interpolation, end_predicted - end_interpolation);
  }
  // After the callbacks the accessors show the frame's times again.
  EXPECT_EQ(ts.predicted_time(), ticks(100.5) + Duration::micros(60'000));
  EXPECT_EQ(ts.last_tick(), Tick(104));
}

TEST(TimeSystem, ALongFrameRunsAtMostTheCapAndDropsTheRest) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p, 4);
  std::vector<Tick> seen;
  auto on_tick = [&](const TickContext& c) { seen.push_back(c.tick); };
  ts.update(at_us(0), on_tick);
  const auto r = ts.update(at_us(1'000'000), on_tick);  // a one-second hitch: 60 ticks due
  EXPECT_TRUE(r.capped);
  EXPECT_EQ(r.ticks, 4u);
  EXPECT_EQ(ts.stats().capped_updates, 1u);
  EXPECT_EQ(seen.back(), Tick(104));
  EXPECT_EQ(ts.predicted_time().tick(), Tick(104));  // the rest of the second is gone
  const auto events = ts.take_events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].type, TimeEventType::kCapped);
  EXPECT_LT(events[1].predicted_jump, Duration::zero());
}

TEST(TimeSystem, AJumpBackNeverRepeatsATick) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p);
  std::vector<Tick> seen;
  auto on_tick = [&](const TickContext& c) { seen.push_back(c.tick); };
  ts.update(at_us(0), on_tick);
  ts.update(at_us(100'000), on_tick);  // up to tick 106
  p->jump_ = Duration::millis(-100);   // six ticks back
  const auto r = ts.update(at_us(110'000), on_tick);
  EXPECT_TRUE(r.hard_reset);
  EXPECT_EQ(r.ticks, 0u);
  for (std::int64_t us = 110'000; us <= 300'000; us += 7'000) ts.update(at_us(us), on_tick);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[i - 1] + 1);
  EXPECT_EQ(ts.stats().hard_resets, 1u);
}

TEST(TimeSystem, AJumpForwardRunsTheTicksItPassedUpToTheCap) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p, 5);
  std::vector<Tick> seen;
  auto on_tick = [&](const TickContext& c) { seen.push_back(c.tick); };
  ts.update(at_us(0), on_tick);
  p->jump_ = Duration::millis(50);  // three ticks ahead
  auto r = ts.update(at_us(1'000), on_tick);
  EXPECT_TRUE(r.hard_reset);
  EXPECT_EQ(r.ticks, 3u);
  EXPECT_EQ(seen.back(), Tick(103));
  p->jump_ = Duration::seconds(1);  // sixty ahead: only the newest five run
  r = ts.update(at_us(2'000), on_tick);
  EXPECT_EQ(r.ticks, 5u);
  EXPECT_EQ(r.skipped_ticks, 55u);
  EXPECT_EQ(seen.back(), Tick(163));
  EXPECT_FALSE(r.capped);  // a jump skips; it does not drop time
}

TEST(TimeSystem, AClientWaitsForItsProvider) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p);
  p->ready_ = false;
  EXPECT_EQ(ts.update(at_us(0)).ticks, 0u);
  EXPECT_FALSE(ts.initialized());
  p->ready_ = true;
  EXPECT_TRUE(ts.update(at_us(1000)).initialized);
  EXPECT_TRUE(ts.initialized());
}

TEST(TimeSystem, UpdatingFromInsideATickThrows) {
  TimeSystem server = TimeSystem::server(TimeSystemConfig{kRate, 8, {}});
  bool threw = false;
  server.update(at_us(0), [&](const TickContext&) {
    try {
      server.update(at_us(1));
    } catch (const std::logic_error&) {
      threw = true;
    }
  });
  EXPECT_TRUE(threw);
}

TEST(TimeSystem, TimeGoingBackwardsIsNoTimePassing) {
  TimeSystem server = TimeSystem::server(TimeSystemConfig{kRate, 8, {}});
  server.update(at_us(1'000'000));
  server.update(at_us(1'100'000));
  const NetworkTime t = server.predicted_time();
  server.update(at_us(900'000));
  EXPECT_EQ(server.predicted_time(), t);
}

TEST(TimeSystem, TheInterpolationTimeIsNeverNegative) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p);
  p->start_ = ticks(0.5);
  p->gap_ = Duration::millis(100);
  ts.update(at_us(0));
  EXPECT_EQ(ts.interpolation_time(), NetworkTime(kRate));
}

TEST(TimeSystem, RunsNoTickPastTheEndOfTheRangeOfTick) {
  ScriptedProvider* p = nullptr;
  TimeSystem ts = scripted_client(p);
  p->start_ = NetworkTime::from_tick(kRate, Tick(UINT32_MAX - 2), 500'000);
  std::vector<Tick> seen;
  auto on_tick = [&](const TickContext& c) { seen.push_back(c.tick); };
  for (std::int64_t us = 0; us <= 200'000; us += 7'000) ts.update(at_us(us), on_tick);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), Tick(UINT32_MAX - 1));
}

TEST(TimeSystem, RejectsABadConfig) {
  EXPECT_THROW(TimeSystem::client(TimeSystemConfig{kRate, 8, {}}, nullptr), std::invalid_argument);
  EXPECT_THROW(TimeSystem::server(TimeSystemConfig{0, 8, {}}), std::invalid_argument);
  EXPECT_THROW(TimeSystem::server(TimeSystemConfig{kRate, 0, {}}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::timesync
