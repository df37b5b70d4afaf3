// EnetTransport's public calls and ENet's servicing. Connections and the
// datagram checks live in enet_transport_peers.cpp, the figures in
// enet_transport_stats.cpp; enet_transport_impl.h holds the shared state.
#include "tickwire/transport/enet_transport.h"

#include <dlfcn.h>
#include <enet/enet.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "enet_resend.h"
#include "enet_transport_impl.h"

namespace tickwire::transport {

using namespace enet_detail;

namespace {

// maximumPacketSize bounds what ENet will reassemble from the wire. It sits
// a little above our own limit so that a peer breaking the limit by a small
// margin reaches us and is disconnected with kProtocolError; anything
// larger is discarded by ENet before it allocates for it.
constexpr std::size_t kPacketSizeSlack = 1024;
// maximumWaitingData bounds the bytes one peer may keep buffered in ENet
// (out-of-order reliable data and fragments in reassembly). ENet's default
// is 32 MiB per peer, which lets a handful of hostile peers pin a lot of
// server memory; 64 KiB is plenty for game traffic, raised only when the
// reliable limit itself needs more room to reassemble one message.
constexpr std::size_t kMinWaitingData = 64 * 1024;

// ENet's own default for duplicatePeers: no cap below the peer id space.
constexpr std::size_t kNoPeerCap = ENET_PROTOCOL_MAXIMUM_PEER_ID;

constexpr std::uint32_t kMaxEnetMillis = std::numeric_limits<std::uint32_t>::max();
// A longer wait for many transports is cut to an hour; the caller loops.
constexpr std::int64_t kMaxWaitAnyMicros = 3'600'000'000;

// Largest payload ENet sends as one command at this MTU. Anything larger
// ENet fragments, and unreliable fragments turn reliable unless flagged
// otherwise, so unreliable payloads must stay at or below this.
std::size_t single_command_payload(std::size_t mtu) {
  return mtu - sizeof(ENetProtocolHeader) - sizeof(ENetProtocolSendFragment);
}

Result<ENetAddress> to_enet_address(const Address& address) {
  if (address.host.find(':') != std::string::npos) {
    return make_error(ErrorCode::kInvalidArgument,
                      "ENet transport speaks IPv4 only; cannot use " + address.to_string());
  }
  ENetAddress out{};
  out.port = address.port;
  if (enet_address_set_host(&out, address.host.c_str()) != 0) {
    return make_error(ErrorCode::kIo, "cannot resolve host '" + address.host + "' to an IPv4 address");
  }
  return out;
}

// ENet allocates reassembly buffers without clearing them, so a message
// whose fragments did not cover it would carry stale heap bytes. The
// fragment guard refuses such fragments; zeroed memory is the second line.
void* ENET_CALLBACK zeroed_malloc(size_t size) { return std::calloc(1, size); }

Result<void> initialize_enet() {
  // A no-op on Unix and reference counted (WSAStartup) on Windows. It is
  // never undone: other transports may still be alive at any destructor.
  static const int result = [] {
    ENetCallbacks callbacks{};
    callbacks.malloc = zeroed_malloc;
    callbacks.free = std::free;
    return enet_initialize_with_callbacks(ENET_VERSION, &callbacks);
  }();
  if (result != 0) return make_error(ErrorCode::kIo, "enet_initialize failed");
  return {};
}

int ENET_CALLBACK intercept_hook(ENetHost* host, ENetEvent* /*event*/) {
  EnetTransport::Impl* const active = ActiveTransport::current();
  if (active == nullptr || active->host != host) return 0;
  return active->intercept(std::span<const std::uint8_t>(host->receivedData, host->receivedDataLength),
                           endpoint_of(host->receivedAddress));
}

int service(EnetTransport::Impl& impl, ENetEvent* event) {
  int result = 0;
  {
    const ActiveTransport scope(impl);
    result = enet_host_service(impl.host, event, 0);
  }
  // Unreliable payloads leave after whatever ENet sent, as when they were
  // queued in ENet.
  impl.send_session_datagrams();
  impl.fold_wire_counters();
  return result;
}

// One ENet event, if any. ENet ends a receive pass at an empty datagram (it
// reads length 0 as "nothing more") or at one over its buffer (an error),
// so a peer sending those could make every poll stop after one datagram;
// keep servicing while the socket still holds data, within a bound so that
// a flood cannot hold the caller here.
//
// The look at the socket is a system call, and most passes end the usual
// way: the socket had nothing more, which ENet's receive reports as 0 like
// an empty datagram but which leaves EAGAIN in errno. Those passes skip
// the look. errno is only a hint here: when something else left EAGAIN
// there, the data stays in the socket, which stays readable: the next wait
// wakes at once and the next poll reads it, so nothing is lost either way.
bool service_until_quiet(EnetTransport::Impl& impl, ENetEvent* event) {
  constexpr int kMaxPasses = 64;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    errno = 0;
    if (service(impl, event) > 0) return true;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    enet_uint32 condition = ENET_SOCKET_WAIT_RECEIVE;
    if (enet_socket_wait(impl.host->socket, &condition, 0) != 0 || (condition & ENET_SOCKET_WAIT_RECEIVE) == 0) {
      return false;
    }
  }
  return false;
}

// ENet's datagrams reach the seal only if ENet's calls to enet_socket_send
// find Tickwire's definition (enet_sealing.cpp): true for a shared ENet
// that calls it through its symbol table, as distributions build it.
bool enet_sends_are_sealed() {
  void* const found = dlsym(RTLD_DEFAULT, "enet_socket_send");
  return found == reinterpret_cast<void*>(&enet_socket_send);  // NOLINT: comparing addresses only
}

Result<void> check_validation_config(const AddressValidationConfig& v) {
  if (!v.enabled) return {};
  if (v.max_pending == 0 || v.max_pending_per_host == 0 || v.max_challenges_per_second == 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "address validation limits (max_pending, max_pending_per_host, max_challenges_per_second) "
                      "must be positive");
  }
  if (v.admission_lifetime <= Duration::zero() || v.retry_interval <= Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument, "admission_lifetime and retry_interval must be positive");
  }
  if (v.token_key && !v.token_address) {
    return make_error(ErrorCode::kInvalidArgument,
                      "a server that requires connect tokens needs token_address, the address tokens name it by");
  }
  if (!v.connect_token.empty() && !v.token_session_key) {
    return make_error(ErrorCode::kInvalidArgument,
                      "a connect token needs its session key (token_session_key), which the backend hands out "
                      "with it");
  }
  if (v.connect_token.size() > challenge::kMaxTokenSize) {
    return make_error(ErrorCode::kInvalidArgument, "connect token of " + std::to_string(v.connect_token.size()) +
                                                       " bytes is over the limit of " +
                                                       std::to_string(challenge::kMaxTokenSize));
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<EnetTransport>> EnetTransport::create(const EnetConfig& config) {
  if (config.max_peers == 0 || config.max_peers > ENET_PROTOCOL_MAXIMUM_PEER_ID) {
    return make_error(ErrorCode::kInvalidArgument,
                      "max_peers must be between 1 and " + std::to_string(ENET_PROTOCOL_MAXIMUM_PEER_ID));
  }
  const std::size_t unreliable_cap = single_command_payload(ENET_HOST_DEFAULT_MTU);
  if (config.limits.max_unreliable_payload > unreliable_cap) {
    return make_error(ErrorCode::kInvalidArgument, "max_unreliable_payload must not exceed " +
                                                       std::to_string(unreliable_cap) +
                                                       " bytes, or ENet would fragment unreliable packets");
  }
  if (config.limits.max_reliable_payload > ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE) {
    return make_error(ErrorCode::kInvalidArgument, "max_reliable_payload is larger than ENet supports");
  }
  if (config.timeout <= Duration::zero() || config.ping_interval <= Duration::zero() ||
      config.rtt_probe_interval <= Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument, "timeout, ping_interval and rtt_probe_interval must be positive");
  }
  if (auto valid = check_validation_config(config.validation); !valid) return valid.error();
  if (!config.validation.enabled && !config.plaintext) {
    return make_error(ErrorCode::kInvalidArgument,
                      "sessions are encrypted with keys agreed during address validation; with validation off, "
                      "set plaintext on both ends");
  }
  if (config.validation.enabled && !enet_sends_are_sealed()) {
    return make_error(ErrorCode::kInvalidArgument,
                      "this build's ENet does not send through Tickwire's enet_socket_send (a statically linked or "
                      "symbolically bound ENet), so its datagrams could not be sealed");
  }
  if (auto init = initialize_enet(); !init) return init.error();

  ENetAddress bind_address{};
  bind_address.host = ENET_HOST_ANY;
  bind_address.port = 0;
  const std::string bind_text = config.bind ? config.bind->to_string() : std::string("0.0.0.0:0");
  if (config.bind) {
    auto resolved = to_enet_address(*config.bind);
    if (!resolved) return resolved.error();
    bind_address = resolved.value();
  }

  // ENet does not report why the socket failed; bind() leaves the reason
  // in errno, which ENet's cleanup (close, free) does not disturb.
  errno = 0;
  ENetHost* host = enet_host_create(&bind_address, config.max_peers, kChannelCount, config.incoming_bandwidth,
                                    config.outgoing_bandwidth);
  if (host == nullptr) {
    const int error = errno;
    const std::string why = error != 0 ? std::system_category().message(error) : std::string("unknown error");
    return make_error(ErrorCode::kIo, "cannot bind UDP socket to " + bind_text + ": " + why);
  }

  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->host = host;
  const std::size_t largest = std::max(config.limits.max_reliable_payload, config.limits.max_unreliable_payload);
  host->maximumPacketSize = largest + kPacketSizeSlack;
  host->maximumWaitingData = std::max(kMinWaitingData, 2 * host->maximumPacketSize);
  host->duplicatePeers = config.max_peers_per_ip != 0 ? config.max_peers_per_ip : kNoPeerCap;
  // Every datagram passes the hook, so challenge traffic never reaches
  // ENet's parser whether validation is on or not.
  host->intercept = intercept_hook;
  if (config.validation.enabled) {
    impl->validator.emplace(config.validation, config.plaintext);
    EnetTransport::Impl* raw = impl.get();
    impl->validator->set_live_ids([raw](std::uint32_t id) { return raw->sessions.contains(id); });
    impl->challenger.emplace(config.validation.retry_interval, config.timeout);
  }
  return std::unique_ptr<EnetTransport>(new EnetTransport(std::move(impl)));
}

