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

#include "schema_file_cursor.h"
#include "tickwire/snapshot/schema_file.h"

namespace tickwire::snapshot {
namespace {

using schema_file::Cursor;
using schema_file::Problem;
using schema_file::quoted;
using schema_file::Tokens;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

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
      const Tokens tokens = schema_file::split(line);
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
    schema_file::add_field(*type_, c);
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
