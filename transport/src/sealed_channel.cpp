#include "sealed_channel.h"

#include <sodium.h>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

namespace tickwire::transport {
namespace {

constexpr std::uint8_t kSealedMark = 0x40;  // 0b01 in the top two bits
constexpr std::uint8_t kTopBits = 0xC0;
constexpr std::uint8_t kKindBit = 0x20;
constexpr std::uint8_t kNumberHighBits = 0x1F;
constexpr std::uint64_t kNumberSpan = std::uint64_t{1} << kTruncatedNumberBits;
constexpr std::uint64_t kNumberMask = kNumberSpan - 1;

// Both ciphers fit the same datagram: same key, nonce and tag sizes.
static_assert(kSealTagBytes == crypto_aead_chacha20poly1305_ietf_ABYTES);
static_assert(kSessionKeySize == crypto_aead_chacha20poly1305_ietf_KEYBYTES);
static_assert(kSealTagBytes == crypto_aead_aes256gcm_ABYTES);
static_assert(kSessionKeySize == crypto_aead_aes256gcm_KEYBYTES);
static_assert(crypto_aead_aes256gcm_NPUBBYTES == crypto_aead_chacha20poly1305_ietf_NPUBBYTES);

using Nonce = std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_NPUBBYTES>;

Nonce nonce_for(std::uint64_t number) {
  Nonce nonce{};
  for (std::size_t i = 0; i < 8; ++i) nonce[i] = static_cast<std::uint8_t>(number >> (8 * i));
  return nonce;
}

void write_header(std::span<std::uint8_t> out, SealedKind kind, std::uint32_t id, std::uint64_t number) {
  out[0] = static_cast<std::uint8_t>(kSealedMark | (kind == SealedKind::kSession ? kKindBit : 0) |
                                     ((number >> 8) & kNumberHighBits));
  for (std::size_t i = 0; i < 4; ++i) out[1 + i] = static_cast<std::uint8_t>(id >> (8 * i));
  out[5] = static_cast<std::uint8_t>(number & 0xFFU);
}

std::uint32_t truncated_number(std::span<const std::uint8_t> datagram) {
  return (static_cast<std::uint32_t>(datagram[0] & kNumberHighBits) << 8) | datagram[5];
}

}  // namespace

bool is_sealed_datagram(std::span<const std::uint8_t> datagram) {
  return !datagram.empty() && (datagram[0] & kTopBits) == kSealedMark;
}

std::optional<std::uint32_t> sealed_connection_id(std::span<const std::uint8_t> datagram) {
  if (datagram.size() < kSealedHeaderBytes || !is_sealed_datagram(datagram)) return std::nullopt;
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < 4; ++i) id |= std::uint32_t{datagram[1 + i]} << (8 * i);
  return id;
}

std::uint64_t ReplayWindow::expand(std::uint32_t truncated) const {
  const std::uint64_t expected = any_ ? highest_ + 1 : 0;
  const std::uint64_t candidate = (expected & ~kNumberMask) | (truncated & kNumberMask);
  constexpr std::uint64_t kHalf = kNumberSpan / 2;
  if (candidate + kHalf <= expected && candidate <= std::numeric_limits<std::uint64_t>::max() - kNumberSpan) {
    return candidate + kNumberSpan;
  }
  if (candidate > expected + kHalf && candidate >= kNumberSpan) return candidate - kNumberSpan;
  return candidate;
}

bool ReplayWindow::seen(std::uint64_t number) const {
  const std::uint64_t slot = number % kWindow;
  return (bits_[slot / 64] >> (slot % 64) & 1U) != 0;
}

bool ReplayWindow::fresh(std::uint64_t number) const {
  if (!any_ || number > highest_) return true;
  if (highest_ - number >= kWindow) return false;
  return !seen(number);
}

void ReplayWindow::accept(std::uint64_t number) {
  if (!any_ || number > highest_) {
    // Clear the slots the window moves past: they now stand for newer numbers.
    const std::uint64_t from = any_ ? highest_ + 1 : 0;
    if (number - from >= kWindow) {
      bits_.fill(0);
    } else {
      for (std::uint64_t n = from; n < number; ++n) {
        const std::uint64_t slot = n % kWindow;
        bits_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
      }
    }
    highest_ = number;
    any_ = true;
  }
  const std::uint64_t slot = number % kWindow;
  bits_[slot / 64] |= std::uint64_t{1} << (slot % 64);
}

std::optional<std::uint64_t> ReplayWindow::highest() const {
  if (!any_) return std::nullopt;
  return highest_;
}

const char* to_string(OpenStatus status) {
  switch (status) {
    case OpenStatus::kOk: return "ok";
    case OpenStatus::kMalformed: return "malformed";
    case OpenStatus::kTooOld: return "too old";
    case OpenStatus::kReplayed: return "replayed";
    case OpenStatus::kForged: return "failed to verify";
  }
  return "unknown";
}

bool aes256gcm_available() { return sodium_init() >= 0 && crypto_aead_aes256gcm_is_available() != 0; }

// libsodium's AES-256-GCM code reads its states with aligned loads.
struct SealedChannel::AesStates {
  alignas(16) crypto_aead_aes256gcm_state send;
  alignas(16) crypto_aead_aes256gcm_state receive;
};
static_assert(alignof(crypto_aead_aes256gcm_state) >= 16);

