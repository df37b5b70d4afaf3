// The view time travels with the inputs, end to end: a client's input for
// tick T claims the interpolation time the client drew the others at, and
// the server's game receives it with that input (prediction::PlayerInput's
// view), as far behind T as the client's lead plus its interpolation delay.

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "sim_match.h"
#include "watched_arena.h"

namespace tickwire {
namespace {

using testing::SimMatch;

// The arena, recording the view time each input arrives with.
class ViewRecordingGame final : public testing::WatchedArena {
 public:
  void watch(Tick tick, const prediction::Inputs& inputs) override {
    for (const prediction::PlayerInput& in : inputs.all()) {
      if (in.fallback) {
        ++fallbacks;
        if (in.view) ++fallbacks_with_view;
        continue;
      }
      if (!in.view) {
        ++own_without_view;
        continue;
      }
      behind[tick.value()] = (NetworkTime::from_tick(in.view->tick_rate(), tick) - *in.view).since_zero();
    }
  }

  std::map<std::uint32_t, Duration> behind;  // by tick: how far the claimed view lay behind it
  int fallbacks = 0;
  int fallbacks_with_view = 0;
  int own_without_view = 0;

 private:
};

TEST(ViewTimeSim, EachInputArrivesWithTheViewTimeItWasSampledAt) {
  ViewRecordingGame game;
  SimMatch m(77, {}, {}, &game);
  m.client_frame = Duration::micros(16667);
  transport::LinkConditions link;
  link.latency = Duration::millis(50);
  link.jitter = Duration::millis(3);
  m.net.set_default_link(link);
  m.add_client();
  ASSERT_TRUE(m.clients[0]->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(3)));
  m.run_for(Duration::seconds(8));

  // Every input of the client's own came with a view time; no stand-in did.
  EXPECT_EQ(game.own_without_view, 0);
  EXPECT_EQ(game.fallbacks_with_view, 0);
  ASSERT_GT(game.behind.size(), 300U);

  // Once the timelines settle, the view lies behind its input's tick by the
  // client's lead plus its interpolation delay, as the client measures
  // them, to within the 1/250-tick step and the timelines' slow steering.
  const client::ClientStats& st = m.clients[0]->stats();
  const Duration expected = st.lead + st.interpolation_delay;
  const Duration last = game.behind.rbegin()->second;
  std::printf("view behind its input by %.2f ms; lead %.2f ms + interpolation delay %.2f ms\n", last.millis_f(),
              st.lead.millis_f(), st.interpolation_delay.millis_f());
  EXPECT_LT((last - expected).micros() < 0 ? (expected - last).micros() : (last - expected).micros(), 2000);
  // A round trip of 100 ms at least: the shooter's view is that far back.
  EXPECT_GT(last, Duration::millis(100));
}

}  // namespace
}  // namespace tickwire
