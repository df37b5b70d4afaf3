#include "tickwire/core/logging.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <sstream>

namespace tickwire {
namespace {

TEST(Logging, ParsesLevelsAndFormats) {
  EXPECT_EQ(parse_log_level("debug").value(), spdlog::level::debug);
  EXPECT_EQ(parse_log_level("error").value(), spdlog::level::err);
  EXPECT_FALSE(parse_log_level("loud").ok());
  EXPECT_NE(parse_log_level("loud").error().detail.find("loud"), std::string::npos);
  EXPECT_EQ(parse_log_format("json").value(), LogFormat::kJson);
  EXPECT_FALSE(parse_log_format("xml").ok());
}

TEST(Logging, NamedLoggersAreSharedPerName) {
  std::ostringstream out;
  Logging logging(spdlog::level::info, LogFormat::kText, {std::make_shared<spdlog::sinks::ostream_sink_st>(out)});
  auto a = logging.get("server");
  EXPECT_EQ(a, logging.get("server"));
  EXPECT_NE(a, logging.get("transport"));
  a->info("hello {}", 7);
  a->debug("hidden");
  EXPECT_NE(out.str().find("[server] hello 7"), std::string::npos);
  EXPECT_EQ(out.str().find("hidden"), std::string::npos);
}

TEST(Logging, JsonLinesEscapeClientStrings) {
  std::ostringstream out;
  Logging logging(spdlog::level::info, LogFormat::kJson, {std::make_shared<spdlog::sinks::ostream_sink_st>(out)});
  const std::string evil = "bob\",\"level\":\"critical\\\n\x01\xff";
  logging.get("server")->info("client name {}", evil);
  const std::string line = out.str();
  EXPECT_NE(line.find(R"("logger":"server")"), std::string::npos);
  EXPECT_NE(line.find(R"(bob\",\"level\":\"critical\\\n\u0001\ufffd)"), std::string::npos) << line;
  // One line, one object: the forged field stays inside the message.
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_EQ(line.find(R"("level":"info")"), line.find(R"("level":)"));
}

TEST(Logging, JsonEscapeKeepsValidUtf8) {
  EXPECT_EQ(json_escape("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(json_escape("\xe2\x82\xac"), "\xe2\x82\xac");
  EXPECT_EQ(json_escape("\xc0\xaf"), "\\ufffd\\ufffd");             // overlong '/'
  EXPECT_EQ(json_escape("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd");  // surrogate
}

TEST(RateLimiter, AllowsBurstThenCountsSuppressed) {
  RateLimiter limiter(3, Duration::seconds(1));
  Time t;
  int allowed = 0;
  for (int i = 0; i < 10; ++i) allowed += limiter.allow(t) ? 1 : 0;
  EXPECT_EQ(allowed, 3);
  EXPECT_EQ(limiter.take_suppressed(), 7u);
  EXPECT_EQ(limiter.take_suppressed(), 0u);
  EXPECT_TRUE(limiter.allow(t + Duration::seconds(1)));
}

}  // namespace
}  // namespace tickwire
