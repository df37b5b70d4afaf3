#pragma once
// Text and file handling for tickwire-token: hex, key files, token
// arguments. Every failure is a Result with a one-line reason, which the
// tool prints before exiting with status 2.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/transport/connect_token.h"

namespace tickwire::tools {

using Bytes = std::vector<std::uint8_t>;

std::string to_hex(const Bytes& bytes);
// Hex digits in pairs, either case; whitespace around them is ignored.
// `what` names the value in the error ("--user-data-hex").
Result<Bytes> from_hex(std::string_view text, std::string_view what);

Result<std::string> read_file(const std::string& path);
// Creates `path` with mode 0600 and writes `text`. Refuses to replace an
// existing file: overwriting a key by mistake would lock out every token
// minted under it.
Result<void> write_new_private_file(const std::string& path, std::string_view text);
// Creates or replaces `path` with `text` (mode 0600: a token is a credential
// until it expires).
Result<void> write_private_file(const std::string& path, std::string_view text);

Result<transport::TokenKey> load_key(const std::string& path);

// A token given on the command line: hex digits, or @FILE holding either
// hex digits or the raw bytes. A hex file may hold a second line, the
// session key `mint` writes beside the token, which is skipped here. Raw
// tokens start with "TWTOKEN2", whose letters are not all hex digits, so
// the two cannot be confused.
Result<Bytes> load_token(const std::string& argument);

// "2024-05-01T12:00:00Z" for a unix time.
std::string format_utc(std::int64_t unix_seconds);

}  // namespace tickwire::tools
