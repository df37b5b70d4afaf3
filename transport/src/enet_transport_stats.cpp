// EnetTransport's figures: per peer, address validation's, and what
// crossed the socket.

#include <enet/enet.h>

#include <cstdio>
#include <cstdlib>

#include "enet_transport_impl.h"

namespace tickwire::transport {

void EnetTransport::Impl::fold_wire_counters() {
  // ENet counts at the socket: every datagram its service and flush calls
  // sent (enet_socket_send's length, so ENet's headers, acknowledgements and
  // pings are in it) and every datagram read, before the intercept hook sees
  // it. Its counters are 32 bits wide and ENet leaves resetting them to the
  // user; folding after each servicing keeps four gigabytes from passing
  // between two folds.
  // Every datagram ENet wrote must have passed the seal; one that did not
  // would have gone out in clear, which must never go unnoticed.
  if (sealing() && host->totalSentPackets > enet_sends_sealed) {
    std::fputs("tickwire: an ENet datagram left without its seal; stopping rather than sending in clear\n", stderr);
    std::abort();
  }
  enet_sends_sealed = 0;
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
  const Impl::SealDrops& drops = impl_->seal_drops;
  stats.unsealed_dropped = drops.unsealed;
  stats.unknown_connection = drops.unknown_connection;
  stats.wrong_source = drops.wrong_source;
  stats.failed_to_verify = drops.failed_to_verify;
  stats.replayed = drops.replayed;
  stats.foreign_slot = drops.foreign_slot;
  return stats;
}

std::optional<WireStats> EnetTransport::wire_stats() const {
  impl_->fold_wire_counters();  // what the last flush sent, too
  return impl_->wire;
}

}  // namespace tickwire::transport
