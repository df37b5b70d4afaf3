#pragma once
// The record streams of the two transport targets, read by the targets and
// written by their seed generator (transport_corpus.cpp). The layouts are
// described at the top of address_validation_fuzz.cpp and
// enet_receive_fuzz.cpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace tickwire::fuzz {

// ---- address_validation ----

enum class ChallengeAction : std::uint8_t { kToServer = 0, kToClient = 1, kPump = 2, kClient = 3 };

struct ChallengeRecord {
  ChallengeAction action = ChallengeAction::kClient;
  std::uint8_t endpoint = 0;  // 0..3
  std::uint8_t step = 0;      // index into the target's time steps, 0..7
  bool flag = false;
  std::uint8_t load = 0;  // kToServer only
  std::span<const std::uint8_t> datagram;
};

inline bool carries_datagram(ChallengeAction a) {
  return a == ChallengeAction::kToServer || a == ChallengeAction::kToClient;
}

// Reads a little-endian u16 length and the bytes after it; a record cut
// short takes what is left.
inline std::span<const std::uint8_t> read_sized(std::span<const std::uint8_t> input, std::size_t& at) {
  std::size_t length = 0;
  for (int i = 0; i < 2 && at < input.size(); ++i) length |= std::size_t{input[at++]} << (8 * i);
  length = std::min(length, input.size() - at);
  const auto bytes = input.subspan(at, length);
  at += length;
  return bytes;
}

inline void append_sized(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> bytes) {
  out.push_back(static_cast<std::uint8_t>(bytes.size() & 0xFFU));
  out.push_back(static_cast<std::uint8_t>(bytes.size() >> 8));
  out.insert(out.end(), bytes.begin(), bytes.end());
}

class ChallengeRecordReader {
 public:
  explicit ChallengeRecordReader(std::span<const std::uint8_t> records) : input_(records) {}

  std::optional<ChallengeRecord> next() {
    if (at_ >= input_.size()) return std::nullopt;
    const std::uint8_t control = input_[at_++];
    ChallengeRecord r;
    r.action = static_cast<ChallengeAction>(control & 3U);
    r.endpoint = static_cast<std::uint8_t>((control >> 2) & 3U);
    r.step = static_cast<std::uint8_t>((control >> 4) & 7U);
    r.flag = (control & 0x80U) != 0;
    if (r.action == ChallengeAction::kToServer && at_ < input_.size()) r.load = input_[at_++];
    if (carries_datagram(r.action)) r.datagram = read_sized(input_, at_);
    return r;
  }

 private:
  std::span<const std::uint8_t> input_;
  std::size_t at_ = 0;
};

inline void append_challenge_record(std::vector<std::uint8_t>& out, ChallengeAction action, std::uint8_t endpoint,
                                    std::uint8_t step, bool flag, std::span<const std::uint8_t> datagram = {},
                                    std::uint8_t load = 0) {
  out.push_back(static_cast<std::uint8_t>(static_cast<unsigned>(action) | (unsigned{endpoint} << 2) |
                                          (unsigned{step} << 4) | (flag ? 0x80U : 0U)));
  if (action == ChallengeAction::kToServer) out.push_back(load);
  if (carries_datagram(action)) append_sized(out, datagram);
}

// ---- enet_receive ----

struct EnetDatagram {
  bool open = false;  // to the server without address validation
  std::span<const std::uint8_t> bytes;
};

class EnetRecordReader {
 public:
  explicit EnetRecordReader(std::span<const std::uint8_t> input) : input_(input) {}

  std::optional<EnetDatagram> next() {
    if (at_ >= input_.size()) return std::nullopt;
    EnetDatagram d;
    d.open = (input_[at_++] & 1U) != 0;
    d.bytes = read_sized(input_, at_);
    return d;
  }

 private:
  std::span<const std::uint8_t> input_;
  std::size_t at_ = 0;
};

inline void append_enet_record(std::vector<std::uint8_t>& out, bool open, std::span<const std::uint8_t> bytes) {
  out.push_back(open ? 1 : 0);
  append_sized(out, bytes);
}

}  // namespace tickwire::fuzz
