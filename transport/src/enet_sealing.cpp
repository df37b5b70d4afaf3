// Sealed sessions on the ENet transport (docs/security.md): every datagram
// of a session, ENet's own and the session datagrams beside them, leaves
// sealed with the session's keys and is opened before anything else reads
// it.
//
// ENet writes its datagrams through enet_socket_send, its platform layer's
// one way out. Tickwire provides that function: a datagram from a
// transport's host to an address with a session leaves sealed; anything
// else (another ENet host in the process, a transport without address
// validation) leaves exactly as ENet's own unix.c would send it. On the way
// in, ENet's intercept hook opens the sealed datagram and points ENet at
// the plaintext. EnetTransport::create checks that ENet's sends do come
// here, so a build where they would not fails instead of sending in clear.

#include <enet/enet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "enet_transport_impl.h"

namespace tickwire::transport {

using namespace enet_detail;

namespace {

thread_local EnetTransport::Impl* g_active = nullptr;

}  // namespace

// As ENet's unix.c sends.
int enet_detail::send_plain(int socket, const ENetAddress* address, const void* buffers, std::size_t count) {
  msghdr message{};
  sockaddr_in to{};
  if (address != nullptr) {
    to.sin_family = AF_INET;
    to.sin_port = ENET_HOST_TO_NET_16(address->port);
    to.sin_addr.s_addr = address->host;
    message.msg_name = &to;
    message.msg_namelen = sizeof(to);
  }
  // ENetBuffer is laid out as an iovec on every Unix ENet supports.
  static_assert(sizeof(ENetBuffer) == sizeof(iovec));
  message.msg_iov = const_cast<iovec*>(static_cast<const iovec*>(buffers));  // NOLINT: sendmsg's iovec is not const
  message.msg_iovlen = count;
  const ssize_t sent = sendmsg(socket, &message, MSG_NOSIGNAL);
  if (sent < 0) return errno == EWOULDBLOCK ? 0 : -1;
  return static_cast<int>(sent);
}

ActiveTransport::ActiveTransport(EnetTransport::Impl& impl) : outer_(g_active) { g_active = &impl; }
ActiveTransport::~ActiveTransport() { g_active = outer_; }
EnetTransport::Impl* ActiveTransport::current() { return g_active; }

void EnetTransport::Impl::open_session(const SessionParams& params, Endpoint endpoint, PeerId peer) {
  sessions.erase(params.connection_id);
  sessions.emplace(params.connection_id, Session{SealedChannel(params), endpoint, peer});
  session_at[endpoint.key()] = params.connection_id;
}

void EnetTransport::Impl::close_session(std::uint32_t connection_id) {
  const auto it = sessions.find(connection_id);
  if (it == sessions.end()) return;
  const auto at = session_at.find(it->second.endpoint.key());
  if (at != session_at.end() && at->second == connection_id) session_at.erase(at);
  sessions.erase(it);
}

// A server's sessions whose connect never came: their admission ran out
// (or a newer handshake from the same address replaced it).
void EnetTransport::Impl::drop_stale_sessions() {
  std::vector<std::uint32_t> stale;
  for (const auto& [id, session] : sessions) {
    if (session.peer != PeerId()) continue;
    const SessionParams* admitted = validator->session_of(session.endpoint);
    if (admitted == nullptr || admitted->connection_id != id) stale.push_back(id);
  }
  for (const std::uint32_t id : stale) close_session(id);
}

EnetTransport::Impl::Session* EnetTransport::Impl::session_to(Endpoint endpoint) {
  const auto at = session_at.find(endpoint.key());
  if (at == session_at.end()) return nullptr;
  const auto it = sessions.find(at->second);
  return it == sessions.end() ? nullptr : &it->second;
}

int EnetTransport::Impl::send_enet_sealed(Endpoint to, std::span<const std::uint8_t> datagram) {
  ++enet_sends_sealed;  // counted whether sealed or dropped: it did not leave in clear
  Session* session = session_to(to);
  if (session == nullptr) {
    // A peer whose session is gone (a reset, a timed-out close): what ENet
    // still says to it is dropped, reported as sent so ENet carries on.
    ++seal_drops.unsent;
    return static_cast<int>(datagram.size());
  }
  sealed.resize(datagram.size() + kSealOverheadBytes);
  const std::size_t size = session->channel.seal(SealedKind::kEnet, datagram, sealed);
  ENetBuffer buffer;
  buffer.data = sealed.data();
  buffer.dataLength = size;
  ENetAddress address{};
  address.host = to.host;
  address.port = to.port;
  return send_plain(host->socket, &address, &buffer, 1);
}

void EnetTransport::Impl::flush_enet() {
  const ActiveTransport scope(*this);
  enet_host_flush(host);
}

// Every sealed datagram: find its session, check its source, open it. A
// datagram that fails any step is counted and dropped; no peer's state,
// window or counters move.
int EnetTransport::Impl::on_sealed_datagram(std::span<const std::uint8_t> datagram, Endpoint from) {
  const auto id = sealed_connection_id(datagram);
  if (!id) {
    ++seal_drops.failed_to_verify;
    return 1;
  }
  auto it = sessions.find(*id);
  if (it == sessions.end() && validator) {
    // The first datagram of a session this server admitted: its keys are
    // with the admission until ENet's connect completes.
    const SessionParams* admitted = validator->session_of(from);
    if (admitted != nullptr && admitted->connection_id == *id) {
      open_session(*admitted, from, PeerId());
      it = sessions.find(*id);
    }
  }
  if (it == sessions.end()) {
    ++seal_drops.unknown_connection;
    return 1;
  }
  Session& session = it->second;
  if (!(session.endpoint == from)) {
    ++seal_drops.wrong_source;
    return 1;
  }
  opened.resize(datagram.size());
  const Opened result = session.channel.open(datagram, opened);
  if (result.status == OpenStatus::kReplayed || result.status == OpenStatus::kTooOld) {
    ++seal_drops.replayed;
    return 1;
  }
  if (result.status != OpenStatus::kOk) {
    ++seal_drops.failed_to_verify;
    return 1;
  }
  opened.resize(result.size);
  if (result.kind == SealedKind::kSession) {
    ++session_stats.received;
    if (session.peer == PeerId()) {
      ++session_stats.dropped;  // ahead of ENet's connect: nobody to give it to yet
      return 1;
    }
    deliver_session_payload(session.peer, opened);
    return 1;
  }
  return accept_opened_enet(session, from);
}

// An opened ENet datagram goes to ENet's parser, from the buffer that now
// holds it, after the checks every ENet datagram passes.
int EnetTransport::Impl::accept_opened_enet(Session& session, Endpoint from) {
  const std::span<const std::uint8_t> plain(opened);
  if (session.peer != PeerId()) {
    // A session speaks for its own peer slot only.
    const PeerRecord* record = find_open(session.peer);
    const std::size_t slot = peer_slot_of(plain);
    if (record != nullptr && slot != record->peer->incomingPeerID && slot != ENET_PROTOCOL_MAXIMUM_PEER_ID) {
      ++seal_drops.foreign_slot;
      return 1;
    }
  }
  if (addressed_to_no_peer(plain) && !may_reach_connect_path(from, monotonic_now())) {
    validator->count_dropped_connect(plain.size());
    return 1;
  }
  if (guard_fragments(plain, from) != 0) return 1;
  host->receivedData = opened.data();
  host->receivedDataLength = opened.size();
  return 0;
}

}  // namespace tickwire::transport

// ENet's platform function, provided here (see the top of this file).
int enet_socket_send(ENetSocket socket, const ENetAddress* address, const ENetBuffer* buffers, size_t count) {
  using tickwire::transport::ActiveTransport;
  auto* impl = ActiveTransport::current();
  if (impl == nullptr || !impl->sealing() || impl->host == nullptr || socket != impl->host->socket ||
      address == nullptr) {
    return tickwire::transport::enet_detail::send_plain(socket, address, buffers, count);
  }
  std::vector<std::uint8_t>& gathered = impl->gathered;
  gathered.clear();
  for (std::size_t i = 0; i < count; ++i) {
    const auto* data = static_cast<const std::uint8_t*>(buffers[i].data);
    gathered.insert(gathered.end(), data, data + buffers[i].dataLength);
  }
  return impl->send_enet_sealed(tickwire::transport::Endpoint{address->host, address->port}, gathered);
}
