#pragma once
// Steady resends for ENet 1.3.17. ENet doubles the wait before each resend
// of an unacknowledged reliable command, without bound. Over a slow, lossy
// link (round trips of 2 s, a quarter of the datagrams lost each way) a
// handshake message lost four times in a row then waits half a minute for
// its next try, and a connect runs into its timeout while the link was up
// all along. A game's handshake wants tries at a steady pace (netcode.io
// sends its connect packets at a fixed rate), and it is the timeout, not
// the spacing of the tries, that should decide when to give up.

#include <cstdint>

typedef struct _ENetHost ENetHost;  // NOLINT(modernize-use-using): ENet's own spelling

namespace tickwire::transport {

// The longest wait before a resend that the sweep leaves alone: twice the
// peer's own first wait (its round trip plus four deviations), and never
// under this floor, so a resend never goes before an answer could come.
inline constexpr std::uint32_t kResendWaitFloorMs = 500;

std::uint32_t resend_wait_cap(std::uint32_t round_trip_ms, std::uint32_t deviation_ms);

// For every peer of `host`: holds each unacknowledged reliable command's
// wait before its next resend at resend_wait_cap(), and gives peers ENet
// created on its own (incoming connects not yet reported) the timeout
// `timeout_ms`, as adopted peers have; ENet's defaults would keep a
// half-open connect for up to 30 s. Cheap: a few loads per peer.
void steady_resends(ENetHost* host, std::uint32_t timeout_ms);

}  // namespace tickwire::transport
