#include "tickwire/core/bit_stream.h"

#include <algorithm>
#include <limits>

namespace tickwire {
namespace {

constexpr int kMaxVarintGroups = 10;  // ceil(64 / 7)

int varint_groups(std::uint64_t value) {
  const auto width = static_cast<int>(std::bit_width(value));
  return width == 0 ? 1 : (width + 6) / 7;
}

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t unzigzag(std::uint64_t u) { return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1U) + 1U)); }

std::size_t padding_bits(std::size_t position) { return (8 - (position & 7U)) & 7U; }

}  // namespace

// ---- BitWriter ----

BitWriter::BitWriter(std::size_t max_bytes)
    : capacity_bits_(max_bytes > std::numeric_limits<std::size_t>::max() / 8 ? std::numeric_limits<std::size_t>::max()
                                                                             : max_bytes * 8) {
  // One MTU-sized packet is the common case; beyond that grow on demand.
  bytes_.reserve(std::min<std::size_t>(max_bytes, 1500));
}

BitWriter::BitWriter(std::size_t max_bytes, std::vector<std::uint8_t>&& reuse)
    : bytes_(std::move(reuse)),
      capacity_bits_(max_bytes > std::numeric_limits<std::size_t>::max() / 8 ? std::numeric_limits<std::size_t>::max()
                                                                             : max_bytes * 8) {
  bytes_.clear();
}

std::vector<std::uint8_t> BitWriter::take() {
  std::vector<std::uint8_t> out = std::move(bytes_);
  bytes_.clear();
  bits_written_ = 0;
  return out;
}

bool BitWriter::fail(ErrorCode code, const char* detail) {
  if (code == ErrorCode::kTooLarge) overflowed_ = true;
  if (!error_) error_ = make_error(code, detail != nullptr ? detail : to_string(code));
  return false;
}

bool BitWriter::varint(std::uint64_t& value) {
  if (error_) return false;
  const int groups = varint_groups(value);
  if (static_cast<std::size_t>(groups) * 8 > capacity_bits_ - bits_written_) {
    return fail(ErrorCode::kTooLarge, "write past the writer's byte limit");
  }
  std::uint64_t rest = value;
  for (int i = 0; i < groups; ++i) {
    std::uint64_t group = rest & 0x7FU;
    rest >>= 7;
    if (i + 1 < groups) group |= 0x80U;
    put(group, 8);
  }
  return true;
}

bool BitWriter::varint_signed(std::int64_t& value) {
  std::uint64_t u = zigzag(value);
  return varint(u);
}

bool BitWriter::bounded_float(float& value, float min, float max, float precision) {
  if (error_) return false;
  const auto q = try_make_quantizer(min, max, precision);
  if (!q) return fail(ErrorCode::kInvalidArgument, "bounded_float range or precision is invalid");
  return write_wide(q->quantize(value), q->bits());
}

bool BitWriter::bytes(std::vector<std::uint8_t>& value, std::size_t max_length) {
  return write_blob(value.data(), value.size(), max_length);
}

bool BitWriter::string(std::string& value, std::size_t max_length) {
  return write_blob(reinterpret_cast<const std::uint8_t*>(value.data()), value.size(), max_length);
}

bool BitWriter::write_blob(const std::uint8_t* data, std::size_t size, std::size_t max_length) {
  if (error_) return false;
  if (size > max_length) return fail(ErrorCode::kTooLong, "length over its bound");
  std::uint64_t length = size;
  return varint(length) && align() && raw_bytes(data, size);
}

bool BitWriter::align() {
  if (error_) return false;
  // The partial byte is already in bytes_ with zero high bits, so aligning
  // only moves the position and never needs capacity.
  bits_written_ = bytes_.size() * 8;
  return true;
}

bool BitWriter::fixed_bytes(std::span<std::uint8_t> value) { return align() && raw_bytes(value.data(), value.size()); }

bool BitWriter::raw_bytes(const std::uint8_t* data, std::size_t size) {
  if (size > (capacity_bits_ - bits_written_) / 8) {
    return fail(ErrorCode::kTooLarge, "write past the writer's byte limit");
  }
  bytes_.insert(bytes_.end(), data, data + size);
  bits_written_ += size * 8;
  return true;
}

// ---- BitReader ----

BitReader::BitReader(std::span<const std::uint8_t> bytes)
    : data_(bytes),
      // A span this large cannot come from a real packet; capping keeps the
      // arithmetic exact and simply leaves the tail unreachable.
      total_bits_(bytes.size() > std::numeric_limits<std::size_t>::max() / 8
                      ? std::numeric_limits<std::size_t>::max() / 8 * 8
                      : bytes.size() * 8) {}

bool BitReader::fail(ErrorCode code, const char* detail) {
  if (!error_) error_ = make_error(code, detail != nullptr ? detail : to_string(code));
  return false;
}

bool BitReader::finish() {
  if (error_) return false;
  const std::size_t remaining = total_bits_ - bits_read_;
  if (remaining >= 8) return fail(ErrorCode::kMalformed, "trailing bytes");
  std::uint64_t padding = 0;
  if (!read_wide(padding, static_cast<int>(remaining))) return false;
  if (padding != 0) return fail(ErrorCode::kMalformed, "non-zero padding");
  return true;
}

