#include "channel_adapter.h"

#include <sodium.h>

namespace tickwire::bench {

namespace {

constexpr std::size_t kHeaderSize = 6;
constexpr std::uint8_t kSealedMark = 0x40;  // 0b010_00000: an ENet datagram inside
constexpr std::uint64_t kPacketNumberBits = 13;
constexpr std::uint64_t kPacketNumberSpan = std::uint64_t{1} << kPacketNumberBits;
constexpr std::uint64_t kWindowBits = 256;

using Nonce = std::array<std::uint8_t, crypto_aead_chacha20poly1305_IETF_NPUBBYTES>;

Nonce nonce_of(std::uint64_t packet_number) {
  Nonce nonce{};
  for (std::size_t i = 0; i < 8; ++i) nonce[i] = static_cast<std::uint8_t>(packet_number >> (8 * i));
  return nonce;
}

std::uint32_t read_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

}  // namespace

BenchChannel::BenchChannel(const transport::SessionParams& params) : params_(params) {}

std::size_t BenchChannel::seal(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out) {
  const std::uint64_t number = next_send_++;
  out[0] = static_cast<std::uint8_t>(kSealedMark | ((number >> 8) & 0x1F));
  for (std::size_t i = 0; i < 4; ++i) out[1 + i] = static_cast<std::uint8_t>(params_.connection_id >> (8 * i));
  out[5] = static_cast<std::uint8_t>(number);
  const Nonce nonce = nonce_of(number);
  unsigned long long sealed = 0;  // NOLINT(google-runtime-int): libsodium's type
  crypto_aead_chacha20poly1305_ietf_encrypt(out.data() + kHeaderSize, &sealed, payload.data(), payload.size(),
                                            out.data(), kHeaderSize, nullptr, nonce.data(), params_.keys.send.data());
  return kHeaderSize + static_cast<std::size_t>(sealed);
}

std::optional<std::size_t> BenchChannel::open(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> out) {
  if (datagram.size() < kDatagramOverhead || (datagram[0] & 0xE0) != kSealedMark) return std::nullopt;
  if (read_u32(datagram.data() + 1) != params_.connection_id) return std::nullopt;
  const std::uint64_t number = rebuild_packet_number(datagram);
  if (!is_new(number)) return std::nullopt;
  const Nonce nonce = nonce_of(number);
  unsigned long long opened = 0;  // NOLINT(google-runtime-int): libsodium's type
  if (crypto_aead_chacha20poly1305_ietf_decrypt(out.data(), &opened, nullptr, datagram.data() + kHeaderSize,
                                                datagram.size() - kHeaderSize, datagram.data(), kHeaderSize,
                                                nonce.data(), params_.keys.receive.data()) != 0) {
    return std::nullopt;
  }
  mark_received(number);
  return static_cast<std::size_t>(opened);
}

bool BenchChannel::would_accept(std::span<const std::uint8_t> datagram) const {
  return is_new(rebuild_packet_number(datagram));
}

// The full number nearest the next expected one with the 13 bits sent.
std::uint64_t BenchChannel::rebuild_packet_number(std::span<const std::uint8_t> datagram) const {
  const std::uint64_t low = (std::uint64_t{datagram[0]} & 0x1F) << 8 | datagram[5];
  const std::uint64_t expected = received_any_ ? highest_received_ + 1 : 0;
  std::uint64_t candidate = (expected & ~(kPacketNumberSpan - 1)) | low;
  if (candidate + kPacketNumberSpan / 2 < expected) {
    candidate += kPacketNumberSpan;
  } else if (candidate > expected + kPacketNumberSpan / 2 && candidate >= kPacketNumberSpan) {
    candidate -= kPacketNumberSpan;
  }
  return candidate;
}

bool BenchChannel::is_new(std::uint64_t packet_number) const {
  if (!received_any_ || packet_number > highest_received_) return true;
  const std::uint64_t age = highest_received_ - packet_number;
  if (age >= kWindowBits) return false;
  return (window_[age / 64] >> (age % 64) & 1U) == 0;
}

void BenchChannel::mark_received(std::uint64_t packet_number) {
  if (received_any_ && packet_number <= highest_received_) {
    const std::uint64_t age = highest_received_ - packet_number;
    window_[age / 64] |= std::uint64_t{1} << (age % 64);
    return;
  }
  const std::uint64_t shift = received_any_ ? packet_number - highest_received_ : kWindowBits;
  if (shift >= kWindowBits) {
    window_ = {};
  } else {
    // Shift the 256-bit window up by `shift` bits, word by word.
    const std::size_t words = static_cast<std::size_t>(shift / 64);
    const unsigned bits = static_cast<unsigned>(shift % 64);
    for (std::size_t i = window_.size(); i-- > 0;) {
      std::uint64_t v = i >= words ? window_[i - words] << bits : 0;
      if (bits != 0 && i > words) v |= window_[i - words - 1] >> (64 - bits);
      window_[i] = v;
    }
  }
  window_[0] |= 1U;
  highest_received_ = packet_number;
  received_any_ = true;
}

}  // namespace tickwire::bench