EnetTransport::EnetTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EnetTransport::~EnetTransport() = default;

Result<PeerId> EnetTransport::connect(const Address& remote, Time /*now*/) {
  if (remote.port == 0) return make_error(ErrorCode::kInvalidArgument, "cannot connect to port 0");
  auto resolved = to_enet_address(remote);
  if (!resolved) return resolved.error();
  if (impl_->challenger) {
    // ENet's connect starts once the server has checked our address.
    const PeerId id(impl_->next_id++);
    const AddressValidationConfig& v = impl_->config.validation;
    const ChallengeClient::Credentials credentials{v.connect_token, v.token_session_key, v.server_key,
                                                   impl_->config.plaintext};
    impl_->challenger->start(id, endpoint_of(resolved.value()), credentials, monotonic_now(), impl_->actions);
    impl_->run_challenge_actions();
    return id;
  }
  ENetPeer* peer = enet_host_connect(impl_->host, &resolved.value(), kChannelCount, 0);
  if (peer == nullptr) {
    return make_error(ErrorCode::kIo, "no free connection slot for " + remote.to_string() + " (max_peers " +
                                          std::to_string(impl_->config.max_peers) + ")");
  }
  return impl_->adopt(peer, false);
}

Result<void> EnetTransport::send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time /*now*/) {
  Impl::PeerRecord* record = impl_->find_open(peer);
  if (record == nullptr || !record->connected || record->peer->state != ENET_PEER_STATE_CONNECTED) {
    return make_error(ErrorCode::kNotConnected, "no connected peer " + std::to_string(peer.value()));
  }
  const bool reliable = delivery == Delivery::kReliableOrdered;
  const std::size_t limit = reliable ? impl_->config.limits.max_reliable_payload
                                     : std::min(impl_->config.limits.max_unreliable_payload,
                                                // The MTU is negotiated per peer and may be below ours.
                                                single_command_payload(record->peer->mtu));
  if (bytes.size() > limit) {
    return make_error(ErrorCode::kTooLarge, std::string(reliable ? "reliable" : "unreliable") + " payload of " +
                                                std::to_string(bytes.size()) + " bytes exceeds the limit of " +
                                                std::to_string(limit));
  }
  if (!reliable && impl_->config.session_datagrams) {
    impl_->queue_session_datagram(peer, bytes);
    record->counters.bytes_sent += bytes.size();
    record->counters.packets_sent += 1;
    return {};
  }
  const enet_uint32 flags = reliable ? ENET_PACKET_FLAG_RELIABLE : ENET_PACKET_FLAG_UNSEQUENCED;
  ENetPacket* packet = enet_packet_create(bytes.data(), bytes.size(), flags);
  if (packet == nullptr) return make_error(ErrorCode::kIo, "out of memory for a packet");
  if (enet_peer_send(record->peer, reliable ? kReliableChannel : kUnreliableChannel, packet) != 0) {
    enet_packet_destroy(packet);  // ENet takes ownership only on success
    return make_error(ErrorCode::kIo, "ENet refused to queue a packet for peer " + std::to_string(peer.value()));
  }
  record->counters.bytes_sent += bytes.size();
  record->counters.packets_sent += 1;
  return {};
}

