#include "token_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace tickwire::tools {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool all_hex(std::string_view text) {
  for (char c : text) {
    if (hex_value(c) < 0) return false;
  }
  return true;
}

Error invalid(std::string detail) { return make_error(ErrorCode::kInvalidArgument, std::move(detail)); }

Result<void> write_with_flags(const std::string& path, std::string_view text, int flags) {
  const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) {
    if (errno == EEXIST) return invalid(path + ": already exists; not replacing it");
    return invalid(path + ": " + std::strerror(errno));
  }
  // The mode above applies only to a new file; a replaced one keeps its
  // own, so set it either way.
  bool ok = ::fchmod(fd, S_IRUSR | S_IWUSR) == 0;
  std::size_t written = 0;
  while (ok && written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  ok = (::close(fd) == 0) && ok;
  if (!ok) return invalid(path + ": " + std::strerror(saved != 0 ? saved : errno));
  return {};
}

}  // namespace

std::string to_hex(const Bytes& bytes) { return transport::to_hex(bytes); }

Result<Bytes> from_hex(std::string_view text, std::string_view what) {
  text = trim(text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (hex_value(text[i]) < 0) {
      return invalid(std::string(what) + ": character " + std::to_string(i + 1) + " is not a hexadecimal digit");
    }
  }
  if (text.size() % 2 != 0) return invalid(std::string(what) + ": an odd number of hexadecimal digits");
  Bytes out(text.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(hex_value(text[2 * i]) * 16 + hex_value(text[2 * i + 1]));
  }
  return out;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid(path + ": cannot be read (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return invalid(path + ": read failed");
  return text.str();
}

Result<void> write_new_private_file(const std::string& path, std::string_view text) {
  return write_with_flags(path, text, O_CREAT | O_EXCL);
}

Result<void> write_private_file(const std::string& path, std::string_view text) {
  return write_with_flags(path, text, O_CREAT | O_TRUNC);
}

Result<transport::TokenKey> load_key(const std::string& path) { return transport::TokenKey::load(path); }

Result<Bytes> load_token(const std::string& argument) {
  if (argument.empty() || argument.front() != '@') return from_hex(argument, "token");
  const std::string path = argument.substr(1);
  auto text = read_file(path);
  if (!text) return text.error();
  const std::string_view trimmed = trim(*text);
  if (!trimmed.empty() && all_hex(trimmed)) return from_hex(trimmed, path);
  // What mint --out writes: the token's line, then the session key's.
  const std::size_t newline = trimmed.find('\n');
  if (newline != std::string_view::npos) {
    const std::string_view first = trim(trimmed.substr(0, newline));
    const std::string_view second = trim(trimmed.substr(newline + 1));
    if (!first.empty() && all_hex(first) && !second.empty() && all_hex(second)) return from_hex(first, path);
  }
  return Bytes(text->begin(), text->end());
}

std::string format_utc(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm parts{};
  char out[32] = {};
  if (::gmtime_r(&t, &parts) == nullptr || std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &parts) == 0) {
    return "out of range";
  }
  return out;
}

}  // namespace tickwire::tools
