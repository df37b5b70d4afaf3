#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "tickwire/transport/connect_token.h"

namespace tickwire::transport {

Result<TokenKey> TokenKey::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  // A key file is 64 hex digits; reading a little more is enough to tell
  // a wrong file from a right one without swallowing a huge one.
  constexpr std::size_t kReadLimit = 4096;
  std::string buffer(kReadLimit, '\0');
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  buffer.resize(static_cast<std::size_t>(in.gcount()));
  auto key = from_hex(buffer);
  if (!key) return make_error(key.error().code, path + ": " + key.error().detail);
  return key;
}

}  // namespace tickwire::transport
