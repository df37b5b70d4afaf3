// The view time travels with the inputs, end to end: a client's input for
// tick T claims the interpolation time the client drew the others at, and
// the server's game receives it with that input (prediction::PlayerInput's
// view), as far behind T as the client's lead plus its interpolation delay.

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

// The arena, recording the view time each input arrives with.
class ViewRecordingGame final : public prediction::NetGame {
 public:
  const snapshot::Schema& schema() const override { return inner_.schema(); }
  prediction::TypeId input_type() const override { return inner_.input_type(); }
  bool supports_tick_rate(std::uint32_t rate) const override { return inner_.supports_tick_rate(rate); }
  void populate(snapshot::World& world) override { inner_.populate(world); }
  void player_joined(snapshot::World& world, prediction::PlayerId player) override {
    inner_.player_joined(world, player);
  }
  void player_left(snapshot::World& world, prediction::PlayerId player) override { inner_.player_left(world, player); }
  void before_snapshots(const snapshot::World& world) override { inner_.before_snapshots(world); }
  snapshot::Relevancy relevancy(const snapshot::World& world, prediction::PlayerId player) override {
    return inner_.relevancy(world, player);
  }
  std::optional<snapshot::EntityId> avatar(const snapshot::World& world, prediction::PlayerId player) const override {
    return inner_.avatar(world, player);
  }
  void predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                          std::vector<snapshot::EntityId>& out) const override {
    inner_.predicted_entities(world, player, out);
  }
  void simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs,
                prediction::SimContext& ctx) override {
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
    inner_.simulate(world, tick, inputs, ctx);
  }

  std::map<std::uint32_t, Duration> behind;  // by tick: how far the claimed view lay behind it
  int fallbacks = 0;
  int fallbacks_with_view = 0;
  int own_without_view = 0;

 private:
  arena::Game inner_;
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
