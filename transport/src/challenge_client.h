#pragma once
// The connecting side of address validation (connect_challenge.h), free of
// ENet: it says what to send and when a connect may go ahead; the
// transport sends the datagrams and starts ENet's connect.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "address_validator.h"
#include "handshake_crypto.h"
#include "sealed_channel.h"
#include "session_params.h"
#include "tickwire/core/peer_id.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/connect_challenge.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"
#include "tickwire/transport/transport.h"

namespace tickwire::transport {

class ChallengeClient {
 public:
  // `aes_available`: whether this end can seal with AES-256-GCM, which it
  // then offers in every exchange (tests set it to try both ciphers; true
  // only where the CPU has AES instructions).
  ChallengeClient(Duration retry_interval, Duration give_up_after, bool aes_available = aes256gcm_available());

  struct Outgoing {
    Endpoint to;
    std::vector<std::uint8_t> bytes;
  };
  // What the client brings to an exchange. With a token, the session's keys
  // are mixed with its session key, so a server that does not check tokens
  // cannot derive them either (kServerKeyMismatch).
  struct Credentials {
    std::vector<std::uint8_t> token;            // from the game's backend; empty for none
    std::optional<TokenKey> token_session_key;  // handed out with the token; required with one
    std::optional<ServerPublicKey> server_key;  // the server's identity key, when pinned
    bool plaintext = false;                     // ask for an unencrypted session
  };
  // The exchange for `id` ended: accepted (no failure: start ENet's
  // connect now, with `session`) or refused or timed out. Failures of the
  // handshake's proofs: kServerKeyMismatch (the server could not derive
  // our keys, or could not sign with the pinned key), kProtocolError (an
  // ACCEPTED no honest server sends: connection id 0, another plaintext
  // answer than asked, or AES-256-GCM chosen though we did not offer it).
  struct Done {
    PeerId id;
    Endpoint server;
    std::optional<DisconnectReason> failure;
    SessionParams session;  // keys{send = client to server, receive = server to client}; only without failure
  };
  struct Actions {
    std::vector<Outgoing> send;
    std::vector<Done> done;
  };

  // Sends the first HELLO now. A token without its session key, or over
  // challenge::kMaxTokenSize, ends the exchange at once with kTokenInvalid.
  void start(PeerId id, Endpoint server, const Credentials& credentials, Time now, Actions& actions);
  void cancel(PeerId id) { pending_.erase(id); }
  bool pending(PeerId id) const { return pending_.contains(id); }
  // The nonce the exchange for `id` now uses (a new one with each fresh
  // cookie), for tests and logs; nothing when it is not pending.
  std::optional<std::uint64_t> nonce(PeerId id) const;

  // Resends what is due; gives up on exchanges older than give_up_after.
  void tick(Time now, Actions& actions);

  // An answer that came from `from`. Answers that match no exchange (wrong
  // source, wrong nonce, a stage already passed) are ignored.
  void receive(const challenge::Message& message, Endpoint from, Time now, Actions& actions);

 private:
  struct Exchange {
    Exchange(Endpoint to, const Credentials& with, std::uint8_t asked, Time give_up_at)
        : server(to), credentials(with), flags(asked), key(handshake::KxKeyPair::generate()), deadline(give_up_at) {}

    Endpoint server;
    std::uint64_t nonce = 0;
    Credentials credentials;
    std::uint8_t flags = 0;                   // of the HELLO and RESPONSE: plaintext asked, AES offered
    handshake::KxKeyPair key;                 // this exchange's own, wiped when it ends
    std::optional<challenge::Cookie> cookie;  // set once the CHALLENGE came
    challenge::PublicKey server_key{};        // the key exchange key of that CHALLENGE
    Time cookie_at;
    Time next_send;
    Time deadline;
  };

  Exchange* find(std::uint64_t nonce, Endpoint from, PeerId& id);
  void send(Exchange& exchange, Time now, Actions& actions) const;
  void on_accepted(const challenge::Accepted& accepted, Endpoint from, Actions& actions);
  // A reason to refuse the ACCEPTED, or none with `session` filled.
  static std::optional<DisconnectReason> verify(const Exchange& exchange, const challenge::Accepted& accepted,
                                                handshake::SecretSession& session);

  Duration retry_interval_;
  Duration give_up_after_;
  bool aes_available_;
  std::unordered_map<PeerId, Exchange> pending_;
};

}  // namespace tickwire::transport
