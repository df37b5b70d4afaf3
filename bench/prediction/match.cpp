#include "match.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <optional>
#include <stdexcept>

#include "drawn_steps.h"
#include "pitch/ai.h"
#include "pitch/game.h"
#include "tickwire/client/client.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::bench {
namespace {

// The network steps in whole milliseconds: the server reads what arrived
// each millisecond, as a server waiting on its socket would, while the
// clients run a frame every 1/60 s.
constexpr Duration kStep = Duration::millis(1);
transport::Address server_address() { return {"pitch-server", 7777}; }

struct Player {
  std::unique_ptr<pitch::Game> game;
  std::unique_ptr<client::Client> client;
  Time next_frame;
  std::int64_t frame = 0;
  client::ClientStats at_warmup;
  std::optional<DrawnSteps> drawn;
};

// Every client plays the ball towards the other goal, from what it draws.
Player make_player(transport::SimNetwork& net, std::uint32_t index, const MatchConfig& config, Time start) {
  Player p;
  p.game = std::make_unique<pitch::Game>();
  auto self = std::make_shared<const client::Client*>(nullptr);
  auto sampler = [self](Tick, snapshot::Record& out) {
    const client::Client& c = **self;
    pitch::Input in;
    if (c.avatar() && c.view().contains(*c.avatar())) in = pitch::chase_ball(c.view(), *c.avatar());
    pitch::to_record(in, out);
  };
  const transport::Address address{"client-" + std::to_string(index), 5000};
  net.set_link(address, server_address(), config.profile.up);
  net.set_link(server_address(), address, config.profile.down);
  transport::SimEndpointConfig endpoint;
  endpoint.max_peers = 1;
  client::ClientConfig cc;
  cc.name = address.host;
  cc.prediction_switch_blend = config.variant.switch_blend;
  cc.predict_remote_players = config.variant.predict_remote_players;
  p.client = std::make_unique<client::Client>(net.create_endpoint(address, endpoint), *p.game, sampler, cc);
  *self = p.client.get();
  p.drawn.emplace(cc.visual_pop_distance);
  client::DrawOptions draw;
  draw.smoothing = config.variant.smoothing;
  p.client->set_draw_options(draw);
  // Frames spread over the frame interval, so the clients do not all draw
  // on the same millisecond.
  p.next_frame = start + Duration::micros(static_cast<std::int64_t>(index) * 1'000'000 /
                                          static_cast<std::int64_t>(kFrameRate * config.clients));
  return p;
}

// The n-th frame of a client falls at its first plus n/60 s, in whole
// microseconds, so frames never drift.
Time frame_time(Time first, std::int64_t n) { return first + Duration::micros(n * 1'000'000 / kFrameRate); }

// This thread's CPU time: unlike the wall time, it leaves out the time
// the host gave to other processes in the middle of a frame.
double thread_cpu_us() {
  timespec t{};
  (void)clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto at = static_cast<std::size_t>(std::lround(p * static_cast<double>(v.size() - 1)));
  return v[std::min(at, v.size() - 1)];
}

void add_figures(MatchFigures& f, const client::ClientStats& end, const client::ClientStats& start) {
  f.mispredictions_per_min += static_cast<double>(end.mispredictions - start.mispredictions);
  f.rollbacks_per_min += static_cast<double>(end.rollbacks - start.rollbacks);
  for (std::size_t c = 0; c < prediction::kCorrectionCauses; ++c) {
    f.by_cause_per_min[c] += static_cast<double>(end.mispredictions_by_cause[c] - start.mispredictions_by_cause[c]);
  }
  f.corrections_drawn += end.corrections_drawn - start.corrections_drawn;
  f.visual_pops += end.visual_pops - start.visual_pops;
  f.frames_drawn += end.frames_drawn - start.frames_drawn;
  f.hard_resets += end.hard_resets;
}

// Counts into rates per client-minute; the quantiles of corrections over
// the clients that drew any.
void finish_figures(MatchFigures& f, const std::vector<Player>& players) {
  const double client_minutes = f.minutes * static_cast<double>(f.clients);
  f.mispredictions_per_min /= client_minutes;
  f.rollbacks_per_min /= client_minutes;
  for (double& rate : f.by_cause_per_min) rate /= client_minutes;
  // Pops per minute of frames drawn, at the frame rate.
  f.harness_pops_per_min = static_cast<double>(f.harness_pops) / client_minutes;
  if (f.frames_drawn > 0) {
    f.visual_pops_per_min =
        static_cast<double>(f.visual_pops) * 60.0 * kFrameRate / static_cast<double>(f.frames_drawn);
  }
  std::vector<double> p50s;
  for (const Player& p : players) {
    const client::ClientStats& s = p.client->stats();
    if (s.corrections_drawn == 0) continue;
    p50s.push_back(s.correction_p50);
    f.correction_p99 = std::max(f.correction_p99, s.correction_p99);
  }
  f.correction_p50 = percentile(p50s, 0.5);
}

}  // namespace

