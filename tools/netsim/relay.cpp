#include "relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tickwire::netsim {
namespace {

// Bounds the relay's memory when a side stops reading: past this many
// queued datagrams, new ones are dropped and counted.
constexpr std::size_t kMaxPending = 200'000;
constexpr std::size_t kMaxDatagram = 65536;

std::uint64_t key_of(const sockaddr_in& a) {
  return (std::uint64_t{ntohl(a.sin_addr.s_addr)} << 16) | ntohs(a.sin_port);
}

Result<sockaddr_in> resolve(const transport::Address& address) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(address.host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return make_error(ErrorCode::kIo, "cannot resolve " + address.host + ": " + gai_strerror(rc));
  }
  sockaddr_in out{};
  std::memcpy(&out, found->ai_addr, sizeof out);
  freeaddrinfo(found);
  out.sin_port = htons(address.port);
  return out;
}

Result<int> udp_socket(const sockaddr_in& bind_to) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(ErrorCode::kIo, std::string("socket: ") + std::strerror(errno));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&bind_to), sizeof bind_to) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return make_error(ErrorCode::kIo, "bind: " + why);
  }
  return fd;
}

}  // namespace

struct Relay::Session {
  sockaddr_in client{};
  int upstream_fd = -1;
  transport::SimRng rng;
  transport::SimLink up;
  transport::SimLink down;
  Time last_heard;
  std::uint64_t id = 0;  // which session of this client ip:port (one may expire and another start)
  explicit Session(std::uint64_t seed) : rng(seed) {}
  ~Session() {
    if (upstream_fd >= 0) ::close(upstream_fd);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

Relay::Relay(RelayConfig config) : config_(std::move(config)) {}

Relay::~Relay() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

Result<std::unique_ptr<Relay>> Relay::create(const RelayConfig& config) {
  if (auto ok = config.up.validate(); !ok) return ok.error();
  if (auto ok = config.down.validate(); !ok) return ok.error();
  std::unique_ptr<Relay> relay(new Relay(config));
  auto listen_at = resolve(config.listen);
  if (!listen_at) return listen_at.error();
  auto forward = resolve(config.forward);
  if (!forward) return forward.error();
  relay->forward_ = *forward;
  auto fd = udp_socket(*listen_at);
  if (!fd) {
    return make_error(ErrorCode::kIo, "cannot listen on " + config.listen.to_string() + ": " + fd.error().detail);
  }
  relay->listen_fd_ = *fd;
  return relay;
}

std::uint16_t Relay::listen_port() const {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

Relay::Session* Relay::session_for(const sockaddr_in& client, Time now) {
  const auto key = key_of(client);
  if (auto it = sessions_.find(key); it != sessions_.end()) return it->second.get();
  if (sessions_.size() >= config_.max_clients) {
    ++up_.refused_clients;
    return nullptr;
  }
  // Each session draws from its own stream, so one client's traffic does
  // not change another's fate and a seed replays per client.
  auto s = std::make_unique<Session>(config_.seed * 0x9E3779B97F4A7C15ULL + ++sessions_made_);
  s->id = sessions_made_;
  s->client = client;
  s->last_heard = now;
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = forward_.sin_addr.s_addr == htonl(INADDR_LOOPBACK) ? htonl(INADDR_LOOPBACK) : INADDR_ANY;
  auto fd = udp_socket(any);
  if (!fd) return nullptr;
  s->upstream_fd = *fd;
  Session* raw = s.get();
  sessions_[key] = std::move(s);
  return raw;
}

void Relay::admit(Session& s, bool upstream, const transport::LinkConditions& c, RelayCounters& k, int fd,
                  const sockaddr_in& to, std::vector<std::uint8_t> bytes, Time now) {
  ++k.received;
  transport::SimLink& link = upstream ? s.up : s.down;
  const transport::LinkVerdict v = link.admit(c, s.rng, now, bytes.size());
  if (v.fate != transport::SimFate::kDelivered || pending_.size() >= kMaxPending) {
    ++k.dropped;
    return;
  }
  if (v.reordered) ++k.reordered;
  k.delay_us_total += (v.deliver - now).micros();
  if (v.copy) {
    ++k.duplicated;
    pending_.push(Pending{*v.copy, order_++, fd, to, bytes, now, key_of(s.client), s.id, upstream});
  }
  pending_.push(Pending{v.deliver, order_++, fd, to, std::move(bytes), now, key_of(s.client), s.id, upstream});
}

void Relay::read_listen(Time now) {
  std::vector<std::uint8_t> buf(kMaxDatagram);
  for (int i = 0; i < 256; ++i) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const ssize_t n = ::recvfrom(listen_fd_, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) return;
    Session* s = session_for(from, now);
    if (s == nullptr) continue;
    s->last_heard = now;
    admit(*s, true, config_.up, up_, s->upstream_fd, forward_,
          std::vector<std::uint8_t>(buf.begin(), buf.begin() + n), now);
  }
}

void Relay::read_upstream(Session& s, Time now) {
  std::vector<std::uint8_t> buf(kMaxDatagram);
  for (int i = 0; i < 256; ++i) {
    const ssize_t n = ::recv(s.upstream_fd, buf.data(), buf.size(), 0);
    if (n < 0) return;
    admit(s, false, config_.down, down_, listen_fd_, s.client,
          std::vector<std::uint8_t>(buf.begin(), buf.begin() + n), now);
  }
}

void Relay::deliver_due(Time now) {
  while (!pending_.empty() && pending_.top().at <= now) {
    const Pending& p = pending_.top();
    const ssize_t n =
        ::sendto(p.fd, p.bytes.data(), p.bytes.size(), 0, reinterpret_cast<const sockaddr*>(&p.to), sizeof p.to);
    RelayCounters& k = p.fd == listen_fd_ ? down_ : up_;
    if (n >= 0) {
      ++k.relayed;
    } else {
      ++k.dropped;
    }
    // The datagram has left its link: without this the link counts it in
    // flight for ever, and after kMaxInFlight datagrams drops everything.
    if (auto it = sessions_.find(p.session_key); it != sessions_.end() && it->second->id == p.session_id) {
      (p.upstream ? it->second->up : it->second->down).on_delivered(p.sent, p.at, p.bytes.size());
    }
    pending_.pop();
  }
}

void Relay::expire_idle(Time now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second->last_heard > config_.idle_timeout) {
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void Relay::run_once(const std::function<Time()>& clock, Duration max_wait) {
  Time now = clock();
  deliver_due(now);
  Duration wait = max_wait;
  if (!pending_.empty()) wait = std::min(wait, std::max(pending_.top().at - now, Duration::zero()));
  std::vector<pollfd> fds;
  std::vector<Session*> owners;
  fds.push_back({listen_fd_, POLLIN, 0});
  owners.push_back(nullptr);
  for (auto& [key, s] : sessions_) {
    fds.push_back({s->upstream_fd, POLLIN, 0});
    owners.push_back(s.get());
  }
  // Round up so a due delivery is never busy-polled at zero timeout.
  const int wait_ms = static_cast<int>((wait.micros() + 999) / 1000);
  if (::poll(fds.data(), fds.size(), wait_ms) > 0) {
    now = clock();  // stamp arrivals after the wait, not before it
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & POLLIN) == 0) continue;
      if (owners[i] == nullptr) {
        read_listen(now);
      } else {
        read_upstream(*owners[i], now);
      }
    }
  }
  now = clock();
  deliver_due(now);
  expire_idle(now);
}

}  // namespace tickwire::netsim
