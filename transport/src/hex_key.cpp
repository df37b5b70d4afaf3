#include "hex_key.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tickwire::transport::hex_key {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<Bytes> parse(std::string_view text, std::string_view what) {
  text = trim(text);
  Bytes out{};
  const std::string prefix = std::string(what) + " is " + std::to_string(2 * out.size()) + " hexadecimal digits";
  if (text.size() != 2 * out.size()) {
    return make_error(ErrorCode::kInvalidArgument, prefix + ", got " + std::to_string(text.size()) + " characters");
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int high = digit_value(text[2 * i]);
    const int low = digit_value(text[2 * i + 1]);
    if (high < 0 || low < 0) {
      const std::size_t at = high < 0 ? 2 * i : 2 * i + 1;
      return make_error(ErrorCode::kInvalidArgument, prefix + "; character " + std::to_string(at + 1) + " is not one");
    }
    out[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return out;
}

Result<Bytes> load(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  // A key file is 64 hex digits; reading a little more is enough to tell
  // a wrong file from a right one without swallowing a huge one.
  constexpr std::size_t kReadLimit = 4096;
  std::string buffer(kReadLimit, '\0');
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  buffer.resize(static_cast<std::size_t>(in.gcount()));
  auto key = parse(buffer, what);
  if (!key) return make_error(key.error().code, path + ": " + key.error().detail);
  return key;
}

}  // namespace tickwire::transport::hex_key
