#pragma once
// The accepting side of address validation (connect_challenge.h), kept free
// of ENet so that it can be tested and fuzzed on its own. The transport
// feeds it every challenge datagram and asks it, for every datagram bound
// for ENet's connect path, whether the source has been admitted.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/transport/connect_challenge.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::transport {

// An IPv4 source as ENet reports it: host in network byte order, port in
// host byte order.
struct Endpoint {
  std::uint32_t host = 0;
  std::uint16_t port = 0;

  std::uint64_t key() const { return (std::uint64_t{host} << 16) | port; }
  bool operator==(const Endpoint&) const = default;
};

class AddressValidator {
 public:
  // Throws std::runtime_error when libsodium cannot start (no entropy).
  explicit AddressValidator(const AddressValidationConfig& config);

  struct Clocks {
    Time now;                     // monotonic, for cookies and lifetimes
    std::int64_t unix_seconds{};  // wall clock, for token expiry
  };

  // What the host holds now, for the caps checked on admission.
  struct HostLoad {
    std::size_t peers_from_host = 0;     // ENet peers of the source's IP address
    std::size_t max_peers_per_host = 0;  // 0: no cap
    std::size_t free_slots = SIZE_MAX;   // ENet peer slots not in use
  };

  // Handles one datagram that starts with the challenge magic and returns
  // the answer to send back to `from`, if any.
  std::optional<std::vector<std::uint8_t>> handle(std::span<const std::uint8_t> datagram, Endpoint from,
                                                  const Clocks& clocks, const HostLoad& load);

  // Whether `from` passed the challenge recently enough to connect.
  bool admitted(Endpoint from, Time now) const;

  // Counts a datagram from an address that is neither admitted nor a peer,
  // which was dropped before ENet saw it.
  void count_dropped_connect(std::size_t bytes);

  // ENet connected `from`: its admission is used up. Returns the identity
  // its token carried, if tokens are required.
  std::optional<PeerIdentity> take(Endpoint from);

  // Forgets admissions and token uses that have run out.
  void expire(Time now, std::int64_t unix_seconds);

  const ValidationStats& stats() const { return stats_; }

 private:
  struct Admission {
    Time expires;
    std::optional<PeerIdentity> identity;
  };
  using Fingerprint = std::array<std::uint8_t, 16>;
  struct FingerprintHash {
    std::size_t operator()(const Fingerprint& f) const;
  };
  struct TokenUse {
    Endpoint first;
    std::int64_t expires_unix = 0;
  };

  challenge::Cookie cookie_for(Endpoint from, std::uint64_t nonce, std::int64_t bucket) const;
  bool cookie_valid(const challenge::Response& r, Endpoint from, Time now) const;
  bool take_challenge_budget(Time now);
  std::vector<std::uint8_t> reply_unvalidated(std::vector<std::uint8_t> answer, std::size_t received);
  std::optional<std::vector<std::uint8_t>> on_response(const challenge::Response& r, Endpoint from,
                                                       const Clocks& clocks, const HostLoad& load,
                                                       std::size_t received);
  // A reason to refuse the client, or none with its identity filled.
  std::optional<DisconnectReason> check_token(const challenge::Response& r, Endpoint from, const Clocks& clocks,
                                              std::optional<PeerIdentity>& identity);
  void admit(Endpoint from, Time now, std::optional<PeerIdentity> identity);
  void forget(std::unordered_map<std::uint64_t, Admission>::iterator it);

  AddressValidationConfig config_;
  std::array<std::uint8_t, 32> secret_{};
  std::unordered_map<std::uint64_t, Admission> admissions_;  // by Endpoint::key
  std::unordered_map<std::uint32_t, std::size_t> pending_per_host_;
  std::unordered_map<Fingerprint, TokenUse, FingerprintHash> token_uses_;
  Time budget_second_start_;
  std::uint32_t challenges_this_second_ = 0;
  ValidationStats stats_;
};

}  // namespace tickwire::transport
