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

ChallengeClient::ChallengeClient(Duration retry_interval, Duration give_up_after)
    : retry_interval_(retry_interval), give_up_after_(give_up_after) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

void ChallengeClient::start(PeerId id, Endpoint server, std::vector<std::uint8_t> token, Time now, Actions& actions) {
  Exchange exchange;
  exchange.server = server;
  // Unpredictable, so that an off-path attacker cannot forge an answer.
  randombytes_buf(&exchange.nonce, sizeof exchange.nonce);
  exchange.token = std::move(token);
  exchange.deadline = now + give_up_after_;
  send(exchange, now, actions);
  pending_[id] = std::move(exchange);
}

void ChallengeClient::send(Exchange& exchange, Time now, Actions& actions) const {
  exchange.next_send = now + retry_interval_;
  if (exchange.cookie && now - exchange.cookie_at > kCookieFreshFor) exchange.cookie.reset();
  if (exchange.cookie) {
    actions.send.push_back(
        {exchange.server, challenge::encode(challenge::Response{exchange.nonce, *exchange.cookie, exchange.token})});
  } else {
    actions.send.push_back({exchange.server, challenge::encode(challenge::Hello{exchange.nonce})});
  }
}

void ChallengeClient::tick(Time now, Actions& actions) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now >= it->second.deadline) {
      actions.done.push_back({it->first, it->second.server, DisconnectReason::kConnectFailed});
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
    exchange->cookie_at = now;
    send(*exchange, now, actions);
    return;
  }
  std::optional<DisconnectReason> failure;
  std::uint64_t nonce = 0;
  if (const auto* a = std::get_if<challenge::Accepted>(&message)) {
    nonce = a->nonce;
  } else if (const auto* d = std::get_if<challenge::Denied>(&message)) {
    nonce = d->nonce;
    // A denial never means success, whatever code a peer put in it.
    failure = d->reason == DisconnectReason::kUnknown ? DisconnectReason::kConnectFailed : d->reason;
  } else {
    return;  // HELLO and RESPONSE are for the accepting side
  }
  Exchange* exchange = find(nonce, from, id);
  // A version mismatch can only come as an answer to a HELLO; everything
  // else answers our RESPONSE.
  if (exchange == nullptr || (!exchange->cookie && failure != DisconnectReason::kVersionMismatch)) return;
  actions.done.push_back({id, exchange->server, failure});
  pending_.erase(id);
}

}  // namespace tickwire::transport