bool BitReader::varint(std::uint64_t& value) {
  if (error_) return false;
  std::uint64_t result = 0;
  for (int i = 0; i < kMaxVarintGroups; ++i) {
    std::uint64_t group = 0;
    if (!read_wide(group, 8)) return false;
    // The last group may carry only bit 63 and must end the number.
    if (i == kMaxVarintGroups - 1 && group > 1) return fail(ErrorCode::kMalformed, "varint wider than 64 bits");
    const std::uint64_t payload = group & 0x7FU;
    result |= payload << (7 * i);
    if ((group & 0x80U) == 0) {
      // One encoding per value: a zero final group means padding was added.
      if (payload == 0 && i > 0) return fail(ErrorCode::kMalformed, "overlong varint");
      value = result;
      return true;
    }
  }
  return fail(ErrorCode::kMalformed, "varint wider than 64 bits");
}

bool BitReader::varint_signed(std::int64_t& value) {
  std::uint64_t u = 0;
  if (!varint(u)) return false;
  value = unzigzag(u);
  return true;
}

bool BitReader::bounded_float(float& value, float min, float max, float precision) {
  if (error_) return false;
  const auto q = try_make_quantizer(min, max, precision);
  if (!q) return fail(ErrorCode::kInvalidArgument, "bounded_float range or precision is invalid");
  const std::uint32_t steps = q->steps();
  std::uint64_t step = 0;
  if (!read_wide(step, bits_required(steps))) return false;
  if (step > steps) return fail(ErrorCode::kOutOfRange, "quantized float above its range");
  value = q->dequantize(static_cast<std::uint32_t>(step));
  return true;
}

bool BitReader::read_length(std::size_t& length, std::size_t max_length) {
  std::uint64_t declared = 0;
  if (!varint(declared)) return false;
  if (declared > max_length) return fail(ErrorCode::kTooLong, "length over its bound");
  if (!align()) return false;
  if (declared > (total_bits_ - bits_read_) / 8) return fail(ErrorCode::kTruncated, "input ended inside a byte string");
  length = static_cast<std::size_t>(declared);
  return true;
}

bool BitReader::bytes(std::vector<std::uint8_t>& value, std::size_t max_length) {
  std::size_t length = 0;
  if (!read_length(length, max_length)) return false;
  const auto source = data_.subspan(bits_read_ / 8, length);
  value.assign(source.begin(), source.end());
  bits_read_ += length * 8;
  return true;
}

bool BitReader::string(std::string& value, std::size_t max_length) {
  std::size_t length = 0;
  if (!read_length(length, max_length)) return false;
  const auto source = data_.subspan(bits_read_ / 8, length);
  value.assign(source.begin(), source.end());
  bits_read_ += length * 8;
  return true;
}

bool BitReader::align() {
  if (error_) return false;
  std::uint64_t padding = 0;
  if (!read_wide(padding, static_cast<int>(padding_bits(bits_read_)))) return false;
  if (padding != 0) return fail(ErrorCode::kMalformed, "non-zero padding");
  return true;
}

bool BitReader::fixed_bytes(std::span<std::uint8_t> value) {
  if (!align()) return false;
  if (value.size() > (total_bits_ - bits_read_) / 8)
    return fail(ErrorCode::kTruncated, "input ended inside fixed bytes");
  const auto source = data_.subspan(bits_read_ / 8, value.size());
  std::copy(source.begin(), source.end(), value.begin());
  bits_read_ += value.size() * 8;
  return true;
}

// ---- BitMeasurer ----

bool BitMeasurer::fail(ErrorCode code, const char* detail) {
  if (!error_) error_ = make_error(code, detail != nullptr ? detail : to_string(code));
  return false;
}

bool BitMeasurer::varint(std::uint64_t& value) {
  if (error_) return false;
  bits_ += static_cast<std::size_t>(varint_groups(value)) * 8;
  return true;
}

bool BitMeasurer::varint_signed(std::int64_t& value) {
  std::uint64_t u = zigzag(value);
  return varint(u);
}

bool BitMeasurer::bounded_float(float& /*value*/, float min, float max, float precision) {
  if (error_) return false;
  const auto q = try_make_quantizer(min, max, precision);
  if (!q) return fail(ErrorCode::kInvalidArgument, "bounded_float range or precision is invalid");
  bits_ += static_cast<std::size_t>(q->bits());
  return true;
}

void BitMeasurer::add_blob(std::size_t size) {
  bits_ += static_cast<std::size_t>(varint_groups(size)) * 8;
  bits_ += padding_bits(bits_);
  bits_ += size * 8;
}

bool BitMeasurer::bytes(std::vector<std::uint8_t>& value, std::size_t /*max_length*/) {
  if (error_) return false;
  add_blob(value.size());
  return true;
}

bool BitMeasurer::string(std::string& value, std::size_t /*max_length*/) {
  if (error_) return false;
  add_blob(value.size());
  return true;
}

bool BitMeasurer::align() {
  if (error_) return false;
  bits_ += padding_bits(bits_);
  return true;
}

bool BitMeasurer::fixed_bytes(std::span<std::uint8_t> value) {
  if (error_) return false;
  bits_ += padding_bits(bits_);
  bits_ += value.size() * 8;
  return true;
}

}  // namespace tickwire
