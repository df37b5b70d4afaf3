#include "source_sockets.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>

namespace tickwire::spoof {
namespace {

// Room for the sources plus what the process already holds (standard
// streams, the epoll set, a test's own sockets).
constexpr rlim_t kSpareDescriptors = 64;
// Reads per socket per wake-up: a source flooded with answers cannot starve
// the others or the pacing; the rest is read at the next wake-up.
constexpr int kMaxReadsPerWake = 64;
constexpr int kMaxEventsPerWake = 256;

Error io_error(const std::string& what) { return Error{ErrorCode::kIo, what + ": " + std::strerror(errno)}; }

sockaddr_in to_sockaddr(const Ipv4Endpoint& endpoint) {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_addr.s_addr = htonl(endpoint.address);
  out.sin_port = htons(endpoint.port);
  return out;
}

Result<void> ensure_descriptor_limit(std::size_t sources) {
  const rlim_t needed = static_cast<rlim_t>(sources) + kSpareDescriptors;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return io_error("getrlimit");
  if (limit.rlim_cur >= needed) return {};
  if (limit.rlim_max < needed) {
    return Error{ErrorCode::kIo, std::to_string(sources) + " sources need " + std::to_string(needed) +
                                     " file descriptors but the hard limit is " + std::to_string(limit.rlim_max) +
                                     " (ulimit -Hn)"};
  }
  limit.rlim_cur = needed;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return io_error("setrlimit");
  return {};
}

}  // namespace

Result<std::unique_ptr<SourceSockets>> SourceSockets::open(std::uint32_t first_address, std::size_t count) {
  if (auto ok = ensure_descriptor_limit(count); !ok) return ok.error();
  std::unique_ptr<SourceSockets> sockets(new SourceSockets());
  sockets->epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (sockets->epoll_fd_ < 0) return io_error("epoll_create1");
  sockets->fds_.reserve(count);
  sockets->endpoints_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return io_error("socket");
    sockets->fds_.push_back(fd);  // owned from here, closed by the destructor
    const Ipv4Endpoint wanted{first_address + static_cast<std::uint32_t>(i), 0};
    sockaddr_in bind_to = to_sockaddr(wanted);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&bind_to), sizeof bind_to) != 0) {
      return io_error("bind " + wanted.to_string());
    }
    sockaddr_in bound{};
    socklen_t length = sizeof bound;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return io_error("getsockname");
    sockets->endpoints_.push_back(Ipv4Endpoint{wanted.address, ntohs(bound.sin_port)});
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = i;
    if (::epoll_ctl(sockets->epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) return io_error("epoll_ctl");
  }
  return sockets;
}

SourceSockets::~SourceSockets() {
  for (int fd : fds_) ::close(fd);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

bool SourceSockets::send(std::size_t index, const Ipv4Endpoint& to, std::span<const std::uint8_t> bytes) const {
  const sockaddr_in address = to_sockaddr(to);
  const ssize_t sent =
      ::sendto(fds_[index], bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  return sent == static_cast<ssize_t>(bytes.size());
}

void SourceSockets::drain(std::chrono::milliseconds timeout, std::vector<SourceCounters>& received) const {
  std::array<epoll_event, kMaxEventsPerWake> events{};
  const int ready = ::epoll_wait(epoll_fd_, events.data(), kMaxEventsPerWake, static_cast<int>(timeout.count()));
  // A signal (EINTR) or nothing ready: back to the caller, which checks the
  // clock and its stop flag.
  if (ready <= 0) return;
  std::array<std::uint8_t, 2048> buffer{};
  for (int e = 0; e < ready; ++e) {
    const auto index = static_cast<std::size_t>(events[static_cast<std::size_t>(e)].data.u64);
    for (int reads = 0; reads < kMaxReadsPerWake; ++reads) {
      // MSG_TRUNC returns a datagram's full length even when it is larger
      // than the buffer: the bytes are only counted, never looked at.
      const ssize_t size = ::recv(fds_[index], buffer.data(), buffer.size(), MSG_DONTWAIT | MSG_TRUNC);
      if (size < 0) break;  // EAGAIN: this socket is empty
      received[index].received.add(static_cast<std::size_t>(size));
    }
  }
}

}  // namespace tickwire::spoof
