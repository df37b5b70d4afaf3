// The real tickwire-server process and clients of the arena over UDP on
// loopback: play, denial, shutdown by signal, and a client that dies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "process.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/transport/enet_transport.h"
#include "wall_clock.h"

namespace tickwire {
namespace {

using client::ClientEvent;
using transport::DisconnectReason;
using namespace std::chrono_literals;

// A port per test process, so parallel runs keep apart.
std::uint16_t test_port(int offset) { return static_cast<std::uint16_t>(21000 + (::getpid() * 7 + offset) % 20000); }

struct Player {
  arena::Game game;
  arena::Input input;
  std::unique_ptr<client::Client> client;
  std::vector<ClientEvent> events;
};

struct E2e {
  explicit E2e(int offset, const std::vector<std::string>& extra_args = {})
      : port(test_port(offset)), address{"127.0.0.1", port} {
    std::vector<std::string> argv{TICKWIRE_SERVER_BIN,  "--bind",           "127.0.0.1", "--port",
                                  std::to_string(port), "--stats-interval", "1"};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    server = std::make_unique<testing::ChildProcess>(
        argv, ::testing::TempDir() + "tickwire-e2e-server-" + std::to_string(port) + ".log");
    EXPECT_TRUE(server->wait_for_output("listening on", 5000ms)) << server->output();
  }

  Player& add(client::ClientConfig config = {}) {
    auto p = std::make_unique<Player>();
    Player* raw = p.get();
    transport::EnetConfig ec;
    ec.max_peers = 1;
    auto sampler = [raw](Tick, snapshot::Record& input) { input = arena::to_record(raw->input); };
    p->client =
        std::make_unique<client::Client>(transport::EnetTransport::create(ec).value(), p->game, sampler, config);
    EXPECT_TRUE(p->client->connect(address, clock.now()).ok());
    players.push_back(std::move(p));
    return *players.back();
  }

  bool pump_until(const std::function<bool()>& done, Duration limit, const std::function<void()>& each = {}) {
    return clock.pump_until(done, limit, [&](Time now) {
      if (each) each();
      for (auto& p : players) {
        p->client->update(now);
        while (auto e = p->client->poll_event()) p->events.push_back(*e);
      }
    });
  }

  bool all_connected() const {
    for (const auto& p : players) {
      if (p->client->state() != client::ClientState::kConnected || !p->client->avatar()) return false;
    }
    return true;
  }

