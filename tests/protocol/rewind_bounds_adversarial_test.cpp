// The server's rewind policy against hostile view times (lag
// compensation, docs/lag-compensation.md section 3): a raw peer claims
// absurd and hostile view times (the present and beyond, as far back as
// the code reaches, random offsets, claims that flip every input) and the
// view time the game is handed to judge shots at never leaves the rewind
// window [tick - 1 - max_rewind, tick - 1]; claims too far from the
// server's estimate are replaced by it, and every decision is counted in
// the server's stats.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "raw_peer.h"
#include "tickwire/core/view_claim.h"
#include "watched_arena.h"

namespace tickwire {
namespace {

using testing::RawPeer;
using testing::SimMatch;
using transport::Delivery;

// The arena, checking the rewind time of every input against the window.
class RewindCheckingGame final : public testing::WatchedArena {
 public:
  explicit RewindCheckingGame(Duration max_rewind) : max_rewind_(max_rewind) {}
  void watch(Tick tick, const prediction::Inputs& inputs) override {
    const NetworkTime newest = NetworkTime::from_tick(60, tick - 1);
    const NetworkTime zero = NetworkTime::from_tick(60, Tick(0));
    NetworkTime oldest = newest - max_rewind_;
    if (oldest < zero) oldest = zero;
    for (const prediction::PlayerInput& in : inputs.all()) {
      if (in.fallback) {
        if (in.rewind) ++stand_ins_with_rewind;
        continue;
      }
      if (!in.rewind) {
        ++without_rewind;
        continue;
      }
      ++judged;
      if (*in.rewind < oldest || *in.rewind > newest) {
        ++outside;
        if (first_outside.empty()) {
          first_outside =
              "tick " + std::to_string(tick.value()) + ": rewind to " + std::to_string(in.rewind->ticks_f());
        }
      }
      if (in.view && *in.rewind == *in.view) ++used_as_claimed;
    }
  }

  int judged = 0;
  int outside = 0;
  int without_rewind = 0;
  int stand_ins_with_rewind = 0;
  int used_as_claimed = 0;
  std::string first_outside;

