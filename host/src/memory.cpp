#include "memory.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "stats_format.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tickwire::host {

std::uint64_t resident_set_kb() {
  std::ifstream in("/proc/self/statm");
  std::stringstream text;
  text << in.rdbuf();
  const long page = sysconf(_SC_PAGESIZE);
  const auto kb = rss_kb_from_statm(text.str(), page > 0 ? static_cast<std::uint64_t>(page) : 4096U);
  return kb.value_or(0);
}

std::uint64_t heap_in_use_kb() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 info = mallinfo2();
  return (info.uordblks + info.hblkhd) / 1024;
#else
  return 0;
#endif
}

void MemoryTrimmer::trim() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace tickwire::host