void SealedChannel::AesStatesDeleter::operator()(AesStates* states) const {
  sodium_memzero(states, sizeof *states);
  delete states;  // NOLINT(cppcoreguidelines-owning-memory): unique_ptr's deleter
}

SealedChannel::SealedChannel(const SessionParams& params) : params_(params) {
  if (params_.plaintext || params_.cipher != SessionCipher::kAes256Gcm) return;
  // Without AES instructions libsodium has no AES-256-GCM to run.
  if (!aes256gcm_available()) {
    wipe();
    throw std::invalid_argument("AES-256-GCM session on a CPU without AES instructions");
  }
  aes_.reset(new AesStates);  // NOLINT(cppcoreguidelines-owning-memory): owned at once
  crypto_aead_aes256gcm_beforenm(&aes_->send, params_.keys.send.data());
  crypto_aead_aes256gcm_beforenm(&aes_->receive, params_.keys.receive.data());
  // The key schedules are all that is used from now on.
  wipe();
}

SealedChannel::~SealedChannel() { wipe(); }

// The states move with their pointer; the moved-from channel keeps no key.
SealedChannel::SealedChannel(SealedChannel&& other) noexcept
    : params_(other.params_), aes_(std::move(other.aes_)), next_send_(other.next_send_), window_(other.window_) {
  other.wipe();
}

SealedChannel& SealedChannel::operator=(SealedChannel&& other) noexcept {
  if (this != &other) {
    wipe();
    params_ = other.params_;
    aes_ = std::move(other.aes_);  // the states held before are wiped as they go
    next_send_ = other.next_send_;
    window_ = other.window_;
    other.wipe();
  }
  return *this;
}

void SealedChannel::wipe() {
  sodium_memzero(params_.keys.send.data(), params_.keys.send.size());
  sodium_memzero(params_.keys.receive.data(), params_.keys.receive.size());
}

std::size_t SealedChannel::seal(SealedKind kind, std::span<const std::uint8_t> plaintext, std::span<std::uint8_t> out) {
  const std::uint64_t number = next_send_++;
  write_header(out, kind, params_.connection_id, number);
  std::uint8_t* body = out.data() + kSealedHeaderBytes;
  if (params_.plaintext) {
    if (!plaintext.empty()) std::memmove(body, plaintext.data(), plaintext.size());
    return kSealedHeaderBytes + plaintext.size();
  }
  return kSealedHeaderBytes + encrypt(body, plaintext, out.data(), number);
}

std::size_t SealedChannel::encrypt(std::uint8_t* body, std::span<const std::uint8_t> plaintext,
                                   const std::uint8_t* header, std::uint64_t number) const {
  const Nonce nonce = nonce_for(number);
  unsigned long long written = 0;  // NOLINT(google-runtime-int): libsodium's type
  if (aes_) {
    crypto_aead_aes256gcm_encrypt_afternm(body, &written, plaintext.data(), plaintext.size(), header,
                                          kSealedHeaderBytes, nullptr, nonce.data(), &aes_->send);
  } else {
    crypto_aead_chacha20poly1305_ietf_encrypt(body, &written, plaintext.data(), plaintext.size(), header,
                                              kSealedHeaderBytes, nullptr, nonce.data(), params_.keys.send.data());
  }
  return static_cast<std::size_t>(written);
}

bool SealedChannel::decrypt(std::uint8_t* out, std::span<const std::uint8_t> body, const std::uint8_t* header,
                            std::uint64_t number, std::size_t& written) const {
  const Nonce nonce = nonce_for(number);
  unsigned long long length = 0;  // NOLINT(google-runtime-int): libsodium's type
  const int verified =
      aes_ ? crypto_aead_aes256gcm_decrypt_afternm(out, &length, nullptr, body.data(), body.size(), header,
                                                   kSealedHeaderBytes, nonce.data(), &aes_->receive)
           : crypto_aead_chacha20poly1305_ietf_decrypt(out, &length, nullptr, body.data(), body.size(), header,
                                                       kSealedHeaderBytes, nonce.data(), params_.keys.receive.data());
  written = static_cast<std::size_t>(length);
  return verified == 0;
}

Opened SealedChannel::open(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> out) {
  Opened result;
  if (datagram.size() < overhead() || !is_sealed_datagram(datagram) || out.size() < datagram.size()) return result;
  const std::uint64_t number = window_.expand(truncated_number(datagram));
  if (!window_.fresh(number)) {
    result.status = window_.highest() && *window_.highest() >= number + ReplayWindow::kWindow ? OpenStatus::kTooOld
                                                                                              : OpenStatus::kReplayed;
    return result;
  }
  const auto body = datagram.subspan(kSealedHeaderBytes);
  if (params_.plaintext) {
    std::memcpy(out.data(), body.data(), body.size());
    result.size = body.size();
  } else if (!decrypt(out.data(), body, datagram.data(), number, result.size)) {
    result.size = 0;
    result.status = OpenStatus::kForged;
    return result;
  }
  window_.accept(number);
  result.status = OpenStatus::kOk;
  result.kind = (datagram[0] & kKindBit) != 0 ? SealedKind::kSession : SealedKind::kEnet;
  return result;
}

}  // namespace tickwire::transport
