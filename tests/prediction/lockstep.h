#pragma once
// A server and one predicting client stepped together without a network:
// the client runs `lead` ticks ahead of the server, and the server's state
// for tick T reaches the client `delay` ticks after the server simulated
// it. Every input reaches the server in time unless a test says otherwise.

#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "test_game.h"
#include "tickwire/prediction/client_prediction.h"

namespace tickwire::prediction::testing {

struct Lockstep {
  explicit Lockstep(PredictionConfig config = {}, std::vector<std::uint32_t> players = {1})
      : server(make_world(s, players)) {
    config.input_type = s.input;
    config.player = player;
    stick = [](Tick t, snapshot::Record& r, const TestSchema& sc) {
      const float phase = static_cast<float>(t.value()) * 0.05F;
      r.set(sc.move, snapshot::Vec2{std::sin(phase), std::cos(phase * 0.7F)});
    };
    client = std::make_unique<ClientPrediction>(
        s.schema, client_game, [this](Tick t, snapshot::Record& r) { stick(t, r, s); }, config);
    avatar = server_game.find_avatar(server, player);
    client->predict(avatar);
  }

  // The first snapshot: the client starts from the server's tick 0.
  void start() { client->on_authoritative(Tick(0), server, carried_ids(server)); }

  static std::vector<EntityId> carried_ids(const snapshot::World& w) {
    std::vector<EntityId> ids;
    w.for_each([&](EntityId id) { ids.push_back(id); });
    return ids;
  }

  TickOutcome step() {
    ++client_tick;
    const TickOutcome outcome = client->sample_and_simulate(client_tick);
    if (client_tick.value() > lead) {
      const Tick t = client_tick - lead;
      if (server_hook) server_hook(t, server);
      std::vector<PlayerInput> inputs;
      const snapshot::Record* mine = deliver_inputs ? client->inputs().find(t) : nullptr;
      if (mine != nullptr) last_input = *mine;
      inputs.push_back({player, &last_input, mine == nullptr, std::nullopt, std::nullopt});
      for (const auto& [other, record] : other_inputs) {
        inputs.push_back({other, &record, false, std::nullopt, std::nullopt});
      }
      step_authoritative(server_game, server, t, Inputs(inputs));
      server_states.emplace(t.value(), server);
      if (deliver_snapshots) in_flight.emplace(t.value(), server);
    }
    if (client_tick.value() > lead + delay) {
      const Tick t = client_tick - lead - delay;
      auto it = in_flight.find(t.value());
      if (it != in_flight.end()) {
        last_outcome = client->on_authoritative(t, it->second, carry ? carry(it->second) : carried_ids(it->second));
        in_flight.erase(it);
      }
    }
    return outcome;
  }

  void run(int ticks) {
    for (int i = 0; i < ticks; ++i) step();
  }

  // The server's state at the client's present tick: its newest state
  // advanced with the client's inputs (what the client should hold).
  snapshot::World server_at_client_tick() {
    snapshot::World w = server;
    TestGame g(s);
    const Tick from = client_tick - lead;
    for (std::int64_t i = 1; i <= client_tick - from; ++i) {
      const Tick t = from + i;
      PlayerInput in{player, client->inputs().find(t), false, std::nullopt, std::nullopt};
      step_authoritative(g, w, t, Inputs(std::span<const PlayerInput>(&in, 1)));
    }
    return w;
  }

  TestSchema s;
  TestGame server_game{s};
  TestGame client_game{s};
  PlayerId player{1};
  snapshot::World server;
  EntityId avatar;
  std::function<void(Tick, snapshot::Record&, const TestSchema&)> stick;
  std::unique_ptr<ClientPrediction> client;
  std::uint32_t lead = 6;
  std::uint32_t delay = 3;
  Tick client_tick{0};
  bool deliver_snapshots = true;
  bool deliver_inputs = true;
  std::function<void(Tick, snapshot::World&)> server_hook;
  // Other players' inputs, the same every tick the server steps.
  std::vector<std::pair<PlayerId, snapshot::Record>> other_inputs;
  std::function<std::vector<EntityId>(const snapshot::World&)> carry;
  snapshot::Record last_input{s.schema, s.input};
  std::map<std::uint32_t, snapshot::World> in_flight;
  std::map<std::uint32_t, snapshot::World> server_states;
  SnapshotOutcome last_outcome = SnapshotOutcome::kStale;
};

}  // namespace tickwire::prediction::testing
