#pragma once
// One-call encode, measure and decode for any wire type. A wire type is
// anything with a free function, found by argument-dependent lookup,
//   template <class Stream> bool serialize(Stream& s, MyType& v);
// in its own namespace. That function takes the value by non-const
// reference because the same body reads into it, so encode and
// measure_bytes take T& too; their const T& overloads serialize a copy.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/result.h"

namespace tickwire {

namespace detail {
// A serialize function may return false without the stream failing (its
// own validation); that still has to surface as an error.
template <class Stream>
Error stream_error(const Stream& s, const char* fallback) {
  return s.error() ? *s.error() : make_error(ErrorCode::kMalformed, fallback);
}
}  // namespace detail

// Fails with the writer's error: kTooLarge when the encoding needs more than
// max_bytes, kOutOfRange or kTooLong when a field breaks its declared bound.
template <class T>
Result<std::vector<std::uint8_t>> encode(T& value, std::size_t max_bytes) {
  BitWriter writer(max_bytes);
  if (!serialize(writer, value) || writer.error()) {
    return detail::stream_error(writer, "serialize rejected the value");
  }
  return writer.take();
}

template <class T>
Result<std::vector<std::uint8_t>> encode(const T& value, std::size_t max_bytes) {
  T copy = value;
  return encode(copy, max_bytes);
}

// Bytes encode would produce (ignoring max_bytes); 0 when serialize fails,
// which for a measurer means invalid arguments in the serialize function.
template <class T>
std::size_t measure_bytes(T& value) {
  BitMeasurer measurer;
  if (!serialize(measurer, value) || measurer.error()) return 0;
  return measurer.bytes();
}

template <class T>
std::size_t measure_bytes(const T& value) {
  T copy = value;
  return measure_bytes(copy);
}

// Decodes into `out`, which holds partial results on failure. The input
// must end right after the value (only zero padding in the last byte):
// trailing bytes are an error, never silently ignored.
template <class T>
Result<void> decode(std::span<const std::uint8_t> bytes, T& out) {
  BitReader reader(bytes);
  if (!serialize(reader, out) || reader.error()) {
    return detail::stream_error(reader, "serialize rejected the input");
  }
  if (!reader.finish()) return *reader.error();
  return {};
}

}  // namespace tickwire
