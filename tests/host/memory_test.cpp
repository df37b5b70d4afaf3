// The server's memory figures and its periodic trim.
#include "memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace tickwire::host {
namespace {

TEST(Memory, HeapInUseCountsWhatIsAllocatedAndFreed) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizer's allocator keeps its own books, which glibc's figures do not see";
#endif
  const std::uint64_t before = heap_in_use_kb();
#if defined(__GLIBC__)
  constexpr std::size_t kBytes = 8 << 20;
  auto* block = static_cast<char*>(std::malloc(kBytes));
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBytes);
  const std::uint64_t during = heap_in_use_kb();
  std::free(block);
  const std::uint64_t after = heap_in_use_kb();
  EXPECT_GE(during, before + kBytes / 1024);
  EXPECT_LT(after, during - kBytes / 2048);
#else
  EXPECT_EQ(before, 0U);
#endif
}

TEST(Memory, TrimmerIsDueOncePerInterval) {
  const Time t0 = Time::from_micros(1'000'000);
  MemoryTrimmer trimmer(Duration::seconds(10), t0);
  EXPECT_FALSE(trimmer.due(t0));
  EXPECT_FALSE(trimmer.due(t0 + Duration::millis(9999)));
  EXPECT_TRUE(trimmer.due(t0 + Duration::seconds(10)));
  EXPECT_FALSE(trimmer.due(t0 + Duration::seconds(15)));
  // A late call starts the next interval from itself, not from the schedule.
  EXPECT_TRUE(trimmer.due(t0 + Duration::seconds(25)));
  EXPECT_FALSE(trimmer.due(t0 + Duration::seconds(34)));
  EXPECT_TRUE(trimmer.due(t0 + Duration::seconds(35)));
}

}  // namespace
}  // namespace tickwire::host
