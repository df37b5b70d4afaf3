// Hit registration through the whole runtime, deterministic over the
// simulated network: a server hosting the arena and shooter clients (the
// bots' shooter and shooter_miss scripts, each a full client runtime) on
// links of the named profiles, for `--seconds` of simulated time each.
// Every shot is scored as the bots score it (tools/bots/shooting.h): on
// target or not in the shooter's own view at the view time its input
// claims, against what the server said. Each profile runs with lag
// compensation (the rewind window of the row) and without it (a window of
// 0: every shot judged against the server's newest tick), side by side.
//
//   bench_hit_registration [--json FILE] [--seconds S] [--shooters N] [--seed N]

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scripts.h"
#include "shooting.h"
#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/server/server.h"
#include "tickwire/snapshot/interpolator.h"
#include "tickwire/transport/link_profiles.h"
#include "tickwire/transport/sim_network.h"

namespace {

using namespace tickwire;

struct Row {
  std::string profile;
  std::string link;
  Duration window;  // the compensated run's max_rewind
};

// One shooter: a client runtime whose sampler aims as the bots do
// (tools/bots/bot.cpp, Bot::aiming_view), scoring its shots.
class Shooter {
 public:
  Shooter(std::unique_ptr<transport::Transport> wire, const std::string& script, std::uint64_t seed)
      : script_(bots::make_script(script, seed)),
        interpolator_(arena::schema().schema),
        aim_world_(arena::schema().schema) {
    client::ClientConfig cc;
    cc.name = script;
    client_ = std::make_unique<client::Client>(
        std::move(wire), game_, [this](Tick t, snapshot::Record& r) { sample(t, r); }, cc);
  }
  client::Client& client() { return *client_; }
  bots::ShotLedger& ledger() { return ledger_; }

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
    interpolator_.sample(client_->receiver(), client_->interpolation_time().ticks_f(), aim_world_);
    for (const snapshot::EntityId id : aim_world_.entities(s.player_type)) {
      if (avatar && id == *avatar) continue;
      others_.push_back(aim_world_.get(id, s.player_position));
    }
    arena::Input input;
    script_->input(bots::BotView{self, others_}, tick, input);
    record = arena::to_record(input);
    if (input.fire && self) {
      const arena::Input sent = arena::from_record(record);
      ledger_.fired(tick, bots::ray_hits_any(*self, sent.aim, others_));
    }
  }

  std::unique_ptr<bots::BotScript> script_;
  arena::Game game_;
  std::unique_ptr<client::Client> client_;
  snapshot::Interpolator interpolator_;
  snapshot::World aim_world_;
  std::vector<arena::Vec2> others_;
  bots::ShotLedger ledger_;
};

struct Outcome {
  bots::ShotFigures on;   // the shooter script's shots
  bots::ShotFigures off;  // the shooter_miss script's shots
  std::uint64_t replaced = 0;
  std::uint64_t clamped = 0;
  std::uint64_t decisions = 0;
  double rtt_ms = 0;
  double view_behind_ms = 0;  // lead plus interpolation delay, mean over shooters
};

