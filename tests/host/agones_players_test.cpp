// The players in Agones Counters and Lists, and the watch of the
// GameServer's state, against the recording stand-in for the sidecar.
#include <gtest/gtest.h>

#include "agones_agent.h"
#include "fake_sidecar.h"
#include "tickwire/core/logging.h"

namespace tickwire::host {
namespace {

using namespace std::chrono_literals;
using testing::FakeSidecar;

AgonesConfig players_config(int port) {
  AgonesConfig c;
  c.port = static_cast<std::uint16_t>(port);
  c.health_interval = 50ms;
  c.retry_first = 20ms;
  c.retry_max = 100ms;
  c.counter = "players";
  c.list = "players";
  c.watch = false;
  return c;
}

TEST(AgonesRest, CountersArePatchedAndListsPostedAsTheSdkDocuments) {
  FakeSidecar sidecar;
  sidecar.declare_counter("rooms");
  sidecar.declare_list("ids");
  AgonesRest rest(players_config(sidecar.port()));
  const auto done = [](Result<AgonesUpdate> r) { return r.ok() && *r == AgonesUpdate::kDone; };
  EXPECT_TRUE(done(rest.set_counter_capacity("rooms", 10)));
  EXPECT_TRUE(done(rest.set_counter_count("rooms", 4)));
  EXPECT_TRUE(done(rest.add_list_value("ids", "17")));
  EXPECT_TRUE(done(rest.add_list_value("ids", "17")));  // already there: as asked
  EXPECT_TRUE(done(rest.remove_list_value("ids", "17")));
  EXPECT_TRUE(done(rest.remove_list_value("ids", "17")));  // already gone: as asked
  EXPECT_EQ(sidecar.counter("rooms"), (std::pair<long, long>{4, 10}));
  EXPECT_TRUE(sidecar.list("ids").empty());
  const auto calls = sidecar.calls();
  ASSERT_EQ(calls.size(), 6U);
  EXPECT_EQ(calls[0].method, "PATCH");
  EXPECT_EQ(calls[0].path, "/v1beta1/counters/rooms");
  EXPECT_EQ(calls[0].body, R"({"capacity":10})");
  EXPECT_EQ(calls[1].body, R"({"count":4})");
  EXPECT_EQ(calls[1].content_type, "application/json");
  EXPECT_EQ(calls[2].method, "POST");
  EXPECT_EQ(calls[2].path, "/v1beta1/lists/ids:addValue");
  EXPECT_EQ(calls[2].body, R"({"value":"17"})");
  EXPECT_EQ(calls[4].path, "/v1beta1/lists/ids:removeValue");
  // Undeclared: said so, for the agent to stop asking.
  EXPECT_EQ(rest.set_counter_count("nope", 1).value(), AgonesUpdate::kNotDeclared);
  EXPECT_EQ(rest.add_list_value("nope", "1").value(), AgonesUpdate::kNotDeclared);
  // No sidecar: an error, which the agent retries.
  const testing::HeldPort closed;
  EXPECT_FALSE(AgonesRest(players_config(closed.port())).set_counter_count("rooms", 1).ok());
}

TEST(AgonesAgent, KeepsTheCounterAndListAtTheConnectedPlayers) {
  FakeSidecar sidecar;
  sidecar.declare_counter("players");
  sidecar.declare_list("players");
  AgonesAgent agent(players_config(sidecar.port()), Logging::null_logger());
  agent.request(AgonesAgent::Call::kReady);
  agent.set_capacity(64);
  agent.player_joined("1");
  agent.player_joined("2");
  agent.player_joined("3");
  agent.player_left("2");
  ASSERT_TRUE(sidecar.wait_until(
      [&] {
        return sidecar.counter("players") == std::pair<long, long>{2, 64} &&
               sidecar.list("players") == std::set<std::string>{"1", "3"};
      },
      3s));
  agent.player_left("1");
  agent.player_left("3");
  ASSERT_TRUE(
      sidecar.wait_until([&] { return sidecar.counter("players").first == 0 && sidecar.list("players").empty(); }, 3s));
  EXPECT_TRUE(agent.finish(1000ms));
  EXPECT_EQ(agent.failures().of(AgonesCall::kCounter), 0U);
  EXPECT_EQ(agent.failures().of(AgonesCall::kList), 0U);
}

TEST(AgonesAgent, AnUndeclaredCounterIsCountedAndLeftAloneWithoutStoppingTheRest) {
  FakeSidecar sidecar;
  sidecar.declare_list("players");  // the counter is not declared
  AgonesAgent agent(players_config(sidecar.port()), Logging::null_logger());
  agent.request(AgonesAgent::Call::kReady);
  agent.set_capacity(8);
  agent.player_joined("5");
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.list("players") == std::set<std::string>{"5"}; }, 3s));
  agent.player_joined("6");
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.list("players").size() == 2; }, 3s));
  EXPECT_EQ(agent.failures().of(AgonesCall::kCounter), 1U);
  EXPECT_EQ(sidecar.count("/v1beta1/counters/players"), 1U);  // asked once, then no more
  agent.request(AgonesAgent::Call::kShutdown);
  EXPECT_TRUE(agent.finish(1000ms));
  EXPECT_EQ(sidecar.count("/shutdown"), 1U);
}

