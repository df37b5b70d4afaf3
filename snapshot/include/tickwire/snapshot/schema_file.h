#pragma once
// A schema written to a small text file and read back, so that a program
// with none of a game's code (a load-testing bot, a packet inspector) can
// build the same Schema, down to its hash(). The file replays the
// SchemaBuilder calls that made the schema, one line per type and per field:
//
//   tickwire-schema 1
//   type player entity priority 2
//   field position vec2 min -32 -32 max 32 32 precision 0.01 interpolation linear prediction auto
//   field health int min 0 max 100 interpolation step prediction auto
//   type input record priority 1
//   field fire bool
//   hash 9f3c2a71e4b05d18
//
// The format, its limits and every field kind: docs/schema-file.md.
// A file is untrusted input: parse_schema never throws and reports the
// first problem with its line number.

#include <cstddef>
#include <string>
#include <string_view>

#include "tickwire/core/result.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

inline constexpr int kSchemaFileVersion = 1;

// What a schema file may hold; larger files are refused before parsing.
struct SchemaFileLimits {
  static constexpr std::size_t kMaxBytes = 1 << 20;
  static constexpr std::size_t kMaxLineBytes = 4096;
  static constexpr std::size_t kMaxNameBytes = 64;
  static constexpr std::size_t kMaxTypes = 256;
  static constexpr std::size_t kMaxFieldsPerType = 256;
};

// The file's text. Throws std::invalid_argument for a schema the format
// cannot hold (a name longer than kMaxNameBytes or with characters outside
// [A-Za-z0-9_.-], more types or fields than the limits): schemas are built
// from constants, so this is a programming error, found at once.
std::string describe_schema(const Schema& schema);
// describe_schema into `path`; the error says why it could not be written.
Result<void> save_schema(const std::string& path, const Schema& schema);

// The schema a file describes, built through SchemaBuilder; when the file
// ends with a hash line, the result must have that hash.
Result<Schema> parse_schema(std::string_view text);
Result<Schema> load_schema(const std::string& path);

}  // namespace tickwire::snapshot
