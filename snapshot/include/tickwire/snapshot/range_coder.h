#pragma once
// A binary adaptive range coder (the carry-propagating scheme of LZMA's
// coder) for snapshot bodies. Each yes/no decision is coded with a model
// that learns its probability, so a decision that is almost always the
// same costs a small fraction of a bit, and a residual that is usually 0
// or 1 costs about its entropy. A packet's models start from those its
// baseline's packet ended with (body_models.h), which both ends hold.
//
// The decoder reads its input as hostile: past the end it sees zeros and
// remembers that it overran, and it never does anything but integer
// arithmetic on what it reads, so any input is safe to decode; the caller
// checks overran() and at_end() before trusting the result. A complete
// stream is consumed exactly: a cut-off stream always overruns and extra
// bytes always remain, so truncation and trailing bytes are both caught.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tickwire::snapshot {

inline constexpr int kProbBits = 15;
inline constexpr std::uint32_t kProbOne = 1U << kProbBits;
// Each observation moves a probability 1/64 of the way toward it: a window
// long enough to be precise, short enough to follow statistics that drift.
// Models start warm (a packet inherits them from its baseline's packet),
// so a faster start buys nothing. The rate also keeps a probability at
// least 63/32768 from either end, so a surprise costs at most about 9 bits.
inline constexpr unsigned kAdaptShift = 6;

struct BitModel {
  std::uint16_t p = kProbOne / 2;  // probability of a 0, in 1/32768
};

// Branch-free: the bits being coded are the unpredictable ones.
inline void adapt(BitModel& m, bool bit) {
  const std::uint32_t p = m.p;
  const std::uint32_t up = p + ((kProbOne - p) >> kAdaptShift);
  const std::uint32_t down = p - (p >> kAdaptShift);
  m.p = static_cast<std::uint16_t>(bit ? down : up);
}

class RangeEncoder {
 public:
  static constexpr std::uint32_t kTop = 1U << 24;

  // Appends to `out`. With adaptive off every model stays at one half, so
  // each decision costs exactly one bit (a plain variable-length code).
  explicit RangeEncoder(std::vector<std::uint8_t>& out, bool adaptive = true) : out_(out), adaptive_(adaptive) {}

  void bit(BitModel& m, bool b) {
    const std::uint32_t bound = (range_ >> kProbBits) * m.p;
    low_ += bound & (0U - static_cast<std::uint32_t>(b));
    range_ = b ? range_ - bound : bound;
    if (adaptive_) adapt(m, b);
    if (range_ < kTop) normalize();
  }

  // One raw bit: cheaper than a modeled decision where a model would
  // learn nothing (signs of residuals are near even).
  void raw_bit(bool b) {
    range_ >>= 1;
    low_ += range_ & (0U - static_cast<std::uint32_t>(b));
    if (range_ < kTop) normalize();
  }

  // `count` raw bits of `value` (count in [0, 32]), at one bit each.
  void direct(std::uint32_t value, int count) {
    while (count > 0) {
      const int n = count > 16 ? 16 : count;
      count -= n;
      const std::uint32_t chunk = (value >> count) & ((1U << n) - 1U);
      range_ >>= n;
      low_ += static_cast<std::uint64_t>(chunk) * range_;
      if (range_ < kTop) normalize();
    }
  }

  // Flushes the final interval; the stream is complete afterwards.
  void finish() {
    for (int i = 0; i < 5; ++i) shift_low();
  }

  // Bits produced so far, to within about one bit: for measuring what a
  // part of a packet cost.
  std::uint64_t cost_bits() const {
    return 8 * (emitted_ + cache_size_) + 32 - static_cast<std::uint64_t>(std::bit_width(range_));
  }