 private:
  Duration max_rewind_;
};

// An input packet of one input for `tick`, claiming `offset` view steps
// behind it.
std::vector<std::uint8_t> claiming(RawPeer& raw, Tick tick, std::uint32_t offset) {
  const arena::Schema& s = arena::schema();
  prediction::InputPacket packet;
  packet.first_tick = tick;
  arena::Input fire;
  fire.fire = true;
  packet.inputs.assign(1, arena::to_record(fire));
  packet.view_claims.assign(1, ViewClaim{offset});
  PacketHeader header = raw.channel.next_header(PacketType::kInput, raw.match.clock.now());
  BitWriter w(1200);
  EXPECT_TRUE(serialize(w, header) && prediction::serialize_input_packet(w, packet, s.schema, s.input_type));
  return w.take();
}

// Steps of a view claim in one tick.
constexpr std::uint32_t kStepsPerTick = static_cast<std::uint32_t>(kViewStepsPerTick);

struct Match {
  RewindCheckingGame game;
  SimMatch match;
  Match(std::uint64_t seed, Duration max_rewind) : game(max_rewind), match(seed, config(max_rewind), {}, &game) {}
  static server::ServerConfig config(Duration max_rewind) {
    server::ServerConfig c;
    c.max_rewind = max_rewind;
    return c;
  }
};

// Sends one claim per server tick for `ticks` ticks, each for the tick
// after the server's next; `offset_of(i)` picks the i-th claim.
template <class Offset>
void send_claims(Match& run, RawPeer& raw, int ticks, Offset offset_of) {
  for (int i = 0; i < ticks; ++i) {
    raw.send(Delivery::kUnreliable, claiming(raw, run.match.server->tick() + 2, offset_of(i)));
    run.match.run_for(Duration::micros(16667));
  }
  run.match.run_for(Duration::millis(100));
}

void expect_within_window(const Match& run) {
  EXPECT_GT(run.game.judged, 0);
  EXPECT_EQ(run.game.outside, 0) << run.game.first_outside;
  EXPECT_EQ(run.game.stand_ins_with_rewind, 0);
  EXPECT_EQ(run.game.without_rewind, 0);
  // Every claim was well formed: none was dropped before the policy.
  EXPECT_EQ(run.match.server->stats().bad_packets(), 0u);
  EXPECT_EQ(run.match.server->stats().clients, 1u);
}

TEST(RewindBounds, AbsurdViewTimesNeverRewindPastTheWindow) {
  Match run(501, Duration::millis(250));
  RawPeer raw(run.match, "absurd");
  ASSERT_TRUE(raw.join());
  // Past tick 262, so that even the furthest claim lies after tick zero
  // (one before it is a bad packet, view_claim.h's obligation 3).
  run.match.run_for(Duration::seconds(5));
  // The present itself (offset 0: a view "at" the input's tick, after
  // anything the server has run), the furthest back the code reaches
  // (262 ticks, over 4 s), and just past the window in both directions.
  const std::uint32_t offsets[] = {0, kMaxViewOffset, 17 * kStepsPerTick, 1, kMaxViewOffset - 1, 40 * kStepsPerTick};
  send_claims(run, raw, 120, [&](int i) { return offsets[static_cast<std::size_t>(i) % std::size(offsets)]; });
  expect_within_window(run);
  const server::ServerStats stats = run.match.server->stats();
  EXPECT_EQ(stats.rewind.decisions, static_cast<std::uint64_t>(run.game.judged));
  EXPECT_GT(stats.rewind.replaced, 0u);  // 4 s back is far beyond the 200 ms tolerance
  EXPECT_GT(stats.rewind.clamped, 0u);   // offset 0 and 1 lie after the newest tick
  ASSERT_EQ(run.match.server->client_stats().size(), 1u);
  EXPECT_EQ(run.match.server->client_stats()[0].rewind.decisions, stats.rewind.decisions);
}

TEST(RewindBounds, RandomAndFlippingClaimsStayInsideASmallerWindow) {
  const std::uint64_t seed = 502;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Match run(seed, Duration::millis(100));
  RawPeer raw(run.match, "random");
  ASSERT_TRUE(raw.join());
  run.match.run_for(Duration::seconds(5));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> any(0, kMaxViewOffset);
  send_claims(run, raw, 180, [&](int i) {
    // Alternate random offsets with a claim flipping between two extremes.
    if (i % 3 == 0) return any(rng);
    return i % 2 == 0 ? 0U : kMaxViewOffset;
  });
  expect_within_window(run);
  EXPECT_GT(run.match.server->stats().rewind.replaced, 0u);
}

TEST(RewindBounds, AClaimNearTheEstimateIsUsedAsClaimed) {
  Match run(503, Duration::millis(250));
  RawPeer raw(run.match, "honest-ish");
  ASSERT_TRUE(raw.join());
  run.match.run_for(Duration::seconds(1));
  // No latency on the simulated link: the estimate is the arrival time
  // minus the assumed 80 ms of interpolation delay. A claim 6 ticks (100
  // ms) behind the input's tick, which arrives about a tick and a half
  // before it runs, lies within 200 ms of that.
  send_claims(run, raw, 60, [](int) { return 6 * kStepsPerTick; });
  expect_within_window(run);
  const server::ServerStats stats = run.match.server->stats();
  EXPECT_EQ(stats.rewind.replaced, 0u);
  EXPECT_EQ(stats.rewind.as_claimed, stats.rewind.decisions);
  EXPECT_EQ(run.game.used_as_claimed, run.game.judged);
}

TEST(RewindBounds, ACheaterCanReachNoFurtherThanTheToleranceAllows) {
  Match run(504, Duration::millis(1000));
  RawPeer raw(run.match, "reach");
  ASSERT_TRUE(raw.join());
  // Let the server run 2 s first so the whole second of window is there.
  run.match.run_for(Duration::seconds(2));
  // 30 ticks (500 ms) back: inside the window, but 400 ms from the
  // estimate (about 100 ms back), beyond the 200 ms tolerance.
  send_claims(run, raw, 60, [](int) { return 30 * kStepsPerTick; });
  expect_within_window(run);
  const server::ServerStats stats = run.match.server->stats();
  EXPECT_EQ(stats.rewind.replaced, stats.rewind.decisions);
  EXPECT_EQ(run.game.used_as_claimed, 0);
}

TEST(RewindBounds, ServerConfigRefusesAWindowBeyondASecond) {
  server::ServerConfig c;
  c.max_rewind = Duration::millis(1001);
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c.max_rewind = Duration::millis(-1);
  EXPECT_THROW(c.validate(), std::invalid_argument);
  c.max_rewind = Duration::millis(250);
  c.view_tolerance = Duration::seconds(2);
  EXPECT_THROW(c.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire
