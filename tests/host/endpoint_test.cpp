// The metrics endpoint over HTTP on loopback.
#include <gtest/gtest.h>
#include <httplib.h>

#include "metrics.h"

namespace tickwire::host {
namespace {

TEST(MetricsEndpoint, ServesTheRegistryAtSlashMetrics) {
  Metrics m(StartInfo{"s", "1", "g", "1", "", 60, 30, 8, false});
  auto endpoint = MetricsEndpoint::start("127.0.0.1", 0, m.registry());
  ASSERT_TRUE(endpoint.ok()) << endpoint.error().detail;
  const std::uint16_t port = (*endpoint)->port();
  ASSERT_NE(port, 0);
  EXPECT_EQ((*endpoint)->url(), "http://127.0.0.1:" + std::to_string(port) + "/metrics");
  server::ServerStats s;
  s.clients = 3;
  m.update(s);
  httplib::Client client("127.0.0.1", port);
  const auto res = client.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("\ntickwire_clients 3\n"), std::string::npos) << res->body;
}

TEST(MetricsEndpoint, ABusyPortIsAnErrorNotACrash) {
  Metrics m(StartInfo{"s", "1", "g", "1", "", 60, 30, 8, false});
  auto first = MetricsEndpoint::start("127.0.0.1", 0, m.registry());
  ASSERT_TRUE(first.ok());
  auto second = MetricsEndpoint::start("127.0.0.1", (*first)->port(), m.registry());
  EXPECT_FALSE(second.ok());
}

}  // namespace
}  // namespace tickwire::host
