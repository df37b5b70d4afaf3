#pragma once
// A server and clients on one SimNetwork, stepped together.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "step_clock.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::testing {

struct SimMatch {
  // The server hosts `game` when given (it must outlive the match), else
  // server_game.
  explicit SimMatch(std::uint64_t seed, server::ServerConfig config = {}, transport::SimEndpointConfig server_net = {},
                    prediction::NetGame* game = nullptr)
      : net(seed) {
    server_net.max_peers = config.max_clients + 8;
    server = std::make_unique<server::Server>(net.create_endpoint(server_address, server_net),
                                              game != nullptr ? *game : server_game, config, clock.now());
  }

  // A client of the arena whose player does what inputs[index] says.
  client::Client& add_client(client::ClientConfig config = {}, transport::SimEndpointConfig ec = {}) {
    const std::size_t index = clients.size();
    const transport::Address address{"sim-client-" + std::to_string(index), 5000};
    ec.max_peers = 1;
    games.push_back(std::make_unique<arena::Game>());
    inputs.emplace_back();
    auto sampler = [this, index](Tick /*tick*/, snapshot::Record& input) { input = arena::to_record(inputs[index]); };
    clients.push_back(
        std::make_unique<client::Client>(net.create_endpoint(address, ec), *games.back(), sampler, config));
    client_addresses.push_back(address);
    return *clients.back();
  }

  void step(Time now) {
    server->update(now);
    if (now < next_frame) {
      if (receive_between_frames) {
        for (auto& c : clients) c->receive(now);
      }
      return;
    }
    next_frame = now + client_frame;
    for (auto& c : clients) c->update(now);
    if (on_frame) on_frame(now);
  }

  bool run_until(const std::function<bool()>& done, Duration limit) {
    return clock.run_until(done, limit, [this](Time now) { step(now); });
  }
  void run_for(Duration span) {
    clock.run_for(span, [this](Time now) { step(now); });
  }

  bool all_connected() const {
    for (const auto& c : clients) {
      if (c->state() != client::ClientState::kConnected) return false;
    }
    return true;
  }

  std::vector<server::ServerEvent> drain_server_events() {
    std::vector<server::ServerEvent> out;
    while (auto e = server->poll_event()) out.push_back(*e);
    return out;
  }

  // Clients run a frame this often (the server steps every millisecond);
  // on_frame runs after each.
  Duration client_frame = Duration::millis(1);
  // Clients read arrivals every step between frames (Client::receive).
  bool receive_between_frames = false;
  Time next_frame;
  std::function<void(Time)> on_frame;

  StepClock clock;
  transport::SimNetwork net;
  arena::Game server_game;
  std::vector<std::unique_ptr<arena::Game>> games;
  std::vector<arena::Input> inputs;
  transport::Address server_address{"sim-server", 7777};
  std::unique_ptr<server::Server> server;
  std::vector<std::unique_ptr<client::Client>> clients;
  std::vector<transport::Address> client_addresses;
};

}  // namespace tickwire::testing
