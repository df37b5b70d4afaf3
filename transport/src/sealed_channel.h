#pragma once
// Sealed datagrams: how every datagram of a session travels once the
// handshake has agreed its keys (docs/wire-format.md, "Sealed datagrams").
//
//   offset size
//   0      1    0b01K_PPPPP: K 0 = an ENet datagram inside, 1 = a session
//               payload inside; PPPPP = packet number bits 12..8
//   1      4    connection id, little-endian
//   5      1    packet number bits 7..0
//   6      n    ciphertext (ChaCha20-Poly1305 IETF, or AES-256-GCM when
//               the handshake chose it: SessionParams::cipher)
//   6+n    16   tag (absent in a plaintext session)
//
// Packet numbers count up from 0 in each direction, and each direction
// has its own key, so the number alone is a nonce that never repeats. The
// receiver rebuilds a number from its 13 low bits as the one nearest the
// highest number it has verified, and keeps a window of the numbers it
// has seen; the window moves only once a datagram's tag verifies, so a
// forged datagram changes nothing. Kept free of ENet.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "session_params.h"

namespace tickwire::transport {

enum class SealedKind : std::uint8_t { kEnet = 0, kSession = 1 };

inline constexpr std::size_t kSealedHeaderBytes = 6;
inline constexpr std::size_t kSealTagBytes = 16;
inline constexpr std::size_t kSealOverheadBytes = kSealedHeaderBytes + kSealTagBytes;
inline constexpr int kTruncatedNumberBits = 13;

// True when the first byte marks a sealed datagram (0x40 to 0x7F), whatever
// follows. ENet never sets that bit pattern (it is its compressed flag,
// never enabled here) and challenge datagrams start 0xC7.
bool is_sealed_datagram(std::span<const std::uint8_t> datagram);

// The connection id a sealed datagram names; none when it is too short to
// be one.
std::optional<std::uint32_t> sealed_connection_id(std::span<const std::uint8_t> datagram);

// Which packet numbers a receiver has seen: the highest verified one and
// the kWindow before it.
class ReplayWindow {
 public:
  static constexpr std::uint64_t kWindow = 256;

  // The full packet number whose low 13 bits are `truncated`: the one
  // nearest the number after the highest seen.
  std::uint64_t expand(std::uint32_t truncated) const;
  // Not seen before and not older than the window.
  bool fresh(std::uint64_t number) const;
  // Records a number whose datagram verified.
  void accept(std::uint64_t number);
  std::optional<std::uint64_t> highest() const;

 private:
  bool seen(std::uint64_t number) const;

  bool any_ = false;
  std::uint64_t highest_ = 0;
  std::array<std::uint64_t, kWindow / 64> bits_{};  // bit (n % kWindow) for n in the window
};

enum class OpenStatus : std::uint8_t {
  kOk,
  kMalformed,  // too short, or not a sealed datagram
  kTooOld,     // behind the replay window
  kReplayed,   // a number already verified
  kForged,     // the tag does not verify: altered, forged or another key
};
const char* to_string(OpenStatus status);

struct Opened {
  OpenStatus status = OpenStatus::kMalformed;
  SealedKind kind = SealedKind::kEnet;
  std::size_t size = 0;  // plaintext bytes written
};

// Whether this CPU can run libsodium's AES-256-GCM (AES-NI and PCLMUL): a
// session may seal with it only when both ends can. Starts libsodium, which
// detects the CPU's features; false when it cannot start.
bool aes256gcm_available();

// One session's sending and receiving state.
class SealedChannel {
 public:
  // An AES-256-GCM session on a CPU without AES instructions (which the
  // handshake never agrees) throws std::invalid_argument.
  explicit SealedChannel(const SessionParams& params);
  ~SealedChannel();
  SealedChannel(const SealedChannel&) = delete;
  SealedChannel& operator=(const SealedChannel&) = delete;
  SealedChannel(SealedChannel&& other) noexcept;
  SealedChannel& operator=(SealedChannel&& other) noexcept;

  std::uint32_t connection_id() const { return params_.connection_id; }
  bool plaintext() const { return params_.plaintext; }
  SessionCipher cipher() const { return params_.cipher; }
  std::size_t overhead() const { return params_.plaintext ? kSealedHeaderBytes : kSealOverheadBytes; }

  // Seals `plaintext` into `out`, which must hold plaintext.size() +
  // overhead() bytes; returns the datagram's size.
  std::size_t seal(SealedKind kind, std::span<const std::uint8_t> plaintext, std::span<std::uint8_t> out);

  // Opens a datagram naming this connection into `out` (at least the
  // datagram's size). On anything but kOk nothing here changes.
  Opened open(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> out);

  std::uint64_t sent() const { return next_send_; }

 private:
  // libsodium's precomputed AES-256-GCM key schedules, one per direction
  // (16-byte aligned, which the heap allocation guarantees); only in an
  // encrypted AES-256-GCM session. Wiped when dropped.
  struct AesStates;
  struct AesStatesDeleter {
    void operator()(AesStates* states) const;
  };

  void wipe();
  // With the session's cipher; the associated data is the 6-byte header.
  std::size_t encrypt(std::uint8_t* body, std::span<const std::uint8_t> plaintext, const std::uint8_t* header,
                      std::uint64_t number) const;
  // False when the tag does not verify.
  bool decrypt(std::uint8_t* out, std::span<const std::uint8_t> body, const std::uint8_t* header, std::uint64_t number,
               std::size_t& written) const;

  SessionParams params_;
  std::unique_ptr<AesStates, AesStatesDeleter> aes_;
  std::uint64_t next_send_ = 0;
  ReplayWindow window_;
};

}  // namespace tickwire::transport
