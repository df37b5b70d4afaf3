// The operations side of the real tickwire-server process on loopback: its
// Prometheus endpoint scraped over HTTP as a client joins and leaves, its
// JSON lifecycle lines, and its Agones exchange with a stand-in sidecar.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "fake_sidecar.h"
#include "process.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/transport/enet_transport.h"
#include "wall_clock.h"

namespace tickwire {
namespace {

using namespace std::chrono_literals;

std::uint16_t test_port(int offset) { return static_cast<std::uint16_t>(22000 + (::getpid() * 11 + offset) % 20000); }

// A server with metrics on a free port, which it names in its ready line.
struct Server {
  explicit Server(int offset, std::vector<std::string> extra = {}) : port(test_port(offset)) {
    std::vector<std::string> argv{TICKWIRE_SERVER_BIN,
                                  "--bind",
                                  "127.0.0.1",
                                  "--port",
                                  std::to_string(port),
                                  "--metrics-port",
                                  "0",
                                  "--metrics-bind",
                                  "127.0.0.1",
                                  "--log-format",
                                  "json",
                                  "--stats-interval",
                                  "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process = std::make_unique<testing::ChildProcess>(
        argv, ::testing::TempDir() + "tickwire-metrics-e2e-" + std::to_string(port) + ".log");
    EXPECT_TRUE(process->wait_for_output("\"event\":\"ready\"", 5000ms)) << process->output();
    std::smatch m;
    const std::string out = process->output();
    if (std::regex_search(out, m, std::regex(R"re("metrics":"http://127\.0\.0\.1:(\d+)/metrics")re"))) {
      metrics_port = std::stoi(m[1]);
    }
  }

  std::string scrape() const {
    httplib::Client http("127.0.0.1", metrics_port);
    const auto res = http.Get("/metrics");
    if (!res || res->status != 200) return {};
    return res->body;
  }

  std::uint16_t port;
  int metrics_port = 0;
  std::unique_ptr<testing::ChildProcess> process;
};

// The value of one series in a scrape, or -1 when absent.
double value_of(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return -1;
}

struct Player {
  explicit Player(const transport::Address& server, const std::string& name) {
    transport::EnetConfig ec;
    ec.max_peers = 1;
    client::ClientConfig config;
    config.name = name;
    auto sampler = [this](Tick, snapshot::Record& record) { record = arena::to_record(input); };
    client = std::make_unique<client::Client>(transport::EnetTransport::create(ec).value(), game, sampler, config);
    EXPECT_TRUE(client->connect(server, clock.now()).ok());
  }
  bool pump_until(const std::function<bool()>& done, Duration limit) {
    return clock.pump_until(done, limit, [this](Time now) {
      client->update(now);
      while (client->poll_event()) {
      }
    });
  }
  bool connected() const { return client->state() == client::ClientState::kConnected && client->avatar(); }

  testing::WallClock clock;
  arena::Game game;
  arena::Input input;
  std::unique_ptr<client::Client> client;
};

TEST(MetricsE2e, ScrapesMoveAsAClientJoinsPlaysAndLeaves) {
  Server server(0);
  ASSERT_GT(server.metrics_port, 0) << server.process->output();
  const std::string before = server.scrape();
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(value_of(before, "tickwire_clients"), 0.0);
  EXPECT_EQ(value_of(before, "tickwire_bytes_in_total"), 0.0);
  EXPECT_NE(before.find(R"(tickwire_build_info{game="arena",game_version=")"), std::string::npos) << before;

  Player p({"127.0.0.1", server.port}, "bot-2");
  ASSERT_TRUE(p.pump_until([&] { return p.connected(); }, Duration::seconds(5)));
  p.input.move = {1.0F, 0.0F};
  ASSERT_FALSE(p.pump_until([] { return false; }, Duration::seconds(1)));
  const std::string during = server.scrape();
  std::printf("--- scrape with one client ---\n%s", during.c_str());
  EXPECT_EQ(value_of(during, "tickwire_clients"), 1.0);
  EXPECT_GT(value_of(during, "tickwire_ticks_total"), value_of(before, "tickwire_ticks_total"));
  EXPECT_GT(value_of(during, "tickwire_tick_duration_seconds_count"),
            value_of(before, "tickwire_tick_duration_seconds_count"));
  EXPECT_GT(value_of(during, "tickwire_bytes_in_total"), 0.0);
  EXPECT_GT(value_of(during, "tickwire_bytes_out_total"), 0.0);
  EXPECT_GT(value_of(during, "tickwire_packets_in_total"), 0.0);
  EXPECT_GT(value_of(during, "tickwire_packets_out_total"), 0.0);
  EXPECT_GT(value_of(during, "tickwire_snapshots_total"), 0.0);
  EXPECT_GT(value_of(during, "tickwire_resident_memory_bytes"), 0.0);
  // A lone walker never mispredicts; its reports arrive and say so.
  EXPECT_EQ(value_of(during, "tickwire_client_reported_mispredictions_total"), 0.0);
  EXPECT_EQ(value_of(during, R"(tickwire_connection_events_total{event="connected",reason="none"})"), 1.0);

  p.client->disconnect(p.clock.now());
  ASSERT_TRUE(p.pump_until([&] { return value_of(server.scrape(), "tickwire_clients") == 0.0; }, Duration::seconds(5)));
  EXPECT_EQ(value_of(server.scrape(), R"(tickwire_connection_events_total{event="disconnected",reason="requested"})"),
            1.0);

  server.process->signal(SIGTERM);
  ASSERT_EQ(server.process->wait_exit(3000ms), 0);
  // Every line is one JSON object; the lifecycle ones carry their event.
  std::istringstream out(server.process->output());
  std::vector<std::string> events;
  for (std::string line; std::getline(out, line);) {
    EXPECT_TRUE(line.front() == '{' && line.back() == '}') << line;
    std::smatch m;
    if (std::regex_search(line, m,
                          std::regex(R"re(^\{"ts":"[^"]+","level":"\w+","logger":"server","event":"(\w+)")re"))) {
      events.push_back(m[1]);
    }
  }
  EXPECT_EQ(events, (std::vector<std::string>{"start", "ready", "client_connected", "client_disconnected", "shutdown",
                                              "stopped"}));
  EXPECT_NE(
      server.process->output().find(R"("event":"client_connected","client":1,"name":"bot-2","address":"127.0.0.1:)"),
      std::string::npos)
      << server.process->output();
}

TEST(MetricsE2e, AgonesReadyAllocateOnJoinAndShutdownOnSigterm) {
  testing::FakeSidecar sidecar;
  ASSERT_GT(sidecar.port(), 0);
  sidecar.declare_counter("players");
  sidecar.declare_list("connected");
  // The environment Agones gives the container turns the exchange on.
  ::setenv("AGONES_SDK_HTTP_PORT", std::to_string(sidecar.port()).c_str(), 1);
  Server server(1, {"--agones-allocate-on-join", "--agones-health-interval", "0.2", "--agones-list", "connected",
                    "--max-clients", "12"});
  ::unsetenv("AGONES_SDK_HTTP_PORT");
  ASSERT_TRUE(sidecar.wait_until([&] { return sidecar.count("/ready") == 1 && sidecar.count("/health") >= 2; }, 5s));
  EXPECT_EQ(sidecar.count("/allocate"), 0U);
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.counter("players") == std::pair<long, long>{0, 12}; }, 3s));

  Player p({"127.0.0.1", server.port}, "first");
  ASSERT_TRUE(p.pump_until([&] { return p.connected(); }, Duration::seconds(5)));
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.count("/allocate") == 1; }, 3s));
  // The players as fleets see them, and the allocation the watch saw.
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.counter("players") == std::pair<long, long>{1, 12}; }, 3s));
  EXPECT_TRUE(sidecar.wait_until([&] { return sidecar.list("connected") == std::set<std::string>{"1"}; }, 3s));
  EXPECT_TRUE(p.pump_until([&] { return value_of(server.scrape(), "tickwire_agones_allocations_total") == 1.0; },
                           Duration::seconds(3)))
      << server.scrape();
  EXPECT_EQ(value_of(server.scrape(), R"(tickwire_agones_failures_total{call="counter"})"), 0.0);

  server.process->signal(SIGTERM);
  ASSERT_TRUE(p.pump_until([&] { return !server.process->running() || server.process->wait_exit(1ms).has_value(); },
                           Duration::seconds(3)));
  EXPECT_EQ(server.process->wait_exit(100ms), 0);
  EXPECT_EQ(sidecar.count("/shutdown"), 1U) << server.process->output();
  EXPECT_EQ(sidecar.count("/allocate"), 1U);
  EXPECT_NE(server.process->output().find(R"("event":"allocated")"), std::string::npos) << server.process->output();
}

}  // namespace
}  // namespace tickwire
