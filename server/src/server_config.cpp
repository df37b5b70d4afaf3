#include "tickwire/server/server_config.h"

#include <stdexcept>
#include <string>

#include "tickwire/core/network_time.h"

namespace tickwire::server {

void ServerConfig::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("server config: " + what); };
  if (tick_rate == 0 || tick_rate > NetworkTime::kMaxTickRate) {
    fail("tick_rate must be in 1.." + std::to_string(NetworkTime::kMaxTickRate) + ", got " + std::to_string(tick_rate));
  }
  if (send_rate == 0 || send_rate > tick_rate || tick_rate % send_rate != 0) {
    fail("send_rate must divide tick_rate (" + std::to_string(tick_rate) + "), got " + std::to_string(send_rate));
  }
  if (max_clients == 0 || max_clients > 4000)
    fail("max_clients must be in 1..4000, got " + std::to_string(max_clients));
  if (handshake_timeout <= Duration::zero()) fail("handshake_timeout must be positive");
  if (client_timeout <= Duration::zero()) fail("client_timeout must be positive");
  if (max_catch_up_ticks < 1) fail("max_catch_up_ticks must be at least 1");
  if (max_bad_packets < 1) fail("max_bad_packets must be at least 1");
  if (bad_packet_window <= Duration::zero()) fail("bad_packet_window must be positive");
  // A snapshot packet is the payload plus the packet header and the time
  // block (under 60 bytes together) inside one 1200-byte datagram.
  if (max_snapshot_bytes < 64 || max_snapshot_bytes > 1140) {
    fail("max_snapshot_bytes must be in 64..1140, got " + std::to_string(max_snapshot_bytes));
  }
  if (workers == 0 || workers > 64) fail("workers must be in 1..64, got " + std::to_string(workers));
  if (snapshot_models_in_flight > 4096) {
    fail("snapshot_models_in_flight must be in 0..4096, got " + std::to_string(snapshot_models_in_flight));
  }
  if (snapshot_views_in_flight == 1 || snapshot_views_in_flight > 4096) {
    fail("snapshot_views_in_flight must be 0 or in 2..4096, got " + std::to_string(snapshot_views_in_flight));
  }
  if (snapshot_history_ticks == 0 || snapshot_history_ticks > 4096) {
    fail("snapshot_history_ticks must be in 1..4096, got " + std::to_string(snapshot_history_ticks));
  }
  if (max_input_ticks_ahead == 0 || max_input_ticks_ahead > 1024) {
    fail("max_input_ticks_ahead must be in 1..1024, got " + std::to_string(max_input_ticks_ahead));
  }
  // Below one packet per tick the budget would cut off every honest client.
  if (input_packet_budget() < tick_rate || input_packet_budget() > 1'000'000) {
    fail("max_input_packets_per_second must be in " + std::to_string(tick_rate) +
         "..1000000 (at least the tick rate), got " + std::to_string(input_packet_budget()));
  }
  const auto in_second = [](Duration d) { return d >= Duration::zero() && d <= Duration::seconds(1); };
  if (!in_second(max_rewind))
    fail("max_rewind must be in 0..1000 ms, got " + std::to_string(max_rewind.micros() / 1000));
  if (!in_second(view_tolerance)) fail("view_tolerance must be in 0..1000 ms");
  if (!in_second(assumed_interpolation_delay)) fail("assumed_interpolation_delay must be in 0..1000 ms");
  if (max_rejected_inputs < 1) fail("max_rejected_inputs must be at least 1");
}

}  // namespace tickwire::server
