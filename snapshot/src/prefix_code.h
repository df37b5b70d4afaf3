#pragma once
// Prefix codes and the bit buffers they are written to, for the part of a
// codebook body whose pieces are concatenated: a range coder's output for
// an entity depends on the coder's state where the entity starts, so it
// cannot be coded once and copied into many packets; a prefix code's bits
// can. Private to the snapshot library.
//
// Bits are packed least significant first, as everywhere on the wire; a
// code's bits go out first bit first, so a reader takes them one at a time.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace tickwire::snapshot::detail {

// A growing string of bits in 64-bit words; the bits past the end of the
// last word are always zero, so strings append by shifting words in.
class BitSink {
 public:
  void clear() {
    words_.clear();
    bits_ = 0;
  }
  // `value` < 2^count, count in [0, 64].
  void put(std::uint64_t value, int count) {
    if (count == 0) return;
    const std::size_t at = bits_ & 63U;
    if (at == 0) {
      words_.push_back(value);
    } else {
      words_.back() |= value << at;
      if (at + static_cast<std::size_t>(count) > 64) words_.push_back(value >> (64 - at));
    }
    bits_ += static_cast<std::size_t>(count);
  }
  // Appends `bits` bits held in `words` (zero past the end, as a sink's).
  void append(std::span<const std::uint64_t> words, std::size_t bits) {
    std::size_t left = bits;
    for (const std::uint64_t w : words) {
      if (left == 0) break;
      const int n = left < 64 ? static_cast<int>(left) : 64;
      put(w, n);
      left -= static_cast<std::size_t>(n);
    }
  }
  void append(const BitSink& other) { append(other.words_, other.bits_); }
  // Appends the bits as ceil(size / 8) bytes, the last zero-padded.
  void append_bytes_to(std::vector<std::uint8_t>& out) const;

  std::size_t size() const { return bits_; }
  std::span<const std::uint64_t> words() const { return words_; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t bits_ = 0;
};

// Reads what a BitSink wrote. Input is hostile: reading past the end
// yields zeros and sets overran(), never touches memory outside the span.
class BitSource {
 public:
  explicit BitSource(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  bool bit() {
    const std::size_t byte = pos_ >> 3;
    if (byte >= bytes_.size()) {
      overran_ = true;
      return false;
    }
    const bool b = ((std::uint32_t{bytes_[byte]} >> (pos_ & 7U)) & 1U) != 0;
    ++pos_;
    return b;
  }
  // count in [0, 32].
  std::uint32_t bits(int count) {
    if (count <= 24 && pos_ + static_cast<std::size_t>(count) <= bytes_.size() * 8) {
      const std::uint32_t v = peek(count);
      pos_ += static_cast<std::size_t>(count);
      return v;
    }
    std::uint32_t v = 0;
    for (int i = 0; i < count; ++i) v |= static_cast<std::uint32_t>(bit()) << i;
    return v;
  }
  bool overran() const { return overran_; }
  // True when every byte was read and the padding of the last one is zero:
  // anything else is bytes the sender did not write.
  bool at_clean_end() const;

  // The next `count` bits (at most 24) without taking them; zeros past the
  // end.
  std::uint32_t peek(int count) const {
    const std::size_t byte = pos_ >> 3;
    std::uint32_t v = 0;
    if (std::endian::native == std::endian::little && byte + 4 <= bytes_.size()) {
      // Away from the end, one load: a client peeks a few times an entity.
      std::memcpy(&v, bytes_.data() + byte, 4);
    } else {
      for (std::size_t i = 0; i < 4 && byte + i < bytes_.size(); ++i) v |= std::uint32_t{bytes_[byte + i]} << (8 * i);
    }
    return (v >> (pos_ & 7U)) & ((1U << count) - 1U);
  }
  // Away from the end (eight bytes left from the current one), the next 57
  // bits in one load, without taking them; false nearer the end, where
  // peek() and bits() do. A code and the raw bits after it come out of one
  // window, without a bounds check each.
  bool peek_wide(std::uint64_t& window) const {
    const std::size_t byte = pos_ >> 3;
    if (std::endian::native != std::endian::little || byte + 8 > bytes_.size()) return false;
    std::memcpy(&window, bytes_.data() + byte, 8);
    window >>= (pos_ & 7U);
    return true;
  }
  // Takes `count` bits of a window peek_wide() gave (count <= 57).
  void take_peeked(int count) { pos_ += static_cast<std::size_t>(count); }
  // Takes `count` bits peeked; false (and overran()) when fewer are left.
  bool skip(int count) {
    if (pos_ + static_cast<std::size_t>(count) > bytes_.size() * 8) {
      overran_ = true;
      return false;
    }
    pos_ += static_cast<std::size_t>(count);
    return true;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  bool overran_ = false;
};

// A canonical prefix (Huffman) code over symbols 0..n-1, built from
// integer weights so that both ends, whatever their floating point, build
// the same code from the same codebook. Code lengths are limited to
// kMaxLength; a single symbol gets the empty code.
class PrefixCode {
 public:
  static constexpr int kMaxLength = 20;

  // Weights of 0 count as 1: every symbol gets a code, so an encoder can
  // code anything it meets, however unlikely the training found it.
  void build(std::span<const std::uint64_t> weights);

  void put(BitSink& out, std::uint32_t symbol) const { out.put(code_[symbol], length_[symbol]); }
  int length(std::uint32_t symbol) const { return length_[symbol]; }
  std::size_t size() const { return length_.size(); }
  // False when the input ends first (the code is complete, so every bit
  // string names a symbol).
  bool read(BitSource& in, std::uint32_t& symbol) const;
  // The code at the low bits of `window` when it is one of the short ones
  // (at most 8 bits): symbol << 5 | length, else 0 (read() then). For a
  // reader that takes the bits after the code from the same window.
  std::uint32_t read_short(std::uint64_t window) const {
    return fast_[static_cast<std::size_t>(window) & ((std::size_t{1} << fast_bits_) - 1U)];
  }

 private:
  std::vector<std::uint8_t> length_;  // by symbol
  std::vector<std::uint32_t> code_;   // by symbol, first bit lowest
  // Canonical decoding: per length, how many codes and the first code and
  // its index into sorted_.
  std::uint32_t count_[kMaxLength + 1] = {};
  std::uint32_t first_code_[kMaxLength + 1] = {};
  std::uint32_t first_index_[kMaxLength + 1] = {};
  std::vector<std::uint32_t> sorted_;  // symbols by (length, symbol)
  int max_length_ = 0;
  // The codes up to kFastBits long, by their bits read ahead: symbol << 5
  // | length, or 0 when the code is longer. Most codes read are short, and
  // one lookup replaces a loop with a branch a bit (a client decodes a few
  // codes an entity, every snapshot).
  static constexpr int kFastBits = 8;
  std::vector<std::uint32_t> fast_;
  int fast_bits_ = 0;
};

}  // namespace tickwire::snapshot::detail
