#include "options.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <random>

#include "session_attack.h"
#include "tickwire/transport/address.h"

namespace tickwire::spoof {
namespace {

Error invalid(std::string detail) { return Error{ErrorCode::kInvalidArgument, std::move(detail)}; }

int refuse(const std::string& message) {
  std::cerr << "tickwire-spoof: " << message << "\n";
  return 2;
}

}  // namespace

Result<Ipv4Endpoint> parse_loopback_target(std::string_view text) {
  auto parsed = transport::Address::parse(text);
  if (!parsed) return invalid("--target: " + parsed.error().detail);
  const std::optional<Ipv4Endpoint> target = ipv4_endpoint(*parsed);
  if (!target) return invalid("--target: '" + std::string(text) + "' is not an IPv4 address with a port");
  // Spoofing is only simulated on this machine's loopback network; the
  // tool must never become a way to flood someone else.
  if (!is_loopback(target->address)) {
    return invalid("--target: refusing " + target->host() + ": only loopback targets (127.0.0.0/8) are allowed");
  }
  return *target;
}

Result<std::vector<Kind>> parse_mix(std::string_view text) {
  std::vector<Kind> mix;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    const auto kind = kind_from_string(name);
    if (!kind) {
      return invalid("--mix: unknown kind '" + std::string(name) + "' (kinds: connect, hello, response, garbage)");
    }
    mix.push_back(*kind);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return mix;
}

std::variant<Options, int> parse_options(int argc, const char* const* argv) {
  Options o;
  std::string target;
  std::string mix;
  std::uint64_t seed = 0;
  std::string attack;
  std::string victim;
  CLI::App app{
      "tickwire-spoof: sends connect attempts to a Tickwire server from many forged loopback source addresses "
      "(127.66.0.1, 127.66.0.2, ...) that never answer, and reports how much the server sent back to them. "
      "Only targets in 127.0.0.0/8 are accepted.",
      "tickwire-spoof"};
  app.add_option("--target", target, "Server address HOST:PORT (loopback only)")->required();
  app.add_option("--rate", o.rate, "Connect attempts per second, all sources together")->capture_default_str();
  app.add_option("--sources", o.sources, "Distinct forged source addresses (1..65535)")->capture_default_str();
  app.add_option("--duration", o.duration_s, "Seconds to send for")->capture_default_str();
  app.add_option("--mix", mix, "Kinds sent in turn, from connect, hello, response, garbage (default: all four)");
  auto* seed_option = app.add_option("--seed", seed, "Random seed (default: drawn at random)");
  app.add_option("--json", o.json_path, "Write the summary as JSON to this file");
  app.add_flag("--quiet", o.quiet, "Print nothing but errors");
  app.add_option("--attack", attack,
                 "Attack one connected session instead (needs root or CAP_NET_RAW): " + session_attack_names());
  app.add_option("--victim", victim, "With --attack: the victim client's address HOST:PORT (loopback only)");
  app.add_flag("--toward-client", o.toward_client, "With --attack: spoof the server's address toward the victim");
  app.add_option("--budget", o.budget, "With --attack: datagrams to send (a long run: 1000000)")->capture_default_str();
  app.add_option("--watch", o.watch_s, "With --attack: seconds the session is watched before and after")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return refuse(e.what());
  }

  auto endpoint = parse_loopback_target(target);
  if (!endpoint) return refuse(endpoint.error().detail);
  o.target = *endpoint;
  // The negated comparisons also refuse NaN.
  if (!(o.rate > 0.0 && o.rate <= 1e7)) return refuse("--rate must be above 0 and at most 10000000");
  if (o.sources < 1 || o.sources > kMaxSources) return refuse("--sources must be 1..65535");
  if (!(o.duration_s > 0.0 && o.duration_s <= 86400.0)) return refuse("--duration must be above 0 and at most 86400");
  if (!mix.empty()) {
    auto kinds = parse_mix(mix);
    if (!kinds) return refuse(kinds.error().detail);
    o.mix = std::move(*kinds);
  }
  if (!attack.empty() || !victim.empty()) {
    o.attack = session_attack_from_string(attack);
    if (!o.attack) return refuse("--attack: unknown attack '" + attack + "' (attacks: " + session_attack_names() + ")");
    auto victim_endpoint = parse_loopback_target(victim);
    if (victim.empty() || !victim_endpoint) return refuse("--attack needs --victim HOST:PORT on loopback");
    o.victim = *victim_endpoint;
    if (o.budget < 1 || o.budget > 100'000'000) return refuse("--budget must be 1..100000000");
    if (!(o.watch_s > 0.0 && o.watch_s <= 60.0)) return refuse("--watch must be above 0 and at most 60");
  }
  if (seed_option->count() > 0) {
    o.seed = seed;
  } else {
    std::random_device device;
    o.seed = (std::uint64_t{device()} << 32) | device();
  }
  return o;
}

}  // namespace tickwire::spoof
