// The time benchmark's profile files: delay tracks and clock steps read as
// written, and malformed ones refused with a message, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "profiles.h"

namespace tickwire::bench {
namespace {

Result<std::vector<BenchProfile>> load_text(const std::string& text) {
  const std::string path = testing::TempDir() + "profile_file_test.json";
  std::ofstream(path) << text;
  auto loaded = load_profiles(path);
  (void)std::remove(path.c_str());
  return loaded;
}

TEST(ProfileFile, ReadsTracksAndClockSteps) {
  const auto loaded = load_text(R"({"profiles": [{"name": "p", "link": {"latency_ms": 20},
      "tracks": [{"corners": [[0, 0], [5, 0], [5, 15], [10, 15]], "repeat_s": 10, "links": "up"}],
      "clock_steps": [{"at_s": 30, "by_ms": 120}, {"at_s": 10, "by_ms": 5}]}]})");
  ASSERT_TRUE(loaded) << loaded.error().detail;
  const BenchProfile& p = loaded->front();
  ASSERT_EQ(p.tracks.size(), 1U);
  EXPECT_TRUE(p.tracks[0].up);
  EXPECT_FALSE(p.tracks[0].down);
  EXPECT_EQ(p.tracks[0].at(Duration::seconds(7)), Duration::millis(15));
  EXPECT_EQ(p.tracks[0].at(Duration::seconds(12)), Duration::zero());  // repeated
  EXPECT_EQ(p.tracks[0].at(Duration::seconds(17)), Duration::millis(15));
  EXPECT_EQ(p.clock_jump(Duration::seconds(20)), Duration::millis(5));
  EXPECT_EQ(p.clock_jump(Duration::seconds(40)), Duration::millis(125));
}

TEST(ProfileFile, RefusesMalformedTracksAndClockSteps) {
  for (const char* body : {
           R"("tracks": 3)",
           R"("tracks": [{}])",
           R"("tracks": [{"corners": []}])",
           R"("tracks": [{"corners": [[1]]}])",
           R"("tracks": [{"corners": [[5, 0], [1, 0]]}])",
           R"("tracks": [{"corners": [[0, 1e300]]}])",
           R"("tracks": [{"corners": [[-1, 0]]}])",
           R"("tracks": [{"corners": [[0, 0]], "repeat_s": 0}])",
           R"("tracks": [{"corners": [[0, 0]], "links": "sideways"}])",
           R"("tracks": [{"corners": [[0, 0]], "extra": 1}])",
           R"("clock_steps": [{"at_s": 1}])",
           R"("clock_steps": [{"at_s": 1, "by_ms": -5}])",
           R"("clock_steps": [{"at_s": 1, "by_ms": 5, "x": 1}])",
           R"("clock_steps": {})",
       }) {
    const auto loaded = load_text(std::string(R"({"profiles": [{"name": "p", )") + body + "}]}");
    ASSERT_FALSE(loaded) << body;
    EXPECT_FALSE(loaded.error().detail.empty());
  }
}

}  // namespace
}  // namespace tickwire::bench
