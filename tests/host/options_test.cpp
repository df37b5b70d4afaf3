#include "options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "startup.h"

namespace tickwire::host {
namespace {

const GameInfo kGame{"mygame", "2.5.0", "A game for the tests."};

// The game's own flags, as a game adds them.
struct GameFlags {
  std::size_t nearest = 0;
  bool fog = false;
  double gravity = 9.8;
  std::string map = "ring";
  int bots = 0;
  std::uint32_t rounds = 3;
};

std::variant<Options, ParseExit> parse(std::vector<const char*> args, GameFlags* flags = nullptr) {
  args.insert(args.begin(), "/usr/bin/mygame-server");
  static GameFlags unused;
  GameFlags& f = flags != nullptr ? *flags : unused;
  return parse_options(static_cast<int>(args.size()), args.data(), kGame, [&f](GameOptions& o) {
    o.option("nearest", "Nearest entities", f.nearest)
        .range(0, 100000)
        .flag("--fog", "Fog of war", f.fog)
        .option("gravity", "Gravity", f.gravity)
        .option("map", "Map name", f.map)
        .option("bots", "Bots", f.bots)
        .option("rounds", "Rounds", f.rounds);
  });
}

TEST(Options, Defaults) {
  const auto parsed = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const auto& o = std::get<Options>(parsed);
  EXPECT_EQ(o.tick_rate, 60U);
  EXPECT_EQ(o.snapshot_bytes, 1100U);
  EXPECT_EQ(o.max_catch_up_ticks, 8);
  EXPECT_FALSE(o.schema_hash.has_value());
  EXPECT_EQ(o.timeout_s, 5.0);
  EXPECT_EQ(o.handshake_timeout_s, 5.0);
}

TEST(Options, SchemaHashIsSetOnlyWhenGiven) {
  GameFlags flags;
  const auto parsed = parse({"--schema-hash", "1234", "--nearest", "16"}, &flags);
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  EXPECT_EQ(std::get<Options>(parsed).schema_hash, 1234U);
  EXPECT_EQ(flags.nearest, 16U);
}

TEST(Options, TheGamesFlagsParseAndKeepTheirDefaults) {
  GameFlags defaults;
  ASSERT_TRUE(std::holds_alternative<Options>(parse({}, &defaults)));
  EXPECT_FALSE(defaults.fog);
  EXPECT_EQ(defaults.map, "ring");
  EXPECT_EQ(defaults.rounds, 3U);
  GameFlags flags;
  const auto parsed = parse({"--fog", "--gravity", "1.6", "--map", "moon", "--bots", "-2", "--rounds", "7"}, &flags);
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  EXPECT_TRUE(flags.fog);
  EXPECT_DOUBLE_EQ(flags.gravity, 1.6);
  EXPECT_EQ(flags.map, "moon");
  EXPECT_EQ(flags.bots, -2);
  EXPECT_EQ(flags.rounds, 7U);
}

// A mistake in the game's option names is a clear start-up error (status
// 2), never std::terminate from an escaped exception.
TEST(Options, AGameOptionThatCannotBeAddedExitsTwoNamingIt) {
  const auto with = [](const std::function<void(GameOptions&)>& add) {
    const char* args[] = {"/usr/bin/mygame-server"};
    return parse_options(1, args, kGame, add);
  };
  int port = 0;
  int twice = 0;
  const std::vector<std::pair<std::function<void(GameOptions&)>, std::string>> cases = {
      {[&](GameOptions& o) { o.option("port", "Clashes with the host's", port); }, "--port"},
      {[&](GameOptions& o) { o.option("--port", "Clashes with the host's", port); }, "--port"},
      {[&](GameOptions& o) { o.option("rounds", "", twice).option("rounds", "", twice); }, "--rounds"},
      {[&](GameOptions& o) { o.option("", "No name", port); }, "''"},
      {[&](GameOptions& o) { o.option("-x", "A short name", port); }, "'-x'"},
      {[&](GameOptions& o) { o.option("---x", "Three dashes", port); }, "'---x'"},
      {[&](GameOptions& o) { o.range(0, 1); }, "range before any option"},
  };
  for (const auto& [add, named] : cases) {
    const auto parsed = with(add);
    ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed)) << named;
    const auto& exit = std::get<ParseExit>(parsed);
    EXPECT_EQ(exit.code, 2) << exit.message;
    EXPECT_EQ(exit.message.rfind("mygame-server: game option: ", 0), 0U) << exit.message;
    EXPECT_NE(exit.message.find(named), std::string::npos) << exit.message;
  }
}

