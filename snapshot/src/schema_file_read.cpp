// Reading a schema file: every line checked and replayed through
// SchemaBuilder, whose own checks (ranges, precisions, bit counts) then
// apply to the file as they do to a game's code (docs/schema-file.md).

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "schema_file_names.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::snapshot {
namespace {

// A line's problem; the parser adds the line number.
struct Problem {
  std::string what;
};

using Tokens = std::vector<std::string_view>;

Tokens split(std::string_view line) {
  Tokens tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

std::string quoted(std::string_view word) {
  constexpr std::size_t kShown = 40;
  return "'" + std::string(word.substr(0, kShown)) + (word.size() > kShown ? "...'" : "'");
}

// Reads one line's tokens in order.
class Cursor {
 public:
  explicit Cursor(const Tokens& tokens) : tokens_(tokens) {}

  bool done() const { return at_ == tokens_.size(); }
  std::string_view next(const char* what) {
    if (done()) throw Problem{std::string("missing ") + what};
    return tokens_[at_++];
  }
  bool take(std::string_view word) {
    if (done() || tokens_[at_] != word) return false;
    ++at_;
    return true;
  }
  void expect(std::string_view word) {
    if (done()) throw Problem{"missing '" + std::string(word) + "'"};
    if (tokens_[at_] != word) throw Problem{"expected '" + std::string(word) + "', found " + quoted(tokens_[at_])};
    ++at_;
  }
  std::string name(const char* what) {
    const std::string_view word = next(what);
    if (!schema_file::valid_name(word)) {
      throw Problem{std::string(what) + " " + quoted(word) + " is not 1 to 64 characters of A-Z a-z 0-9 _ . -"};
    }
    return std::string(word);
  }
  float number(const char* what) {
    const std::string_view word = next(what);
    float value = 0.0F;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc{} || end != word.data() + word.size() || !std::isfinite(value)) {
      throw Problem{std::string(what) + ": " + quoted(word) + " is not a finite number"};
    }
    return value;
  }
  std::int64_t integer(const char* what, std::int64_t lo, std::int64_t hi) {
    const std::string_view word = next(what);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc{} || end != word.data() + word.size() || value < lo || value > hi) {
      throw Problem{std::string(what) + ": " + quoted(word) + " is not an integer in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]"};
    }
    return value;
  }
  void finish() {
    if (!done()) throw Problem{"unexpected " + quoted(tokens_[at_])};
  }

 private:
  const Tokens& tokens_;
  std::size_t at_ = 0;
};

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::int32_t int32(Cursor& c, const char* what) { return static_cast<std::int32_t>(c.integer(what, kInt32Min, kInt32Max)); }

// The optional "interpolation X" and "prediction Y" that end a field line.
struct Motion {
  Interpolation interpolation;
  Prediction prediction = Prediction::kAuto;
};

Motion motion(Cursor& c, Interpolation default_interpolation) {
  Motion m{default_interpolation};
  bool seen_interpolation = false;
  bool seen_prediction = false;
  while (!c.done()) {
    if (!seen_interpolation && c.take("interpolation")) {
      const std::string_view word = c.next("interpolation");
      const auto value = schema_file::interpolation(word);
      if (!value) throw Problem{"unknown interpolation " + quoted(word)};
      m.interpolation = *value;
      seen_interpolation = true;
    } else if (!seen_prediction && c.take("prediction")) {
      const std::string_view word = c.next("prediction");
      const auto value = schema_file::prediction(word);
      if (!value) throw Problem{"unknown prediction " + quoted(word)};
      m.prediction = *value;
      seen_prediction = true;
    } else {
      c.finish();
    }
  }
  return m;
}

// The array adders are templates over the size; one instance per size.
enum class FileEnum : std::uint32_t {};
using FloatArrayAdder = void (*)(TypeBuilder&, std::string, float, float, float, Motion);
using IntArrayAdder = void (*)(TypeBuilder&, std::string, std::int32_t, std::int32_t, Motion);
constexpr std::size_t kMaxArray = 64;

