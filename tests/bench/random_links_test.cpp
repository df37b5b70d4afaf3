// The time benchmark's random links: a link is the same whatever else is
// drawn and however long it runs, the family spans what it promises, and
// the delay tracks it is built from mean what they say.
#include "random_links.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "profiles.h"

namespace tickwire::bench {
namespace {

std::uint64_t family_seed() {
  const char* env = std::getenv("TICKWIRE_SEED");
  const std::uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 10) : 7;
  std::printf("family seed %llu (TICKWIRE_SEED)\n", static_cast<unsigned long long>(seed));
  return seed;
}

Duration extra_up(const BenchProfile& p, Duration t) {
  Duration sum = Duration::zero();
  for (const DelayTrack& track : p.tracks) {
    if (track.up) sum += track.at(t);
  }
  return sum;
}

TEST(RandomLinks, ALinkIsTheSameDrawnAloneOrForLonger) {
  const std::uint64_t seed = family_seed();
  for (std::uint32_t i = 0; i < 50; ++i) {
    const RandomLinkId id{seed, i};
    const BenchProfile short_run = draw_random_link(id, Duration::seconds(60));
    const BenchProfile again = draw_random_link(id, Duration::seconds(60));
    const BenchProfile long_run = draw_random_link(id, Duration::seconds(300));
    EXPECT_EQ(short_run.description, again.description);
    EXPECT_EQ(short_run.up.latency, long_run.up.latency);
    EXPECT_EQ(short_run.down.loss, long_run.down.loss);
    EXPECT_EQ(short_run.drift_ppm, long_run.drift_ppm);
    for (Duration t = Duration::zero(); t <= Duration::seconds(60); t += Duration::millis(250)) {
      ASSERT_EQ(extra_up(short_run, t), extra_up(long_run, t)) << id.name() << " at " << t.seconds_f() << " s";
    }
  }
}

TEST(RandomLinks, TheFamilySpansWhatItPromises) {
  const std::uint64_t seed = family_seed();
  int asymmetric = 0;
  std::string all;
  for (std::uint32_t i = 0; i < 200; ++i) {
    const BenchProfile p = draw_random_link(RandomLinkId{seed, i}, Duration::seconds(120));
    for (const auto* c : {&p.up, &p.down}) {
      EXPECT_GE(c->latency, Duration::millis(5));
      EXPECT_LE(c->latency, Duration::millis(300));
      EXPECT_TRUE(c->validate()) << p.name;
    }
    const double ratio = p.up.latency.millis_f() / p.down.latency.millis_f();
    if (ratio > 2 || ratio < 0.5) ++asymmetric;
    all += p.description + "\n";
  }
  EXPECT_GT(asymmetric, 20);
  for (const char* part : {"jitter", "tail", "FIFO stalls", "loss", "GE loss", "steps", "ramps", "bloat", "stairs",
                           "route flaps", "drift", "clock"}) {
    EXPECT_NE(all.find(part), std::string::npos) << part;
  }
}

TEST(RandomLinks, NamesParseBack) {
  const auto id = parse_random_link("12:345");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->family_seed, 12U);
  EXPECT_EQ(id->index, 345U);
  EXPECT_EQ(parse_random_link(id->name())->index, 345U);
  for (const char* bad : {"", ":", "1:", ":2", "x:1", "1:2:3", "1:-2", "1:99999999999", "99999999999999999999:1"}) {
    EXPECT_FALSE(parse_random_link(bad)) << bad;
  }
  EXPECT_NE(RandomLinkId({1, 2}).link_seed(), RandomLinkId({2, 1}).link_seed());
}

TEST(DelayTrack, IsLinearBetweenCornersAndJumpsWhereTwoShareATime) {
  DelayTrack t;
  t.corners = {{Duration::seconds(1), Duration::millis(10)},
               {Duration::seconds(3), Duration::millis(30)},
               {Duration::seconds(3), Duration::millis(100)},
               {Duration::seconds(4), Duration::millis(100)}};
  EXPECT_EQ(t.at(Duration::zero()), Duration::millis(10));
  EXPECT_EQ(t.at(Duration::seconds(2)), Duration::millis(20));
  EXPECT_EQ(t.at(Duration::millis(2999)), Duration::micros(29'990));
  EXPECT_EQ(t.at(Duration::seconds(3)), Duration::millis(100));
  EXPECT_EQ(t.at(Duration::seconds(9)), Duration::millis(100));
  EXPECT_EQ(DelayTrack{}.at(Duration::seconds(1)), Duration::zero());
}

TEST(DelayTrack, AddsToTheLinksItNamesInTheSchedule) {
  BenchProfile p;
  p.up.latency = Duration::millis(20);
  p.down.latency = Duration::millis(20);
  DelayTrack ramp;
  ramp.down = false;
  ramp.corners = {{Duration::seconds(1), Duration::zero()}, {Duration::seconds(2), Duration::millis(100)}};
  p.tracks.push_back(ramp);
  const std::vector<LinkStep> schedule = link_schedule(p, Duration::seconds(5));
  ASSERT_FALSE(schedule.empty());
  const LinkStep* mid = nullptr;
  for (const LinkStep& s : schedule) {
    if (s.at <= Duration::millis(1500)) mid = &s;
    EXPECT_EQ(s.down.latency, Duration::millis(20));
  }
  ASSERT_NE(mid, nullptr);
  EXPECT_EQ(mid->up.latency, Duration::millis(70));
  EXPECT_EQ(schedule.back().up.latency, Duration::millis(120));
}

}  // namespace
}  // namespace tickwire::bench