// A player back under the same id while its old session times out is
// two sessions: listed until both have left, counted twice meanwhile.
TEST(AgonesAgent, APlayerConnectedTwiceStaysListedUntilBothLeave) {
  FakeSidecar sidecar;
  sidecar.declare_counter("players");
  sidecar.declare_list("players");
  AgonesAgent agent(players_config(sidecar.port()), Logging::null_logger());
  agent.set_capacity(8);
  agent.player_joined("7");
  agent.player_joined("7");
  agent.player_left("7");  // the old session timing out
  agent.player_joined("8");
  ASSERT_TRUE(sidecar.wait_until(
      [&] {
        return sidecar.list("players") == std::set<std::string>{"7", "8"} && sidecar.counter("players").first == 2;
      },
      3s));
  agent.player_left("7");
  agent.player_left("8");
  ASSERT_TRUE(
      sidecar.wait_until([&] { return sidecar.list("players").empty() && sidecar.counter("players").first == 0; }, 3s));
  agent.player_left("8");  // more leaves than joins change nothing
  EXPECT_TRUE(agent.finish(1000ms));
}

// The List's capacity is the server's max clients, as the Counter's is;
// in a full List a leave is synced before a join, so the join fits.
TEST(AgonesAgent, AFullListTakesItsRemovalsFirst) {
  FakeSidecar sidecar;
  sidecar.declare_list("players");
  auto config = players_config(sidecar.port());
  config.counter.clear();
  AgonesAgent agent(config, Logging::null_logger());
  agent.set_capacity(2);
  agent.player_joined("1");
  agent.player_joined("2");
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.list("players") == std::set<std::string>{"1", "2"}; }, 3s));
  EXPECT_EQ(sidecar.list_capacity("players"), 2);
  std::vector<std::string> patches;
  for (const auto& c : sidecar.calls()) {
    if (c.method == "PATCH") patches.push_back(c.path + " " + c.body);
  }
  EXPECT_EQ(patches, std::vector<std::string>{R"(/v1beta1/lists/players {"capacity":2})"});
  // As the server reports them: the leave, then the join that takes its
  // slot. Synced together, an add-first agent would be refused the join.
  agent.player_left("1");
  agent.player_joined("3");
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.list("players") == std::set<std::string>{"2", "3"}; }, 3s));
  EXPECT_TRUE(agent.finish(1000ms));
  EXPECT_EQ(agent.failures().of(AgonesCall::kList), 0U);
}

// A value the sidecar refuses (4xx) is not asked again while its player
// stays, and does not hold up the players after it.
TEST(AgonesAgent, ARefusedValueIsAskedOnceAndTheOthersGoOn) {
  FakeSidecar sidecar;
  sidecar.declare_list("players");
  sidecar.refuse_value("0");
  auto config = players_config(sidecar.port());
  config.counter.clear();
  AgonesAgent agent(config, Logging::null_logger());
  agent.player_joined("0");
  agent.player_joined("1");
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.list("players") == std::set<std::string>{"1"}; }, 3s));
  agent.player_joined("2");
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.list("players") == std::set<std::string>{"1", "2"}; }, 3s));
  std::size_t asked = 0;
  for (const auto& c : sidecar.calls()) asked += c.body == R"({"value":"0"})" ? 1U : 0U;
  EXPECT_EQ(asked, 1U);
  EXPECT_EQ(agent.failures().of(AgonesCall::kList), 1U);
  EXPECT_TRUE(agent.finish(1000ms));
}

TEST(AgonesAgent, NoCounterOrListWhenTheirKeysAreEmpty) {
  FakeSidecar sidecar;
  auto config = players_config(sidecar.port());
  config.counter.clear();
  config.list.clear();
  AgonesAgent agent(config, Logging::null_logger());
  agent.set_capacity(8);
  agent.player_joined("5");
  agent.request(AgonesAgent::Call::kReady);
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.count("/ready") == 1; }, 3s));
  EXPECT_TRUE(agent.finish(1000ms));
  for (const auto& c : sidecar.calls()) EXPECT_EQ(c.path.find("/v1beta1/"), std::string::npos) << c.path;
}

TEST(AgonesAgent, TheWatchCountsEachTimeTheGameServerBecomesAllocated) {
  FakeSidecar sidecar;
  auto config = players_config(sidecar.port());
  config.watch = true;
  AgonesAgent agent(config, Logging::null_logger());
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.count("/watch/gameserver") >= 1; }, 3s));
  EXPECT_EQ(agent.allocations(), 0U);
  agent.request(AgonesAgent::Call::kAllocate);  // the fake turns Allocated
  ASSERT_TRUE(sidecar.wait_until([&] { return agent.allocations() == 1; }, 3s));
  sidecar.set_state("Allocated");  // no change: not counted again
  sidecar.set_state("Ready");
  sidecar.set_state("Allocated");  // a fleet allocating it again
  ASSERT_TRUE(sidecar.wait_until([&] { return agent.allocations() == 2; }, 3s));
  const auto before = std::chrono::steady_clock::now();
  EXPECT_TRUE(agent.finish(1000ms));
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1500ms);  // the open stream does not hold it up
}

TEST(AgonesAgent, AWatchWithoutASidecarIsCountedAndRetried) {
  const testing::HeldPort closed;
  ASSERT_GT(closed.port(), 0);
  auto config = players_config(closed.port());
  config.watch = true;
  AgonesAgent agent(config, Logging::null_logger());
  FakeSidecar never;  // keeps wait_until at hand
  ASSERT_TRUE(never.wait_until([&] { return agent.failures().of(AgonesCall::kWatch) >= 2; }, 3s));
  EXPECT_TRUE(agent.finish(0ms));
}

}  // namespace
}  // namespace tickwire::host
