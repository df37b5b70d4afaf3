// The limits on what peers may do: bad packets, a packet budget per second
// and a cap on refused inputs for joined clients, and timeouts for the
// silent. A peer over a limit is disconnected with a stated reason, and
// every warning about it goes through a rate limiter so that hostile peers
// cannot flood the log.

#include <algorithm>
#include <utility>

#include "slot.h"
#include "tickwire/core/logging.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/server/server.h"

namespace tickwire::server {

using transport::DisconnectReason;

namespace {

constexpr Duration kBudgetWindow = Duration::seconds(1);

// Logs at most what `limit` lets through, and says how many warnings it
// held back since the last one it let through.
template <class... Args>
void warn_limited(spdlog::logger& log, RateLimiter& limit, Time now, spdlog::format_string_t<Args...> format,
                  Args&&... args) {
  if (!limit.allow(now)) return;
  log.warn(format, std::forward<Args>(args)...);
  if (const std::uint64_t held = limit.take_suppressed(); held > 0) {
    log.warn("({} similar warnings about peers over their limits were suppressed)", held);
  }
}

}  // namespace

void Server::bad_packet(Slot& slot, const Error& error, Time now) {
  const auto index = static_cast<std::size_t>(error.code);
  if (index < stats_.bad_packets_by_reason.size()) ++stats_.bad_packets_by_reason[index];
  ++slot.stats.bad_packets;
  if (bad_packet_log_limit_.allow(now)) {
    log_->warn("bad packet from {} ({}): {} {}", slot.address, slot.id, to_string(error.code),
               json_escape(error.detail));
  }
  if (now - slot.bad_window_start > config_.bad_packet_window) {
    slot.bad_window_start = now;
    slot.bad_in_window = 0;
  }
  if (++slot.bad_in_window > config_.max_bad_packets) {
    warn_limited(*log_, disconnect_log_limit_, now, "disconnecting {} ({}): too many bad packets", slot.address,
                 slot.id);
    drop(slot.peer, DisconnectReason::kProtocolError, now);
  }
}

void Server::check_timeouts(Time now) {
  // Timeouts are seconds long, and the loop wakes for every burst of
  // traffic: reading every client's slot at each wake cost a server of
  // hundreds of clients more than the timeouts need. A check every few
  // milliseconds drops a silent client as surely.
  constexpr Duration kCheckInterval = Duration::millis(5);
  if (timeouts_checked_ && now - *timeouts_checked_ < kCheckInterval && now >= *timeouts_checked_) return;
  timeouts_checked_ = now;
  std::vector<std::pair<PeerId, DisconnectReason>> expired;
  for (const auto& [peer, slot] : slots_) {
    if (!slot->welcomed()) {
      if (now - slot->connected_at > config_.handshake_timeout) {
        expired.emplace_back(peer, DisconnectReason::kHandshakeTimeout);
      }
      continue;
    }
    const Duration allowed = slot->heard_since_welcome ? config_.client_timeout : config_.handshake_timeout;
    if (now - slot->last_heard > allowed) expired.emplace_back(peer, DisconnectReason::kTimeout);
  }
  for (const auto& [peer, reason] : expired) drop(peer, reason, now);
}

bool Server::within_packet_budget(Slot& slot, Time now) {
  if (slot.packets_in_second == 0 || now - slot.second_start >= kBudgetWindow) {
    slot.second_start = now;
    slot.packets_in_second = 0;
  }
  const std::uint32_t budget = config_.input_packet_budget();
  if (++slot.packets_in_second <= budget) return true;
  ++slot.stats.rate_limited_packets;
  ++stats_.rate_limited_packets;
  // Twice the budget within one second is no burst after a hitch: only a
  // flood gets there, and decoding it would cost more than refusing it.
  if (slot.packets_in_second > 2 * budget) {
    warn_limited(*log_, disconnect_log_limit_, now, "disconnecting {} ({}): flooding, over {} packets within a second",
                 slot.address, slot.id, 2 * budget);
    drop(slot.peer, DisconnectReason::kFlooding, now);
    return false;
  }
  if (slot.packets_in_second == budget + 1) {
    warn_limited(*log_, abuse_log_limit_, now, "client {} ({}) is over its budget of {} packets a second; dropping",
                 slot.id, slot.address, budget);
  }
  return false;
}

bool Server::charge_rejected_inputs(Slot& slot, Time now) {
  const prediction::InputQueueStats& q = slot.queue->stats();
  const std::uint64_t rejected = q.invalid + q.too_far_ahead;
  const std::uint64_t fresh = rejected - slot.rejected_charged;
  slot.rejected_charged = rejected;
  if (fresh == 0) return true;
  if (slot.rejected_in_window == 0 || now - slot.rejected_window_start > config_.bad_packet_window) {
    slot.rejected_window_start = now;
    slot.rejected_in_window = 0;
  }
  // One packet holds at most kMaxInputsPerPacket inputs, so this fits.
  slot.rejected_in_window += static_cast<int>(std::min<std::uint64_t>(fresh, prediction::kMaxInputsPerPacket));
  if (slot.rejected_in_window > config_.max_rejected_inputs) {
    warn_limited(*log_, disconnect_log_limit_, now,
                 "disconnecting {} ({}): {} inputs refused within {} s (ticks too far ahead or invalid values)",
                 slot.address, slot.id, slot.rejected_in_window, config_.bad_packet_window.seconds_f());
    drop(slot.peer, DisconnectReason::kProtocolError, now);
    return false;
  }
  warn_limited(*log_, abuse_log_limit_, now, "refused {} inputs from client {} ({}): too far ahead or invalid", fresh,
               slot.id, slot.address);
  return true;
}

}  // namespace tickwire::server