Outcome run_match(const transport::LinkProfile& link, Duration window, double seconds, std::size_t shooters,
                  std::uint64_t seed) {
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
  Outcome out;
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

double rate(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  double seconds = 60.0;
  std::size_t shooters = 8;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--json") == 0 && has_value) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--seconds") == 0 && has_value) {
      seconds = std::atof(argv[++i]);
      if (!(seconds >= 5.0 && seconds <= 3600.0)) {
        (void)std::fprintf(stderr, "--seconds must be in 5..3600\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--shooters") == 0 && has_value) {
      const long n = std::atol(argv[++i]);
      if (n < 2 || n > 64) {
        (void)std::fprintf(stderr, "--shooters must be in 2..64\n");
        return 2;
      }
      shooters = static_cast<std::size_t>(n);
    } else if (std::strcmp(argv[i], "--seed") == 0 && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      (void)std::fprintf(stderr, "usage: %s [--json FILE] [--seconds S] [--shooters N] [--seed N]\n", argv[0]);
      return 2;
    }
  }

  // 300 ms of round trip: broadband's jitter and loss at 150 ms each way,
  // with a window that holds that view (RTT plus interpolation delay).
  transport::LinkProfile rtt300 = *transport::find_link_profile("broadband");
  rtt300.name = "rtt300";
  rtt300.up.latency = Duration::millis(150);
  rtt300.down.latency = Duration::millis(150);
  const std::vector<std::pair<transport::LinkProfile, Duration>> rows = {
      {*transport::find_link_profile("broadband"), Duration::millis(250)},
      {*transport::find_link_profile("wifi"), Duration::millis(250)},
      {*transport::find_link_profile("wifi"), Duration::millis(400)},
      {*transport::find_link_profile("mobile"), Duration::millis(250)},
      {*transport::find_link_profile("mobile"), Duration::millis(400)},
      {rtt300, Duration::millis(500)},
  };

  std::printf("seed %llu, %zu shooters (half on target, half just outside), %.0f s simulated per run\n",
              static_cast<unsigned long long>(seed), shooters, seconds);
  std::printf("%-10s %7s %7s %7s | %8s %7s %7s %9s %9s | %8s %7s %7s\n", "profile", "window", "rtt", "view", "shots",
              "reg %", "false %", "replaced", "clamped", "shots", "reg %", "false %");
  std::printf("%-10s %7s %7s %7s | %-44s | %-24s\n", "", "ms", "ms", "ms", "with compensation", "without (window 0)");
  std::string json = "{\"seed\":" + std::to_string(seed) + ",\"shooters\":" + std::to_string(shooters) +
                     ",\"seconds\":" + std::to_string(seconds) + ",\"rows\":[";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& [link, window] = rows[r];
    const Outcome with = run_match(link, window, seconds, shooters, seed);
    const Outcome without = run_match(link, Duration::zero(), seconds, shooters, seed);
    const auto reg = [](const Outcome& o) { return rate(o.on.on_target_hits, o.on.on_target); };
    const auto fh = [](const Outcome& o) { return rate(o.off.off_target_hits, o.off.off_target); };
    std::printf("%-10s %7lld %7.1f %7.1f | %8llu %7.2f %7.2f %8.2f%% %8.2f%% | %8llu %7.2f %7.2f\n", link.name.c_str(),
                static_cast<long long>(window.micros() / 1000), with.rtt_ms, with.view_behind_ms,
                static_cast<unsigned long long>(with.on.on_target) + with.off.off_target, reg(with), fh(with),
                rate(with.replaced, with.decisions), rate(with.clamped, with.decisions),
                static_cast<unsigned long long>(without.on.on_target) + without.off.off_target, reg(without),
                fh(without));
    char line[1024];
    const auto part = [&](const Outcome& o) {
      char b[512];
      (void)std::snprintf(
          b, sizeof b,
          "{\"on_target\":%llu,\"on_target_hits\":%llu,\"off_target\":%llu,\"off_target_hits\":%llu,"
          "\"refused\":%llu,\"unresolved\":%llu,\"hit_registration\":%.6f,\"false_hits\":%.6f,"
          "\"rewind_decisions\":%llu,\"replaced\":%llu,\"clamped\":%llu,\"rtt_ms\":%.2f,"
          "\"view_behind_ms\":%.2f}",
          static_cast<unsigned long long>(o.on.on_target), static_cast<unsigned long long>(o.on.on_target_hits),
          static_cast<unsigned long long>(o.off.off_target), static_cast<unsigned long long>(o.off.off_target_hits),
          static_cast<unsigned long long>(o.on.teleport_blocked) + o.off.teleport_blocked,
          static_cast<unsigned long long>(o.on.unresolved) + o.off.unresolved, reg(o) / 100.0, fh(o) / 100.0,
          static_cast<unsigned long long>(o.decisions), static_cast<unsigned long long>(o.replaced),
          static_cast<unsigned long long>(o.clamped), o.rtt_ms, o.view_behind_ms);
      return std::string(b);
    };
    (void)std::snprintf(line, sizeof line, "%s{\"profile\":\"%s\",\"window_ms\":%lld,\"with\":", r == 0 ? "" : ",",
                        link.name.c_str(), static_cast<long long>(window.micros() / 1000));
    json += line + part(with) + ",\"without\":" + part(without) + "}";
  }
  json += "]}\n";
  std::printf(
      "reg %%: shots on target in the shooter's view that the server counted as hits; false %%: shots off target\n"
      "counted as hits; view: how far behind its input's tick a shooter's view lies (lead + interpolation delay);\n"
      "replaced / clamped: of the inputs' view times, those the server replaced by its estimate / clamped into\n"
      "the window (a view further back than the window is judged at its edge)\n");
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << json;
    if (!out) {
      (void)std::fprintf(stderr, "could not write %s\n", json_path.c_str());
      return 1;
    }
  }
  return 0;
}
