#pragma once
// Raw IPv4 sockets for the session attacks: one sends UDP datagrams from
// any source address and port (IP_HDRINCL), one sees every UDP datagram
// crossing loopback. Both need root or CAP_NET_RAW.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/transport/address.h"

namespace tickwire::spoof {

// An IPv4 endpoint with the address in host byte order.
struct Ipv4Endpoint {
  std::uint32_t address = 0;
  std::uint16_t port = 0;
  std::string to_string() const;  // A.B.C.D:PORT
  std::string host() const;       // A.B.C.D
  auto operator<=>(const Ipv4Endpoint&) const = default;
};

// 127.0.0.0/8: the only network the tool will send to.
inline constexpr std::uint32_t kLoopbackNet = 0x7F000000;
inline constexpr std::uint32_t kLoopbackMask = 0xFF000000;
inline constexpr bool is_loopback(std::uint32_t address) { return (address & kLoopbackMask) == kLoopbackNet; }

// The endpoint of a dotted IPv4 address ("localhost" reads as 127.0.0.1);
// empty for a host name or an IPv6 address, which raw IPv4 cannot reach.
std::optional<Ipv4Endpoint> ipv4_endpoint(const transport::Address& address);

class RawSender {
 public:
  static Result<RawSender> open();
  RawSender(RawSender&& other) noexcept;
  RawSender& operator=(RawSender&& other) noexcept;
  RawSender(const RawSender&) = delete;
  RawSender& operator=(const RawSender&) = delete;
  ~RawSender();

  // False when the kernel refused the datagram (a full buffer), and for a
  // destination outside loopback: the tool must never flood someone else.
  bool send(const Ipv4Endpoint& from, const Ipv4Endpoint& to, std::span<const std::uint8_t> payload);

 private:
  explicit RawSender(int fd) : fd_(fd) {}
  int fd_ = -1;
  std::vector<std::uint8_t> packet_;
};

struct SeenDatagram {
  Ipv4Endpoint from;
  Ipv4Endpoint to;
  std::vector<std::uint8_t> payload;
};

class RawSniffer {
 public:
  static Result<RawSniffer> open();
  RawSniffer(RawSniffer&& other) noexcept;
  RawSniffer& operator=(RawSniffer&& other) noexcept;
  RawSniffer(const RawSniffer&) = delete;
  RawSniffer& operator=(const RawSniffer&) = delete;
  ~RawSniffer();

  // Every UDP datagram seen since the last call (nonblocking).
  std::vector<SeenDatagram> drain();

 private:
  explicit RawSniffer(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace tickwire::spoof
