#pragma once
// The words of one schema file line, read in order, and the field lines
// replayed through TypeBuilder (docs/schema-file.md). A problem is thrown
// as Problem and reported by parse_schema with its line number; nothing
// escapes parse_schema.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "schema_file_names.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot::schema_file {

// A line's problem; the parser adds the line number.
struct Problem {
  std::string what;
};

using Tokens = std::vector<std::string_view>;

inline Tokens split(std::string_view line) {
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

inline std::string quoted(std::string_view word) {
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
    if (!valid_name(word)) {
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

// Adds the field a "field ..." line describes (the cursor past "field").
void add_field(TypeBuilder& type, Cursor& c);

}  // namespace tickwire::snapshot::schema_file
