#include "tickwire/transport/address.h"

#include <charconv>
#include <string>
#include <system_error>

namespace tickwire::transport {
namespace {

constexpr std::uint32_t kMaxPort = 65535;

Error parse_error(std::string_view text, std::string_view why) {
  std::string detail = "invalid address '";
  detail.append(text);
  detail.append("': ");
  detail.append(why);
  return make_error(ErrorCode::kInvalidArgument, std::move(detail));
}

bool is_ascii_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Names as DNS and SimNetwork spell them; anything else (spaces, slashes,
// control bytes) is a typo we report now rather than a lookup failure later.
bool is_hostname_char(char c) { return is_ascii_alnum(c) || c == '.' || c == '-' || c == '_'; }

// IPv6 literals, with an optional zone ("fe80::1%eth0").
bool is_ipv6_char(char c) { return is_ascii_alnum(c) || c == ':' || c == '.' || c == '%'; }

Result<std::uint16_t> parse_port(std::string_view text, std::string_view port, bool allow_port_zero) {
  if (port.empty()) return parse_error(text, "missing port after ':'");
  if (port.front() < '0' || port.front() > '9') return parse_error(text, "port is not a number");

  std::uint32_t value = 0;
  const char* first = port.data();
  const char* last = port.data() + port.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc::result_out_of_range) return parse_error(text, "port out of range (1-65535)");
  if (end != last) return parse_error(text, "unexpected characters after the port");
  if (value > kMaxPort) return parse_error(text, "port out of range (1-65535)");
  if (value == 0 && !allow_port_zero) return parse_error(text, "port 0 is only allowed when binding");
  return static_cast<std::uint16_t>(value);
}

}  // namespace

std::string Address::to_string() const {
  // A colon in the host can only be IPv6, whose own colons would make the
  // port ambiguous without brackets.
  const bool bracket = host.find(':') != std::string::npos;
  std::string out;
  out.reserve(host.size() + 8);
  if (bracket) out.push_back('[');
  out.append(host);
  if (bracket) out.push_back(']');
  out.push_back(':');
  out.append(std::to_string(port));
  return out;
}

Result<Address> Address::parse(std::string_view text, bool allow_port_zero) {
  if (text.empty()) return parse_error(text, "empty (expected HOST:PORT)");

  std::string_view host;
  std::string_view port;
  if (text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return parse_error(text, "missing ']' after an IPv6 host");
    host = text.substr(1, close - 1);
    if (host.empty()) return parse_error(text, "empty host");
    for (char c : host) {
      if (!is_ipv6_char(c)) return parse_error(text, "invalid character in IPv6 host");
    }
    if (host.find(':') == std::string_view::npos) return parse_error(text, "brackets are only for IPv6 hosts");
    const std::string_view rest = text.substr(close + 1);
    if (rest.empty()) return parse_error(text, "missing port (expected [HOST]:PORT)");
    if (rest.front() != ':') return parse_error(text, "unexpected characters after ']'");
    port = rest.substr(1);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return parse_error(text, "missing port (expected HOST:PORT)");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return parse_error(text, "IPv6 hosts need brackets, as in [::1]:7777");
    }
    if (host.empty()) return parse_error(text, "empty host");
    for (char c : host) {
      if (!is_hostname_char(c)) return parse_error(text, "invalid character in host");
    }
  }

  auto parsed_port = parse_port(text, port, allow_port_zero);
  if (!parsed_port) return parsed_port.error();
  return Address{std::string(host), parsed_port.value()};
}

}  // namespace tickwire::transport