template <std::size_t N>
void add_float_array(TypeBuilder& t, std::string name, float min, float max, float precision, Motion m) {
  t.add_float_array<N>(std::move(name), min, max, precision, m.interpolation, m.prediction);
}
template <std::size_t N>
void add_int_array(TypeBuilder& t, std::string name, std::int32_t min, std::int32_t max, Motion m) {
  t.add_int_array<N>(std::move(name), min, max, m.interpolation, m.prediction);
}
template <std::size_t... I>
constexpr std::array<FloatArrayAdder, sizeof...(I)> float_array_adders(std::index_sequence<I...>) {
  return {&add_float_array<I + 1>...};
}
template <std::size_t... I>
constexpr std::array<IntArrayAdder, sizeof...(I)> int_array_adders(std::index_sequence<I...>) {
  return {&add_int_array<I + 1>...};
}
constexpr auto kFloatArrayAdders = float_array_adders(std::make_index_sequence<kMaxArray>{});
constexpr auto kIntArrayAdders = int_array_adders(std::make_index_sequence<kMaxArray>{});

template <std::size_t N>
std::array<float, N> floats(Cursor& c, const char* what) {
  std::array<float, N> out{};
  for (float& v : out) v = c.number(what);
  return out;
}

void add_field(TypeBuilder& t, Cursor& c) {
  std::string name = c.name("field name");
  const std::string_view kind_word = c.next("field kind");
  const auto kind = schema_file::field_kind(kind_word);
  if (!kind) throw Problem{"unknown field kind " + quoted(kind_word)};
  switch (*kind) {
    case FieldKind::kFloat: {
      c.expect("min");
      const float min = c.number("min");
      c.expect("max");
      const float max = c.number("max");
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kLinear);
      t.add_float(std::move(name), min, max, precision, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kInt: {
      c.expect("min");
      const std::int32_t min = int32(c, "min");
      c.expect("max");
      const std::int32_t max = int32(c, "max");
      const Motion m = motion(c, Interpolation::kStep);
      t.add_int(std::move(name), min, max, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kBool:
      c.finish();
      t.add_bool(std::move(name));
      return;
    case FieldKind::kEnum: {
      c.expect("count");
      const auto count = static_cast<std::uint32_t>(c.integer("count", 1, kInt32Max));
      c.finish();
      t.add_enum<FileEnum>(std::move(name), count);
      return;
    }
    case FieldKind::kAngle: {
      c.expect("bits");
      const auto bits = static_cast<int>(c.integer("bits", 2, 20));
      const Motion m = motion(c, Interpolation::kAngular);
      t.add_angle(std::move(name), bits, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kVec2: {
      c.expect("min");
      const auto min = floats<2>(c, "min");
      c.expect("max");
      const auto max = floats<2>(c, "max");
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kLinear);
      t.add_vec2(std::move(name), {min[0], min[1]}, {max[0], max[1]}, precision, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kVec3: {
      c.expect("min");
      const auto min = floats<3>(c, "min");
      c.expect("max");
      const auto max = floats<3>(c, "max");
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kLinear);
      t.add_vec3(std::move(name), {min[0], min[1], min[2]}, {max[0], max[1], max[2]}, precision, m.interpolation,
                 m.prediction);
      return;
    }
    case FieldKind::kQuat: {
      if (c.take("bits")) {
        const auto bits = static_cast<int>(c.integer("bits", 2, 20));
        const Motion m = motion(c, Interpolation::kAngular);
        t.add_quat_bits(std::move(name), bits, m.interpolation, m.prediction);
        return;
      }
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kAngular);
      t.add_quat(std::move(name), precision, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kFloatArray: {
      c.expect("size");
      const auto size = static_cast<std::size_t>(c.integer("size", 1, kMaxArray));
      c.expect("min");
      const float min = c.number("min");
      c.expect("max");
      const float max = c.number("max");
      c.expect("precision");
      const float precision = c.number("precision");
      kFloatArrayAdders[size - 1](t, std::move(name), min, max, precision, motion(c, Interpolation::kLinear));
      return;
    }
    case FieldKind::kIntArray: {
      c.expect("size");
      const auto size = static_cast<std::size_t>(c.integer("size", 1, kMaxArray));
      c.expect("min");
      const std::int32_t min = int32(c, "min");
      c.expect("max");
      const std::int32_t max = int32(c, "max");
      kIntArrayAdders[size - 1](t, std::move(name), min, max, motion(c, Interpolation::kStep));
      return;
    }
  }
}

// The file, line by line: the header, then types and their fields, then
// an optional hash.
class Parser {
 public:
  Schema parse(std::string_view text) {
    while (!text.empty()) {
      const std::size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
      ++line_number_;
      if (line.size() > SchemaFileLimits::kMaxLineBytes) throw Problem{"line longer than 4096 bytes"};
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const Tokens tokens = split(line);
      if (tokens.empty() || tokens.front().front() == '#') continue;
      Cursor cursor(tokens);
      take_line(cursor);
    }
    if (!seen_header_) throw Problem{"empty file: expected 'tickwire-schema 1'"};
    Schema schema = builder_.build();
    if (hash_ && *hash_ != schema.hash()) {
      line_number_ = hash_line_;
      throw Problem{"the types and fields above do not have this hash (they make " + hex(schema.hash()) + ")"};
    }
    return schema;
  }
  std::size_t line_number() const { return line_number_; }

 private:
  static std::string hex(std::uint64_t value) {
    char buffer[24];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, 16);
    return std::string(buffer, ec == std::errc{} ? end : buffer);
  }

  void take_line(Cursor& c) {
    if (!seen_header_) {
      c.expect("tickwire-schema");
      const auto version = c.integer("version", 0, kInt32Max);
      if (version != kSchemaFileVersion) {
        throw Problem{"schema file version " + std::to_string(version) + " is not supported (this build reads " +
                      std::to_string(kSchemaFileVersion) + ")"};
      }
      c.finish();
      seen_header_ = true;
      return;
    }
    if (hash_) throw Problem{"nothing may follow the hash line"};
    const std::string_view keyword = c.next("keyword");
    if (keyword == "type") return take_type(c);
    if (keyword == "field") return take_field(c);
    if (keyword == "hash") return take_hash(c);
    throw Problem{"unknown keyword " + quoted(keyword) + " (expected type, field or hash)"};
  }

  void take_type(Cursor& c) {
    if (types_ == SchemaFileLimits::kMaxTypes) throw Problem{"more than 256 types"};
    std::string name = c.name("type name");
    const std::string_view role_word = c.next("role (entity or record)");
    const auto role = schema_file::role(role_word);
    if (!role) throw Problem{"unknown role " + quoted(role_word) + " (expected entity or record)"};
    std::optional<float> priority;
    if (c.take("priority")) priority = c.number("priority");
    c.finish();
    type_.emplace(*role == TypeRole::kEntity ? builder_.entity_type(std::move(name))
                                             : builder_.record_type(std::move(name)));
    if (priority) type_->priority(*priority);
    ++types_;
    fields_ = 0;
  }

  void take_field(Cursor& c) {
    if (!type_) throw Problem{"a field before any type"};
    if (fields_ == SchemaFileLimits::kMaxFieldsPerType) throw Problem{"more than 256 fields in one type"};
    add_field(*type_, c);
    ++fields_;
  }

  void take_hash(Cursor& c) {
    const std::string_view word = c.next("hash");
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value, 16);
    if (ec != std::errc{} || end != word.data() + word.size() || word.size() > 16) {
      throw Problem{"hash " + quoted(word) + " is not up to 16 hex digits"};
    }
    c.finish();
    hash_ = value;
    hash_line_ = line_number_;
  }

  SchemaBuilder builder_;
  std::optional<TypeBuilder> type_;
  std::size_t types_ = 0;
  std::size_t fields_ = 0;
  bool seen_header_ = false;
  std::optional<std::uint64_t> hash_;
  std::size_t hash_line_ = 0;
  std::size_t line_number_ = 0;
};

Error at_line(std::size_t line, const std::string& what) {
  return make_error(ErrorCode::kMalformed, "schema file line " + std::to_string(line) + ": " + what);
}

}  // namespace

Result<Schema> parse_schema(std::string_view text) {
  if (text.size() > SchemaFileLimits::kMaxBytes) {
    return make_error(ErrorCode::kTooLong, "schema file over 1 MiB (" + std::to_string(text.size()) + " bytes)");
  }
  Parser parser;
  try {
    return parser.parse(text);
  } catch (const Problem& p) {
    return at_line(parser.line_number(), p.what);
  } catch (const std::exception& e) {
    // SchemaBuilder's own checks, worded for a game's code.
    return at_line(parser.line_number(), e.what());
  }
}

Result<Schema> load_schema(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  const std::streamoff size = in.tellg();
  if (size < 0 || size > static_cast<std::streamoff>(SchemaFileLimits::kMaxBytes)) {
    return make_error(ErrorCode::kTooLong, path + ": over 1 MiB, not a schema file");
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  auto schema = parse_schema(text);
  if (!schema) return make_error(schema.error().code, path + ": " + schema.error().detail);
  return schema;
}

}  // namespace tickwire::snapshot
