#pragma once
// Bit-packed streams for wire types. The three streams share one set of
// member functions, so a single
//   template <class Stream> bool serialize(Stream& s, MyType& v)
// writes, reads and measures a type and the three can never disagree.
//
// Bits are packed least significant first into little-endian bytes. Every
// function returns false on failure and the first error sticks: once a
// stream has failed, every later call returns false without touching data,
// so a serialize function may chain calls with && and report at the end.
// The reader treats its input as hostile: it never reads outside the span
// and reports bad input through error(), never by asserting or throwing.

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tickwire/core/quantize.h"
#include "tickwire/core/result.h"

namespace tickwire {

namespace detail {
// Width of [min, max] as an unsigned count; conversion to uint64 is modular,
// so this is right for signed ranges that straddle zero too.
template <std::integral T>
constexpr std::uint64_t integer_range(T min, T max) {
  return static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min);
}
}  // namespace detail

class BitWriter {
 public:
  static constexpr bool kWriting = true;
  static constexpr bool kReading = false;
  static constexpr bool kMeasuring = false;

  // Writing more than max_bytes in total fails with kTooLarge.
  explicit BitWriter(std::size_t max_bytes);
  // Writes into `reuse` (cleared first), keeping its capacity: a caller
  // that hands the same buffer back through take() every packet stops
  // allocating once it has grown to its largest packet.
  BitWriter(std::size_t max_bytes, std::vector<std::uint8_t>&& reuse);

  // Bytes written so far; the last partial byte is zero-padded.
  std::span<const std::uint8_t> data() const { return bytes_; }
  // Moves the bytes out and leaves the writer empty (a sticky error stays).
  std::vector<std::uint8_t> take();
  std::size_t bits_written() const { return bits_written_; }
  std::size_t bytes_written() const { return bytes_.size(); }
  bool overflowed() const { return overflowed_; }
  const std::optional<Error>& error() const { return error_; }

  // For serialize functions rejecting a value on their own terms (an
  // unknown enum, an inconsistent pair): records the error unless one is
  // already set and returns false. A null detail uses to_string(code).
  bool fail(ErrorCode code, const char* detail = nullptr);

  bool bits(std::uint32_t& value, int count);
  bool boolean(bool& value);
  // Uses bits_required(max - min) bits, none when min == max. Pass bounds of
  // the value's own type (std::uint16_t{1}) so T deduces.
  template <std::integral T>
  bool integer(T& value, T min, T max);
  bool varint(std::uint64_t& value);
  bool varint_signed(std::int64_t& value);
  // Clamps into range and maps NaN to min: the value comes from the program,
  // and the receiver would see the clamped value anyway.
  bool bounded_float(float& value, float min, float max, float precision);
  bool bytes(std::vector<std::uint8_t>& value, std::size_t max_length);
  bool string(std::string& value, std::size_t max_length);
  bool align();
  bool fixed_bytes(std::span<std::uint8_t> value);

 private:
  bool write_wide(std::uint64_t value, int count);  // count in [0, 64], value fits
  void put(std::uint64_t value, int count);         // count in [1, 32], capacity checked
  bool write_blob(const std::uint8_t* data, std::size_t size, std::size_t max_length);
  bool raw_bytes(const std::uint8_t* data, std::size_t size);  // stream is aligned

  std::vector<std::uint8_t> bytes_;  // always ceil(bits_written_ / 8) bytes
  std::size_t bits_written_ = 0;
  std::size_t capacity_bits_ = 0;
  std::optional<Error> error_;
  bool overflowed_ = false;
};

class BitReader {
 public:
  static constexpr bool kWriting = false;
  static constexpr bool kReading = true;
  static constexpr bool kMeasuring = false;

  // The span must outlive the reader.
  explicit BitReader(std::span<const std::uint8_t> bytes);

  const std::optional<Error>& error() const { return error_; }
  std::size_t bits_read() const { return bits_read_; }
  std::size_t bits_remaining() const { return total_bits_ - bits_read_; }
  // True when only zero padding (fewer than 8 bits) remains; otherwise
  // fails with kMalformed, so extra bytes after a message are never ignored.
  bool finish();

