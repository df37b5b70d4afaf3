#include "registration_match.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scripts.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/server/server.h"
#include "tickwire/snapshot/interpolator.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::bench {
namespace {

class Shooter {
 public:
  Shooter(std::unique_ptr<transport::Transport> wire, const std::string& script, std::uint64_t seed)
      : script_(arena_bots::make_script(script, seed)),
        interpolator_(arena::schema().schema),
        aim_world_(arena::schema().schema) {
    client::ClientConfig cc;
    cc.name = script;
    client_ = std::make_unique<client::Client>(
        std::move(wire), game_, [this](Tick t, snapshot::Record& r) { sample(t, r); }, cc);
  }
  client::Client& client() { return *client_; }
  arena_bots::ShotLedger& ledger() { return ledger_; }

  // After each frame: the server's verdict on the latest shot.
  void read_result() {
    const auto me = client_->client_id();
    if (!me) return;
    const snapshot::World& world = client_->authoritative_world();
    if (const auto shot = arena::find_shot(world, *me)) {
      ledger_.judged(world.get(*shot, arena::schema().shot_tick), world.get(*shot, arena::schema().shot_result));
    }
  }

 private:
  void sample(Tick tick, snapshot::Record& record) {
    const arena::Schema& s = arena::schema();
    std::optional<arena::Vec2> self;
    others_.clear();
    const auto avatar = client_->avatar();
    if (const snapshot::World* predicted = client_->predicted_world();
        predicted != nullptr && avatar && predicted->contains(*avatar)) {
      self = predicted->get(*avatar, s.player_position);
    }
    // As the bots aim (tools/bots/bot.cpp): only at players drawn between
    // two real states, never at a held or extrapolated guess.
    if (interpolator_.sample(client_->receiver(), client_->interpolation_time().ticks_f(), aim_world_) ==
        snapshot::SampleMode::kInterpolated) {
      for (const snapshot::EntityId id : aim_world_.entities(s.player_type)) {
        if (avatar && id == *avatar) continue;
        others_.push_back(aim_world_.get(id, s.player_position));
      }
    }
    arena::Input input;
    script_->input(arena_bots::ArenaView{self, others_}, tick, input);
    record = arena::to_record(input);
    if (input.fire && self) {
      const arena::Input sent = arena::from_record(record);
      ledger_.fired(tick, arena_bots::ray_hits_any(*self, sent.aim, others_));
    }
  }

  std::unique_ptr<arena_bots::ArenaScript> script_;
  arena::Game game_;
  std::unique_ptr<client::Client> client_;
  snapshot::Interpolator interpolator_;
  snapshot::World aim_world_;
  std::vector<arena::Vec2> others_;
  arena_bots::ShotLedger ledger_;
};

}  // namespace

ShootingOutcome run_shooting_match(const transport::LinkProfile& link, Duration window, double seconds,
                                   std::size_t shooters, std::uint64_t seed) {
  transport::SimNetwork net(seed);
  const transport::Address server_address{"sim-server", 7777};
  server::ServerConfig config;
  config.max_rewind = window;
  arena::GameConfig game_config;
  game_config.max_rewind = window;
  arena::Game server_game(game_config);
  transport::SimEndpointConfig server_net;
  server_net.max_peers = config.max_clients + 8;
  Time now = Time::from_micros(1'000'000);
  server::Server server(net.create_endpoint(server_address, server_net), server_game, config, now);
  std::vector<std::unique_ptr<Shooter>> fleet;
  for (std::size_t i = 0; i < shooters; ++i) {
    const transport::Address address{"sim-shooter-" + std::to_string(i), 5000};
    net.set_link(address, server_address, link.up);
    net.set_link(server_address, address, link.down);
    transport::SimEndpointConfig ec;
    ec.max_peers = 1;
    // Half aim at the centre, half just outside the shape.
    const char* script = i % 2 == 0 ? "shooter" : "shooter_miss";
    fleet.push_back(std::make_unique<Shooter>(net.create_endpoint(address, ec), script, bots::bot_seed(seed, i)));
    if (!fleet.back()->client().connect(server_address, now).ok()) {
      (void)std::fprintf(stderr, "bench_hit_registration: connect failed\n");
      std::exit(1);
    }
  }
  // The server every millisecond, the clients at 60 frames a second and
  // reading arrivals in between, as the bots run them.
  const Duration step = Duration::millis(1);
  const Duration frame = Duration::micros(16667);
  Time next_frame = now;
  const Time end = now + Duration::micros(static_cast<std::int64_t>(seconds * 1e6));
  while (now < end) {
    now += step;
    server.update(now);
    if (now < next_frame) {
      for (auto& s : fleet) s->client().receive(now);
      continue;
    }
    next_frame = now + frame;
    for (auto& s : fleet) {
      s->client().update(now);
      s->read_result();
    }
  }
  ShootingOutcome out;
  for (std::size_t i = 0; i < fleet.size(); ++i) {
    fleet[i]->ledger().close();
    bots::add_shot_figures(i % 2 == 0 ? out.on : out.off, fleet[i]->ledger().figures());
    const client::ClientStats& st = fleet[i]->client().stats();
    out.rtt_ms += st.rtt.millis_f() / static_cast<double>(fleet.size());
    out.view_behind_ms += (st.lead + st.interpolation_delay).millis_f() / static_cast<double>(fleet.size());
  }
  const server::ServerStats st = server.stats();
  out.replaced = st.rewind.replaced;
  out.clamped = st.rewind.clamped;
  out.decisions = st.rewind.decisions;
  return out;
}

}  // namespace tickwire::bench
