#include "challenge_client.h"

#include <sodium.h>

#include <stdexcept>

namespace tickwire::transport {
namespace {
// A server keeps a cookie valid for at least 8 s; past this age the client
// asks for a fresh one instead of resending one that may have gone stale
// (while it waited for a pending place, say).
constexpr Duration kCookieFreshFor = Duration::seconds(6);
}  // namespace

ChallengeClient::ChallengeClient(Duration retry_interval, Duration give_up_after, bool aes_available)
    : retry_interval_(retry_interval), give_up_after_(give_up_after), aes_available_(aes_available) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

void ChallengeClient::start(PeerId id, Endpoint server, const Credentials& credentials, Time now, Actions& actions) {
  const bool token = !credentials.token.empty();
  if ((token && !credentials.token_session_key) || credentials.token.size() > challenge::kMaxTokenSize) {
    // Without its session key nobody could derive the session's keys.
    actions.done.push_back({id, server, DisconnectReason::kTokenInvalid, {}});
    return;
  }
  const auto flags = static_cast<std::uint8_t>((credentials.plaintext ? challenge::kFlagPlaintext : 0U) |
                                               (aes_available_ ? challenge::kFlagAes256Gcm : 0U));
  Exchange exchange(server, credentials, flags, now + give_up_after_);
  // Unpredictable, so that an off-path attacker cannot forge an answer.
  randombytes_buf(&exchange.nonce, sizeof exchange.nonce);
  send(exchange, now, actions);
  pending_.insert_or_assign(id, std::move(exchange));
}

std::optional<std::uint64_t> ChallengeClient::nonce(PeerId id) const {
  const auto it = pending_.find(id);
  if (it == pending_.end()) return std::nullopt;
  return it->second.nonce;
}

void ChallengeClient::send(Exchange& exchange, Time now, Actions& actions) const {
  exchange.next_send = now + retry_interval_;
  if (exchange.cookie && now - exchange.cookie_at > kCookieFreshFor) {
    // A new round with a new nonce: the server may have admitted the old
    // one under a key pair that the new cookie's bucket no longer has, and
    // answers to the old one must not be read against the new key.
    exchange.cookie.reset();
    randombytes_buf(&exchange.nonce, sizeof exchange.nonce);
  }
  if (exchange.cookie) {
    const challenge::Response response{exchange.nonce, *exchange.cookie, exchange.flags, exchange.key.public_key(),
                                       exchange.credentials.token};
    actions.send.push_back({exchange.server, challenge::encode(response)});
  } else {
    const challenge::Hello hello{exchange.nonce, exchange.flags, exchange.key.public_key()};
    actions.send.push_back({exchange.server, challenge::encode(hello)});
  }
}

void ChallengeClient::tick(Time now, Actions& actions) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now >= it->second.deadline) {
      actions.done.push_back({it->first, it->second.server, DisconnectReason::kConnectFailed, {}});
      it = pending_.erase(it);
      continue;
    }
    if (now >= it->second.next_send) send(it->second, now, actions);
    ++it;
  }
}

ChallengeClient::Exchange* ChallengeClient::find(std::uint64_t nonce, Endpoint from, PeerId& id) {
  for (auto& [peer, exchange] : pending_) {
    if (exchange.nonce == nonce && exchange.server == from) {
      id = peer;
      return &exchange;
    }
  }
  return nullptr;
}

void ChallengeClient::receive(const challenge::Message& message, Endpoint from, Time now, Actions& actions) {
  PeerId id;
  if (const auto* c = std::get_if<challenge::ChallengeMsg>(&message)) {
    Exchange* exchange = find(c->nonce, from, id);
    if (exchange == nullptr || exchange->cookie) return;
    exchange->cookie = c->cookie;
    exchange->server_key = c->server_key;
    exchange->cookie_at = now;
    send(*exchange, now, actions);
    return;
  }
  if (const auto* a = std::get_if<challenge::Accepted>(&message)) {
    on_accepted(*a, from, actions);
    return;
  }
  const auto* d = std::get_if<challenge::Denied>(&message);
  if (d == nullptr) return;  // HELLO and RESPONSE are for the accepting side
  // A denial never means success, whatever code a peer put in it.
  const DisconnectReason failure =
      d->reason == DisconnectReason::kUnknown ? DisconnectReason::kConnectFailed : d->reason;
  Exchange* exchange = find(d->nonce, from, id);
  // A version mismatch can only come as an answer to a HELLO; everything
  // else answers our RESPONSE.
  if (exchange == nullptr || (!exchange->cookie && failure != DisconnectReason::kVersionMismatch)) return;
  actions.done.push_back({id, exchange->server, failure, {}});
  pending_.erase(id);
}

void ChallengeClient::on_accepted(const challenge::Accepted& accepted, Endpoint from, Actions& actions) {
  PeerId id;
  Exchange* exchange = find(accepted.nonce, from, id);
  if (exchange == nullptr || !exchange->cookie) return;  // not an answer to our RESPONSE
  handshake::SecretSession session;
  const std::optional<DisconnectReason> failure = verify(*exchange, accepted, session);
  actions.done.push_back({id, exchange->server, failure, failure ? SessionParams{} : session.params()});
  pending_.erase(id);
}

std::optional<DisconnectReason> ChallengeClient::verify(const Exchange& exchange, const challenge::Accepted& accepted,
                                                        handshake::SecretSession& session) {
  // The plaintext answer is the one asked for; the cipher one we offered.
  const bool plaintext_as_asked =
      (accepted.flags & challenge::kFlagPlaintext) == (exchange.flags & challenge::kFlagPlaintext);
  const bool aes = (accepted.flags & challenge::kFlagAes256Gcm) != 0;
  const bool offered_aes = (exchange.flags & challenge::kFlagAes256Gcm) != 0;
  if (accepted.connection_id == 0 || !plaintext_as_asked || (aes && !offered_aes)) {
    return DisconnectReason::kProtocolError;
  }
  const Credentials& credentials = exchange.credentials;
  if (credentials.server_key) {
    const handshake::Transcript transcript{exchange.nonce,      exchange.flags,         exchange.key.public_key(),
                                           exchange.server_key, accepted.connection_id, accepted.flags};
    if (!handshake::signature_valid(*credentials.server_key, transcript, accepted.signature)) {
      return DisconnectReason::kServerKeyMismatch;
    }
  }
  SessionParams& params = session.params();
  params.connection_id = accepted.connection_id;
  params.plaintext = credentials.plaintext;
  params.cipher = aes ? SessionCipher::kAes256Gcm : SessionCipher::kChaCha20Poly1305;
  if (params.plaintext) return std::nullopt;
  const std::optional<TokenKey> token_key = credentials.token.empty() ? std::nullopt : credentials.token_session_key;
  // The server's keys are the mirror of ours: its send key is our receive.
  if (!exchange.key.client_keys(exchange.server_key, token_key, params.keys) ||
      !handshake::confirmation_valid(params.keys.receive, accepted.nonce, accepted.connection_id, accepted.flags,
                                     accepted.confirmation)) {
    return DisconnectReason::kServerKeyMismatch;
  }
  return std::nullopt;
}

}  // namespace tickwire::transport
