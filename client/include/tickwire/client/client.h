#pragma once
// The client runtime a game embeds. Call update(now) once per frame; it
// never blocks and reads no clock. Many clients can live in one process.

#include <spdlog/logger.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "tickwire/core/packet_channel.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/transport.h"

namespace tickwire::client {

struct ClientConfig {
  std::string name = "player";
  std::uint64_t schema_hash = 0;                    // must match the server's game schema
  Duration connect_timeout = Duration::seconds(5);  // connect to Welcome
  Duration timeout = Duration::seconds(5);          // nothing heard from the server
  Duration keep_alive_interval = Duration::millis(50);
  std::shared_ptr<spdlog::logger> logger;

  // Throws std::invalid_argument naming the first bad setting.
  void validate() const;
};

enum class ClientState : std::uint8_t { kIdle, kConnecting, kHandshaking, kConnected, kDisconnected };
const char* to_string(ClientState state);

struct ClientEvent {
  enum class Type : std::uint8_t { kConnected, kDenied, kDisconnected };
  Type type = Type::kConnected;
  transport::DisconnectReason reason = transport::DisconnectReason::kUnknown;
};

struct ClientStats {
  Duration rtt;  // smoothed round trip from echoed stamps
  std::uint64_t packets_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t bad_packets = 0;
  std::uint64_t server_ticks_heard = 0;  // keep-alives carrying a server tick
};

class Client {
 public:
  Client(std::unique_ptr<transport::Transport> transport, ClientConfig config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Starts connecting. Fails when already connecting or connected.
  Result<void> connect(const transport::Address& server, Time now);
  void update(Time now);
  // Leaves with kRequested; the server sees the reason.
  void disconnect(Time now);

  std::optional<ClientEvent> poll_event();
  ClientState state() const { return state_; }
  std::optional<std::uint32_t> client_id() const { return client_id_; }
  std::uint32_t tick_rate() const { return tick_rate_; }
  std::uint32_t send_rate() const { return send_rate_; }
  // The newest server tick heard, and the server tick estimated for `now`
  // from it (the time system refines this).
  std::optional<Tick> last_server_tick() const { return last_server_tick_; }
  std::optional<Tick> estimated_server_tick(Time now) const;
  std::optional<transport::DisconnectReason> disconnect_reason() const { return disconnect_reason_; }
  const ClientStats& stats() const { return stats_; }

 private:
  void handle_event(transport::TransportEvent& event, Time now);
  void handle_welcome(std::span<const std::uint8_t> bytes, Time now);
  void handle_unreliable(std::span<const std::uint8_t> bytes, Time now);
  void send_hello(Time now);
  void send_keep_alive(Time now);
  void finish(transport::DisconnectReason reason, bool denied);
  void fail(transport::DisconnectReason reason, Time now);

  std::unique_ptr<transport::Transport> transport_;
  ClientConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  ClientState state_ = ClientState::kIdle;
  PeerId server_;
  Time connect_started_;
  Time last_heard_;
  Time last_sent_;
  std::optional<std::uint32_t> client_id_;
  std::uint32_t tick_rate_ = 0;
  std::uint32_t send_rate_ = 0;
  std::optional<Tick> last_server_tick_;
  Time last_server_tick_at_;
  PacketChannel channel_;
  bool has_rtt_ = false;
  std::optional<transport::DisconnectReason> disconnect_reason_;
  std::deque<ClientEvent> events_;
  ClientStats stats_;
};

}  // namespace tickwire::client
