// run_server up to the point where it would bind a socket: the exits that
// options, the game's refusals and unsupported settings give.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "tickwire/arena/arena.h"
#include "tickwire/host/server_host.h"

namespace tickwire::host {
namespace {

using ::testing::internal::CaptureStderr;
using ::testing::internal::CaptureStdout;
using ::testing::internal::GetCapturedStderr;
using ::testing::internal::GetCapturedStdout;

const GameInfo kInfo{"testgame", "7.0", "A game for the tests."};

struct Run {
  int code = -1;
  std::string out;
  std::string err;
};

Run run(std::vector<const char*> args, const ServerSpec& spec) {
  args.insert(args.begin(), "testgame-server");
  Run r;
  CaptureStdout();
  CaptureStderr();
  r.code = run_server(static_cast<int>(args.size()), args.data(), spec);
  r.out = GetCapturedStdout();
  r.err = GetCapturedStderr();
  return r;
}

ServerSpec arena_spec(int* rounds = nullptr) {
  ServerSpec spec;
  spec.game = kInfo;
  spec.add_options = [rounds](GameOptions& o) {
    static int unused = 0;
    o.option("rounds", "Rounds", rounds != nullptr ? *rounds : unused).range(1, 9);
  };
  spec.make_game = [](const ServerSettings& s) {
    arena::GameConfig config;
    config.max_rewind = s.max_rewind;
    return std::make_unique<arena::Game>(config);
  };
  return spec;
}

TEST(RunServer, VersionAndHelpExitZero) {
  const auto version = run({"--version"}, arena_spec());
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find("testgame-server "), std::string::npos);
  EXPECT_NE(version.out.find("(testgame 7.0)"), std::string::npos) << version.out;
  const auto help = run({"--help"}, arena_spec());
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--rounds"), std::string::npos);
}

TEST(RunServer, BadFlagsOfTheHostOrTheGameExitTwo) {
  EXPECT_EQ(run({"--frobnicate"}, arena_spec()).code, 2);
  const auto rounds = run({"--rounds", "10"}, arena_spec());
  EXPECT_EQ(rounds.code, 2);
  EXPECT_NE(rounds.err.find("--rounds"), std::string::npos) << rounds.err;
}

TEST(RunServer, AGameOptionNamedLikeAHostFlagExitsTwoSayingSo) {
  auto spec = arena_spec();
  spec.add_options = [](GameOptions& o) {
    static int port = 0;
    o.option("port", "The game's own port", port);
  };
  const auto clash = run({}, spec);
  EXPECT_EQ(clash.code, 2);
  EXPECT_NE(clash.err.find("testgame-server: game option: "), std::string::npos) << clash.err;
  EXPECT_NE(clash.err.find("--port"), std::string::npos) << clash.err;
}

TEST(RunServer, TheGameRefusingItsSettingsExitsTwoWithItsMessage) {
  auto spec = arena_spec();
  spec.make_game = [](const ServerSettings& s) -> std::unique_ptr<prediction::NetGame> {
    throw std::invalid_argument("at most 8 players, not " + std::to_string(s.max_clients));
  };
  const auto refused = run({"--max-clients", "9"}, spec);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("testgame-server: invalid settings: at most 8 players, not 9"), std::string::npos)
      << refused.err;
  spec.make_game = [](const ServerSettings&) { return std::unique_ptr<prediction::NetGame>(); };
  EXPECT_EQ(run({}, spec).code, 2);
  spec.make_game = nullptr;
  EXPECT_EQ(run({}, spec).code, 2);
}

TEST(RunServer, ATickRateTheGameCannotRunNamesTheGame) {
  const auto r = run({"--tick-rate", "30", "--send-rate", "30", "--log-level", "off"}, arena_spec());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--tick-rate 30: testgame runs only at 60 ticks per second"), std::string::npos) << r.err;
}

// --train-codebook checks its path at start without truncating it; when a
// later start-up step fails, a file the check created is gone again and
// one that was there keeps what it held.
TEST(RunServer, AFailedStartLeavesTheTrainCodebookPathAsItWas) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "run_server_train_codebook";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fresh = (dir / "fresh.twcb").string();
  const std::string kept = (dir / "kept.twcb").string();
  std::ofstream(kept) << "an earlier codebook";
  const std::string stats = (dir / "missing" / "stats.jsonl").string();
  for (const std::string& path : {fresh, kept}) {
    const auto r =
        run({"--train-codebook", path.c_str(), "--stats-json", stats.c_str(), "--log-level", "off"}, arena_spec());
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--stats-json"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(fresh));
  std::ifstream in(kept);
  const std::string held((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(held, "an earlier codebook");
  std::filesystem::remove_all(dir);
}

TEST(RunServer, AGameBuiltBeforehandTakesTheHostsFlagsOnly) {
  arena::Game game;
  const char* version[] = {"x-server", "--version"};
  CaptureStdout();
  EXPECT_EQ(run_server(2, version, game, kInfo), 0);
  EXPECT_NE(GetCapturedStdout().find("x-server "), std::string::npos);
  const char* bad[] = {"x-server", "--rounds", "3"};
  CaptureStderr();
  EXPECT_EQ(run_server(3, bad, game, kInfo), 2);
  EXPECT_NE(GetCapturedStderr().find("--rounds"), std::string::npos);
}

}  // namespace
}  // namespace tickwire::host