  // For serialize functions rejecting a value on their own terms (an
  // unknown enum, an inconsistent pair): records the error unless one is
  // already set and returns false. A null detail uses to_string(code).
  bool fail(ErrorCode code, const char* detail = nullptr);

  bool bits(std::uint32_t& value, int count);
  bool boolean(bool& value);
  // Rejects decoded values above max with kOutOfRange.
  template <std::integral T>
  bool integer(T& value, T min, T max);
  // Rejects encodings longer than needed or wider than 64 bits (kMalformed).
  bool varint(std::uint64_t& value);
  bool varint_signed(std::int64_t& value);
  // Rejects step indices above the top of the range (kOutOfRange), so a
  // decoded value is always in [min, max].
  bool bounded_float(float& value, float min, float max, float precision);
  // Checks the length against max_length and the input before allocating.
  bool bytes(std::vector<std::uint8_t>& value, std::size_t max_length);
  bool string(std::string& value, std::size_t max_length);
  bool align();
  bool fixed_bytes(std::span<std::uint8_t> value);

 private:
  bool read_wide(std::uint64_t& value, int count);  // count in [0, 64]
  std::uint64_t extract(int count);                 // count in [1, 32], availability checked
  bool read_length(std::size_t& length, std::size_t max_length);

  std::span<const std::uint8_t> data_;
  std::size_t total_bits_ = 0;
  std::size_t bits_read_ = 0;
  std::optional<Error> error_;
};

// Counts the bits a writer would produce. Fails only on invalid arguments
// (a bit count outside [1, 32], min > max, an invalid float range); values
// outside their range are counted as the writer would lay them out.
class BitMeasurer {
 public:
  static constexpr bool kWriting = false;
  static constexpr bool kReading = false;
  static constexpr bool kMeasuring = true;

  std::size_t bits() const { return bits_; }
  std::size_t bytes() const { return (bits_ + 7) / 8; }
  const std::optional<Error>& error() const { return error_; }

  // For serialize functions rejecting a value on their own terms (an
  // unknown enum, an inconsistent pair): records the error unless one is
  // already set and returns false. A null detail uses to_string(code).
  bool fail(ErrorCode code, const char* detail = nullptr);

  bool bits(std::uint32_t& value, int count);
  bool boolean(bool& value);
  template <std::integral T>
  bool integer(T& value, T min, T max);
  bool varint(std::uint64_t& value);
  bool varint_signed(std::int64_t& value);
  bool bounded_float(float& value, float min, float max, float precision);
  bool bytes(std::vector<std::uint8_t>& value, std::size_t max_length);
  bool string(std::string& value, std::size_t max_length);
  bool align();
  bool fixed_bytes(std::span<std::uint8_t> value);

 private:
  void add_blob(std::size_t size);

  std::size_t bits_ = 0;
  std::optional<Error> error_;
};

// ---- hot-path members, inline so a snapshot of many small fields does not
// pay a call per field ----

inline bool BitWriter::bits(std::uint32_t& value, int count) {
  if (error_) return false;
  if (count < 1 || count > 32) return fail(ErrorCode::kInvalidArgument, "bit count outside [1, 32]");
  if (count < 32 && (value >> count) != 0) return fail(ErrorCode::kOutOfRange, "value does not fit its bit count");
  return write_wide(value, count);
}

inline bool BitWriter::boolean(bool& value) {
  std::uint32_t v = value ? 1U : 0U;
  return bits(v, 1);
}

template <std::integral T>
bool BitWriter::integer(T& value, T min, T max) {
  if (error_) return false;
  if (min > max) return fail(ErrorCode::kInvalidArgument, "integer range has min > max");
  if (value < min || value > max) return fail(ErrorCode::kOutOfRange, "integer outside its range");
  return write_wide(detail::integer_range(min, value), bits_required(detail::integer_range(min, max)));
}

