// Unreliable payloads as datagrams of their own beside ENet's, on ENet's
// socket and connection (docs/wire-format.md, "Session datagrams").
//
// ENet wraps every unreliable payload in its 2-byte protocol header and an
// 8-byte send command. At 60 inputs a second that is 4.8 kbit/s of a
// client's upstream spent on framing that buys nothing here: Tickwire's own
// packet header already numbers, acknowledges and times every unreliable
// packet. A session datagram keeps ENet's first two bytes (peer id and
// session, which is how ENet itself tells its peers apart) with a flag ENet
// never sends (compression is never enabled), and the payload follows.
// It is accepted on exactly ENet's terms: a connected peer's slot, from that
// peer's address and port, in its current session.

#include <enet/enet.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "enet_transport_impl.h"

namespace tickwire::transport {

using namespace enet_detail;

namespace {

// ENet's "compressed" flag without its "sent time" flag. Challenge datagrams
// (0xC7 first) have both, so the two never meet.
constexpr std::uint16_t kSessionFlag = ENET_PROTOCOL_HEADER_FLAG_COMPRESSED;
constexpr std::uint16_t kFlagMask = ENET_PROTOCOL_HEADER_FLAG_MASK;

}  // namespace

bool enet_detail::is_session_datagram(std::span<const std::uint8_t> datagram) {
  if (datagram.size() < kSessionHeaderBytes) return false;
  const auto header = static_cast<std::uint16_t>((datagram[0] << 8) | datagram[1]);
  return (header & kFlagMask) == kSessionFlag;
}

void EnetTransport::Impl::queue_session_datagram(PeerId id, std::span<const std::uint8_t> bytes) {
  if (session_queued == session_out.size()) session_out.emplace_back();
  SessionOut& out = session_out[session_queued++];
  out.peer = id;
  out.bytes.assign(bytes.begin(), bytes.end());
}

// Sent after ENet's own sends, so a reliable message queued before an
// unreliable one (a Welcome before the first snapshot) leaves first, as it
// did when both went through ENet's queue. A server sends one to every
// client each snapshot, so they leave in batches of one sendmmsg each: the
// kernel's per-call cost is paid once per batch, not once per client.
void EnetTransport::Impl::send_session_datagrams() {
  constexpr std::size_t kBatch = 64;
  SessionBatch& b = session_batch;
  if (b.messages.size() < kBatch) {
    b.messages.resize(kBatch);
    b.pieces.resize(2 * kBatch);
    b.to.resize(kBatch);
    b.heads.resize(kSessionHeaderBytes * kBatch);
    b.sealed.resize(kBatch);
  }
  std::size_t next = 0;
  while (next < session_queued) {
    std::size_t n = 0;
    for (; next < session_queued && n < kBatch; ++next) {
      const SessionOut& out = session_out[next];
      const PeerRecord* record = find_open(out.peer);
      if (record == nullptr || record->peer->state != ENET_PEER_STATE_CONNECTED) continue;
      const ENetPeer* peer = record->peer;
      iovec* piece = &b.pieces[2 * n];
      std::size_t pieces = 0;
      if (sealing()) {
        pieces = seal_for(*record, out.bytes, b.sealed[n], piece);
        if (pieces == 0) continue;
      } else {
        const auto header = static_cast<std::uint16_t>(kSessionFlag | (peer->outgoingSessionID << 12) |
                                                       (peer->outgoingPeerID & 0x0FFFU));
        std::uint8_t* head = &b.heads[kSessionHeaderBytes * n];
        head[0] = static_cast<std::uint8_t>(header >> 8);
        head[1] = static_cast<std::uint8_t>(header & 0xFFU);
        piece[0] = iovec{head, kSessionHeaderBytes};
        piece[1] = iovec{const_cast<std::uint8_t*>(out.bytes.data()), out.bytes.size()};  // NOLINT
        pieces = 2;
      }
      sockaddr_in& to = b.to[n];
      to = sockaddr_in{};
      to.sin_family = AF_INET;
      to.sin_port = ENET_HOST_TO_NET_16(peer->address.port);
      to.sin_addr.s_addr = peer->address.host;  // ENet keeps it in network order
      mmsghdr& m = b.messages[n];
      m = mmsghdr{};
      m.msg_hdr.msg_name = &to;
      m.msg_hdr.msg_namelen = sizeof(to);
      m.msg_hdr.msg_iov = piece;
      m.msg_hdr.msg_iovlen = pieces;
      ++n;
    }
    send_batch(n);
  }
  session_queued = 0;
}

// A session payload sealed for its peer into `storage` (kept between
// flushes), as the one piece of its message; 0 when the peer has no session.
std::size_t EnetTransport::Impl::seal_for(const PeerRecord& record, std::span<const std::uint8_t> payload,
                                          std::vector<std::uint8_t>& storage, iovec* piece) {
  const auto it = sessions.find(record.connection_id);
  if (it == sessions.end()) return 0;
  storage.resize(payload.size() + kSealOverheadBytes);
  const std::size_t size = it->second.channel.seal(SealedKind::kSession, payload, storage);
  piece[0] = iovec{storage.data(), size};
  return 1;
}

// sendmmsg stops at the first datagram the kernel refuses (a full buffer,
// an unreachable port); that one is dropped, as a lone sendmsg would drop
// it, and the rest still go.
void EnetTransport::Impl::send_batch(std::size_t n) {
  SessionBatch& b = session_batch;
  std::size_t first = 0;
  while (first < n) {
    const int sent =
        sendmmsg(host->socket, &b.messages[first], static_cast<unsigned>(n - first), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0 && errno == EINTR) continue;
    const std::size_t ok = sent > 0 ? static_cast<std::size_t>(sent) : 0;
    for (std::size_t k = first; k < first + ok; ++k) {
      wire.datagrams_sent += 1;
      wire.bytes_sent += b.messages[k].msg_len;
    }
    first += ok + 1;  // past the refused one, if any
  }
}

int EnetTransport::Impl::on_session_datagram(std::span<const std::uint8_t> datagram, Endpoint from) {
  const auto header = static_cast<std::uint16_t>((datagram[0] << 8) | datagram[1]);
  const std::size_t slot = header & 0x0FFFU;
  const auto session = static_cast<std::uint8_t>((header >> 12) & 0x3U);
  ++session_stats.received;
  if (slot >= host->peerCount) {
    ++session_stats.dropped;
    return 1;
  }
  ENetPeer* peer = &host->peers[slot];
  // ENet's own test for a datagram naming a peer: the peer's address, its
  // session, and a connection that is up.
  if (peer->state != ENET_PEER_STATE_CONNECTED || !(endpoint_of(peer->address) == from) ||
      session != peer->incomingSessionID) {
    ++session_stats.dropped;
    return 1;
  }
  const PeerId id = data_to_id(peer->data);
  PeerRecord* record = find_open(id);
  if (record == nullptr || !record->connected) {
    ++session_stats.dropped;
    return 1;
  }
  deliver_session_payload(id, datagram.subspan(kSessionHeaderBytes));
  return 1;
}

// A session payload from a peer whose address, session and (when sealed)
// keys all checked out.
void EnetTransport::Impl::deliver_session_payload(PeerId id, std::span<const std::uint8_t> payload) {
  PeerRecord* record = find_open(id);
  if (record == nullptr || !record->connected) {
    ++session_stats.dropped;
    return;
  }
  // The peer is talking: ENet needs no ping to know it is there (it pings
  // a peer it has heard nothing from for the ping interval).
  record->peer->lastReceiveTime = host->serviceTime;
  if (payload.size() > config.limits.max_unreliable_payload) {
    ++session_stats.dropped;
    hostile.push_back(id);  // over the limit: not one of ours, as on ENet's path
    return;
  }
  TransportEvent event = make_event(TransportEvent::Type::kReceived, id);
  event.delivery = Delivery::kUnreliable;
  event.data = copy_of(payload);
  record->counters.bytes_received += event.data.size();
  record->counters.packets_received += 1;
  queued.push_back(std::move(event));
}

// ENet measures round trips only from acknowledged reliable commands, and a
// peer that keeps talking in session datagrams is never pinged; one ping per
// probe interval keeps the round trip (and the detection of a peer that
// stopped answering) alive at a cost of two small datagrams a second.
void EnetTransport::Impl::probe_round_trips() {
  const enet_uint32 interval = to_enet_millis(config.rtt_probe_interval);
  for (auto& [id, record] : peers) {
    if (record.closing || !record.connected || record.peer->state != ENET_PEER_STATE_CONNECTED) continue;
    if (!record.probed || host->serviceTime - record.last_probe >= interval) {  // wraps like ENet's clock
      record.probed = true;
      record.last_probe = host->serviceTime;
      enet_peer_ping(record.peer);
    }
  }
}

}  // namespace tickwire::transport
