#pragma once
// Reading 32-byte keys written as hexadecimal, shared by connect-token keys
// and server identities.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tickwire/core/result.h"

namespace tickwire::transport::hex_key {

using Bytes = std::array<std::uint8_t, 32>;

// The text without whitespace around it.
std::string_view trim(std::string_view text);
// A hexadecimal digit's value, or -1 for any other character.
int digit_value(char c);

// 64 hexadecimal digits, whitespace around them ignored. `what` names the
// key in errors ("a connect-token key").
Result<Bytes> parse(std::string_view text, std::string_view what);

// The key in a file of hex digits; errors start with the file's name.
Result<Bytes> load(const std::string& path, std::string_view what);

}  // namespace tickwire::transport::hex_key
