#pragma once
// The connecting side of address validation (connect_challenge.h), free of
// ENet: it says what to send and when a connect may go ahead; the
// transport sends the datagrams and starts ENet's connect.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "address_validator.h"
#include "tickwire/core/peer_id.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/connect_challenge.h"
#include "tickwire/transport/transport.h"

namespace tickwire::transport {

class ChallengeClient {
 public:
  ChallengeClient(Duration retry_interval, Duration give_up_after);

  struct Outgoing {
    Endpoint to;
    std::vector<std::uint8_t> bytes;
  };
  // The exchange for `id` ended: accepted (no failure: start ENet's
  // connect now) or refused or timed out.
  struct Done {
    PeerId id;
    Endpoint server;
    std::optional<DisconnectReason> failure;
  };
  struct Actions {
    std::vector<Outgoing> send;
    std::vector<Done> done;
  };

  // Sends the first HELLO now.
  void start(PeerId id, Endpoint server, std::vector<std::uint8_t> token, Time now, Actions& actions);
  void cancel(PeerId id) { pending_.erase(id); }
  bool pending(PeerId id) const { return pending_.contains(id); }

  // Resends what is due; gives up on exchanges older than give_up_after.
  void tick(Time now, Actions& actions);

  // An answer that came from `from`. Answers that match no exchange (wrong
  // source, wrong nonce, a stage already passed) are ignored.
  void receive(const challenge::Message& message, Endpoint from, Time now, Actions& actions);

 private:
  struct Exchange {
    Endpoint server;
    std::uint64_t nonce = 0;
    std::vector<std::uint8_t> token;
    std::optional<challenge::Cookie> cookie;  // set once the CHALLENGE came
    Time cookie_at;
    Time next_send;
    Time deadline;
  };

  Exchange* find(std::uint64_t nonce, Endpoint from, PeerId& id);
  void send(Exchange& exchange, Time now, Actions& actions) const;

  Duration retry_interval_;
  Duration give_up_after_;
  std::unordered_map<PeerId, Exchange> pending_;
};

}  // namespace tickwire::transport
