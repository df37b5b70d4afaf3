// Writing a schema file: each type and field as the SchemaBuilder call that
// makes it again (docs/schema-file.md).

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "schema_file_names.h"
#include "tickwire/core/quantize.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::snapshot {
namespace {

[[noreturn]] void cannot(const std::string& what) { throw std::invalid_argument("schema file: " + what); }

// The shortest text that reads back as exactly `value`.
std::string float_text(float value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc{}) cannot("cannot format a float");
  return std::string(buffer, end);
}

// The same float with `digits` significant digits, read back.
float rounded(float value, int digits) {
  char buffer[48];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits);
  float out = value;
  if (ec != std::errc{} || std::from_chars(buffer, end, out).ec != std::errc{}) return value;
  return out;
}

// 16 hex digits, leading zeros kept.
std::string hex16(std::uint64_t value) {
  std::string text(16, '0');
  for (std::size_t i = 0; i < 16; ++i) text[15 - i] = "0123456789abcdef"[(value >> (4 * i)) & 0xF];
  return text;
}

struct Range {
  float min;
  float max;
  std::uint32_t steps;
};

bool gives_steps(float precision, const std::vector<Range>& ranges) {
  for (const Range& r : ranges) {
    const auto q = try_make_quantizer(r.min, r.max, precision);
    if (!q || q->steps() != r.steps) return false;
  }
  return true;
}

// The schema keeps steps, not the precision it was built with: find a
// precision that gives every component its steps again, preferring the
// one with the fewest digits (0.01 rather than 0.00999999978).
float precision_for(const std::vector<Range>& ranges, const std::string& field) {
  double widest = 0.0;
  for (const Range& r : ranges) {
    const double step = (static_cast<double>(r.max) - static_cast<double>(r.min)) / static_cast<double>(r.steps);
    widest = std::fmax(widest, step);
  }
  const auto guess = static_cast<float>(widest);
  for (int digits = 1; digits <= 9; ++digits) {
    if (const float p = rounded(guess, digits); gives_steps(p, ranges)) return p;
  }
  float up = guess;
  float down = guess;
  for (int i = 0; i < 64; ++i) {
    up = std::nextafter(up, INFINITY);
    down = std::nextafter(down, 0.0F);
    if (gives_steps(up, ranges)) return up;
    if (gives_steps(down, ranges)) return down;
  }
  cannot("field '" + field + "': no single precision gives its components' steps");
}

void check_name(const std::string& name, const char* what) {
  if (!schema_file::valid_name(name)) {
    cannot(std::string(what) + " name '" + name + "' is not 1 to 64 characters of A-Z a-z 0-9 _ . -");
  }
}

std::string float_range(const TypeSpec& type, const FieldSpec& f) {
  std::string min = " min";
  std::string max = " max";
  std::vector<Range> ranges;
  const std::size_t axes = f.kind == FieldKind::kVec2 ? 2 : (f.kind == FieldKind::kVec3 ? 3 : 1);
  for (std::size_t i = 0; i < axes; ++i) {
    const ComponentSpec& c = type.components[f.offset + i];
    min += " " + float_text(c.min);
    max += " " + float_text(c.max);
  }
  for (std::size_t i = 0; i < f.count; ++i) {
    const ComponentSpec& c = type.components[f.offset + i];
    ranges.push_back({c.min, c.max, c.max_code});
  }
  return min + max + " precision " + float_text(precision_for(ranges, f.name));
}

std::string int_range(const ComponentSpec& c) {
  const std::int64_t max = std::int64_t{c.int_min} + std::int64_t{c.max_code};
  return " min " + std::to_string(c.int_min) + " max " + std::to_string(max);
}

std::string motion(const FieldSpec& f) {
  return std::string(" interpolation ") + schema_file::name_of(f.interpolation) + " prediction " +
         schema_file::name_of(f.prediction);
}

std::string quat_precision(const ComponentSpec& value, const std::string& field) {
  const std::uint64_t codes = std::uint64_t{value.max_code} + 1;
  const int bits = bits_required(value.max_code);
  if ((codes & (codes - 1)) == 0 && bits >= 2 && bits <= 20) return " bits " + std::to_string(bits);
  return " precision " + float_text(precision_for({{value.min, value.max, value.max_code}}, field));
}

std::string field_line(const TypeSpec& type, const FieldSpec& f) {
  check_name(f.name, "field");
  const ComponentSpec& first = type.components[f.offset];
  std::string line = "field " + f.name + " " + schema_file::name_of(f.kind);
  switch (f.kind) {
    case FieldKind::kFloat:
    case FieldKind::kVec2:
    case FieldKind::kVec3: return line + float_range(type, f) + motion(f);
    case FieldKind::kInt: return line + int_range(first) + motion(f);
    case FieldKind::kBool: return line;
    case FieldKind::kEnum: return line + " count " + std::to_string(std::uint64_t{first.max_code} + 1);
    case FieldKind::kAngle: return line + " bits " + std::to_string(first.bits) + motion(f);
    case FieldKind::kQuat: return line + quat_precision(type.components[f.offset + 1], f.name) + motion(f);
    case FieldKind::kFloatArray: return line + " size " + std::to_string(f.count) + float_range(type, f) + motion(f);
    case FieldKind::kIntArray: return line + " size " + std::to_string(f.count) + int_range(first) + motion(f);
  }
  cannot("field '" + f.name + "' has an unknown kind");
}

}  // namespace

std::string describe_schema(const Schema& schema) {
  if (schema.type_count() > SchemaFileLimits::kMaxTypes) cannot("more than 256 types");
  std::string text = "tickwire-schema " + std::to_string(kSchemaFileVersion) + "\n";
  for (const TypeSpec& type : schema.types()) {
    check_name(type.name, "type");
    if (type.fields.size() > SchemaFileLimits::kMaxFieldsPerType)
      cannot("type '" + type.name + "' has over 256 fields");
    text +=
        "type " + type.name + " " + schema_file::name_of(type.role) + " priority " + float_text(type.priority) + "\n";
    for (const FieldSpec& f : type.fields) text += field_line(type, f) + "\n";
  }
  // Schema() hashes to 0 and an empty SchemaBuilder's build() does not:
  // with no types there is nothing for a hash to check.
  if (schema.type_count() == 0) return text;
  return text + "hash " + hex16(schema.hash()) + "\n";
}

Result<void> save_schema(const std::string& path, const Schema& schema) {
  std::string text;
  try {
    text = describe_schema(schema);
  } catch (const std::invalid_argument& e) {
    return make_error(ErrorCode::kInvalidArgument, e.what());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.flush();
  if (!out) return make_error(ErrorCode::kIo, path + ": cannot be written (" + std::strerror(errno) + ")");
  return {};
}

}  // namespace tickwire::snapshot
