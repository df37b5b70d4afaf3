#pragma once
// The accepting side of address validation (connect_challenge.h), kept free
// of ENet so that it can be tested and fuzzed on its own. The transport
// feeds it every challenge datagram and asks it, for every datagram bound
// for ENet's connect path, whether the source has been admitted.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "handshake_crypto.h"
#include "sealed_channel.h"
#include "session_params.h"
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
  // `allow_plaintext` (EnetConfig::plaintext): whether a client may ask for
  // an unencrypted session. `aes_available`: whether this end can seal with
  // AES-256-GCM, chosen for every client that offers it too (tests set it to
  // try both ciphers; true only where the CPU has AES instructions). Throws
  // std::runtime_error when libsodium cannot start (no entropy).
  AddressValidator(const AddressValidationConfig& config, bool allow_plaintext,
                   bool aes_available = aes256gcm_available());
  AddressValidator(const AddressValidator&) = delete;
  AddressValidator& operator=(const AddressValidator&) = delete;
  ~AddressValidator();

  // What an admission hands the transport when ENet connects its address.
  struct Admitted {
    std::optional<PeerIdentity> identity;  // the token's, when tokens are required
    SessionParams session;                 // keys{send = server to client, receive = client to server}
  };

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

  // The session agreed with `from`, admitted and not yet taken; nullptr
  // otherwise. Valid until the next call that changes admissions.
  const SessionParams* session_of(Endpoint from) const;

  // ENet connected `from`: its admission is used up. Nothing when `from`
  // has no admission.
  std::optional<Admitted> take(Endpoint from);

  // Connection ids the transport's live sessions hold: a new session's id
  // is none of these (nor any admission's). None set: only admissions count.
  void set_live_ids(std::function<bool(std::uint32_t)> in_use) { live_ids_ = std::move(in_use); }

  // Forgets admissions and token uses that have run out.
  void expire(Time now, std::int64_t unix_seconds);

  const ValidationStats& stats() const { return stats_; }

 private:
  struct Admission {
    Time expires;
    std::optional<PeerIdentity> identity;
    std::uint64_t nonce = 0;
    challenge::PublicKey client_key{};
    handshake::SecretSession session;
    // The ACCEPTED sent, sent again unchanged for a repeated RESPONSE.
    std::vector<std::uint8_t> accepted;
  };
  using Fingerprint = std::array<std::uint8_t, 16>;
  struct FingerprintHash {
    std::size_t operator()(const Fingerprint& f) const;
  };
  struct TokenUse {
    Endpoint first;
    std::int64_t expires_unix = 0;
  };
  // What a token check yields besides a reason to refuse.
  struct TokenGrant {
    std::optional<PeerIdentity> identity;
    std::optional<TokenKey> session_key;
  };

  challenge::Cookie cookie_for(Endpoint from, std::uint64_t nonce, std::int64_t bucket, std::uint8_t flags,
                               const challenge::PublicKey& client_key) const;
  // The time bucket the RESPONSE's cookie was made in, if it is valid.
  std::optional<std::int64_t> cookie_bucket(const challenge::Response& r, Endpoint from, Time now) const;
  bool take_challenge_budget(Time now);
  std::vector<std::uint8_t> reply_unvalidated(std::vector<std::uint8_t> answer, std::size_t received);
  std::optional<std::vector<std::uint8_t>> on_hello(const challenge::Hello& hello, Endpoint from, Time now,
                                                    std::size_t received);
  std::optional<std::vector<std::uint8_t>> on_response(const challenge::Response& r, Endpoint from,
                                                       const Clocks& clocks, const HostLoad& load,
                                                       std::size_t received);
  // A reason to refuse the client, or none with `grant` filled.
  std::optional<DisconnectReason> check_token(const challenge::Response& r, Endpoint from, const Clocks& clocks,
                                              TokenGrant& grant);
  // A reason to refuse on the host's load, or none.
  std::optional<DisconnectReason> check_load(Endpoint from, const HostLoad& load) const;
  bool pending_full(Endpoint from) const;
  // The admission for a RESPONSE that passed every check; nothing when the
  // client's key is unusable.
  std::optional<Admission> agree(const challenge::Response& r, const handshake::KxKeyPair& server_pair,
                                 TokenGrant grant, Time now);
  std::uint32_t fresh_connection_id();
  void admit(Endpoint from, Admission admission);
  void forget(std::unordered_map<std::uint64_t, Admission>::iterator it);

  AddressValidationConfig config_;
  bool allow_plaintext_;
  bool aes_available_;
  std::array<std::uint8_t, 32> secret_{};  // for cookies; wiped when dropped
  handshake::RotatingKxKeys kx_keys_;
  handshake::Signer signer_;
  std::function<bool(std::uint32_t)> live_ids_;
  std::unordered_set<std::uint32_t> admission_ids_;
  std::unordered_map<std::uint64_t, Admission> admissions_;  // by Endpoint::key
  std::unordered_map<std::uint32_t, std::size_t> pending_per_host_;
  std::unordered_map<Fingerprint, TokenUse, FingerprintHash> token_uses_;
  Time budget_second_start_;
  std::uint32_t challenges_this_second_ = 0;
  ValidationStats stats_;
};

}  // namespace tickwire::transport
