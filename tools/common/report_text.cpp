#include "report_text.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace tickwire::tools {

std::string format(const char* fmt, ...) {
  // Report lines are short; a longer one is cut rather than overflowing.
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "0";
  std::ostringstream out;
  out.precision(10);
  out << v;
  return out.str();
}

}  // namespace tickwire::tools
