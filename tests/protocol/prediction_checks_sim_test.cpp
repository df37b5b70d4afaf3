// The prediction checks a client carries in its config
// (ClientConfig::prediction_checks): checked against the game's schema at
// construction, applied to each session's prediction, and changeable while
// the client runs (Client::set_prediction_checks).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

client::Client make_client(SimMatch& m, arena::Game& game, client::ClientConfig config) {
  auto sampler = [](Tick /*tick*/, snapshot::Record& input) { input = arena::to_record(arena::Input{}); };
  return client::Client(m.net.create_endpoint({"sim-client-checks", 5000}, {}), game, sampler, std::move(config));
}

std::string construction_error(SimMatch& m, arena::Game& game, const client::ClientConfig& config) {
  try {
    (void)make_client(m, game, config);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(PredictionChecksSim, TheConfigIsCheckedAgainstTheGamesSchema) {
  SimMatch m(1);
  arena::Game game;
  client::ClientConfig bad;
  bad.prediction_checks.tolerances.push_back({snapshot::TypeId{250}, 0, 1, 2});
  EXPECT_NE(construction_error(m, game, bad).find("tolerances[0]"), std::string::npos);
  client::ClientConfig no_confirm;
  no_confirm.spawn_confirm_ticks = 0;
  EXPECT_NE(construction_error(m, game, no_confirm).find("spawn_confirm_ticks"), std::string::npos);
}

TEST(PredictionChecksSim, ConfiguredChecksApplyAndChangeWhileRunning) {
  SimMatch m(2);
  client::ClientConfig config;
  config.prediction_checks.audit_skipped_replays = true;
  config.prediction_checks.tolerances.push_back(prediction::FieldTolerance::of(arena::schema().player_position, 1));
  auto& c = m.add_client(config);
  EXPECT_EQ(c.prediction_checks(), config.prediction_checks);
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return c.avatar().has_value(); }, Duration::seconds(3)));
  m.run_for(Duration::seconds(1));
  ASSERT_NE(c.prediction(), nullptr);
  const auto audited = c.prediction()->stats().audited_skips;
  EXPECT_GT(audited, 10U) << "the configured audit did not run";
  EXPECT_EQ(c.prediction()->stats().audit_divergences, 0U);

  // Off while running: no more audits; a bad tolerance is refused and
  // changes nothing.
  c.set_prediction_checks({});
  prediction::PredictionChecks bad;
  bad.audit_skipped_replays = true;
  bad.tolerances.push_back({arena::schema().player_position.type(), 1000, 2, 1});
  EXPECT_THROW(c.set_prediction_checks(bad), std::invalid_argument);
  EXPECT_EQ(c.prediction_checks(), prediction::PredictionChecks{});
  m.run_for(Duration::seconds(1));
  EXPECT_EQ(c.prediction()->stats().audited_skips, audited);
  EXPECT_GT(c.prediction()->stats().skipped_replays, 10U);

  // And on again, for the next session too.
  prediction::PredictionChecks audit;
  audit.audit_skipped_replays = true;
  c.set_prediction_checks(audit);
  c.disconnect(m.clock.now());
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return c.avatar().has_value(); }, Duration::seconds(3)));
  m.run_for(Duration::seconds(1));
  EXPECT_GT(c.prediction()->stats().audited_skips, 10U);
}

}  // namespace
}  // namespace tickwire
