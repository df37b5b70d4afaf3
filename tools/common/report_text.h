#pragma once
// Text helpers the tools' reports share: printf-style formatting into a
// string, and numbers as JSON allows them.

#include <cstdint>
#include <string>

namespace tickwire::tools {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// For %llu, whatever std::uint64_t is on the platform.
inline unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

// A number as JSON allows it: NaN and infinities, which it does not, as 0.
std::string json_number(double v);

}  // namespace tickwire::tools