inline bool BitWriter::write_wide(std::uint64_t value, int count) {
  if (static_cast<std::size_t>(count) > capacity_bits_ - bits_written_) {
    return fail(ErrorCode::kTooLarge, "write past the writer's byte limit");
  }
  if (count > 32) {
    put(value & 0xFFFF'FFFFU, 32);
    put(value >> 32, count - 32);
  } else if (count > 0) {
    put(value, count);
  }
  return true;
}

inline void BitWriter::put(std::uint64_t value, int count) {
  const std::size_t first = bits_written_ >> 3;
  const auto shift = static_cast<unsigned>(bits_written_ & 7U);
  bits_written_ += static_cast<std::size_t>(count);
  bytes_.resize((bits_written_ + 7) >> 3);
  // At most 32 + 7 bits: the tail of the partial byte plus up to 4 new bytes.
  std::uint64_t acc = value << shift;
  for (std::size_t i = first; i < bytes_.size(); ++i) {
    bytes_[i] = static_cast<std::uint8_t>(bytes_[i] | static_cast<std::uint8_t>(acc & 0xFFU));
    acc >>= 8;
  }
}

inline bool BitReader::bits(std::uint32_t& value, int count) {
  if (error_) return false;
  if (count < 1 || count > 32) return fail(ErrorCode::kInvalidArgument, "bit count outside [1, 32]");
  std::uint64_t v = 0;
  if (!read_wide(v, count)) return false;
  value = static_cast<std::uint32_t>(v);
  return true;
}

inline bool BitReader::boolean(bool& value) {
  std::uint32_t v = 0;
  if (!bits(v, 1)) return false;
  value = v != 0;
  return true;
}

template <std::integral T>
bool BitReader::integer(T& value, T min, T max) {
  if (error_) return false;
  if (min > max) return fail(ErrorCode::kInvalidArgument, "integer range has min > max");
  const std::uint64_t range = detail::integer_range(min, max);
  std::uint64_t offset = 0;
  if (!read_wide(offset, bits_required(range))) return false;
  if (offset > range) return fail(ErrorCode::kOutOfRange, "integer above its range");
  value = static_cast<T>(static_cast<std::uint64_t>(min) + offset);
  return true;
}

inline bool BitReader::read_wide(std::uint64_t& value, int count) {
  if (static_cast<std::size_t>(count) > total_bits_ - bits_read_) {
    return fail(ErrorCode::kTruncated, "input ended before the value did");
  }
  if (count > 32) {
    const std::uint64_t low = extract(32);
    value = low | (extract(count - 32) << 32);
  } else {
    value = count > 0 ? extract(count) : 0;
  }
  return true;
}

inline std::uint64_t BitReader::extract(int count) {
  const std::size_t first = bits_read_ >> 3;
  const auto shift = static_cast<unsigned>(bits_read_ & 7U);
  const std::size_t available = data_.size() - first;  // >= 1: the caller checked the bits exist
  std::uint64_t word = 0;
  if (std::endian::native == std::endian::little && available >= 8) {
    std::memcpy(&word, data_.data() + first, 8);
  } else {
    const std::size_t n = available < 8 ? available : 8;
    for (std::size_t i = 0; i < n; ++i) word |= static_cast<std::uint64_t>(data_[first + i]) << (8 * i);
  }
  bits_read_ += static_cast<std::size_t>(count);
  return (word >> shift) & ((std::uint64_t{1} << count) - 1);
}

inline bool BitMeasurer::bits(std::uint32_t& /*value*/, int count) {
  if (error_) return false;
  if (count < 1 || count > 32) return fail(ErrorCode::kInvalidArgument, "bit count outside [1, 32]");
  bits_ += static_cast<std::size_t>(count);
  return true;
}

inline bool BitMeasurer::boolean(bool& /*value*/) {
  if (error_) return false;
  bits_ += 1;
  return true;
}

template <std::integral T>
bool BitMeasurer::integer(T& /*value*/, T min, T max) {
  if (error_) return false;
  if (min > max) return fail(ErrorCode::kInvalidArgument, "integer range has min > max");
  bits_ += static_cast<std::size_t>(bits_required(detail::integer_range(min, max)));
  return true;
}

}  // namespace tickwire