std::optional<TransportEvent> EnetTransport::poll(Time /*now*/) {
  impl_->drive_validation();
  ENetEvent event;
  // Each service call yields at most one ENet event; events for peers we
  // closed ourselves are swallowed, so keep going until one survives or
  // ENet has nothing more. Timeout 0: never blocks.
  while (impl_->queued.empty() && service_until_quiet(*impl_, &event)) {
    if (auto out = impl_->translate(event)) return out;
  }
  impl_->close_hostile();
  // ENet doubles its resend waits only while servicing, so a sweep after
  // the servicing, every few milliseconds, holds them (enet_resend.h).
  constexpr enet_uint32 kResendSweepMs = 10;
  if (impl_->host->serviceTime - impl_->last_resend_sweep >= kResendSweepMs) {  // wraps like ENet's clock
    impl_->last_resend_sweep = impl_->host->serviceTime;
    steady_resends(impl_->host, to_enet_millis(impl_->config.timeout));
    impl_->probe_round_trips();
  }
  // Answers read during the service calls may have accepted or refused a
  // connect; start the accepted ones now rather than a poll later.
  if (!impl_->actions.send.empty() || !impl_->actions.done.empty()) {
    impl_->run_challenge_actions();
    impl_->flush_enet();
  }
  if (impl_->queued.empty()) return std::nullopt;
  return impl_->queued.pop_front();
}