  std::uint16_t port;
  transport::Address address;
  testing::WallClock clock;
  std::unique_ptr<testing::ChildProcess> server;
  std::vector<std::unique_ptr<Player>> players;
};

bool has_event(const Player& p, ClientEvent::Type type, std::optional<DisconnectReason> reason = std::nullopt) {
  for (const auto& e : p.events) {
    if (e.type == type && (!reason || e.reason == *reason)) return true;
  }
  return false;
}

// The furthest a platform moves in one tick, over its whole path.
float fastest_platform_step() {
  float fastest = 0.0F;
  for (std::int32_t path = 0; path < 3; ++path) {  // the arena's three platforms
    for (Tick::Rep t = 0; t < static_cast<Tick::Rep>(arena::kPlatformPeriodTicks); ++t) {
      const auto a = arena::platform_position_at(path, Tick(t));
      const auto b = arena::platform_position_at(path, Tick(t + 1));
      fastest = std::max(fastest, std::hypot(b.x - a.x, b.y - a.y));
    }
  }
  return fastest;
}

TEST(RuntimeE2e, EightClientsPlayTenSecondsInStepWithTheServer) {
  E2e m(0);
  for (int i = 0; i < 8; ++i) m.add();
  ASSERT_TRUE(m.pump_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  const Time start = m.clock.now();
  // Each walks its own circle of 1 m radius (6 m/s at 6 rad/s), well apart
  // from its neighbours on the spawn ring (4.7 m), so nobody pushes anybody.
  ASSERT_FALSE(m.pump_until([] { return false; }, Duration::seconds(10),
                            [&] {
                              const float t = static_cast<float>((m.clock.now() - start).seconds_f());
                              for (std::size_t i = 0; i < m.players.size(); ++i) {
                                const float a = t * 6.0F + static_cast<float>(i);
                                m.players[i]->input.move = {std::cos(a), std::sin(a)};
                              }
                            }));
  for (auto& p : m.players) {
    const client::ClientStats& s = p->client->stats();
    std::printf("client %u: rtt %.2f ms, lead %.2f ms, snapshots %llu, mispredictions %llu, late %llu, missing %llu\n",
                *p->client->client_id(), s.rtt.millis_f(), s.lead.millis_f(),
                static_cast<unsigned long long>(s.snapshots), static_cast<unsigned long long>(s.mispredictions),
                static_cast<unsigned long long>(s.late_inputs), static_cast<unsigned long long>(s.missing_inputs));
    EXPECT_EQ(p->client->state(), client::ClientState::kConnected);
    EXPECT_GT(s.snapshots, 250u);  // 30 a second
    // Every snapshot is checked against the prediction for its tick: they
    // agree, and every input reached the server in time.
    EXPECT_EQ(s.mispredictions, 0u);
    EXPECT_EQ(s.late_inputs, 0u);
    // What the client draws for itself is where the server has it, moved on
    // by the ticks the client runs ahead of the newest snapshot (its lead,
    // the snapshot's trip and its age), no faster than a player can move:
    // walking, plus a platform's carry for the one whose circle a platform
    // sweeps. The client runs ahead, never behind, by a fraction of a second.
    const auto me = *p->client->avatar();
    const auto drawn = p->client->view().get(me, arena::schema().player_position);
    const auto server = p->client->authoritative_world().get(me, arena::schema().player_position);
    ASSERT_TRUE(p->client->predicted_tick() && p->client->authoritative_tick());
    const auto ticks_ahead = static_cast<float>(*p->client->predicted_tick() - *p->client->authoritative_tick());
    EXPECT_GT(ticks_ahead, 0.0F);
    EXPECT_LT(ticks_ahead, 15.0F);  // 250 ms at 60 Hz, on loopback
    const float reach = (arena::kPlayerSpeed / 60.0F + fastest_platform_step()) * (ticks_ahead + 1.0F);
    EXPECT_LE(std::hypot(drawn.x - server.x, drawn.y - server.y), reach)
        << "ticks ahead of the newest snapshot: " << ticks_ahead;
    // Everyone else is drawn too.
    EXPECT_EQ(p->client->view().entities(arena::schema().player_type).size(), 8u);
  }
}

TEST(RuntimeE2e, WrongFingerprintIsDeniedWithTheReason) {
  E2e m(1);
  client::ClientConfig config;
  config.schema_hash = 0x12345;
  Player& p = m.add(config);
  ASSERT_TRUE(m.pump_until([&] { return !p.events.empty(); }, Duration::seconds(5)));
  EXPECT_EQ(p.events[0].type, ClientEvent::Type::kDenied);
  EXPECT_EQ(p.events[0].reason, DisconnectReason::kFingerprintMismatch);
  EXPECT_TRUE(m.server->wait_for_output("game schema mismatch", 2000ms)) << m.server->output();
}

TEST(RuntimeE2e, SigtermDisconnectsEveryClientWithTheReasonWithinTwoSeconds) {
  E2e m(2);
  for (int i = 0; i < 4; ++i) m.add();
  ASSERT_TRUE(m.pump_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  const auto signalled = std::chrono::steady_clock::now();
  m.server->signal(SIGTERM);
  std::optional<int> status;
  ASSERT_TRUE(m.pump_until(
      [&] {
        if (!status) status = m.server->wait_exit(0ms);
        for (auto& p : m.players) {
          if (!has_event(*p, ClientEvent::Type::kDisconnected)) return false;
        }
        return status.has_value();
      },
      Duration::seconds(3)));
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 2s);
  EXPECT_EQ(*status, 0);
  for (auto& p : m.players) {
    EXPECT_TRUE(has_event(*p, ClientEvent::Type::kDisconnected, DisconnectReason::kServerShuttingDown));
  }
}

TEST(RuntimeE2e, AKilledClientTimesOutAndItsPlayerDespawnsForTheOthers) {
  E2e m(3);
  Player& watcher = m.add();
  testing::ChildProcess victim({TICKWIRE_EMBED_BIN, m.address.to_string(), "60"},
                               ::testing::TempDir() + "tickwire-e2e-embed-" + std::to_string(m.port) + ".log");
  auto players_seen = [&] {
    return watcher.client->authoritative_world().entities(arena::schema().player_type).size();
  };
  ASSERT_TRUE(m.pump_until([&] { return players_seen() == 2; }, Duration::seconds(5))) << victim.output();
  victim.signal(SIGKILL);
  ASSERT_TRUE(victim.wait_exit(2000ms).has_value());
  // The server hears nothing more and times the client out (5 s); the
  // player's entity goes from everyone's world.
  ASSERT_TRUE(m.pump_until([&] { return players_seen() == 1; }, Duration::seconds(10)));
  EXPECT_TRUE(has_event(watcher, ClientEvent::Type::kEntityDespawned));
  // What is drawn follows on the interpolation timeline, a little later.
  EXPECT_TRUE(m.pump_until([&] { return watcher.client->view().entities(arena::schema().player_type).size() == 1; },
                           Duration::seconds(1)));
  EXPECT_TRUE(m.server->wait_for_output("timed out", 2000ms) || m.server->wait_for_output("timeout", 100ms))
      << m.server->output();
}

// The codebook workflow with the real binary: a server trains a codebook
// on a short match and writes it when it stops; a server given that file
// plays with clients holding it, and denies a client without it (one
// holding the codebook the arena ships).
TEST(RuntimeE2e, ACodebookTheServerTrainedIsPlayedWithOverUdp) {
  const std::string path = ::testing::TempDir() + "tickwire-e2e-" + std::to_string(::getpid()) + ".twcb";
  {
    E2e m(4, {"--send-rate", "60", "--train-codebook", path, "--duration", "4"});
    client::ClientConfig adaptive;  // a training server codes with adaptive models
    adaptive.adaptive_snapshot_models = true;
    for (int i = 0; i < 2; ++i) m.add(adaptive);
    ASSERT_TRUE(m.pump_until([&] { return m.all_connected(); }, Duration::seconds(3)));
    m.pump_until([] { return false; }, Duration::seconds(1),
                 [&] {
                   for (std::size_t i = 0; i < m.players.size(); ++i)
                     m.players[i]->input.move = {1.0F, static_cast<float>(i)};
                 });
    const auto status = m.server->wait_exit(5000ms);
    ASSERT_TRUE(status.has_value()) << m.server->output();
    EXPECT_EQ(*status, 0) << m.server->output();
    EXPECT_TRUE(m.server->wait_for_output("codebook trained on", 100ms)) << m.server->output();
  }
  auto book = snapshot::load_codebook(path, arena::schema().schema);
  ASSERT_TRUE(book.ok()) << book.error().detail;

  E2e m(5, {"--codebook", path});
  client::ClientConfig holding;
  holding.snapshot_codebook = book.value();
  Player& with = m.add(holding);
  Player& without = m.add();
  ASSERT_TRUE(m.pump_until(
      [&] {
        return with.client->stats().snapshots > 60 && without.client->state() == client::ClientState::kDisconnected;
      },
      Duration::seconds(5)));
  EXPECT_EQ(with.client->stats().snapshots_dropped, 0U);
  EXPECT_TRUE(has_event(without, ClientEvent::Type::kDenied, DisconnectReason::kCodebookMismatch));
  std::remove(path.c_str());
}

TEST(RuntimeE2e, ABadCodebookFileStopsTheServerWithStatusTwo) {
  for (const char* file : {"/nonexistent/arena.twcb", "/dev/null"}) {
    testing::ChildProcess server({TICKWIRE_SERVER_BIN, "--port", std::to_string(test_port(6)), "--codebook", file},
                                 ::testing::TempDir() + "tickwire-e2e-bad-codebook.log");
    const auto status = server.wait_exit(5000ms);
    ASSERT_TRUE(status.has_value()) << file;
    EXPECT_EQ(*status, 2) << file;
    EXPECT_NE(server.output().find("--codebook"), std::string::npos) << server.output();
  }
}

}  // namespace
}  // namespace tickwire
