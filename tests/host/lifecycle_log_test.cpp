#include "lifecycle_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace tickwire::host {
namespace {

using server::ServerEvent;
using transport::DisconnectReason;

struct Captured {
  explicit Captured(LogFormat format)
      : text_logger(std::make_shared<spdlog::logger>("server", std::make_shared<spdlog::sinks::ostream_sink_st>(text))),
        log(format, spdlog::level::info, std::make_shared<spdlog::sinks::ostream_sink_st>(json), text_logger) {
    text_logger->set_pattern("%v");
  }
  std::vector<std::string> json_lines() const {
    std::vector<std::string> out;
    std::istringstream in(json.str());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  std::ostringstream text;
  std::ostringstream json;
  std::shared_ptr<spdlog::logger> text_logger;
  LifecycleLog log;
};

// The line without its timestamp, which the test cannot know, after
// checking the timestamp's shape.
std::string without_ts(const std::string& line) {
  static const std::regex ts(R"(^\{"ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z",)");
  std::smatch m;
  if (!std::regex_search(line, m, ts)) return "bad ts: " + line;
  return "{" + line.substr(static_cast<std::size_t>(m.length(0)));
}

TEST(LifecycleLog, ClientEventsAreJsonLinesWithFixedKeys) {
  Captured c(LogFormat::kJson);
  c.log.client_event(
      {ServerEvent::Type::kClientConnected, 3, "bot-2", "127.0.0.1:5555", DisconnectReason::kUnknown, std::nullopt});
  c.log.client_event(
      {ServerEvent::Type::kClientDenied, 0, "", "127.0.0.1:5556", DisconnectReason::kServerFull, std::nullopt});
  c.log.client_event(
      {ServerEvent::Type::kClientDisconnected, 3, "bot-2", "127.0.0.1:5555", DisconnectReason::kTimeout, std::nullopt});
  const auto lines = c.json_lines();
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(without_ts(lines[0]),
            R"({"level":"info","logger":"server","event":"client_connected","client":3,"name":"bot-2",)"
            R"("address":"127.0.0.1:5555","reason":null,"msg":"client 3 (bot-2) connected from 127.0.0.1:5555"})");
  EXPECT_EQ(without_ts(lines[1]),
            R"({"level":"info","logger":"server","event":"client_denied","client":null,"name":null,)"
            R"("address":"127.0.0.1:5556","reason":"server_full","msg":"denied 127.0.0.1:5556: server full"})");
  EXPECT_EQ(without_ts(lines[2]),
            R"({"level":"info","logger":"server","event":"client_disconnected","client":3,"name":"bot-2",)"
            R"("address":"127.0.0.1:5555","reason":"timeout","msg":"client 3 (bot-2) disconnected: timed out"})");
  EXPECT_TRUE(c.text.str().empty());
}

TEST(LifecycleLog, AConnectWithATokenNamesTheTokensClientId) {
  Captured c(LogFormat::kJson);
  c.log.client_event({ServerEvent::Type::kClientConnected, 3, "bot-2", "127.0.0.1:5555", DisconnectReason::kUnknown,
                      std::uint64_t{90210}});
  const auto lines = c.json_lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_NE(lines[0].find(R"("reason":null,"token_client_id":90210,)"), std::string::npos) << lines[0];
}

TEST(LifecycleLog, AClientChosenNameCannotForgeFields) {
  Captured c(LogFormat::kJson);
  c.log.client_event({ServerEvent::Type::kClientConnected, 1, "x\",\"event\":\"fake\n", "127.0.0.1:1",
                      DisconnectReason::kUnknown, std::nullopt});
  const auto lines = c.json_lines();
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_NE(lines[0].find(R"("name":"x\",\"event\":\"fake\n")"), std::string::npos) << lines[0];
}

TEST(LifecycleLog, ProcessEventsInJson) {
  Captured c(LogFormat::kJson);
  const StartInfo info{"tickwire-server", "1.2.3", "arena", "4.5.6", "0.0.0.0:7777", 60, 30, 64, true};
  c.log.start(info);
  c.log.ready(info, "0.0.0.0:7777", std::string("http://0.0.0.0:9100/metrics"));
  c.log.shutdown("sigterm");
  c.log.stopped(server::ServerStats{});
  c.log.allocated();
  const auto lines = c.json_lines();
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_NE(lines[0].find(R"("event":"start","version":"1.2.3","game":"arena","game_version":"4.5.6","pid":)"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find(R"("bind":"0.0.0.0:7777","tick_rate":60,"send_rate":30,"max_clients":64,"agones":true)"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(
      lines[1].find(R"("event":"ready","address":"0.0.0.0:7777","metrics":"http://0.0.0.0:9100/metrics",)"
                    R"("agones":true,"msg":"tickwire-server 1.2.3: arena 4.5.6, listening on 0.0.0.0:7777 (udp))"),
      std::string::npos)
      << lines[1];
  EXPECT_NE(lines[2].find(R"x("event":"shutdown","reason":"sigterm","msg":"shutting down (SIGTERM)"})x"),
            std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find(R"("event":"stopped","tick":0,"connects":0,)"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find(R"("event":"allocated","msg":"Agones allocated this game server"})"), std::string::npos)
      << lines[4];
  for (const auto& line : lines) EXPECT_EQ(line.back(), '}');
}

TEST(LifecycleLog, TextFormatWritesProcessEventsOnly) {
  Captured c(LogFormat::kText);
  const StartInfo info{"mygame-server", "1.2.3", "mygame", "0.9", "127.0.0.1:7777", 60, 30, 8, false};
  c.log.ready(info, "127.0.0.1:7777", std::nullopt);
  c.log.client_event(
      {ServerEvent::Type::kClientConnected, 1, "a", "127.0.0.1:1", DisconnectReason::kUnknown, std::nullopt});
  c.log.shutdown("duration");
  EXPECT_EQ(
      c.text.str(),
      "mygame-server 1.2.3: mygame 0.9, listening on 127.0.0.1:7777 (udp), tick 60 Hz, send 30 Hz, max clients 8\n"
      "shutting down (duration reached)\n");
  EXPECT_TRUE(c.json.str().empty());
}

TEST(LifecycleLog, ReasonTokensAreDistinctAndPlain) {
  std::set<std::string> seen;
  for (std::uint32_t r = 0; r <= 10; ++r) {
    const std::string token = reason_token(static_cast<DisconnectReason>(r));
    EXPECT_TRUE(std::regex_match(token, std::regex("[a-z_]+"))) << token;
    EXPECT_TRUE(seen.insert(token).second) << token;
  }
}

}  // namespace
}  // namespace tickwire::host
