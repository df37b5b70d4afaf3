#include "tickwire/transport/address.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "tickwire/transport/transport.h"

namespace tickwire::transport {
namespace {

Address parse_ok(std::string_view text, bool allow_port_zero = false) {
  auto result = Address::parse(text, allow_port_zero);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().detail);
  return result.ok() ? result.value() : Address{};
}

// Checks the error code and that the message explains the problem.
void expect_error(std::string_view text, std::string_view fragment, bool allow_port_zero = false) {
  auto result = Address::parse(text, allow_port_zero);
  ASSERT_FALSE(result.ok()) << "'" << text << "' parsed unexpectedly";
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument) << text;
  EXPECT_NE(result.error().detail.find(fragment), std::string::npos)
      << "'" << text << "' gave '" << result.error().detail << "', expected it to mention '" << fragment << "'";
}

TEST(AddressTest, FormatsIpv4AndNames) {
  EXPECT_EQ((Address{"127.0.0.1", 7777}).to_string(), "127.0.0.1:7777");
  EXPECT_EQ((Address{"localhost", 1}).to_string(), "localhost:1");
  EXPECT_EQ((Address{"0.0.0.0", 0}).to_string(), "0.0.0.0:0");
}

TEST(AddressTest, FormatsIpv6InBrackets) {
  EXPECT_EQ((Address{"::1", 7777}).to_string(), "[::1]:7777");
  EXPECT_EQ((Address{"fe80::1%eth0", 65535}).to_string(), "[fe80::1%eth0]:65535");
}

TEST(AddressTest, ParsesIpv4) {
  const Address a = parse_ok("127.0.0.1:7777");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 7777);
}

TEST(AddressTest, ParsesHostnames) {
  EXPECT_EQ(parse_ok("localhost:1"), (Address{"localhost", 1}));
  EXPECT_EQ(parse_ok("game-server_01.example.com:65535"), (Address{"game-server_01.example.com", 65535}));
  EXPECT_EQ(parse_ok("server:40000"), (Address{"server", 40000}));
}

TEST(AddressTest, ParsesBracketedIpv6) {
  EXPECT_EQ(parse_ok("[::1]:7777"), (Address{"::1", 7777}));
  EXPECT_EQ(parse_ok("[2001:db8::42]:443"), (Address{"2001:db8::42", 443}));
  EXPECT_EQ(parse_ok("[fe80::1%eth0]:9"), (Address{"fe80::1%eth0", 9}));
}

TEST(AddressTest, RoundTripsThroughText) {
  for (const Address& a : {Address{"10.1.2.3", 1}, Address{"::1", 65535}, Address{"host.lan", 4242}}) {
    EXPECT_EQ(parse_ok(a.to_string()), a);
  }
}

TEST(AddressTest, PortZeroOnlyWhenAllowed) {
  expect_error("0.0.0.0:0", "port 0");
  EXPECT_EQ(parse_ok("0.0.0.0:0", true), (Address{"0.0.0.0", 0}));
  EXPECT_EQ(parse_ok("[::]:0", true), (Address{"::", 0}));
  expect_error("[::]:0", "port 0");
}

TEST(AddressTest, AcceptsLeadingZerosInPort) { EXPECT_EQ(parse_ok("h:00080").port, 80); }

TEST(AddressTest, RejectsEmptyText) { expect_error("", "empty"); }

TEST(AddressTest, RejectsMissingPort) {
  expect_error("127.0.0.1", "missing port");
  expect_error("localhost", "missing port");
  expect_error("127.0.0.1:", "missing port");
  expect_error("[::1]", "missing port");
  expect_error("[::1]:", "missing port");
}

TEST(AddressTest, RejectsNonNumericPort) {
  expect_error("host:http", "not a number");
  expect_error("host:-1", "not a number");
  expect_error("host:+80", "not a number");
  expect_error("host: 80", "not a number");
  expect_error("[::1]:x", "not a number");
}

TEST(AddressTest, RejectsPortOutOfRange) {
  expect_error("host:65536", "out of range");
  expect_error("host:99999", "out of range");
  expect_error("host:4294967296", "out of range");
  expect_error("host:123456789012345678901234567890", "out of range");
  expect_error("[::1]:70000", "out of range");
}

TEST(AddressTest, RejectsEmptyHost) {
  expect_error(":7777", "empty host");
  expect_error("[]:7777", "empty host");
}

TEST(AddressTest, RejectsTrailingJunk) {
  expect_error("host:80x", "after the port");
  expect_error("host:80 ", "after the port");
  expect_error("host:80/path", "after the port");
  expect_error("[::1]x:80", "after ']'");
  expect_error("[::1]]:80", "after ']'");
}

TEST(AddressTest, RejectsBadHosts) {
  expect_error("::1:7777", "brackets");
  expect_error("a:b:7777", "brackets");
  expect_error(" host:80", "invalid character");
  expect_error("ho st:80", "invalid character");
  expect_error("host/x:80", "invalid character");
  expect_error("[::1:80", "missing ']'");
  expect_error("[127.0.0.1]:80", "only for IPv6");
  expect_error("[::1 ]:80", "invalid character");
}

TEST(DisconnectReasonTest, ReadablePhrases) {
  EXPECT_STREQ(to_string(DisconnectReason::kServerShuttingDown), "server shutting down");
  EXPECT_STREQ(to_string(DisconnectReason::kVersionMismatch), "version mismatch");
  EXPECT_STREQ(to_string(DisconnectReason::kFingerprintMismatch), "game schema mismatch");
  EXPECT_STREQ(to_string(DisconnectReason::kCodebookMismatch), "snapshot codebook mismatch");
  EXPECT_STREQ(to_string(DisconnectReason::kServerFull), "server full");
  EXPECT_STREQ(to_string(DisconnectReason::kTimeout), "timed out");
  EXPECT_STREQ(to_string(static_cast<DisconnectReason>(999)), "unknown reason");
}

// Every enumerator has a phrase of its own: none falls through to the
// "unknown reason" of kUnknown, no two read the same.
TEST(DisconnectReasonTest, EveryReasonHasItsOwnPhrase) {
  std::set<std::string> seen;
  for (std::uint32_t code = 0; code <= static_cast<std::uint32_t>(kLastDisconnectReason); ++code) {
    const std::string phrase = to_string(static_cast<DisconnectReason>(code));
    EXPECT_TRUE(seen.insert(phrase).second) << code << ": " << phrase;
    EXPECT_EQ(phrase == "unknown reason", code == 0) << code;
  }
}

TEST(DisconnectReasonTest, WireCodesRoundTrip) {
  for (std::uint32_t code = 0; code <= static_cast<std::uint32_t>(kLastDisconnectReason); ++code) {
    const DisconnectReason reason = disconnect_reason_from_wire(code);
    EXPECT_EQ(static_cast<std::uint32_t>(reason), code);
    EXPECT_NE(std::string(to_string(reason)), "") << code;
  }
}

TEST(DisconnectReasonTest, UnknownWireCodesDecodeAsUnknown) {
  EXPECT_EQ(disconnect_reason_from_wire(static_cast<std::uint32_t>(kLastDisconnectReason) + 1),
            DisconnectReason::kUnknown);
  EXPECT_EQ(disconnect_reason_from_wire(0xFFFFFFFFu), DisconnectReason::kUnknown);
}

}  // namespace
}  // namespace tickwire::transport