void EnetTransport::recycle(std::vector<std::uint8_t>&& buffer) {
  // Enough for a burst of datagrams between polls from every client of a
  // large server; a buffer grown past a datagram (a large reliable
  // message's) is not worth its memory.
  constexpr std::size_t kMaxSpare = 1024;
  std::vector<std::uint8_t> taken = std::move(buffer);
  if (taken.capacity() == 0 || taken.capacity() > impl_->config.limits.max_unreliable_payload ||
      impl_->spare_buffers.size() >= kMaxSpare) {
    return;
  }
  taken.clear();
  impl_->spare_buffers.push_back(std::move(taken));
}

void EnetTransport::flush(Time /*now*/) {
  impl_->flush_enet();
  impl_->send_session_datagrams();
  impl_->fold_wire_counters();
}

void EnetTransport::disconnect(PeerId peer, DisconnectReason reason, Time /*now*/) { impl_->close(peer, reason); }

std::optional<Address> EnetTransport::local_address() const {
  ENetAddress address{};
  if (enet_socket_get_address(impl_->host->socket, &address) != 0) return std::nullopt;
  return from_enet_address(address);
}

const TransportLimits& EnetTransport::limits() const { return impl_->config.limits; }

Result<void> EnetTransport::set_connect_token(std::vector<std::uint8_t> token, const TokenKey& session_key) {
  AddressValidationConfig checked = impl_->config.validation;
  checked.connect_token = std::move(token);
  checked.token_session_key = session_key;
  if (auto valid = check_validation_config(checked); !valid) return valid.error();
  impl_->config.validation = std::move(checked);
  return {};
}

void EnetTransport::wait_for_traffic(Duration max_wait) {
  // Events already decoded would not wake the socket; return so they are
  // polled now.
  if (!enet_list_empty(&impl_->host->dispatchQueue)) return;
  // ENet waits in whole milliseconds; rounding down keeps a caller that
  // sleeps until its next tick from oversleeping it.
  const std::int64_t ms = max_wait.micros() / 1000;
  if (ms <= 0) return;
  enet_uint32 condition = ENET_SOCKET_WAIT_RECEIVE;
  // An error or signal only ends the wait early, which is harmless.
  (void)enet_socket_wait(impl_->host->socket, &condition,
                         static_cast<enet_uint32>(std::min<std::int64_t>(ms, kMaxEnetMillis)));
}

void EnetTransport::wait_for_any(std::span<EnetTransport* const> transports, Duration max_wait,
                                 std::vector<std::size_t>& ready) {
  ready.clear();
  // Kept between calls: a bot fleet calls this between every two frames.
  thread_local std::vector<pollfd> fds;
  thread_local std::vector<std::size_t> index;
  fds.clear();
  index.clear();
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const EnetTransport* t = transports[i];
    if (t == nullptr) continue;
    // Decoded events would not wake the socket.
    if (!enet_list_empty(&t->impl_->host->dispatchQueue)) ready.push_back(i);
    fds.push_back(pollfd{t->impl_->host->socket, POLLIN, 0});
    index.push_back(i);
  }
  // Decoded events are ready now; the caller comes back for the rest.
  if (!ready.empty() || fds.empty()) return;
  const std::int64_t us = std::clamp<std::int64_t>(max_wait.micros(), 0, kMaxWaitAnyMicros);
  const timespec timeout{static_cast<time_t>(us / 1'000'000), static_cast<long>(us % 1'000'000) * 1000};
  if (ppoll(fds.data(), fds.size(), &timeout, nullptr) <= 0) return;
  for (std::size_t k = 0; k < fds.size(); ++k) {
    if (fds[k].revents != 0) ready.push_back(index[k]);
  }
}

}  // namespace tickwire::transport