TEST(Options, HelpAndVersionNameTheProgramAndTheGame) {
  const auto help = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(help));
  const auto& text = std::get<ParseExit>(help).message;
  EXPECT_NE(text.find("mygame-server: the Tickwire dedicated server, hosting mygame 2.5.0."), std::string::npos)
      << text;
  EXPECT_NE(text.find("A game for the tests."), std::string::npos);
  EXPECT_NE(text.find("Game (mygame)"), std::string::npos);
  EXPECT_NE(text.find("--fog"), std::string::npos);
  const auto version = parse({"--version"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(version));
  EXPECT_EQ(std::get<ParseExit>(version).message.rfind("mygame-server ", 0), 0U);
  EXPECT_NE(std::get<ParseExit>(version).message.find("(mygame 2.5.0)"), std::string::npos);
  const auto bad = parse({"--frobnicate"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(bad));
  EXPECT_EQ(std::get<ParseExit>(bad).message.rfind("mygame-server: ", 0), 0U);
}

TEST(Options, ProgramNameIsTheBinarysOrTheGamesWithServer) {
  const char* path[] = {"/opt/bin/x-server"};
  EXPECT_EQ(program_name(1, path, kGame), "x-server");
  const char* empty[] = {""};
  EXPECT_EQ(program_name(1, empty, kGame), "mygame-server");
  EXPECT_EQ(program_name(0, nullptr, kGame), "mygame-server");
}

TEST(Options, ModelsInFlightDefaultsToFourAndZeroMeansAll) {
  const auto none = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(none));
  EXPECT_EQ(std::get<Options>(none).models_in_flight, 4U);
  const auto all = parse({"--models-in-flight", "0"});
  ASSERT_TRUE(std::holds_alternative<Options>(all));
  EXPECT_EQ(std::get<Options>(all).models_in_flight, 0U);
}

TEST(Options, ViewsInFlightDefaultsToSixteenAndZeroMeansAll) {
  const auto none = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(none));
  EXPECT_EQ(std::get<Options>(none).views_in_flight, 16U);
  const auto all = parse({"--views-in-flight", "0"});
  ASSERT_TRUE(std::holds_alternative<Options>(all));
  EXPECT_EQ(std::get<Options>(all).views_in_flight, 0U);
}

TEST(Options, TimeoutIsSecondsFromOneToTenMinutes) {
  const auto parsed = parse({"--timeout", "8", "--handshake-timeout", "60"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  EXPECT_EQ(std::get<Options>(parsed).timeout_s, 8.0);
  EXPECT_EQ(std::get<Options>(parsed).handshake_timeout_s, 60.0);
}

TEST(Options, BadValuesExitTwoNamingTheFlag) {
  for (const auto& args : std::vector<std::vector<const char*>>{{"--nearest", "-1"},
                                                                {"--nearest", "lots"},
                                                                {"--nearest", "100001"},
                                                                {"--rounds", "-1"},
                                                                {"--gravity", "up"},
                                                                {"--snapshot-bytes", "10"},
                                                                {"--models-in-flight", "5000"},
                                                                {"--models-in-flight", "-1"},
                                                                {"--views-in-flight", "1"},
                                                                {"--views-in-flight", "4097"},
                                                                {"--max-catch-up-ticks", "0"},
                                                                {"--timeout", "0.5"},
                                                                {"--timeout", "601"},
                                                                {"--timeout", "soon"},
                                                                {"--handshake-timeout", "0"}}) {
    const auto parsed = parse(args);
    ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed)) << args[0];
    EXPECT_EQ(std::get<ParseExit>(parsed).code, 2);
    EXPECT_NE(std::get<ParseExit>(parsed).message.find(args[0]), std::string::npos)
        << std::get<ParseExit>(parsed).message;
  }
}

TEST(Options, ACodebookIsUsedOrTrainedNotBoth) {
  const auto use = parse({"--codebook", "arena.twcb"});
  ASSERT_TRUE(std::holds_alternative<Options>(use));
  EXPECT_EQ(std::get<Options>(use).codebook, "arena.twcb");
  const auto both = parse({"--codebook", "a.twcb", "--train-codebook", "b.twcb"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(both));
  EXPECT_EQ(std::get<ParseExit>(both).code, 2);
  EXPECT_NE(std::get<ParseExit>(both).message.find("--train-codebook"), std::string::npos)
      << std::get<ParseExit>(both).message;
}

TEST(Options, HelpExitsZero) {
  const auto parsed = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed));
  EXPECT_EQ(std::get<ParseExit>(parsed).code, 0);
  EXPECT_NE(std::get<ParseExit>(parsed).message.find("--max-catch-up-ticks"), std::string::npos);
}

