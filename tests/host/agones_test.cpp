// The Agones REST exchange against a local endpoint that records the calls
// and answers as the sidecar does.
#include <gtest/gtest.h>

#include "agones_agent.h"
#include "fake_sidecar.h"
#include "tickwire/core/logging.h"

namespace tickwire::host {
namespace {

using namespace std::chrono_literals;
using Call = AgonesAgent::Call;
using testing::FakeSidecar;
using testing::HeldPort;

AgonesConfig config_for(int port) {
  AgonesConfig c;
  c.port = static_cast<std::uint16_t>(port);
  c.health_interval = 50ms;
  c.retry_first = 20ms;
  c.retry_max = 100ms;
  c.watch = false;  // these tests count the lifecycle calls alone
  return c;
}

TEST(AgonesConfig, OnWithTheFlagOrTheAgonesEnvironment) {
  EXPECT_FALSE(agones_config(false, nullptr).value().has_value());
  EXPECT_EQ(agones_config(true, nullptr).value()->port, 9358);
  EXPECT_EQ(agones_config(false, "9444").value()->port, 9444);
  EXPECT_EQ(agones_config(true, "9444").value()->port, 9444);
  for (const char* bad : {"", "abc", "0", "70000", "12x"}) {
    const auto c = agones_config(false, bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.error().detail.find("AGONES_SDK_HTTP_PORT"), std::string::npos);
  }
}

TEST(AgonesRest, PostsAnEmptyJsonObjectToEachLifecyclePath) {
  FakeSidecar sidecar;
  ASSERT_GT(sidecar.port(), 0);
  AgonesRest rest(config_for(sidecar.port()));
  EXPECT_TRUE(rest.ready().ok());
  EXPECT_TRUE(rest.health().ok());
  EXPECT_TRUE(rest.allocate().ok());
  EXPECT_TRUE(rest.shutdown().ok());
  const auto calls = sidecar.calls();
  ASSERT_EQ(calls.size(), 4U);
  const char* paths[] = {"/ready", "/health", "/allocate", "/shutdown"};
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].method, "POST");
    EXPECT_EQ(calls[i].path, paths[i]);
    EXPECT_EQ(calls[i].body, "{}");
    EXPECT_EQ(calls[i].content_type, "application/json");
  }
}

TEST(AgonesRest, ReadsTheGameServerAndReportsFailures) {
  FakeSidecar sidecar(0, 1);
  AgonesRest rest(config_for(sidecar.port()));
  const auto gs = rest.game_server();
  ASSERT_TRUE(gs.ok()) << gs.error().detail;
  EXPECT_NE(gs->find(R"("state":"Ready")"), std::string::npos);
  const auto refused = rest.ready();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("503"), std::string::npos) << refused.error().detail;
  const HeldPort closed;
  ASSERT_GT(closed.port(), 0);
  const auto nobody = AgonesRest(config_for(closed.port())).health();
  EXPECT_FALSE(nobody.ok());
}

TEST(AgonesAgent, ReadyHealthAllocateShutdownInOrder) {
  FakeSidecar sidecar;
  AgonesAgent agent(config_for(sidecar.port()), Logging::null_logger());
  agent.request(Call::kReady);
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.count("/ready") == 1 && sidecar.count("/health") >= 3; }, 3s));
  agent.request(Call::kAllocate);
  agent.request(Call::kShutdown);
  EXPECT_TRUE(agent.finish(2000ms));
  std::vector<std::string> lifecycle;
  std::size_t health_after_shutdown = 0;
  for (const auto& c : sidecar.calls()) {
    if (c.path != "/health") lifecycle.push_back(c.path);
    if (c.path == "/health" && !lifecycle.empty() && lifecycle.back() == "/shutdown") ++health_after_shutdown;
  }
  EXPECT_EQ(lifecycle, (std::vector<std::string>{"/ready", "/allocate", "/shutdown"}));
  EXPECT_EQ(health_after_shutdown, 0U);
}

TEST(AgonesAgent, RetriesWhileTheSidecarRefuses) {
  FakeSidecar sidecar(0, 3);
  AgonesAgent agent(config_for(sidecar.port()), Logging::null_logger());
  agent.request(Call::kReady);
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.count("/ready") == 4; }, 3s));
  EXPECT_TRUE(agent.finish(1000ms));
}

TEST(AgonesAgent, RetriesUntilTheSidecarStartsListening) {
  HeldPort held;
  const int port = held.port();
  ASSERT_GT(port, 0);
  AgonesAgent agent(config_for(port), Logging::null_logger());
  agent.request(Call::kReady);
  std::this_thread::sleep_for(300ms);  // several refused connections
  held.release();
  FakeSidecar late(port);
  ASSERT_EQ(late.port(), port);
  EXPECT_TRUE(late.wait_until([&] { return late.count("/ready") == 1; }, 3s));
  EXPECT_TRUE(agent.finish(1000ms));
}

TEST(AgonesAgent, RequestsNeverWaitOnASlowSidecar) {
  FakeSidecar slow(0, 0, 300ms);
  AgonesAgent agent(config_for(slow.port()), Logging::null_logger());
  const auto before = std::chrono::steady_clock::now();
  agent.request(Call::kReady);
  agent.request(Call::kAllocate);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 50ms);
  EXPECT_TRUE(agent.finish(3000ms));
  EXPECT_EQ(slow.count("/allocate"), 1U);
}

TEST(AgonesAgent, GivesUpAtTheDeadlineWithoutASidecar) {
  const HeldPort closed;
  ASSERT_GT(closed.port(), 0);
  AgonesAgent agent(config_for(closed.port()), Logging::null_logger());
  agent.request(Call::kShutdown);
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(agent.finish(200ms));
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1500ms);
}

}  // namespace
}  // namespace tickwire::host
