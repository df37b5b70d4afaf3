#include "raw_enet_peer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>

namespace tickwire::transport::enet_testing {
namespace {

using namespace enet_wire;  // NOLINT(google-build-using-namespace)

void put_u8(std::vector<std::uint8_t>& out, std::uint8_t v) { out.push_back(v); }
void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put_u16(out, static_cast<std::uint16_t>(v >> 16));
  put_u16(out, static_cast<std::uint16_t>(v));
}
void put_bytes(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

std::uint16_t get_u16(std::span<const std::uint8_t> in, std::size_t at) {
  return static_cast<std::uint16_t>((in[at] << 8) | in[at + 1]);
}
std::uint32_t get_u32(std::span<const std::uint8_t> in, std::size_t at) {
  return (static_cast<std::uint32_t>(get_u16(in, at)) << 16) | get_u16(in, at + 2);
}

void put_command_header(std::vector<std::uint8_t>& out, std::uint8_t command, std::uint8_t channel,
                        std::uint16_t sequence) {
  put_u8(out, command);
  put_u8(out, channel);
  put_u16(out, sequence);
}

// Size of each command's fixed part, indexed by command number (ENet's
// commandSizes table); 0 for numbers ENet does not know.
constexpr std::size_t kCommandSizes[13] = {0, 8, 48, 44, 8, 4, 6, 8, 24, 8, 12, 16, 24};

// Offset of the u16 dataLength field in commands that carry a payload,
// or 0 for commands without one.
std::size_t data_length_offset(std::uint8_t command) {
  switch (command) {
    case kSendReliable: return 4;
    case kSendUnreliable:
    case kSendUnsequenced:
    case kSendFragment:
    case kSendUnreliableFragment: return 6;
    default: return 0;
  }
}

sockaddr_in to_sockaddr(const Address& address) {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_port = htons(address.port);
  ::inet_pton(AF_INET, address.host.c_str(), &out.sin_addr);
  return out;
}

// Our side of the connection: the peer id and session ids the server sees
// in our CONNECT. Session 0xFF lets the server choose.
constexpr std::uint16_t kOurPeerId = 0;
constexpr std::uint8_t kLetServerChoose = 0xFF;

}  // namespace

std::vector<std::uint8_t> fragment_command(const FragmentFields& f) {
  std::vector<std::uint8_t> out;
  const std::uint8_t command =
      f.unreliable ? kSendUnreliableFragment : static_cast<std::uint8_t>(kSendFragment | kFlagAcknowledge);
  put_command_header(out, command, f.channel, f.sequence);
  put_u16(out, f.start_sequence);
  put_u16(out, f.declared_length.value_or(static_cast<std::uint16_t>(f.data.size())));
  put_u32(out, f.fragment_count);
  put_u32(out, f.fragment_number);
  put_u32(out, f.total_length);
  put_u32(out, f.fragment_offset);
  put_bytes(out, f.data);
  return out;
}

std::vector<FragmentFields> honest_fragments(std::span<const std::uint8_t> payload, std::uint32_t fragment_length) {
  std::vector<FragmentFields> out;
  if (fragment_length == 0 || payload.empty()) return out;
  const auto count = static_cast<std::uint32_t>((payload.size() + fragment_length - 1) / fragment_length);
  for (std::uint32_t number = 0; number < count; ++number) {
    const std::size_t offset = std::size_t{number} * fragment_length;
    const std::size_t end = std::min(payload.size(), offset + fragment_length);
    FragmentFields f;
    f.fragment_count = count;
    f.fragment_number = number;
    f.total_length = static_cast<std::uint32_t>(payload.size());
    f.fragment_offset = static_cast<std::uint32_t>(offset);
    f.data.assign(payload.begin() + static_cast<std::ptrdiff_t>(offset),
                  payload.begin() + static_cast<std::ptrdiff_t>(end));
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::uint8_t> reliable_command(std::uint8_t channel, std::uint16_t sequence,
                                           std::span<const std::uint8_t> data,
                                           std::optional<std::uint16_t> declared_length) {
  std::vector<std::uint8_t> out;
  put_command_header(out, kSendReliable | kFlagAcknowledge, channel, sequence);
  put_u16(out, declared_length.value_or(static_cast<std::uint16_t>(data.size())));
  put_bytes(out, data);
  return out;
}

std::vector<std::uint8_t> unsequenced_command(std::uint8_t channel, std::uint16_t group,
                                              std::span<const std::uint8_t> data,
                                              std::optional<std::uint16_t> declared_length) {
  std::vector<std::uint8_t> out;
  // Unsequenced commands carry no reliable sequence number.
  put_command_header(out, kSendUnsequenced | kFlagUnsequenced, channel, 0);
  put_u16(out, group);
  put_u16(out, declared_length.value_or(static_cast<std::uint16_t>(data.size())));
  put_bytes(out, data);
  return out;
}

RawEnetPeer::RawEnetPeer(const char* bind_host) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return;
  sockaddr_in local = to_sockaddr(Address{bind_host, 0});
  socklen_t length = sizeof local;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) {
    ::close(fd);
    return;
  }
  fd_ = fd;
  port_ = ntohs(local.sin_port);
}

RawEnetPeer::~RawEnetPeer() {
  if (fd_ >= 0) ::close(fd_);
}

Address RawEnetPeer::address() const {
  sockaddr_in local{};
  socklen_t length = sizeof local;
  char text[INET_ADDRSTRLEN] = {};
  if (fd_ >= 0 && ::getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
    ::inet_ntop(AF_INET, &local.sin_addr, text, sizeof text);
  }
  return Address{text, port_};
}

std::uint16_t RawEnetPeer::sent_time() const {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - epoch_);
  return static_cast<std::uint16_t>(ms.count());
}

