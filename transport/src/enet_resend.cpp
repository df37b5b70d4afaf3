#include "enet_resend.h"

#include <enet/enet.h>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace tickwire::transport {
namespace {

// ENet's clock wraps; its own comparison, without its private header.
bool earlier(enet_uint32 a, enet_uint32 b) { return static_cast<std::int32_t>(a - b) < 0; }

// Caps the waits of the commands in `commands`; returns the earliest time
// one of them is due for a resend, if any was sent.
std::optional<enet_uint32> cap_waits(ENetList* commands, std::uint32_t cap) {
  std::optional<enet_uint32> due;
  for (ENetListIterator it = enet_list_begin(commands); it != enet_list_end(commands); it = enet_list_next(it)) {
    auto* command = reinterpret_cast<ENetOutgoingCommand*>(it);
    // 0: not sent yet; ENet sets the first wait when it sends.
    if (command->roundTripTimeout == 0) continue;
    if (command->roundTripTimeout > cap) command->roundTripTimeout = cap;
    const enet_uint32 at = command->sentTime + command->roundTripTimeout;
    if (!due || earlier(at, *due)) due = at;
  }
  return due;
}

}  // namespace

std::uint32_t resend_wait_cap(std::uint32_t round_trip_ms, std::uint32_t deviation_ms) {
  const std::uint64_t first_wait = std::uint64_t{round_trip_ms} + 4 * std::uint64_t{deviation_ms};
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(2 * first_wait, kResendWaitFloorMs, 0xFFFF'FFFFU));
}

void steady_resends(ENetHost* host, std::uint32_t timeout_ms) {
  for (ENetPeer* peer = host->peers; peer < host->peers + host->peerCount; ++peer) {
    if (peer->state == ENET_PEER_STATE_DISCONNECTED) continue;
    if (peer->timeoutMaximum != timeout_ms) enet_peer_timeout(peer, ENET_PEER_TIMEOUT_LIMIT, timeout_ms, timeout_ms);
    const std::uint32_t cap = resend_wait_cap(peer->roundTripTime, peer->roundTripTimeVariance);
    // Commands waiting for their acknowledgement, and those that timed out
    // and wait to go again (ENet put them back with a doubled wait).
    // ENet looks for timed-out commands only once the clock passes
    // nextTimeout, which it set from the first command's wait as sent.
    if (const auto due = cap_waits(&peer->sentReliableCommands, cap); due && earlier(*due, peer->nextTimeout)) {
      peer->nextTimeout = *due;
    }
    cap_waits(&peer->outgoingCommands, cap);
  }
}

}  // namespace tickwire::transport
