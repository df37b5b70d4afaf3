// The client's draw options: each toggle changes what view() holds the way
// a viewer's user is told it does, and nothing else.
#include <gtest/gtest.h>

#include <iostream>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

constexpr std::uint64_t kSeed = 611;

// Two players walking +x over a 40 ms one-way link: the own avatar is
// drawn ahead of the newest snapshot, the other one behind it.
struct Walking {
  SimMatch m{kSeed};
  Walking() {
    std::cout << "seed=" << kSeed << "\n";
    m.client_frame = Duration::micros(16667);
    transport::LinkConditions link;
    link.latency = Duration::millis(40);
    m.net.set_default_link(link);
    for (int i = 0; i < 2; ++i) m.add_client();
    for (auto& c : m.clients) EXPECT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
    EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
    m.on_frame = [this](Time) {
      for (auto& in : m.inputs) in.move = {1.0F, 0.0F};
    };
    m.run_for(Duration::seconds(1));
  }

  client::Client& me() { return *m.clients[0]; }
  snapshot::EntityId other() {
    const auto id = arena::find_player(me().authoritative_world(), *m.clients[1]->client_id());
    EXPECT_TRUE(id.has_value());
    return id.value_or(snapshot::EntityId{});
  }
  // Runs a few frames with `options`, so they apply.
  void draw_with(const client::DrawOptions& options) {
    me().set_draw_options(options);
    m.run_for(Duration::millis(100));
  }
  float drawn_x(snapshot::EntityId id) { return me().view().get(id, arena::schema().player_position).x; }
  float newest_x(snapshot::EntityId id) {
    return me().authoritative_world().get(id, arena::schema().player_position).x;
  }
};

TEST(DrawOptions, ByDefaultTheAvatarIsAheadOfTheSnapshotsAndOthersBehind) {
  Walking w;
  ASSERT_TRUE(w.me().avatar());
  const auto avatar = *w.me().avatar();
  EXPECT_GT(w.drawn_x(avatar), w.newest_x(avatar) + 0.1F);
  // Interpolated a little behind the newest snapshot: about a tick's walk
  // (0.1 m) here, where the predicted avatar is a round trip ahead.
  EXPECT_LT(w.drawn_x(w.other()), w.newest_x(w.other()) - 0.02F);
}

TEST(DrawOptions, WithoutInterpolationOthersAreDrawnAtTheNewestSnapshot) {
  Walking w;
  w.draw_with({.prediction = true, .interpolation = false, .smoothing = true});
  const auto avatar = *w.me().avatar();
  EXPECT_NEAR(w.drawn_x(w.other()), w.newest_x(w.other()), 1e-3F);
  EXPECT_GT(w.drawn_x(avatar), w.newest_x(avatar) + 0.1F);  // still predicted
}

TEST(DrawOptions, WithoutPredictionTheAvatarIsDrawnFromTheSnapshots) {
  Walking w;
  w.draw_with({.prediction = false, .interpolation = true, .smoothing = true});
  const auto avatar = *w.me().avatar();
  EXPECT_LT(w.drawn_x(avatar), w.newest_x(avatar) - 0.02F);  // interpolated, behind
  w.draw_with({.prediction = false, .interpolation = false, .smoothing = true});
  EXPECT_NEAR(w.drawn_x(avatar), w.newest_x(avatar), 1e-3F);
  // Prediction still ran all along: back on, the avatar is ahead again.
  w.draw_with({});
  EXPECT_GT(w.drawn_x(avatar), w.newest_x(avatar) + 0.1F);
  EXPECT_GT(w.me().stats().predicted_ticks, 60U);
}

TEST(DrawOptions, OptionsOutliveTheSession) {
  Walking w;
  const client::DrawOptions raw{.prediction = false, .interpolation = false, .smoothing = false};
  w.me().set_draw_options(raw);
  w.me().disconnect(w.m.clock.now());
  EXPECT_EQ(w.me().draw_options(), raw);
  ASSERT_TRUE(w.me().connect(w.m.server_address, w.m.clock.now()).ok());
  ASSERT_TRUE(w.m.run_until([&] { return w.m.all_connected(); }, Duration::seconds(5)));
  w.m.run_for(Duration::millis(500));
  EXPECT_EQ(w.me().draw_options(), raw);
  ASSERT_NE(w.me().prediction(), nullptr);
  EXPECT_FALSE(w.me().prediction()->smoothing());
}

}  // namespace
}  // namespace tickwire