void RawEnetPeer::send_datagram(const Address& to, std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return;
  const sockaddr_in remote = to_sockaddr(to);
  (void)::sendto(fd_, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&remote), sizeof remote);
}

bool RawEnetPeer::connect(const Address& server, const std::function<void()>& pump, std::chrono::milliseconds limit) {
  send_connect(server);
  // service() acknowledges VERIFY_CONNECT as it reads it.
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!verify_ && std::chrono::steady_clock::now() < deadline) {
    pump();
    service();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return verify_.has_value();
}

void RawEnetPeer::send_connect(const Address& server) {
  server_ = server;
  std::vector<std::uint8_t> out;
  // Header: no peer yet, session 0, with a sent time (CONNECT is reliable).
  put_u16(out, kNoPeer | kHeaderSentTime);
  put_u16(out, sent_time());
  // CONNECT is the first reliable command on the connection-level channel.
  put_command_header(out, kConnect | kFlagAcknowledge, kNoChannel, 1);
  put_u16(out, kOurPeerId);  // the slot the server names in its headers to us
  put_u8(out, kLetServerChoose);
  put_u8(out, kLetServerChoose);
  put_u32(out, requested_mtu_);
  put_u32(out, 65536);  // window size
  put_u32(out, 2);      // channels: tickwire needs two
  put_u32(out, 0);      // incoming bandwidth: unlimited
  put_u32(out, 0);      // outgoing bandwidth: unlimited
  put_u32(out, 5000);   // throttle interval, acceleration, deceleration
  put_u32(out, 2);
  put_u32(out, 2);
  put_u32(out, std::random_device{}());  // connectID
  put_u32(out, 0);                       // user data
  send_datagram(server, out);
}

std::uint32_t RawEnetPeer::fragment_length() const {
  constexpr std::uint32_t kOverhead = kHeaderSize + kSendFragmentSize;
  return verify_ && verify_->mtu > kOverhead ? verify_->mtu - kOverhead : 0;
}

void RawEnetPeer::send_commands(std::span<const std::vector<std::uint8_t>> commands) {
  if (!server_ || !verify_) return;
  std::vector<std::uint8_t> out;
  put_u16(out, static_cast<std::uint16_t>(verify_->server_peer_id | (verify_->outgoing_session << kSessionShift) |
                                          kHeaderSentTime));
  put_u16(out, sent_time());
  for (const auto& command : commands) put_bytes(out, command);
  send_datagram(*server_, out);
}

void RawEnetPeer::service() {
  if (fd_ < 0) return;
  std::vector<std::uint8_t> buffer(65536);
  while (true) {
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n < 0) break;
    ++datagrams_received_;
    bytes_received_ += static_cast<std::size_t>(n);
    parse(std::span<const std::uint8_t>(buffer.data(), static_cast<std::size_t>(n)));
  }
}

// Walks the commands of one datagram from the server, stopping where one
// does not fit, as ENet does.
void RawEnetPeer::parse(std::span<const std::uint8_t> d) {
  if (d.size() < 2) return;
  const std::uint16_t peer_field = get_u16(d, 0);
  if ((peer_field & kHeaderCompressed) != 0) return;  // never sent: the server has no compressor
  const bool has_sent_time = (peer_field & kHeaderSentTime) != 0;
  std::size_t at = has_sent_time ? 4 : 2;
  if (d.size() < at) return;
  const std::uint16_t their_sent_time = has_sent_time ? get_u16(d, 2) : 0;

  std::vector<std::vector<std::uint8_t>> acks;
  while (at + 4 <= d.size()) {
    const std::uint8_t command_byte = d[at];
    const std::uint8_t command = command_byte & kCommandMask;
    if (command >= std::size(kCommandSizes) || kCommandSizes[command] == 0) break;
    std::size_t size = kCommandSizes[command];
    if (at + size > d.size()) break;
    if (const std::size_t field = data_length_offset(command); field != 0) size += get_u16(d, at + field);
    if (at + size > d.size()) break;
    const std::uint8_t channel = d[at + 1];
    const std::uint16_t sequence = get_u16(d, at + 2);

    switch (command) {
      case kAcknowledge: acknowledged_.emplace(channel, get_u16(d, at + 4)); break;
      case kVerifyConnect:
        ++verify_connects_received_;
        if (!verify_) {
          VerifyConnect v;
          v.server_peer_id = get_u16(d, at + 4);
          v.incoming_session = d[at + 6];
          v.outgoing_session = d[at + 7];
          v.mtu = get_u32(d, at + 8);
          v.channel_count = get_u32(d, at + 16);
          verify_ = v;
        }
        break;
      case kDisconnect: disconnect_data_ = get_u32(d, at + 4); break;
      default: break;  // pings and data: acknowledged below, otherwise ignored
    }

    // ACKNOWLEDGE echoes the command's channel and sequence number and the
    // sent time of the datagram that carried it.
    if (acknowledging_ && (command_byte & kFlagAcknowledge) != 0 && has_sent_time) {
      std::vector<std::uint8_t> ack;
      put_command_header(ack, kAcknowledge, channel, sequence);
      put_u16(ack, sequence);
      put_u16(ack, their_sent_time);
      acks.push_back(std::move(ack));
    }
    at += size;
  }
  if (!acks.empty() && verify_) send_commands(acks);
}

}  // namespace tickwire::transport::enet_testing
