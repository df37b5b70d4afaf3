#pragma once
// A tiny ENet 1.3 protocol peer written byte by byte over a nonblocking
// POSIX UDP socket, for adversarial tests: it connects like an ENet client
// and then sends commands with whatever field values a test chooses, which
// the ENet library itself would never produce. ENet's headers stay out of
// tests (tests/rules/check_includes.sh), so the wire layout is spelled out
// here from /usr/include/enet/protocol.h. Everything is big-endian.
//
// Datagram: protocol header, then commands back to back.
//   header   u16 peerID    low 12 bits: the receiver's peer slot (0xFFF:
//                          none, as in CONNECT); bits 12-13: session id;
//                          bit 14: compressed; bit 15: sentTime follows
//            u16 sentTime  only when bit 15 is set; a reliable command is
//                          acknowledged only when it is
//   command  u8 command    low 4 bits: the command; 0x80: acknowledge me;
//                          0x40: unsequenced
//            u8 channelID  0xFF for connection-level commands
//            u16 reliableSequenceNumber
//            then the command's own fields, then its payload if it has one
//
// Test support only: no retransmission, no throttling, no fragmentation of
// its own (honest_fragments() cuts a message the way ENet would, for a test
// to send). The server must be polled while this peer waits for it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "tickwire/transport/address.h"

namespace tickwire::transport::enet_testing {

namespace enet_wire {
inline constexpr std::uint8_t kAcknowledge = 1;
inline constexpr std::uint8_t kConnect = 2;
inline constexpr std::uint8_t kVerifyConnect = 3;
inline constexpr std::uint8_t kDisconnect = 4;
inline constexpr std::uint8_t kPing = 5;
inline constexpr std::uint8_t kSendReliable = 6;
inline constexpr std::uint8_t kSendUnreliable = 7;
inline constexpr std::uint8_t kSendFragment = 8;
inline constexpr std::uint8_t kSendUnsequenced = 9;
inline constexpr std::uint8_t kSendUnreliableFragment = 12;
inline constexpr std::uint8_t kCommandMask = 0x0F;
inline constexpr std::uint8_t kFlagAcknowledge = 0x80;
inline constexpr std::uint8_t kFlagUnsequenced = 0x40;
inline constexpr std::uint16_t kHeaderSentTime = 0x8000;
inline constexpr std::uint16_t kHeaderCompressed = 0x4000;
inline constexpr std::uint16_t kSessionShift = 12;
inline constexpr std::uint16_t kNoPeer = 0xFFF;
inline constexpr std::uint8_t kNoChannel = 0xFF;
inline constexpr std::uint32_t kMaxFragmentCount = 1024 * 1024;
// ENet's default MTU (what its hosts ask for) and the least it accepts.
inline constexpr std::uint32_t kDefaultMtu = 1392;
inline constexpr std::uint32_t kMinimumMtu = 576;
// The protocol header with its sent time, as every datagram of ours has it.
inline constexpr std::size_t kHeaderSize = 4;
// Sizes of the fixed part of each command, header included.
inline constexpr std::size_t kSendReliableSize = 6;
inline constexpr std::size_t kSendUnsequencedSize = 8;
inline constexpr std::size_t kSendFragmentSize = 24;
// ENet reads datagrams into a buffer of this size (ENET_PROTOCOL_MAXIMUM_MTU).
inline constexpr std::size_t kReceiveBuffer = 4096;
}  // namespace enet_wire

// SEND_FRAGMENT (8), or SEND_UNRELIABLE_FRAGMENT (12) when `unreliable`.
struct FragmentFields {
  bool unreliable = false;
  std::uint8_t channel = 0;
  std::uint16_t sequence = 0;        // the command's own reliableSequenceNumber
  std::uint16_t start_sequence = 0;  // the first fragment's sequence number
  std::uint32_t fragment_count = 0;
  std::uint32_t fragment_number = 0;
  std::uint32_t total_length = 0;
  std::uint32_t fragment_offset = 0;
  std::vector<std::uint8_t> data;
  // The dataLength field; data.size() when unset. A value larger than the
  // bytes that follow claims more than the datagram holds.
  std::optional<std::uint16_t> declared_length;
};

// `payload` cut as an honest ENet sender cuts it: fragments of
// `fragment_length` bytes (the last one shorter) at offsets that are
// multiples of it, with the matching count. Only the fragment geometry is
// filled in (count, number, total length, offset, data); sequence numbers,
// channel and kind are the caller's.
std::vector<FragmentFields> honest_fragments(std::span<const std::uint8_t> payload, std::uint32_t fragment_length);

// The fields of the server's VERIFY_CONNECT.
struct VerifyConnect {
  std::uint16_t server_peer_id = 0;   // the slot to name in our headers
  std::uint8_t incoming_session = 0;  // what the server puts in its headers
  std::uint8_t outgoing_session = 0;  // what we put in ours
  std::uint32_t mtu = 0;
  std::uint32_t channel_count = 0;
};

// Command builders: one command, without the protocol header.
std::vector<std::uint8_t> fragment_command(const FragmentFields& fields);
std::vector<std::uint8_t> reliable_command(std::uint8_t channel, std::uint16_t sequence,
                                           std::span<const std::uint8_t> data,
                                           std::optional<std::uint16_t> declared_length = std::nullopt);
std::vector<std::uint8_t> unsequenced_command(std::uint8_t channel, std::uint16_t group,
                                              std::span<const std::uint8_t> data,
                                              std::optional<std::uint16_t> declared_length = std::nullopt);

class RawEnetPeer {
 public:
  explicit RawEnetPeer(const char* bind_host = "127.0.0.1");
  ~RawEnetPeer();
  RawEnetPeer(const RawEnetPeer&) = delete;
  RawEnetPeer& operator=(const RawEnetPeer&) = delete;

