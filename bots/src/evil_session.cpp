// The session attackers among the evil bots: they never connect. Each picks
// an honest bot of the run as its victim and sends from that bot's address
// with a raw socket, as an attacker who learned the address would: ENet's
// own commands and game packets (keep-alives numbered far ahead, inputs
// for far-future ticks) in the old unauthenticated framing to every peer
// slot and session, then sealed guesses (tools/common/session_forgery.h);
// or, for replay, the victim's own datagrams captured on loopback, sent
// again as they were and rewritten. It passes when its victim is still
// connected once the budget is spent; the run's honest figures show any
// quieter harm (late inputs, a frozen view).

#include "evil_session.h"

#include <arpa/inet.h>

#include <optional>

#include "evil.h"
#include "session_forgery.h"

namespace tickwire::bots {
namespace {

constexpr std::uint64_t kPerFrame = 1024;
constexpr std::uint64_t kReplayPerFrame = 64;
constexpr std::uint64_t kReplayBudget = 4096;
constexpr Tick::Rep kFarFuture = 100'000;
constexpr std::size_t kRedundantInputs = 3;  // as an honest client repeats them

std::optional<spoof::Ipv4Endpoint> endpoint_of(const transport::Address& address) {
  const std::string host = address.host == "localhost" ? "127.0.0.1" : address.host;
  in_addr parsed{};
  if (::inet_pton(AF_INET, host.c_str(), &parsed) != 1) return std::nullopt;
  return spoof::Ipv4Endpoint{ntohl(parsed.s_addr), address.port};
}

spoof::SessionAttack attack_of(EvilKind kind) {
  switch (kind) {
    case EvilKind::kSpoofKeepAlive: return spoof::SessionAttack::kSpoofKeepAlive;
    case EvilKind::kForgeInput: return spoof::SessionAttack::kForgeInput;
    case EvilKind::kReplay: return spoof::SessionAttack::kReplay;
    default: return spoof::SessionAttack::kSpoofDisconnect;
  }
}

}  // namespace

EvilBot::~EvilBot() = default;

void EvilBot::attack_session(Time now) {
  if (!spoofer_) {
    auto sender = spoof::RawSender::open();
    if (!sender) return ended("no raw socket: " + sender.error().detail);
    spoofer_ = std::make_unique<SessionSpoofer>(std::move(sender).value(), config_.seed);
    spoofer_->server = endpoint_of(config_.server);
    if (!spoofer_->server) return ended("the server is not an IPv4 address: " + config_.server.host);
    if (kind_ == EvilKind::kReplay) {
      auto sniffer = spoof::RawSniffer::open();
      if (!sniffer) return ended("no raw socket: " + sniffer.error().detail);
      spoofer_->sniffer.emplace(std::move(sniffer).value());
    }
  }
  SessionSpoofer& s = *spoofer_;
  if (!s.victim) {
    const auto victim = config_.victim ? config_.victim() : std::nullopt;
    if (victim) s.victim = endpoint_of(*victim);
    if (!s.victim) return;  // no honest bot connected yet
    if (config_.logger) config_.logger->debug("{}: attacking {}", config_.name, s.victim->to_string());
  }
  if (config_.victim_connected && !config_.victim_connected()) {
    return ended("victim harmed: it lost its connection after " + std::to_string(s.sent) + " datagrams");
  }
  const bool replay = kind_ == EvilKind::kReplay;
  const std::uint64_t budget = replay ? std::min(config_.spoof_budget, kReplayBudget) : config_.spoof_budget;
  if (s.sent >= budget) {
    if (config_.logger) {
      config_.logger->info("{}: {} datagrams sent from {} to {}; the victim is still connected", config_.name, s.sent,
                           s.victim->to_string(), s.server->to_string());
    }
    return ended(kNoHarmSeen);
  }

  std::vector<std::uint8_t> payload;
  if (kind_ == EvilKind::kSpoofKeepAlive)
    payload = forge_.keep_alive_numbered(static_cast<std::uint16_t>(s.rng()), now);
  if (kind_ == EvilKind::kForgeInput) {
    payload = forge_.inputs(Tick(kFarFuture + static_cast<Tick::Rep>(s.rng() % 1000)), kRedundantInputs, now);
  }
  if (replay) {
    for (spoof::SeenDatagram& d : s.sniffer->drain()) {
      if (d.from == *s.victim && d.to == *s.server && d.payload.size() >= s.captured.size()) s.captured = d.payload;
    }
    if (s.captured.empty()) return;  // nothing captured yet
  }
  const std::uint64_t end = std::min(budget, s.sent + (replay ? kReplayPerFrame : kPerFrame));
  for (; s.sent < end; ++s.sent) {
    const std::vector<std::uint8_t> datagram =
        replay ? (s.sent % 4 == 0 ? s.captured : spoof::rewritten(s.captured, s.sent))
               : spoof::forged_session_datagram(attack_of(kind_), s.sent, s.rng, payload);
    (void)s.sender.send(*s.victim, *s.server, datagram);
  }
}

void EvilBot::conclude_attack() {
  if (end_.reason) return;
  if (!spoofer_ || !spoofer_->victim) return ended("no honest bot connected to attack");
  if (config_.victim_connected && !config_.victim_connected()) return ended("victim harmed: it lost its connection");
  ended("attack unfinished after " + std::to_string(spoofer_->sent) + " datagrams");
}

}  // namespace tickwire::bots
