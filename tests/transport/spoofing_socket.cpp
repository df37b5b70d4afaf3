#include "spoofing_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace tickwire::transport::enet_testing {
namespace {

constexpr std::size_t kIpHeader = 20;
constexpr std::size_t kUdpHeader = 8;

std::uint32_t ipv4_of(const std::string& host) {
  in_addr out{};
  ::inet_pton(AF_INET, host.c_str(), &out);
  return out.s_addr;  // network byte order
}

std::string host_of(std::uint32_t network_order) {
  char text[INET_ADDRSTRLEN] = {};
  in_addr in{};
  in.s_addr = network_order;
  ::inet_ntop(AF_INET, &in, text, sizeof text);
  return text;
}

void put_u16(std::uint8_t* at, std::uint16_t host_order) {
  at[0] = static_cast<std::uint8_t>(host_order >> 8);
  at[1] = static_cast<std::uint8_t>(host_order);
}

std::uint16_t get_u16(const std::uint8_t* at) { return static_cast<std::uint16_t>((at[0] << 8) | at[1]); }

std::uint16_t ip_checksum(const std::uint8_t* header, std::size_t size) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < size; i += 2) sum += get_u16(header + i);
  while ((sum >> 16) != 0) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

std::string system_reason(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::optional<SpoofingSocket> SpoofingSocket::open(std::string& why) {
  // IPPROTO_RAW implies IP_HDRINCL: we write the IPv4 header ourselves.
  const int fd = ::socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_RAW);
  if (fd < 0) {
    why = system_reason("raw IPv4 socket (needs CAP_NET_RAW) for spoofed sources");
    return std::nullopt;
  }
  return SpoofingSocket(fd);
}

SpoofingSocket::SpoofingSocket(SpoofingSocket&& other) noexcept : fd_(other.fd_), packet_(std::move(other.packet_)) {
  other.fd_ = -1;
}

SpoofingSocket& SpoofingSocket::operator=(SpoofingSocket&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(packet_, other.packet_);
  return *this;
}

SpoofingSocket::~SpoofingSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool SpoofingSocket::send(const Address& from, const Address& to, std::span<const std::uint8_t> payload) {
  const std::size_t total = kIpHeader + kUdpHeader + payload.size();
  packet_.assign(total, 0);
  std::uint8_t* ip = packet_.data();
  ip[0] = 0x45;  // version 4, 5 words of header
  put_u16(ip + 2, static_cast<std::uint16_t>(total));
  ip[8] = 64;  // time to live
  ip[9] = IPPROTO_UDP;
  const std::uint32_t source = ipv4_of(from.host);
  const std::uint32_t destination = ipv4_of(to.host);
  std::memcpy(ip + 12, &source, 4);
  std::memcpy(ip + 16, &destination, 4);
  put_u16(ip + 10, ip_checksum(ip, kIpHeader));
  std::uint8_t* udp = ip + kIpHeader;
  put_u16(udp, from.port);
  put_u16(udp + 2, to.port);
  put_u16(udp + 4, static_cast<std::uint16_t>(kUdpHeader + payload.size()));
  // Checksum 0: none, which IPv4 allows and the receiver accepts.
  if (!payload.empty()) std::memcpy(udp + kUdpHeader, payload.data(), payload.size());

  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_addr.s_addr = destination;
  return ::sendto(fd_, packet_.data(), packet_.size(), 0, reinterpret_cast<const sockaddr*>(&remote), sizeof remote) ==
         static_cast<ssize_t>(packet_.size());
}

std::optional<Sniffer> Sniffer::open(std::string& why) {
  // A raw UDP socket gets a copy of every UDP datagram the host receives;
  // on loopback that is every datagram sent, in either direction.
  const int fd = ::socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_UDP);
  if (fd < 0) {
    why = system_reason("raw UDP socket (needs CAP_NET_RAW) to capture datagrams");
    return std::nullopt;
  }
  int buffer = 8 * 1024 * 1024;
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  return Sniffer(fd);
}

Sniffer::Sniffer(Sniffer&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

Sniffer& Sniffer::operator=(Sniffer&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

Sniffer::~Sniffer() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<SniffedDatagram> Sniffer::drain() {
  std::vector<SniffedDatagram> out;
  std::vector<std::uint8_t> buffer(65536);
  while (true) {
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    const auto size = static_cast<std::size_t>(n);
    if (size < kIpHeader) continue;
    const std::size_t ip_header = std::size_t{buffer[0] & 0x0Fu} * 4;
    if (size < ip_header + kUdpHeader) continue;
    const std::uint8_t* udp = buffer.data() + ip_header;
    std::uint32_t source = 0;
    std::uint32_t destination = 0;
    std::memcpy(&source, buffer.data() + 12, 4);
    std::memcpy(&destination, buffer.data() + 16, 4);
    SniffedDatagram d;
    d.from = Address{host_of(source), get_u16(udp)};
    d.to = Address{host_of(destination), get_u16(udp + 2)};
    d.payload.assign(udp + kUdpHeader, udp + (size - ip_header));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace tickwire::transport::enet_testing
