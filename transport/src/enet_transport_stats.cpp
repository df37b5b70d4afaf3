// EnetTransport's figures: per peer, address validation's, and what
// crossed the socket.

#include <enet/enet.h>

#include "enet_transport_impl.h"

namespace tickwire::transport {

void EnetTransport::Impl::fold_wire_counters() {
  // ENet counts at the socket: every datagram its service and flush calls
  // sent (enet_socket_send's length, so ENet's headers, acknowledgements and
  // pings are in it) and every datagram read, before the intercept hook sees
  // it. Its counters are 32 bits wide and ENet leaves resetting them to the
  // user; folding after each servicing keeps four gigabytes from passing
  // between two folds.
  wire.datagrams_sent += host->totalSentPackets;
  wire.bytes_sent += host->totalSentData;
  wire.datagrams_received += host->totalReceivedPackets;
  wire.bytes_received += host->totalReceivedData;
  host->totalSentPackets = 0;
  host->totalSentData = 0;
  host->totalReceivedPackets = 0;
  host->totalReceivedData = 0;
}

std::optional<PeerStats> EnetTransport::stats(PeerId peer) const {
  const Impl::PeerRecord* record = impl_->find_open(peer);
  if (record == nullptr) return std::nullopt;
  PeerStats out = record->counters;
  const ENetPeer* enet_peer = record->peer;
  out.rtt = Duration::millis(enet_peer->roundTripTime);
  out.rtt_variance = Duration::millis(enet_peer->roundTripTimeVariance);
  out.packet_loss = static_cast<double>(enet_peer->packetLoss) / static_cast<double>(ENET_PEER_PACKET_LOSS_SCALE);
  return out;
}

ValidationStats EnetTransport::validation_stats() const {
  ValidationStats stats = impl_->validator ? impl_->validator->stats() : ValidationStats{};
  stats.hostile_datagrams = impl_->hostile_datagrams;
  return stats;
}

std::optional<WireStats> EnetTransport::wire_stats() const {
  impl_->fold_wire_counters();  // what the last flush sent, too
  return impl_->wire;
}

}  // namespace tickwire::transport
