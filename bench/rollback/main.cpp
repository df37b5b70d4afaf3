// The rollback benchmark: what prediction itself costs a client frame.
//
// A client predicts N entities with a trivial simulate (each entity moves
// one quantization step, and the time inside simulate is measured and
// taken out), so what is timed is the runtime's own work: restoring the entities a snapshot
// carries, looking up the stored input of each replayed tick, snapping the
// simulated entities to their quantized values, recording each tick in the
// history, and drawing. Every snapshot differs from the prediction (one
// field of every entity is off by one step), so every frame pays a full
// rollback and a replay of exactly `depth` ticks: the worst case, not the
// common one (a matching snapshot skips the replay).
//
// A frame is: apply one snapshot (rollback and replay), predict one new
// tick, draw every entity. Each configuration runs kTrials trials of
// kFrames frames after a warm-up; figures are the median over trials.
//
//   bench_rollback [--json FILE] [--entities N] [--depth D]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/prediction/client_prediction.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace {

using namespace tickwire;
using namespace tickwire::prediction;
using snapshot::Vec3;

constexpr int kTrials = 5;
constexpr int kFrames = 600;
constexpr int kWarmupFrames = 100;

struct Scene {
  snapshot::Schema schema;
  snapshot::TypeId body;
  snapshot::TypeId input;
  snapshot::Field<Vec3> position;
  snapshot::Field<Vec3> velocity;
  snapshot::Field<std::int32_t> state;

  Scene() {
    snapshot::SchemaBuilder b;
    auto t = b.entity_type("body");
    position = t.add_vec3("position", {-1000, -100, -1000}, {1000, 100, 1000}, 0.01F);
    velocity = t.add_vec3("velocity", {-50, -50, -50}, {50, 50, 50}, 0.01F);
    state = t.add_int("state", 0, 15);
    body = t.id();
    auto in = b.record_type("input");
    in.add_vec2("move", {-1, -1}, {1, 1}, 1.0F / 127);
    in.add_bool("fire");
    input = in.id();
    schema = b.build();
  }
};

// Looks up this player's input and moves every entity it may move by one
// quantization step, so that snapping really has something to snap. Its
// own time is measured and taken out of the runtime's overhead.
class TrivialGame : public Game {
 public:
  explicit TrivialGame(const Scene& scene) : scene_(scene) {}
  void simulate(snapshot::World& world, Tick, const Inputs& inputs, SimContext& ctx) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (inputs.find(PlayerId{1}) != nullptr) {
      for (const EntityId id : world.entities(scene_.body)) {
        if (!ctx.simulates(id)) continue;
        Vec3 p = world.get(id, scene_.position);
        p.x += 0.01F;
        world.set(id, scene_.position, p);
      }
    }
    inside_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  }
  double inside_us = 0;

 private:
  const Scene& scene_;
};

struct Figures {
  std::uint32_t entities = 0;
  std::uint32_t depth = 0;
  double overhead_us_per_tick = 0;  // (rollback time - time inside simulate) / depth
  double simulate_us_per_tick = 0;  // the game's own share, for reference
  double frame_p99_us = 0;
  double frame_mean_us = 0;
  double rollback_mean_us = 0;
  double predict_mean_us = 0;
  double render_mean_us = 0;
  double matched_snapshot_us = 0;  // a snapshot that matches: no replay
  double history_bytes_per_entity_tick = 0;
};

double micros_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

struct Trial {
  double overhead = 0;
  double simulate = 0;
  double p99 = 0;
  double frame = 0;
  double rollback = 0;
  double predict = 0;
  double render = 0;
  double matched = 0;
  double bytes = 0;
};

