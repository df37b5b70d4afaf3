#pragma once
// A UDP endpoint as the user spells it: "127.0.0.1:7777", "[::1]:7777",
// "localhost:7777". SimNetwork uses the same values as plain names.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "tickwire/core/result.h"

namespace tickwire::transport {

struct Address {
  std::string host;
  std::uint16_t port = 0;

  std::string to_string() const;
  auto operator<=>(const Address&) const = default;

  // Parses HOST:PORT (IPv6 hosts in brackets). Port 0 is rejected unless
  // allow_port_zero is set (binding to an ephemeral port).
  static Result<Address> parse(std::string_view text, bool allow_port_zero = false);
};

}  // namespace tickwire::transport