std::vector<Variant> builtin_variants() {
  return {
      Variant{"defaults", "the runtime's defaults: blend 200 ms, remote players interpolated, smoothing on",
              Duration::millis(200), false, true},
      Variant{"no_blend", "switching without the blend (prediction_switch_blend 0)", Duration::zero(), false, true},
      Variant{"remote", "remote players near the avatar predicted (predict_remote_players)", Duration::millis(200),
              true, true},
      Variant{"no_smooth", "corrections drawn as the jumps they are (DrawOptions::smoothing off)",
              Duration::millis(200), false, false},
  };
}

MatchFigures run_match(const MatchConfig& config) {
  if (config.clients == 0) throw std::invalid_argument("run_match: no clients");
  transport::SimNetwork net(config.seed);
  pitch::Game server_game;
  server::ServerConfig sc;
  sc.tick_rate = kTickRate;
  sc.send_rate = kSendRate;
  Time now = Time::from_micros(1'000'000);
  server::Server server(net.create_endpoint(server_address()), server_game, sc, now);

  std::vector<Player> players;
  players.reserve(config.clients);
  for (std::uint32_t i = 0; i < config.clients; ++i) {
    players.push_back(make_player(net, i, config, now));
    if (!players.back().client->connect(server_address(), now).ok()) throw std::runtime_error("connect failed");
  }

  const Time measure_from = now + config.warmup;
  const Time end = measure_from + config.length;
  std::vector<double> update_us;
  std::vector<double> update_cpu_us;
  update_us.reserve(static_cast<std::size_t>(config.length.micros() / 1'000'000 + 1) * kFrameRate * config.clients);
  bool measuring = false;
  std::vector<Time> first_frames;
  first_frames.reserve(players.size());
  for (const Player& p : players) first_frames.push_back(p.next_frame);
  Time next_step = now + kStep;
  while (now < end) {
    // The next millisecond or the next frame, whichever comes first, so
    // every frame runs at its own time and time never goes back.
    now = next_step;
    for (const Player& p : players) now = std::min(now, p.next_frame);
    if (now == next_step) next_step = next_step + kStep;
    if (!measuring && now >= measure_from) {
      measuring = true;
      for (Player& p : players) p.at_warmup = p.client->stats();
    }
    server.update(now);
    for (std::size_t i = 0; i < players.size(); ++i) {
      Player& p = players[i];
      if (p.next_frame != now) continue;
      const double cpu0 = thread_cpu_us();
      const auto t0 = std::chrono::steady_clock::now();
      p.client->update(now);
      const auto t1 = std::chrono::steady_clock::now();
      const double cpu1 = thread_cpu_us();
      if (measuring) {
        update_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        update_cpu_us.push_back(cpu1 - cpu0);
      }
      const Time next = frame_time(first_frames[i], ++p.frame);
      const prediction::ClientPrediction* predicting = p.client->prediction();
      p.drawn->observe(p.client->view(), next - now, measuring, [predicting](snapshot::EntityId id) {
        return predicting != nullptr && predicting->predicts(id);
      });
      p.next_frame = next;
    }
  }

  MatchFigures f;
  f.profile = config.profile.name;
  f.variant = config.variant.name;
  f.seed = config.seed;
  f.clients = config.clients;
  f.minutes = static_cast<double>(config.length.micros()) / 60e6;
  for (const Player& p : players) {
    if (p.client->state() == client::ClientState::kConnected) ++f.connected;
    add_figures(f, p.client->stats(), p.at_warmup);
    f.harness_pops += p.drawn->pops();
    f.harness_ball_pops += p.drawn->ball_pops();
    f.harness_pops_after_switch += p.drawn->pops_after_switch();
    f.harness_pops_predicted += p.drawn->pops_predicted();
    f.harness_pops_interpolated += p.drawn->pops_interpolated();
    f.largest_excess_m = std::max(f.largest_excess_m, p.drawn->largest_excess());
  }
  finish_figures(f, players);
  f.frames_timed = update_us.size();
  f.update_p50_us = percentile(update_us, 0.5);
  f.update_p99_us = percentile(update_us, 0.99);
  f.update_cpu_p50_us = percentile(update_cpu_us, 0.5);
  f.update_cpu_p99_us = percentile(update_cpu_us, 0.99);
  const pitch::Schema& s = pitch::schema();
  if (const auto board = pitch::find_scoreboard(server.world())) {
    f.goals = server.world().get(*board, s.score_home) + server.world().get(*board, s.score_away);
  }
  return f;
}

}  // namespace tickwire::bench
