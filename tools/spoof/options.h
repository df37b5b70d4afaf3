#pragma once
// The command line of tickwire-spoof, parsed and checked in one place so a
// bad value exits with status 2 and a one-line message.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "datagrams.h"
#include "raw_ip.h"
#include "tickwire/core/result.h"

namespace tickwire::spoof {

// The forged sources are 127.66.0.1, 127.66.0.2, ...: 65535 of them stay
// inside 127.66.0.0/16.
inline constexpr std::uint32_t kFirstSource = 0x7F420001;
inline constexpr int kMaxSources = 65535;

enum class SessionAttack : std::uint8_t;

struct Options {
  Ipv4Endpoint target;
  double rate = 10000.0;  // attempts per second, all sources together
  int sources = 256;
  double duration_s = 10.0;
  std::vector<Kind> mix{kAllKinds.begin(), kAllKinds.end()};
  std::uint64_t seed = 0;
  std::string json_path;
  bool quiet = false;
  // --attack: an attack on one connected session (session_attack.h) instead
  // of the connect flood; --target is then the victim's server.
  std::optional<SessionAttack> attack;
  Ipv4Endpoint victim;
  bool toward_client = false;
  std::uint64_t budget = 65536;
  double watch_s = 1.0;
};

// HOST:PORT where HOST is a dotted IPv4 address in 127.0.0.0/8 or
// "localhost"; anything else is refused.
Result<Ipv4Endpoint> parse_loopback_target(std::string_view text);
// KIND[,KIND...] of connect, hello, response, garbage (repeats allowed: a
// kind named twice is sent twice as often).
Result<std::vector<Kind>> parse_mix(std::string_view text);

// The options, or the exit status to leave with (0 after --help, 2 for a
// bad value) once the message has been printed. Without --seed the seed is
// drawn at random (and printed at start so the run can be repeated).
std::variant<Options, int> parse_options(int argc, const char* const* argv);

}  // namespace tickwire::spoof
