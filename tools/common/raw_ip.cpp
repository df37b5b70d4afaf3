#include "raw_ip.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace tickwire::spoof {
namespace {

constexpr std::size_t kIpHeader = 20;
constexpr std::size_t kUdpHeader = 8;

void put_u16(std::uint8_t* at, std::uint16_t v) {
  at[0] = static_cast<std::uint8_t>(v >> 8);
  at[1] = static_cast<std::uint8_t>(v);
}
void put_u32(std::uint8_t* at, std::uint32_t v) {
  put_u16(at, static_cast<std::uint16_t>(v >> 16));
  put_u16(at + 2, static_cast<std::uint16_t>(v));
}
std::uint16_t get_u16(const std::uint8_t* at) { return static_cast<std::uint16_t>((at[0] << 8) | at[1]); }
std::uint32_t get_u32(const std::uint8_t* at) { return (std::uint32_t{get_u16(at)} << 16) | get_u16(at + 2); }

std::uint16_t ip_checksum(const std::uint8_t* header) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < kIpHeader; i += 2) sum += get_u16(header + i);
  while ((sum >> 16) != 0) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

Error io_error(const char* what) {
  return Error{ErrorCode::kIo, std::string(what) + ": " + std::strerror(errno) + " (run as root or with CAP_NET_RAW)"};
}

}  // namespace

std::string Ipv4Endpoint::host() const {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xFF) + "." +
         std::to_string((address >> 8) & 0xFF) + "." + std::to_string(address & 0xFF);
}

std::string Ipv4Endpoint::to_string() const { return host() + ":" + std::to_string(port); }

std::optional<Ipv4Endpoint> ipv4_endpoint(const transport::Address& address) {
  const std::string host = address.host == "localhost" ? "127.0.0.1" : address.host;
  in_addr parsed{};
  if (::inet_pton(AF_INET, host.c_str(), &parsed) != 1) return std::nullopt;
  return Ipv4Endpoint{ntohl(parsed.s_addr), address.port};
}

Result<RawSender> RawSender::open() {
  // IPPROTO_RAW implies IP_HDRINCL: the IPv4 header, source included, is ours.
  const int fd = ::socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_RAW);
  if (fd < 0) return io_error("cannot open a raw IPv4 socket to send from forged addresses");
  return RawSender(fd);
}

RawSender::RawSender(RawSender&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
RawSender& RawSender::operator=(RawSender&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}
RawSender::~RawSender() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawSender::send(const Ipv4Endpoint& from, const Ipv4Endpoint& to, std::span<const std::uint8_t> payload) {
  if (!is_loopback(to.address)) return false;
  const std::size_t total = kIpHeader + kUdpHeader + payload.size();
  packet_.assign(total, 0);
  std::uint8_t* ip = packet_.data();
  ip[0] = 0x45;  // IPv4, 5 words of header
  put_u16(ip + 2, static_cast<std::uint16_t>(total));
  ip[8] = 64;
  ip[9] = IPPROTO_UDP;
  put_u32(ip + 12, from.address);
  put_u32(ip + 16, to.address);
  put_u16(ip + 10, ip_checksum(ip));
  std::uint8_t* udp = ip + kIpHeader;
  put_u16(udp, from.port);
  put_u16(udp + 2, to.port);
  put_u16(udp + 4, static_cast<std::uint16_t>(kUdpHeader + payload.size()));  // checksum 0: none
  if (!payload.empty()) std::memcpy(udp + kUdpHeader, payload.data(), payload.size());
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_addr.s_addr = htonl(to.address);
  return ::sendto(fd_, packet_.data(), packet_.size(), 0, reinterpret_cast<const sockaddr*>(&remote), sizeof remote) ==
         static_cast<ssize_t>(packet_.size());
}

Result<RawSniffer> RawSniffer::open() {
  // A raw UDP socket gets a copy of every UDP datagram the host receives:
  // on loopback, every one sent.
  const int fd = ::socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd < 0) return io_error("cannot open a raw UDP socket to watch the session");
  int buffer = 8 * 1024 * 1024;
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  return RawSniffer(fd);
}

RawSniffer::RawSniffer(RawSniffer&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
RawSniffer& RawSniffer::operator=(RawSniffer&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}
RawSniffer::~RawSniffer() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<SeenDatagram> RawSniffer::drain() {
  std::vector<SeenDatagram> out;
  std::vector<std::uint8_t> buffer(65536);
  while (true) {
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    const auto size = static_cast<std::size_t>(n);
    if (size < kIpHeader) continue;
    const std::size_t header = std::size_t{buffer[0] & 0x0Fu} * 4;
    if (size < header + kUdpHeader) continue;
    const std::uint8_t* udp = buffer.data() + header;
    SeenDatagram d;
    d.from = Ipv4Endpoint{get_u32(buffer.data() + 12), get_u16(udp)};
    d.to = Ipv4Endpoint{get_u32(buffer.data() + 16), get_u16(udp + 2)};
    d.payload.assign(udp + kUdpHeader, udp + (size - header));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace tickwire::spoof
