// Snapshot codebooks in the runtime: a server trains one from play, a
// server given it and clients holding it play a match with every snapshot
// decoded and about the bytes of adaptive models, and a client without it
// is denied at connect.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim_match.h"
#include "tickwire/snapshot/codebook.h"

namespace tickwire {
namespace {

using testing::SimMatch;

void walk(SimMatch& m, Duration span) {
  m.on_frame = [&m](Time now) {
    const float t = static_cast<float>(now.micros()) * 1e-6F;
    for (std::size_t i = 0; i < m.inputs.size(); ++i) {
      const auto k = static_cast<float>(i);
      m.inputs[i].move = {std::cos(1.3F * t + k), std::sin(0.9F * t + 2.0F * k)};
      m.inputs[i].aim = t + k;
    }
  };
  m.run_for(span);
}

struct Played {
  std::uint64_t bytes_in = 0;
  std::uint64_t snapshots = 0;
  std::uint64_t dropped = 0;
  bool connected = false;
};

// Four clients (one thin) walking for `span` against a server with
// `config`, each client holding `book` (none: the game's, or adaptive
// models when the server codes with them).
Played play(std::uint64_t seed, server::ServerConfig config, std::shared_ptr<const snapshot::ModelState> book,
            Duration span) {
  config.send_rate = 60;
  SimMatch m(seed, config);
  m.client_frame = Duration::micros(16667);
  for (int i = 0; i < 4; ++i) {
    client::ClientConfig cc;
    cc.snapshot_codebook = book;
    cc.adaptive_snapshot_models = !book && (config.adaptive_snapshot_models || config.codebook_trainer);
    cc.thin = i == 3;
    m.add_client(cc);
  }
  for (auto& c : m.clients) EXPECT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  walk(m, span);
  Played p;
  p.connected = m.all_connected();
  for (auto& c : m.clients) {
    p.bytes_in += c->stats().bytes_in;
    p.snapshots += c->stats().snapshots;
    p.dropped += c->stats().snapshots_dropped;
  }
  return p;
}

TEST(CodebookSim, AServerTrainsACodebookItsClientsThenPlayWithExactly) {
  const std::uint64_t seed = 5101;
  std::cout << "seed=" << seed << "\n";
  const arena::Game game;
  auto trainer = std::make_shared<snapshot::CodebookTrainer>(game.schema());
  server::ServerConfig training;
  training.codebook_trainer = trainer;
  const Played trained_on = play(seed + 1, training, nullptr, Duration::seconds(6));
  EXPECT_TRUE(trained_on.connected);
  EXPECT_GT(trainer->packets(), 1000U);  // four clients at 60 a second
  // Through its file format, as it would travel.
  auto book = snapshot::read_codebook(snapshot::write_codebook(*trainer->codebook(), game.schema()), game.schema());
  ASSERT_TRUE(book.ok()) << book.error().detail;

  server::ServerConfig with_book;
  with_book.snapshot_codebook = book.value();
  const Played coded = play(seed, with_book, book.value(), Duration::seconds(6));
  server::ServerConfig adaptive_models;
  adaptive_models.adaptive_snapshot_models = true;
  const Played adaptive = play(seed, adaptive_models, nullptr, Duration::seconds(6));
  const Played shipped = play(seed, server::ServerConfig{}, nullptr, Duration::seconds(6));
  std::cout << "bytes in: " << coded.bytes_in << " with the codebook, " << adaptive.bytes_in << " adaptive, "
            << shipped.bytes_in << " with the arena's shipped codebook\n";
  EXPECT_TRUE(coded.connected);
  EXPECT_GT(coded.snapshots, 1200U);
  EXPECT_EQ(coded.dropped, 0U);
  // Trained on another match of the same game: close to adaptive models.
  EXPECT_LT(static_cast<double>(coded.bytes_in), 1.15 * static_cast<double>(adaptive.bytes_in));
  EXPECT_TRUE(shipped.connected);
  EXPECT_EQ(shipped.dropped, 0U);
  EXPECT_LT(static_cast<double>(shipped.bytes_in), 1.15 * static_cast<double>(adaptive.bytes_in));
}

TEST(CodebookSim, AClientWithoutTheServersCodebookIsDeniedAtConnect) {
  const arena::Game game;
  snapshot::CodebookTrainer trainer(game.schema());
  server::ServerConfig config;
  config.snapshot_codebook = trainer.codebook();  // untrained: every model at one half
  SimMatch m(5102, config);
  client::Client& without = m.add_client();
  client::ClientConfig holding;
  holding.snapshot_codebook = config.snapshot_codebook;
  client::Client& with = m.add_client(holding);
  ASSERT_TRUE(without.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(with.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return without.state() == client::ClientState::kDisconnected; }, Duration::seconds(2)));
  const auto event = without.poll_event();
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, client::ClientEvent::Type::kDenied);
  EXPECT_EQ(event->reason, transport::DisconnectReason::kCodebookMismatch);
  EXPECT_EQ(client::to_string(*event), "denied: snapshot codebook mismatch");
  ASSERT_TRUE(m.run_until([&] { return with.state() == client::ClientState::kConnected; }, Duration::seconds(2)));
}

