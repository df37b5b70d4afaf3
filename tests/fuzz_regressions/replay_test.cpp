// Replays one fuzz target's checked-in inputs through the target's own
// LLVMFuzzerTestOneInput (tests/fuzz/TARGET_fuzz.cpp, linked in): the seed
// corpus, which must keep decoding as the formats change, and every
// regression input, a crash the fuzzer once found, which must stay fixed.
// A broken invariant aborts the test binary, naming the invariant; the
// file being replayed is printed first.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// The files of tests/fuzz/KIND/TARGET, in name order; none if it does not exist.
std::vector<fs::path> inputs(const char* kind) {
  const fs::path dir = fs::path(TICKWIRE_FUZZ_DIR) / kind / TICKWIRE_FUZZ_TARGET;
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string test_name(const testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.filename().string();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
  return name;
}

class Replay : public testing::TestWithParam<fs::path> {};

TEST_P(Replay, RunsCleanly) {
  std::ifstream in(GetParam(), std::ios::binary);
  ASSERT_TRUE(in) << GetParam();
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "replaying %s (%zu bytes)\n", GetParam().string().c_str(), bytes.size());
  std::fflush(stderr);
  EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Replay, testing::ValuesIn(inputs("corpus")), test_name);
INSTANTIATE_TEST_SUITE_P(Regressions, Replay, testing::ValuesIn(inputs("regressions")), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Replay);

TEST(FuzzInputs, SeedCorpusIsCheckedIn) { EXPECT_FALSE(inputs("corpus").empty()) << TICKWIRE_FUZZ_TARGET; }

// An empty input is the first thing a fuzzer tries.
TEST(FuzzInputs, EmptyInputRunsCleanly) { EXPECT_EQ(LLVMFuzzerTestOneInput(nullptr, 0), 0); }

}  // namespace
