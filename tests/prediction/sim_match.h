#pragma once
// A server loop and predicting client loops over SimNetwork, stepped in
// virtual time: test support for the prediction sim tests, not a runtime.
//
// The server simulates every tick with the inputs its per-client queues
// hand out and sends each client the full state of every entity (raw
// slots, no delta codec: what is tested here is prediction). A client
// predicts ahead by a fixed lead of half the round trip plus a margin
// (the real runtime steers its lead with the time system), sends an input
// packet every tick, rolls back on every snapshot and draws each frame.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "test_game.h"
#include "tickwire/core/network_time.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/prediction/client_prediction.h"
#include "tickwire/prediction/input_queue.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::prediction::testing {

struct MatchSetup {
  std::uint64_t seed = 1;
  transport::LinkConditions link;  // both directions
  std::uint32_t tick_rate = 60;
  // Lead = one-way latency + this many ticks. Each input rides in
  // `redundancy` consecutive packets (4 by default), one tick apart; a
  // margin of that many ticks lets every copy arrive before the server
  // needs the input.
  std::uint32_t lead_margin_ticks = 4;
  PredictionConfig prediction;  // input_type and player are filled in
  InputQueueConfig queue;
  Duration frame = Duration::millis(4);  // a 250 Hz display
  Duration step = Duration::millis(1);
};

// The player's input for a tick; `client` is the client's index.
using MatchSampler = std::function<void(std::size_t client, Tick tick, snapshot::Record& input)>;

// A client's avatar as it stood after a change (a prediction or a correction).
struct AvatarSample {
  Time at;
  Tick tick;  // the predicted tick it is the state of
  std::vector<std::uint32_t> slots;
};

struct DrawnFrame {
  Time at;
  snapshot::Vec2 position;
};

class SimMatch {
 public:
  struct Remote {
    transport::Address address;
    PeerId peer;
    PlayerId player;
    EntityId avatar;
    PacketChannel channel;
    InputQueue queue;
    std::uint64_t bad_packets = 0;
  };

  struct Client {
    std::size_t index = 0;
    PlayerId player;
    transport::Address address;
    std::unique_ptr<transport::Transport> endpoint;
    std::optional<PeerId> server;
    bool connected = false;
    PacketChannel channel;
    std::unique_ptr<TestGame> game;
    std::unique_ptr<ClientPrediction> prediction;
    snapshot::World auth;
    snapshot::World drawn;
    std::optional<EntityId> avatar;
    std::optional<Tick> newest_snapshot;
    std::optional<Tick> last_tick;
    Time next_frame;
    std::uint64_t bad_packets = 0;
    std::vector<AvatarSample> samples;
    std::vector<DrawnFrame> frames;
    bool record = true;
  };

  SimMatch(MatchSetup setup, std::size_t clients, MatchSampler sampler);

  void run_for(Duration span);
  Time now() const { return now_; }
  NetworkTime server_time(Time t) const;
  Duration lead() const { return lead_; }

  // Server side: called before the server simulates each tick.
  std::function<void(Tick, snapshot::World&)> server_hook;

  const TestSchema& schema() const { return s_; }
  TestGame& server_game() { return *server_game_; }
  const snapshot::World& server_world() const { return server_world_; }
  Tick server_tick() const { return next_tick_ - 1; }
  std::vector<Client>& clients() { return clients_; }
  const Remote* remote(PlayerId player) const;
  transport::SimNetwork& net() { return net_; }
  const transport::Address& server_address() const { return server_address_; }
  // The server's state of `player`'s avatar after each tick.
  const std::map<std::uint32_t, std::vector<std::uint32_t>>& server_states(PlayerId player) {
    return history_[player.value];
  }

  // Extra participants (a hostile client) stepped with the match.
  std::function<void(Time)> extra_step;

 private:
  void step_server(Time now);
  void step_client(Client& c, Time now);
  void on_server_packet(Remote& r, std::span<const std::uint8_t> bytes, Time now);
  void on_client_packet(Client& c, std::span<const std::uint8_t> bytes, Time now);
  void send_snapshot(Remote& r, Tick tick, Time now);
  void sample_avatar(Client& c, Time now);

  MatchSetup setup_;
  TestSchema s_;
  MatchSampler sampler_;
  transport::SimNetwork net_;
  transport::Address server_address_{"server", 7777};
  std::unique_ptr<transport::Transport> server_endpoint_;
  std::unique_ptr<TestGame> server_game_;
  snapshot::World server_world_;
  std::vector<Remote> remotes_;
  std::vector<Client> clients_;
  std::map<std::uint32_t, std::map<std::uint32_t, std::vector<std::uint32_t>>> history_;
  Time start_;
  Time now_;
  Tick next_tick_{1};
  Duration lead_;
};

}  // namespace tickwire::prediction::testing