// Each part of the fingerprint that differs is denied with its own reason:
// another codebook, a codebook where the server adapts its models, and a
// schema (which comes first: with another schema the codebook is moot).
TEST(CodebookSim, TheDenialSaysWhichPartOfTheFingerprintDiffers) {
  const arena::Game game;
  snapshot::CodebookTrainer trainer(game.schema());
  const auto untrained = trainer.codebook();
  snapshot::ModelState touched;
  touched.ops.same[0].p = 1000;
  trainer.add(touched, 0);
  const auto other = trainer.codebook();
  ASSERT_NE(snapshot::codebook_hash(*untrained, game.schema()), snapshot::codebook_hash(*other, game.schema()));

  struct Case {
    const char* what;
    server::ServerConfig server;
    client::ClientConfig client;
    transport::DisconnectReason reason;
  };
  std::vector<Case> cases(3);
  cases[0].what = "another codebook";
  cases[0].server.snapshot_codebook = untrained;
  cases[0].client.snapshot_codebook = other;
  cases[0].reason = transport::DisconnectReason::kCodebookMismatch;
  cases[1].what = "a codebook where the server adapts";
  cases[1].server.adaptive_snapshot_models = true;
  cases[1].client.snapshot_codebook = other;
  cases[1].reason = transport::DisconnectReason::kCodebookMismatch;
  cases[2].what = "another schema and another codebook";
  cases[2].server.snapshot_codebook = untrained;
  cases[2].client.snapshot_codebook = other;
  cases[2].client.schema_hash = 0xBAD;
  cases[2].reason = transport::DisconnectReason::kFingerprintMismatch;
  std::uint64_t seed = 5110;
  for (const Case& c : cases) {
    SimMatch m(seed++, c.server);
    client::Client& client = m.add_client(c.client);
    ASSERT_TRUE(client.connect(m.server_address, m.clock.now()).ok());
    ASSERT_TRUE(m.run_until([&] { return client.state() == client::ClientState::kDisconnected; }, Duration::seconds(2)))
        << c.what;
    EXPECT_EQ(client.disconnect_reason(), c.reason) << c.what;
    const auto denied = m.drain_server_events();
    ASSERT_EQ(denied.size(), 1U) << c.what;
    EXPECT_EQ(denied[0].reason, c.reason) << c.what;
  }
}

TEST(CodebookSim, ACodebookForAnotherSchemaOrBesideATrainerIsRefused) {
  snapshot::SchemaBuilder b;
  b.entity_type("other").add_float("x", 0.0F, 1.0F, 0.5F);
  const snapshot::Schema other = b.build();
  snapshot::CodebookTrainer other_trainer(other);
  snapshot::ModelState touched;
  touched.types.resize(1);
  auto table = std::make_shared<snapshot::TypeModels>();
  table->reset(other.types()[0]);
  touched.types[0] = table;
  other_trainer.add(touched, 2);
  server::ServerConfig config;
  config.snapshot_codebook = other_trainer.codebook();
  EXPECT_THROW(SimMatch(5103, config), std::invalid_argument);

  const arena::Game game;
  server::ServerConfig both;
  both.snapshot_codebook = snapshot::CodebookTrainer(game.schema()).codebook();
  both.codebook_trainer = std::make_shared<snapshot::CodebookTrainer>(game.schema());
  EXPECT_THROW(SimMatch(5104, both), std::invalid_argument);

  arena::Game client_game;
  client::ClientConfig cc;
  cc.snapshot_codebook = other_trainer.codebook();
  EXPECT_THROW(
      client::Client(
          transport::SimNetwork(1).create_endpoint({"c", 1}, {}), client_game, [](Tick, snapshot::Record&) {}, cc),
      std::invalid_argument);
}

}  // namespace
}  // namespace tickwire
