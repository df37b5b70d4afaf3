#include "forged_datagrams.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace tickwire::transport::enet_testing {
namespace {

constexpr std::uint16_t kSentTimeFlag = 0x8000;
constexpr std::uint16_t kCompressedFlag = 0x4000;
constexpr int kSessionShift = 12;
constexpr std::uint8_t kDisconnect = 4;
constexpr std::uint8_t kPing = 5;
constexpr std::uint8_t kAcknowledgeFlag = 0x80;
constexpr std::uint8_t kUnsequencedFlag = 0x40;
constexpr std::uint8_t kConnectionChannel = 0xFF;

void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

std::uint16_t peer_header(std::uint16_t slot, std::uint8_t session) {
  return static_cast<std::uint16_t>((slot & 0x0FFF) | ((session & 3) << kSessionShift));
}

}  // namespace

std::vector<std::uint8_t> enet_datagram(std::uint16_t slot, std::uint8_t session,
                                        std::span<const std::uint8_t> command) {
  std::vector<std::uint8_t> out(4 + command.size());
  const auto header = static_cast<std::uint16_t>(peer_header(slot, session) | kSentTimeFlag);
  out[0] = static_cast<std::uint8_t>(header >> 8);
  out[1] = static_cast<std::uint8_t>(header);
  out[2] = 0x12;  // sent time: anything
  out[3] = 0x34;
  std::copy(command.begin(), command.end(), out.begin() + 4);
  return out;
}

std::vector<std::uint8_t> enet_disconnect_command(std::uint32_t data) {
  std::vector<std::uint8_t> out{static_cast<std::uint8_t>(kDisconnect | kUnsequencedFlag), kConnectionChannel};
  put_u16(out, 0);
  put_u16(out, static_cast<std::uint16_t>(data >> 16));
  put_u16(out, static_cast<std::uint16_t>(data));
  return out;
}

std::vector<std::uint8_t> enet_ping_command(std::uint16_t sequence) {
  std::vector<std::uint8_t> out{static_cast<std::uint8_t>(kPing | kAcknowledgeFlag), kConnectionChannel};
  put_u16(out, sequence);
  return out;
}

std::vector<std::uint8_t> legacy_session_datagram(std::uint16_t slot, std::uint8_t session,
                                                  std::span<const std::uint8_t> payload) {
  std::vector<std::uint8_t> out(2 + payload.size());
  const auto header = static_cast<std::uint16_t>(peer_header(slot, session) | kCompressedFlag);
  out[0] = static_cast<std::uint8_t>(header >> 8);
  out[1] = static_cast<std::uint8_t>(header);
  std::copy(payload.begin(), payload.end(), out.begin() + 2);
  return out;
}

std::vector<std::uint8_t> sealed_datagram(bool session_payload, std::uint32_t connection_id,
                                          std::uint64_t packet_number, std::span<const std::uint8_t> body,
                                          std::span<const std::uint8_t> tag) {
  std::vector<std::uint8_t> out(kSealedHeaderSize + body.size() + tag.size());
  out[0] = static_cast<std::uint8_t>(0x40 | (session_payload ? 0x20 : 0) | ((packet_number >> 8) & 0x1F));
  for (std::size_t i = 0; i < 4; ++i) out[1 + i] = static_cast<std::uint8_t>(connection_id >> (8 * i));
  out[5] = static_cast<std::uint8_t>(packet_number);
  std::copy(body.begin(), body.end(), out.begin() + kSealedHeaderSize);
  std::copy(tag.begin(), tag.end(), out.begin() + static_cast<std::ptrdiff_t>(kSealedHeaderSize + body.size()));
  return out;
}

bool looks_sealed(std::span<const std::uint8_t> datagram) {
  return datagram.size() >= kSealedHeaderSize + kSealedTagSize && (datagram[0] & 0xC0) == 0x40;
}

std::uint64_t spoof_budget() {
  if (const char* text = std::getenv("TICKWIRE_SPOOF_BUDGET")) {
    const std::uint64_t value = std::strtoull(text, nullptr, 10);
    if (value > 0) return value;
  }
  return std::uint64_t{1} << 16;
}

spoof::Ipv4Endpoint raw_endpoint(const Address& address) {
  const std::optional<spoof::Ipv4Endpoint> endpoint = spoof::ipv4_endpoint(address);
  if (!endpoint) throw std::invalid_argument("not an IPv4 address for a raw socket: " + address.to_string());
  return *endpoint;
}

SprayResult spray(spoof::RawSender& socket, const Address& from_address, const Address& to_address,
                  const ForgedContent& content, std::uint64_t budget, std::mt19937_64& rng,
                  const std::function<void()>& between, std::size_t batch) {
  const spoof::Ipv4Endpoint from = raw_endpoint(from_address);
  const spoof::Ipv4Endpoint to = raw_endpoint(to_address);
  SprayResult result;
  const auto count = [&](bool sent) {
    ++result.sent;
    if (!sent) ++result.refused;
    if (result.sent % batch == 0) between();
  };
  for (std::uint64_t sweep = 0; sweep < content.legacy_sweeps && content.legacy; ++sweep) {
    for (std::uint16_t slot = 0; slot < content.slots; ++slot) {
      for (std::uint8_t session = 0; session < kEnetSessions; ++session) {
        if (result.sent >= budget) return result;
        count(socket.send(from, to, content.legacy(slot, session)));
        ++result.legacy;
      }
    }
  }
  std::vector<std::uint8_t> tag(kSealedTagSize);
  bool session_payload = content.sealed_session_payload;
  while (result.sent < budget) {
    // An off-path attacker knows neither the id nor how far the packet
    // numbers have come: a random id and an early packet number.
    const auto connection_id = static_cast<std::uint32_t>(rng());
    const std::uint64_t packet_number = rng() % 8192;
    for (auto& b : tag) b = static_cast<std::uint8_t>(rng());
    count(socket.send(from, to,
                      sealed_datagram(session_payload, connection_id, packet_number, content.sealed_body, tag)));
    ++result.sealed;
    session_payload = !session_payload;
  }
  between();
  return result;
}

}  // namespace tickwire::transport::enet_testing