  bool bound() const { return fd_ >= 0; }
  Address address() const;

  // Sends CONNECT to `server` and waits, calling `pump` (which must poll the
  // server) between reads, for VERIFY_CONNECT; acknowledges it. The server
  // reports the connection once it has read that acknowledgement. False
  // when no VERIFY_CONNECT came within `limit`.
  bool connect(const Address& server, const std::function<void()>& pump,
               std::chrono::milliseconds limit = std::chrono::milliseconds(3000));
  // Only the CONNECT, for a test that waits its own way.
  void send_connect(const Address& server);
  // From now on acknowledges nothing: the server's reliable commands (its
  // VERIFY_CONNECT, its pings) go unanswered, as over a dead link.
  void stop_acknowledging() { acknowledging_ = false; }
  // The MTU our CONNECT asks for (ENet's default unless set before
  // connect()). ENet takes the smaller of it and its own, at least 576.
  void request_mtu(std::uint32_t mtu) { requested_mtu_ = mtu; }

  // Reads every datagram waiting: notes acknowledgements of our commands
  // and the server's DISCONNECT, and acknowledges the server's reliable
  // commands (pings among them) so the connection stays alive.
  void service();

  // One datagram to the connected server: our header (its peer slot, the
  // session id it gave us, a sent time) followed by `commands` as given.
  void send_commands(std::span<const std::vector<std::uint8_t>> commands);
  void send_command(const std::vector<std::uint8_t>& command) { send_commands(std::span(&command, 1)); }
  // Any bytes at all, to any address.
  void send_datagram(const Address& to, std::span<const std::uint8_t> bytes);

  const std::optional<VerifyConnect>& verify() const { return verify_; }
  // The payload bytes an honest ENet sender puts in every fragment but the
  // last on this connection: the agreed MTU (from VERIFY_CONNECT) less the
  // protocol header and the SEND_FRAGMENT command. Messages no longer than
  // this are never fragmented. 0 before the connect.
  std::uint32_t fragment_length() const;
  // Data of the server's DISCONNECT (the tickwire DisconnectReason), once seen.
  std::optional<std::uint32_t> disconnect_data() const { return disconnect_data_; }
  // (channel, reliable sequence number) of our commands the server acknowledged.
  const std::set<std::pair<std::uint8_t, std::uint16_t>>& acknowledged() const { return acknowledged_; }
  std::size_t datagrams_received() const { return datagrams_received_; }
  // Every VERIFY_CONNECT read, resends included.
  std::size_t verify_connects_received() const { return verify_connects_received_; }
  std::size_t bytes_received() const { return bytes_received_; }

 private:
  void parse(std::span<const std::uint8_t> datagram);
  std::uint16_t sent_time() const;

  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::uint32_t requested_mtu_ = enet_wire::kDefaultMtu;
  std::optional<Address> server_;
  std::optional<VerifyConnect> verify_;
  std::optional<std::uint32_t> disconnect_data_;
  std::set<std::pair<std::uint8_t, std::uint16_t>> acknowledged_;
  std::size_t datagrams_received_ = 0;
  std::size_t verify_connects_received_ = 0;
  bool acknowledging_ = true;
  std::size_t bytes_received_ = 0;
  std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
};

}  // namespace tickwire::transport::enet_testing