TEST(Options, OperationsFlags) {
  const auto none = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(none));
  EXPECT_FALSE(std::get<Options>(none).metrics_port.has_value());
  EXPECT_EQ(std::get<Options>(none).metrics_bind, "0.0.0.0");
  EXPECT_FALSE(std::get<Options>(none).agones);

  const auto parsed = parse({"--metrics-port", "9100", "--metrics-bind", "127.0.0.1", "--agones",
                             "--agones-health-interval", "0.5", "--agones-allocate-on-join"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const auto& o = std::get<Options>(parsed);
  EXPECT_EQ(o.metrics_port, 9100);
  EXPECT_EQ(o.metrics_bind, "127.0.0.1");
  EXPECT_TRUE(o.agones);
  EXPECT_DOUBLE_EQ(o.agones_health_interval_s, 0.5);
  EXPECT_TRUE(o.agones_allocate_on_join);
  EXPECT_EQ(o.agones_counter, "players");
  EXPECT_EQ(o.agones_list, "players");
  const auto keys = parse({"--agones-counter", "sessions", "--agones-list", ""});
  ASSERT_TRUE(std::holds_alternative<Options>(keys));
  EXPECT_EQ(std::get<Options>(keys).agones_counter, "sessions");
  EXPECT_EQ(std::get<Options>(keys).agones_list, "");

  for (const auto& args : std::vector<std::vector<const char*>>{{"--metrics-port", "70000"},
                                                                {"--metrics-port", "x"},
                                                                {"--agones-health-interval", "0"},
                                                                {"--agones-counter", "a/b"},
                                                                {"--agones-list", "x y"}}) {
    const auto bad = parse(args);
    ASSERT_TRUE(std::holds_alternative<ParseExit>(bad)) << args[0];
    EXPECT_EQ(std::get<ParseExit>(bad).code, 2);
    EXPECT_NE(std::get<ParseExit>(bad).message.find(args[0]), std::string::npos) << std::get<ParseExit>(bad).message;
  }
}

// A file in the test's temporary directory holding `text`.
std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/options_test_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Options, TheServerIdentityAndPlaintextReachTheTransport) {
  const transport::ServerIdentity identity = transport::ServerIdentity::generate();
  const std::string path = temp_file("server.id", identity.to_hex() + "\n");
  const auto parsed = parse({"--server-identity", path.c_str(), "--plaintext"});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed)) << std::get<ParseExit>(parsed).message;
  const Options& o = std::get<Options>(parsed);
  ASSERT_TRUE(o.server_identity.has_value());
  EXPECT_EQ(o.server_identity->seed, identity.seed);
  EXPECT_TRUE(o.plaintext);

  const auto config = transport_config(o);
  ASSERT_TRUE(std::holds_alternative<transport::EnetConfig>(config));
  const auto& net = std::get<transport::EnetConfig>(config);
  ASSERT_TRUE(net.validation.server_identity.has_value());
  EXPECT_EQ(net.validation.server_identity->seed, identity.seed);
  EXPECT_TRUE(net.plaintext);
}

TEST(Options, WithoutAnIdentityFileEachRunHasAFreshOneAndSessionsAreEncrypted) {
  const auto parsed = parse({});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed));
  const Options& o = std::get<Options>(parsed);
  EXPECT_FALSE(o.server_identity.has_value());
  EXPECT_FALSE(o.plaintext);
  const auto a = transport_config(o);
  const auto b = transport_config(o);
  ASSERT_TRUE(std::holds_alternative<transport::EnetConfig>(a) && std::holds_alternative<transport::EnetConfig>(b));
  const auto& net = std::get<transport::EnetConfig>(a);
  ASSERT_TRUE(net.validation.server_identity.has_value());
  EXPECT_NE(net.validation.server_identity->seed, std::get<transport::EnetConfig>(b).validation.server_identity->seed);
  EXPECT_FALSE(net.plaintext);
}

TEST(Options, ABadServerIdentityFileExitsTwoSayingWhy) {
  const std::string wrong = temp_file("wrong.id", "not an identity\n");
  const std::string missing = ::testing::TempDir() + "/options_test_missing.id";
  for (const auto& [path, why] : {std::pair<std::string, std::string>{wrong, "64 hexadecimal digits"},
                                  std::pair<std::string, std::string>{missing, "cannot be read"}}) {
    const auto parsed = parse({"--server-identity", path.c_str()});
    ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed)) << path;
    const ParseExit& exit = std::get<ParseExit>(parsed);
    EXPECT_EQ(exit.code, 2);
    EXPECT_NE(exit.message.find("--server-identity"), std::string::npos) << exit.message;
    EXPECT_NE(exit.message.find(path), std::string::npos) << exit.message;
    EXPECT_NE(exit.message.find(why), std::string::npos) << exit.message;
  }
}

TEST(Options, SessionSecurityComesFromTheConfigFileToo) {
  const transport::ServerIdentity identity = transport::ServerIdentity::generate();
  const std::string id = temp_file("config.id", identity.to_hex());
  const std::string config = temp_file("server.toml", "server-identity = \"" + id + "\"\nplaintext = true\n");
  const auto parsed = parse({"--config", config.c_str()});
  ASSERT_TRUE(std::holds_alternative<Options>(parsed)) << std::get<ParseExit>(parsed).message;
  const Options& o = std::get<Options>(parsed);
  ASSERT_TRUE(o.server_identity.has_value());
  EXPECT_EQ(o.server_identity->seed, identity.seed);
  EXPECT_TRUE(o.plaintext);
}

TEST(Options, HelpListsTheSessionSecurityFlags) {
  const auto parsed = parse({"--help"});
  ASSERT_TRUE(std::holds_alternative<ParseExit>(parsed));
  const std::string& help = std::get<ParseExit>(parsed).message;
  EXPECT_NE(help.find("--server-identity"), std::string::npos);
  EXPECT_NE(help.find("--plaintext"), std::string::npos);
  EXPECT_NE(help.find("Debugging only"), std::string::npos);
}

}  // namespace
}  // namespace tickwire::host