Trial run_trial(const Scene& scene, std::uint32_t n, std::uint32_t depth) {
  TrivialGame game(scene);
  PredictionConfig config;
  config.input_type = scene.input;
  config.player = PlayerId{1};
  config.max_replay_ticks = 64;
  config.inputs.capacity = 128;
  ClientPrediction client(
      scene.schema, game, [](Tick, snapshot::Record&) {}, config);

  snapshot::World server(scene.schema);
  std::vector<EntityId> ids;
  for (std::uint32_t i = 0; i < n; ++i) {
    const EntityId id = server.spawn(scene.body);
    server.set(id, scene.position, Vec3{static_cast<float>(i), 1.0F, -static_cast<float>(i)});
    server.set(id, scene.velocity, Vec3{1.0F, 0.0F, 0.5F});
    ids.push_back(id);
    client.predict(id);
  }
  server.quantize();
  client.on_authoritative(Tick(0), server, ids);
  snapshot::World drawn(scene.schema, client.world_config());

  Tick tick(0);
  for (std::uint32_t i = 0; i <= depth; ++i) client.sample_and_simulate(++tick);

  std::vector<double> frame_us;
  std::vector<double> rollback_us;
  std::vector<double> runtime_us;
  std::vector<double> simulate_us;
  std::vector<double> predict_us;
  std::vector<double> render_us;
  for (int f = 0; f < kWarmupFrames + kFrames; ++f) {
    // The server's state at the tick `depth` behind the present, one step
    // off the prediction (alternating, so it always differs).
    const Tick auth_tick = tick - depth;
    // (y, which simulate never touches, alternates: the restored value
    // always differs from the one predicted.)
    const float y = (f % 2 == 0) ? 1.01F : 1.02F;
    for (std::uint32_t i = 0; i < n; ++i) {
      server.set(ids[i], scene.position, Vec3{static_cast<float>(i), y, -static_cast<float>(i)});
    }
    server.quantize();

    game.inside_us = 0;
    const auto t0 = std::chrono::steady_clock::now();
    if (client.on_authoritative(auth_tick, server, ids) != SnapshotOutcome::kReplayed) {
      (void)std::fprintf(stderr, "expected a replay\n");
      std::exit(1);
    }
    const double rollback = micros_since(t0);
    const double inside = game.inside_us;
    const auto t1 = std::chrono::steady_clock::now();
    client.sample_and_simulate(++tick);
    const double predict = micros_since(t1);
    const auto t2 = std::chrono::steady_clock::now();
    client.render(NetworkTime::from_tick(60, tick, NetworkTime::kUnitsPerTick / 2), drawn);
    const double render = micros_since(t2);
    if (f < kWarmupFrames) continue;
    rollback_us.push_back(rollback);
    runtime_us.push_back(rollback - inside);
    simulate_us.push_back(inside);
    predict_us.push_back(predict);
    render_us.push_back(render);
    frame_us.push_back(rollback + predict + render);
  }

  // A snapshot that matches the prediction: compared, replay skipped.
  std::vector<double> matched;
  for (int f = 0; f < 50; ++f) {
    client.sample_and_simulate(++tick);
    const Tick auth_tick = tick - depth;
    const StateBlock* block = client.history().find(auth_tick);
    for (const HistoryRow& row : block->rows()) {
      const auto s = block->slots(row);
      std::copy(s.begin(), s.end(), server.slots(row.id).begin());
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (client.on_authoritative(auth_tick, server, ids) != SnapshotOutcome::kMatched) {
      (void)std::fprintf(stderr, "expected a match\n");
      std::exit(1);
    }
    matched.push_back(micros_since(t0));
  }

  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  Trial t;
  t.rollback = mean(rollback_us);
  t.overhead = mean(runtime_us) / static_cast<double>(depth);
  t.simulate = mean(simulate_us) / static_cast<double>(depth);
  t.p99 = percentile(frame_us, 0.99);
  t.frame = mean(frame_us);
  t.predict = mean(predict_us);
  t.render = mean(render_us);
  t.matched = median(matched);
  t.bytes = static_cast<double>(client.history().bytes()) /
            (static_cast<double>(n) * static_cast<double>(client.history().capacity()));
  return t;
}

Figures run(const Scene& scene, std::uint32_t n, std::uint32_t depth) {
  std::vector<Trial> trials;
  trials.reserve(kTrials);
  for (int i = 0; i < kTrials; ++i) trials.push_back(run_trial(scene, n, depth));
  const auto med = [&trials](double Trial::*field) {
    std::vector<double> v;
    v.reserve(trials.size());
    for (const Trial& t : trials) v.push_back(t.*field);
    return median(v);
  };
  Figures r;
  r.entities = n;
  r.depth = depth;
  r.overhead_us_per_tick = med(&Trial::overhead);
  r.simulate_us_per_tick = med(&Trial::simulate);
  r.frame_p99_us = med(&Trial::p99);
  r.frame_mean_us = med(&Trial::frame);
  r.rollback_mean_us = med(&Trial::rollback);
  r.predict_mean_us = med(&Trial::predict);
  r.render_mean_us = med(&Trial::render);
  r.matched_snapshot_us = med(&Trial::matched);
  r.history_bytes_per_entity_tick = med(&Trial::bytes);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  std::vector<std::uint32_t> entity_counts{1, 32, 256};
  std::vector<std::uint32_t> depths{5, 15, 30};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--entities") == 0 && i + 1 < argc) {
      entity_counts = {static_cast<std::uint32_t>(std::stoul(argv[++i]))};
    } else if (std::strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
      depths = {static_cast<std::uint32_t>(std::stoul(argv[++i]))};
    } else {
      (void)std::fprintf(stderr, "usage: %s [--json FILE] [--entities N] [--depth D]\n", argv[0]);
      return 2;
    }
  }
  const Scene scene;
  std::vector<Figures> results;
  std::printf("%9s %6s | %12s %10s | %10s %10s | %10s %10s %10s %10s | %10s\n", "entities", "depth", "us/replayed",
              "sim/tick", "frame p99", "frame mean", "rollback", "predict", "render", "matched", "hist B/e/t");
  for (const std::uint32_t n : entity_counts) {
    for (const std::uint32_t depth : depths) {
      const Figures r = run(scene, n, depth);
      results.push_back(r);
      std::printf("%9u %6u | %12.3f %10.3f | %10.2f %10.2f | %10.2f %10.2f %10.2f %10.2f | %10.1f\n", r.entities,
                  r.depth, r.overhead_us_per_tick, r.simulate_us_per_tick, r.frame_p99_us, r.frame_mean_us,
                  r.rollback_mean_us, r.predict_mean_us, r.render_mean_us, r.matched_snapshot_us,
                  r.history_bytes_per_entity_tick);
      (void)std::fflush(stdout);
    }
  }
  std::printf(
      "(microseconds. us/replayed: runtime time per replayed tick, the game's simulate excluded; sim/tick: the "
      "trivial simulate's own time; frame: apply one snapshot with rollback and replay, predict one tick, draw all; "
      "rollback, predict, render: means of those parts; matched: a snapshot equal to the prediction, replay skipped; "
      "hist B/e/t: history bytes per entity per tick held)\n");

  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\"results\":[";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Figures& r = results[i];
      char line[512];
      (void)std::snprintf(line, sizeof line,
                          "%s{\"predicted_entities\":%u,\"replay_ticks\":%u,\"overhead_us_per_replayed_tick\":%.4f,"
                          "\"client_frame_us_p99\":%.3f,\"bytes_per_entity_per_history_tick\":%.2f}",
                          i == 0 ? "" : ",", r.entities, r.depth, r.overhead_us_per_tick, r.frame_p99_us,
                          r.history_bytes_per_entity_tick);
      out << line;
    }
    out << "]}\n";
    if (!out) {
      (void)std::fprintf(stderr, "could not write %s\n", json_path.c_str());
      return 1;
    }
  }
  return 0;
}
