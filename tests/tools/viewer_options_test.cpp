// The viewer's session-security flags: parsed, refused with a clear line
// and status 2 when bad, and applied to its socket settings.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "options.h"

namespace tickwire::viewer {
namespace {

std::variant<Options, int> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "tickwire-viewer");
  return parse_options(static_cast<int>(args.size()), args.data(), "tickwire-viewer", ViewerSpec{});
}

// Runs parse, returning what it printed to stderr too.
std::variant<Options, int> parse_quietly(std::vector<const char*> args, std::string& err) {
  ::testing::internal::CaptureStderr();
  auto parsed = parse(std::move(args));
  err = ::testing::internal::GetCapturedStderr();
  return parsed;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/viewer_options_test_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ViewerOptions, SessionSecurityReachesTheSocket) {
  const transport::ServerPublicKey pinned = transport::ServerIdentity::generate().public_key();
  transport::ConnectToken t;
  t.created_unix_seconds = 1'700'000'000;
  t.expires_unix_seconds = t.created_unix_seconds + 60;
  t.servers = {transport::Address{"127.0.0.1", 7777}};
  t.session_key = transport::TokenKey::generate();
  auto token = transport::mint_connect_token(t, transport::TokenKey::generate());
  ASSERT_TRUE(token.ok());
  const std::string file = temp_file("token.hex", transport::to_hex(*token) + "\n" + t.session_key.to_hex() + "\n");

  const std::string hex = pinned.to_hex();
  auto parsed = parse({"--server-key", hex.c_str(), "--plaintext", "--token-file", file.c_str()});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const transport::EnetConfig net = enet_config(std::get<Options>(parsed));
  EXPECT_EQ(net.validation.server_key, pinned);
  EXPECT_TRUE(net.plaintext);
  EXPECT_EQ(net.validation.connect_token, *token);
  ASSERT_TRUE(net.validation.token_session_key.has_value());
  EXPECT_EQ(net.validation.token_session_key->bytes, t.session_key.bytes);

  auto plain = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(plain));
  const transport::EnetConfig defaults = enet_config(std::get<Options>(plain));
  EXPECT_FALSE(defaults.plaintext);
  EXPECT_FALSE(defaults.validation.server_key.has_value());
  EXPECT_TRUE(defaults.validation.connect_token.empty());
  EXPECT_FALSE(defaults.validation.token_session_key.has_value());
}

TEST(ViewerOptions, BadSessionSecurityFlagsExitTwoSayingWhy) {
  const std::string one_line = temp_file("one-line.hex", "abcd\n");
  struct Case {
    std::vector<const char*> args;
    std::string why;
  };
  const std::vector<Case> cases = {
      {{"--server-key", "abc"}, "--server-key: a server key is 64 hexadecimal digits"},
      {{"--server-key", ""}, "--server-key"},
      {{"--token-file", "/nonexistent/token.hex"}, "--token-file /nonexistent/token.hex: cannot be read"},
      {{"--token-file", one_line.c_str()}, "two lines of hex expected"},
  };
  for (const Case& c : cases) {
    std::string err;
    auto parsed = parse_quietly(c.args, err);
    ASSERT_TRUE(std::holds_alternative<int>(parsed)) << c.why;
    EXPECT_EQ(std::get<int>(parsed), kExitBadFlags) << c.why;
    EXPECT_NE(err.find(c.why), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace tickwire::viewer
