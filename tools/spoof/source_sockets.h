#pragma once
// The forged sources as real sockets: one nonblocking UDP socket per
// address 127.A.B.C on an ephemeral port, all watched by one epoll set so
// that draining costs nothing while nothing arrives, however many sources
// there are.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "attack.h"
#include "options.h"
#include "tickwire/core/result.h"

namespace tickwire::spoof {

class SourceSockets {
 public:
  // Binds `count` sockets to first_address, first_address + 1, ...
  static Result<std::unique_ptr<SourceSockets>> open(std::uint32_t first_address, std::size_t count);
  ~SourceSockets();
  SourceSockets(const SourceSockets&) = delete;
  SourceSockets& operator=(const SourceSockets&) = delete;

  std::size_t size() const { return fds_.size(); }
  // The address and port source `index` is bound to.
  Ipv4Endpoint endpoint(std::size_t index) const { return endpoints_[index]; }

  // Sends from source `index`; false when the kernel refused the datagram.
  bool send(std::size_t index, const Ipv4Endpoint& to, std::span<const std::uint8_t> bytes) const;

  // Waits at most `timeout` for datagrams, then reads every one that has
  // arrived and adds it to the receiving source's counter in `received`.
  void drain(std::chrono::milliseconds timeout, std::vector<SourceCounters>& received) const;

 private:
  SourceSockets() = default;
  std::vector<int> fds_;
  std::vector<Ipv4Endpoint> endpoints_;
  int epoll_fd_ = -1;
};

}  // namespace tickwire::spoof
