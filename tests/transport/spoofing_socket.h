#pragma once
// Raw IPv4 sockets for attack tests on loopback: one that sends UDP
// datagrams from any source address and port (IP_HDRINCL), as an off-path
// attacker who knows a victim's address does, and one that sees every UDP
// datagram crossing loopback, as an attacker on the path does. Both need
// CAP_NET_RAW; open() says why when they cannot be had, so a test can skip
// with that reason instead of passing without attacking.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tickwire/transport/address.h"

namespace tickwire::transport::enet_testing {

class SpoofingSocket {
 public:
  // Empty, with `why` filled, when no raw socket could be opened.
  static std::optional<SpoofingSocket> open(std::string& why);
  SpoofingSocket(SpoofingSocket&& other) noexcept;
  SpoofingSocket& operator=(SpoofingSocket&& other) noexcept;
  SpoofingSocket(const SpoofingSocket&) = delete;
  SpoofingSocket& operator=(const SpoofingSocket&) = delete;
  ~SpoofingSocket();

  // One UDP datagram claiming to come from `from`. False when the kernel
  // refused it (a full buffer): the caller counts what really left.
  bool send(const Address& from, const Address& to, std::span<const std::uint8_t> payload);

 private:
  explicit SpoofingSocket(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::vector<std::uint8_t> packet_;  // reused: IPv4 header, UDP header, payload
};

struct SniffedDatagram {
  Address from;
  Address to;
  std::vector<std::uint8_t> payload;
};

class Sniffer {
 public:
  static std::optional<Sniffer> open(std::string& why);
  Sniffer(Sniffer&& other) noexcept;
  Sniffer& operator=(Sniffer&& other) noexcept;
  Sniffer(const Sniffer&) = delete;
  Sniffer& operator=(const Sniffer&) = delete;
  ~Sniffer();

  // Every UDP datagram seen since the last call (nonblocking).
  std::vector<SniffedDatagram> drain();

 private:
  explicit Sniffer(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace tickwire::transport::enet_testing
