#pragma once
// Checks of ENet datagrams for what ENet 1.3.17 itself lets through. Run by
// the intercept hook on every datagram from a connected peer, before ENet
// parses it. ENet's types stay in enet_guard.cpp.
//
// ENet completes a reassembly once every fragment number has arrived,
// whatever bytes those fragments covered, in a buffer it does not clear:
// two fragments claiming the same offset, or a fragment of length zero,
// deliver a message holding stale heap bytes (another client's data,
// pointers). It also sizes a reassembly's bookkeeping by the claimed
// fragment count (up to 1M) without counting it against the peer's
// waiting-data limit. An honest ENet sender cuts a message into fragments
// of one length fixed by the connection's MTU, so anything else is hostile.

#include <cstdint>
#include <span>

namespace tickwire::transport {

// The payload bytes an honest sender puts in each fragment but the last:
// the MTU less ENet's protocol header and fragment command.
std::uint32_t enet_fragment_length(std::uint32_t mtu);

// False when the datagram carries a fragment command an honest ENet peer
// with this MTU would never send. Commands past a malformed one are left to
// ENet, which drops the rest of such a datagram itself.
bool fragments_are_honest(std::span<const std::uint8_t> datagram, std::uint32_t peer_mtu);

}  // namespace tickwire::transport
