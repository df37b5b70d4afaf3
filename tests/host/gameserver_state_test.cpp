// The GameServer state in the sidecar's JSON, and the watch's lines.
#include "gameserver_state.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "test_seed.h"

namespace tickwire::host {
namespace {

TEST(GameServerState, FromTheRecordAndFromAWatchLine) {
  EXPECT_EQ(game_server_state(R"({"object_meta":{"name":"gs"},"status":{"state":"Ready","address":"10.0.0.7"}})"),
            "Ready");
  EXPECT_EQ(
      game_server_state(R"({"result":{"object_meta":{"annotations":{"state":"x","status":"y"}},"spec":{"ports":[1,2]},)"
                        R"("status":{"counters":{"state":{"count":"1"}},"state":"Allocated"}}})"),
      "Allocated");
  EXPECT_EQ(game_server_state(" { \"result\" : { \"status\" : { \"state\" : \"Shutdown\" } } } "), "Shutdown");
}

TEST(GameServerState, AnythingElseIsNone) {
  for (
      const char* bad :
      {"", "{", "[]", "null", R"({"status":{}})", R"({"status":{"state":3}})", R"({"status":{"state":""}})",
       R"({"status":"Ready"})", R"({"result":{"status":{"state":"R)",
       R"({"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"status":{"state":"Ready"}})",
       R"({"status":{"state":"Ready\)", R"({"x":"\\","status":{"state":"Ready"}})"}) {
    const auto state = game_server_state(bad);
    if (std::string(bad).find(R"("x":"\\")") != std::string::npos) {
      EXPECT_EQ(state, "Ready") << bad;  // an escaped backslash ends the string properly
    } else {
      EXPECT_FALSE(state.has_value()) << bad << " gave " << *state;
    }
  }
}

// A hostile sidecar line nesting "result" deeply ends in no state, not in
// a stack overflow: only the top-level "result" is the watch's wrapper.
TEST(GameServerState, DeeplyNestedResultsAreNoState) {
  constexpr int kLevels = 100000;
  std::string line;
  for (int i = 0; i < kLevels; ++i) line += R"({"result":)";
  line += R"({"status":{"state":"Ready"}})";
  line += std::string(kLevels, '}');
  EXPECT_FALSE(game_server_state(line).has_value());
  EXPECT_FALSE(game_server_state(R"({"result":{"result":{"status":{"state":"Ready"}}}})").has_value());
}

TEST(GameServerState, RandomBytesNeverCrash) {
  const std::uint64_t seed = testing::test_seed("GameServerState.RandomBytesNeverCrash");
  std::mt19937_64 rng(seed);
  const std::string alphabet = R"({}[]":,\ abcstuRe0123)";
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    const auto length = rng() % 200;
    for (std::uint64_t j = 0; j < length; ++j) text += alphabet[rng() % alphabet.size()];
    (void)game_server_state(text);
  }
}

TEST(LineSplitter, SplitsAcrossChunksAndDropsOverlongLines) {
  LineSplitter lines(8);
  lines.feed("ab");
  EXPECT_FALSE(lines.next().has_value());
  lines.feed("c\nde\n0123456789xyz\nok\n");
  EXPECT_EQ(lines.next(), "abc");
  EXPECT_EQ(lines.next(), "de");
  EXPECT_EQ(lines.next(), "ok");
  EXPECT_FALSE(lines.next().has_value());
}

}  // namespace
}  // namespace tickwire::host
