#pragma once
// One evil bot: its own UDP socket, no client runtime. It speaks the wire
// protocol by hand (PacketForge) to break one rule, as a modified client
// or an attacker would, and records how its connection ended: the reason
// the server gave, or that it is still connected.

#include <spdlog/logger.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bot_socket.h"
#include "evil_packets.h"
#include "evil_scripts.h"
#include "tickwire/core/peer_id.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::bots {

struct EvilBotConfig {
  std::uint64_t seed = 1;
  std::string name;
  const EvilScriptInfo* script = nullptr;
  std::shared_ptr<const GameSetup> game;  // whose protocol it speaks
  transport::Address server;
  std::optional<transport::TokenKey> token_key;  // set: evil bots hold valid tokens too
  SessionSecurity security;                      // --server-key, --plaintext
  Duration timeout = Duration::seconds(5);       // the bots' --timeout
  int frame_rate = 60;
  std::shared_ptr<spdlog::logger> logger;
  // Session attackers (attacks_a_session): the honest bot to attack, once
  // one is connected (its address as the server sees it), whether it still
  // is, and how many datagrams to spend on it.
  std::function<std::optional<transport::Address>()> victim;
  std::function<bool()> victim_connected;
  std::uint64_t spoof_budget = 65536;
};

struct SessionSpoofer;  // evil_session.cpp

class EvilBot {
 public:
  // Throws std::invalid_argument without a script or a game.
  explicit EvilBot(EvilBotConfig config);
  ~EvilBot();
  EvilBot(const EvilBot&) = delete;
  EvilBot& operator=(const EvilBot&) = delete;

  // Once per frame; the first call connects.
  void update(Time now);
  // At the end of the run: a mute bot still keeping silent reads what it
  // ignored, so that a disconnect waiting there is counted.
  void conclude(Time now);
  // Says goodbye when still connected; afterwards update() does nothing.
  void leave(Time now);
  // After leave(): lets the goodbye go out.
  void drain(Time now);

  bool started() const { return net_ != nullptr || spoofer_ != nullptr || end_.reason.has_value(); }
  const EvilEnd& end() const { return end_; }

 private:
  void connect(Time now);
  void take_events(Time now);
  void misbehave(Time now);
  void send_garbage(Time now);
  void send(transport::Delivery delivery, const std::vector<std::uint8_t>& bytes, Time now);
  // The server's tick now, reckoned from the Welcome.
  Tick server_tick(Time now) const;
  void ended(const std::string& reason);
  // evil_session.cpp: a session attacker's frame, and its end.
  void attack_session(Time now);
  void conclude_attack();

  EvilBotConfig config_;
  EvilKind kind_;
  std::unique_ptr<transport::EnetTransport> net_;
  PeerId peer_;
  PacketForge forge_;
  transport::SimRng rng_;
  bool connected_ = false;
  bool left_ = false;
  std::optional<Welcome> welcome_;
  Time welcomed_at_;
  // Mute: quiet from the Welcome until then, not even servicing the socket.
  std::optional<Time> silent_until_;
  // Garbage: datagram lengths 0..1300 in a shuffled order, and the next one.
  std::vector<std::size_t> lengths_;
  std::size_t next_length_ = 0;
  EvilEnd end_;
  std::unique_ptr<SessionSpoofer> spoofer_;
};

}  // namespace tickwire::bots
