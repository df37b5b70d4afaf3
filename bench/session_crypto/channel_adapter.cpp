#include "channel_adapter.h"

namespace tickwire::bench {

namespace {

// The 13 packet-number bits a sealed datagram carries (bytes 0 and 5).
std::uint32_t truncated_number(std::span<const std::uint8_t> datagram) {
  return (static_cast<std::uint32_t>(datagram[0] & 0x1FU) << 8) | datagram[5];
}

}  // namespace

std::vector<transport::SessionCipher> available_ciphers() {
  std::vector<transport::SessionCipher> ciphers{transport::SessionCipher::kChaCha20Poly1305};
  if (transport::aes256gcm_available()) ciphers.push_back(transport::SessionCipher::kAes256Gcm);
  return ciphers;
}

const char* cipher_name(transport::SessionCipher cipher) { return transport::to_string(cipher); }

const char* cipher_json_id(transport::SessionCipher cipher) {
  return cipher == transport::SessionCipher::kAes256Gcm ? "aes256gcm" : "chacha20poly1305_ietf";
}

BenchChannel::BenchChannel(const transport::SessionParams& params) : channel_(params) {}

std::size_t BenchChannel::seal(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out) {
  return channel_.seal(transport::SealedKind::kSession, payload, out);
}

std::optional<std::size_t> BenchChannel::open(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> out) {
  // The transport finds the session by the id before opening.
  if (transport::sealed_connection_id(datagram) != channel_.connection_id()) return std::nullopt;
  const transport::Opened opened = channel_.open(datagram, out);
  if (opened.status != transport::OpenStatus::kOk) return std::nullopt;
  return opened.size;
}

void BenchWindow::accept(std::span<const std::uint8_t> datagram) {
  window_.accept(window_.expand(truncated_number(datagram)));
}

bool BenchWindow::would_accept(std::span<const std::uint8_t> datagram) const {
  return window_.fresh(window_.expand(truncated_number(datagram)));
}

}  // namespace tickwire::bench