 private:
  // Out of line: it runs about once per byte produced, against several
  // decisions per byte, and inlined into every decision it made the
  // coding loops' frames large.
  [[gnu::noinline]] void normalize() {
    do {
      range_ <<= 8;
      shift_low();
    } while (range_ < kTop);
  }
  void shift_low() {
    if (static_cast<std::uint32_t>(low_) < 0xFF00'0000U || (low_ >> 32) != 0) {
      const auto carry = static_cast<std::uint8_t>(low_ >> 32);
      std::uint8_t temp = cache_;
      do {
        emit(static_cast<std::uint8_t>(temp + carry));
        temp = 0xFF;
      } while (--cache_size_ != 0);
      cache_ = static_cast<std::uint8_t>(low_ >> 24);
    }
    ++cache_size_;
    low_ = (low_ & 0x00FF'FFFFU) << 8;
  }
  // The first byte of such a stream is always zero (the interval starts
  // inside [0, 2^32)), so it is left out and the decoder assumes it.
  void emit(std::uint8_t b) {
    ++emitted_;
    if (skip_first_) {
      skip_first_ = false;
      return;
    }
    out_.push_back(b);
  }

  std::vector<std::uint8_t>& out_;
  std::uint64_t low_ = 0;
  std::uint32_t range_ = 0xFFFF'FFFFU;
  std::uint8_t cache_ = 0;
  std::uint64_t cache_size_ = 1;
  std::uint64_t emitted_ = 0;
  bool skip_first_ = true;
  bool adaptive_ = true;
};

class RangeDecoder {
 public:
  RangeDecoder(std::span<const std::uint8_t> in, bool adaptive = true) : in_(in), adaptive_(adaptive) {
    for (int i = 0; i < 4; ++i) code_ = (code_ << 8) | next();
  }

  bool bit(BitModel& m) {
    const std::uint32_t bound = (range_ >> kProbBits) * m.p;
    const bool b = code_ >= bound;
    code_ -= bound & (0U - static_cast<std::uint32_t>(b));
    range_ = b ? range_ - bound : bound;
    if (adaptive_) adapt(m, b);
    while (range_ < RangeEncoder::kTop) {
      range_ <<= 8;
      code_ = (code_ << 8) | next();
    }
    return b;
  }

  // direct(1) without its division: residuals' signs are most of the raw
  // bits a snapshot carries.
  bool raw_bit() {
    range_ >>= 1;
    const bool b = code_ >= range_;
    if (b && code_ - range_ >= range_) corrupt_ = true;  // as direct() clamps
    code_ -= range_ & (0U - static_cast<std::uint32_t>(b));
    while (range_ < RangeEncoder::kTop) {
      range_ <<= 8;
      code_ = (code_ << 8) | next();
    }
    return b;
  }

  std::uint32_t direct(int count) {
    std::uint32_t value = 0;
    while (count > 0) {
      const int n = count > 16 ? 16 : count;
      count -= n;
      range_ >>= n;
      std::uint32_t chunk = code_ / range_;
      // Only corrupt input can put the code outside the interval; clamp so
      // the state stays consistent, and remember.
      if (chunk >> n != 0) {
        corrupt_ = true;
        chunk = (1U << n) - 1U;
      }
      code_ -= chunk * range_;
      value = (value << n) | chunk;
      while (range_ < RangeEncoder::kTop) {
        range_ <<= 8;
        code_ = (code_ << 8) | next();
      }
    }
    return value;
  }

  // The input ran out before the decoding did.
  bool overran() const { return overran_; }
  // A complete, valid stream ends here: every byte consumed, none missing,
  // and the code inside the final interval.
  bool at_end() const { return !overran_ && !corrupt_ && pos_ == in_.size() && code_ < range_; }
  bool corrupt() const { return corrupt_ || code_ >= range_; }

 private:
  std::uint32_t next() {
    if (pos_ < in_.size()) return in_[pos_++];
    overran_ = true;
    return 0;
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  std::uint32_t code_ = 0;
  std::uint32_t range_ = 0xFFFF'FFFFU;
  bool overran_ = false;
  bool corrupt_ = false;
  bool adaptive_ = true;
};

}  // namespace tickwire::snapshot
