#include "server_stats.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <system_error>

namespace tickwire::bots {
namespace {

void skip_space(std::string_view text, std::size_t& i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
}

// A JSON string starting at text[i] == '"'; escapes are kept as written,
// which is enough for keys.
std::optional<std::string> read_string(std::string_view text, std::size_t& i) {
  if (i >= text.size() || text[i] != '"') return std::nullopt;
  std::string out;
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[++i];
    } else if (text[i] == '"') {
      ++i;
      return out;
    } else {
      out += text[i];
    }
  }
  return std::nullopt;
}

// Skips a value that is not a number: a string, a literal, or a nested
// object or array (brackets counted, strings stepped over).
void skip_value(std::string_view text, std::size_t& i) {
  int depth = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      if (!read_string(text, i)) return;
      if (depth == 0) return;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (depth == 0) return;
      --depth;
    }
    if (c == ',' && depth == 0) return;
    ++i;
  }
}

}  // namespace

std::optional<double> ServerSample::get(const std::string& key) const {
  const auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<ServerSample> parse_server_line(std::string_view line) {
  std::size_t i = 0;
  skip_space(line, i);
  if (i >= line.size() || line[i] != '{') return std::nullopt;
  ++i;
  ServerSample sample;
  while (true) {
    skip_space(line, i);
    if (i < line.size() && line[i] == '}') return sample;
    auto key = read_string(line, i);
    if (!key) return std::nullopt;
    skip_space(line, i);
    if (i >= line.size() || line[i] != ':') return std::nullopt;
    ++i;
    skip_space(line, i);
    double value = 0.0;
    const auto [end, error] = std::from_chars(line.data() + i, line.data() + line.size(), value);
    if (error == std::errc()) {
      sample.values[*key] = value;
      i = static_cast<std::size_t>(end - line.data());
    } else {
      skip_value(line, i);
    }
    skip_space(line, i);
    if (i < line.size() && line[i] == ',') {
      ++i;
      continue;
    }
    if (i < line.size() && line[i] == '}') return sample;
    return std::nullopt;
  }
}

std::vector<ServerSample> read_server_stats(std::istream& in) {
  std::vector<ServerSample> samples;
  std::string line;
  while (std::getline(in, line)) {
    if (auto sample = parse_server_line(line)) samples.push_back(std::move(*sample));
  }
  return samples;
}

}  // namespace tickwire::bots
