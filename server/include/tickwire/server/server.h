#pragma once
// The server runtime: accepts clients through the handshake, runs a fixed
// tick loop and talks to every client on the unreliable channel. The caller
// owns the loop: call update(now) whenever time has passed or traffic may
// have arrived; next_tick_time() says when the next tick is due.

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/core/logging.h"
#include "tickwire/core/network_time.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/server/server_config.h"
#include "tickwire/transport/transport.h"

namespace tickwire::server {

using ClientId = std::uint32_t;

struct ServerEvent {
  enum class Type : std::uint8_t { kClientConnected, kClientDenied, kClientDisconnected };
  Type type = Type::kClientConnected;
  ClientId client = 0;  // 0 for a denied peer that never became a client
  std::string name;
  std::string address;
  transport::DisconnectReason reason = transport::DisconnectReason::kUnknown;
};

struct ClientStats {
  ClientId id = 0;
  std::string name;
  std::string address;
  Duration rtt;  // smoothed, from echoed timestamps
  std::uint64_t packets_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t bad_packets = 0;
  std::uint64_t duplicate_packets = 0;
};

struct ServerStats {
  Tick tick;
  std::size_t clients = 0;
  std::uint64_t ticks_run = 0;
  std::uint64_t ticks_skipped = 0;  // due ticks dropped after a stall
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t packets_in = 0;
  std::uint64_t packets_out = 0;
  std::uint64_t connects = 0;
  std::uint64_t denials = 0;
  std::uint64_t disconnects = 0;
  // Dropped packets by reason, indexed by ErrorCode.
  std::array<std::uint64_t, 16> bad_packets_by_reason{};
  std::uint64_t bad_packets() const;
};

class Server {
 public:
  // Throws std::invalid_argument when the config is invalid.
  Server(std::unique_ptr<transport::Transport> transport, ServerConfig config, Time now);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Drains the transport, runs every tick that is due (up to the catch-up
  // limit) and sends what those ticks produced.
  void update(Time now);
  Time next_tick_time() const;

  // Disconnects every client with kServerShuttingDown and flushes. The
  // server accepts nobody afterwards.
  void shutdown(Time now);
  void disconnect(ClientId client, transport::DisconnectReason reason, Time now);

  std::optional<ServerEvent> poll_event();
  Tick tick() const { return tick_; }
  const ServerConfig& config() const { return config_; }
  ServerStats stats() const;
  std::vector<ClientStats> client_stats() const;
  std::optional<transport::Address> local_address() const { return transport_->local_address(); }

 private:
  struct Slot;

  void handle_event(transport::TransportEvent& event, Time now);
  void handle_reliable(Slot& slot, const std::vector<std::uint8_t>& bytes, Time now);
  void handle_unreliable(Slot& slot, const std::vector<std::uint8_t>& bytes, Time now);
  void handle_hello(Slot& slot, std::span<const std::uint8_t> bytes, Time now);
  void run_tick(Time now);
  void send_keep_alive(Slot& slot, Time now);
  void bad_packet(Slot& slot, const Error& error, Time now);
  void drop(PeerId peer, transport::DisconnectReason reason, Time now);
  void deny(Slot& slot, transport::DisconnectReason reason, const std::string& detail, Time now);
  void check_timeouts(Time now);
  std::size_t connected_clients() const;

  std::unique_ptr<transport::Transport> transport_;
  ServerConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  Time start_;
  Tick tick_;
  NetworkTime next_tick_;       // server time of the next tick to run
  std::uint32_t send_divisor_;  // ticks between sends to one client
  bool shutting_down_ = false;
  ClientId next_client_id_ = 1;
  std::map<PeerId, std::unique_ptr<Slot>> slots_;
  std::deque<ServerEvent> events_;
  ServerStats stats_;
  RateLimiter bad_packet_log_limit_{10, Duration::seconds(10)};
};

}  // namespace tickwire::server
