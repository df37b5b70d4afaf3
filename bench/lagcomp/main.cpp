// The lag compensation benchmark: what judging a shot costs a server.
//
// A scene of N players, each a body capsule and a head sphere, runs at
// 60 Hz with a 250 ms rewind window (17 frames). Players walk at up to
// 6 m/s on a square that gives each about 50 m^2 (64 players: 57 m a side,
// 256: 113 m), and 1% of them teleport (respawn) each second. After the
// window has filled, every tick records all players, then fires a batch
// of queries at view times spread over the window with random fractions
// (so every query blends two ticks):
//   - rays from a random player's eye, aimed at another player with up to
//     2 degrees of error (about half hit), 200 m long, the shooter ignored;
//   - spheres of 3 m radius at a random player's feet (a grenade).
// Each query runs with the broad phase and again testing every player
// exactly; the answers must agree (the benchmark stops if they do not).
// Figures are medians over kTrials trials.
//
//   bench_lagcomp [--json FILE] [--players N] [--queries N]

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tickwire/lagcomp/hit_history.h"

namespace {

using namespace tickwire;
using namespace tickwire::lagcomp;

constexpr std::uint32_t kRate = 60;
constexpr int kTrials = 5;
constexpr std::uint32_t kWarmupTicks = 60;
constexpr std::uint32_t kMeasuredTicks = 240;
constexpr float kAreaPerPlayer = 50.0F;  // m^2
constexpr float kMaxSpeed = 6.0F;        // m/s
constexpr double kTeleportsPerSecond = 0.01;

struct Player {
  Vec3 p;
  Vec3 v;
};

struct Figures {
  std::uint32_t players = 0;
  double ray_ns_broad = 0;
  double ray_ns_exhaustive = 0;
  double overlap_ns_broad = 0;
  double overlap_ns_exhaustive = 0;
  double record_us_per_tick = 0;
  double record_ns_per_entity = 0;
  double ray_candidates = 0;  // players tested exactly per ray, with the broad phase
  double hit_rate = 0;
  double bytes_per_entity_tick = 0;
  std::size_t history_bytes = 0;
  std::uint32_t frames = 0;
};

double ns_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Vec3 normalized(Vec3 v) {
  const float len = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  return {v.x / len, v.y / len, v.z / len};
}

void fail(const char* what) {
  (void)std::fprintf(stderr, "bench_lagcomp: %s\n", what);
  std::exit(1);
}

Figures run_trial(std::uint32_t n, std::uint32_t queries_per_tick, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  HistoryConfig config;
  config.tick_rate = kRate;
  config.max_entities = n;
  config.max_shapes_per_entity = 2;
  config.max_rewind = Duration::millis(250);
  HitHistory history(config);

  const float side = std::sqrt(kAreaPerPlayer * static_cast<float>(n));
  std::uniform_real_distribution<float> place(0.0F, side);
  std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
  std::uniform_real_distribution<double> chance(0.0, 1.0);
  const float step = kMaxSpeed / static_cast<float>(kRate);
  std::vector<Player> players(n);
  for (Player& pl : players) pl = {{place(rng), 0, place(rng)}, {unit(rng) * step, 0, unit(rng) * step}};

  std::vector<double> record_ns;
  std::vector<double> ray_broad;
  std::vector<double> ray_all;
  std::vector<double> overlap_broad;
  std::vector<double> overlap_all;
  std::uint64_t rays = 0;
  std::uint64_t hits = 0;
  std::uint64_t candidates = 0;
  std::vector<OverlapHit> out(n);
  std::array<Shape, 2> shapes{};
  struct Query {
    Ray ray;
    NetworkTime view;
    QueryOptions options;
    Vec3 feet;
  };
  std::vector<Query> queries;
  queries.reserve(queries_per_tick);
  std::vector<Result<RayCastResult>> ray_a(queries_per_tick, RayCastResult{});
  std::vector<Result<RayCastResult>> ray_b(queries_per_tick, RayCastResult{});
  std::vector<Result<OverlapResult>> ovl_a(queries_per_tick, OverlapResult{});
  std::vector<Result<OverlapResult>> ovl_b(queries_per_tick, OverlapResult{});

  for (std::uint32_t t = 0; t < kWarmupTicks + kMeasuredTicks; ++t) {
    const auto r0 = std::chrono::steady_clock::now();
    if (!history.begin_tick(Tick(t)).ok()) fail("begin_tick");
    for (std::uint32_t i = 0; i < n; ++i) {
      Player& pl = players[i];
      Motion motion = Motion::kContinuous;
      if (chance(rng) < kTeleportsPerSecond / kRate) {
        pl.p = {place(rng), 0, place(rng)};
        motion = Motion::kTeleported;
      }
      pl.p.x = std::clamp(pl.p.x + pl.v.x, 0.0F, side);
      pl.p.z = std::clamp(pl.p.z + pl.v.z, 0.0F, side);
      shapes[0] = Shape::capsule({pl.p.x, 0.4F, pl.p.z}, {pl.p.x, 1.4F, pl.p.z}, 0.4F, 2);
      shapes[1] = Shape::sphere({pl.p.x, 1.65F, pl.p.z}, 0.15F, 1);
      if (!history.record(EntityId{i}, pl.p, shapes, motion).ok()) fail("record");
    }
    if (!history.end_tick().ok()) fail("end_tick");
    const double rec = ns_since(r0);
    if (t < kWarmupTicks) continue;
    record_ns.push_back(rec);

    // The tick's queries, drawn first so that only the queries are timed,
    // a batch at a time (a clock read per query would weigh on the figure).
    const TimeRange range = *history.range();
    const std::int64_t span = range.newest.units() - range.oldest.units();
    queries.clear();
    for (std::uint32_t q = 0; q < queries_per_tick; ++q) {
      const auto offset = static_cast<std::int64_t>(chance(rng) * static_cast<double>(span));
      const NetworkTime view = NetworkTime::from_ticks_f(
          kRate, static_cast<double>(range.oldest.units() + offset) / static_cast<double>(NetworkTime::kUnitsPerTick));
      const auto shooter = static_cast<std::uint32_t>(rng() % n);
      auto target = static_cast<std::uint32_t>(rng() % n);
      if (target == shooter) target = (target + 1) % n;
      const Vec3 eye{players[shooter].p.x, 1.6F, players[shooter].p.z};
      const Vec3 aim{players[target].p.x, 1.2F, players[target].p.z};
      const float dist = std::hypot(aim.x - eye.x, aim.z - eye.z);
      const float error = std::tan(2.0F * 3.14159265F / 180.0F) * dist;
      const Vec3 dir = normalized(
          {aim.x - eye.x + unit(rng) * error, aim.y - eye.y + unit(rng) * error, aim.z - eye.z + unit(rng) * error});
      QueryOptions broad;
      broad.ignore = EntityId{shooter};
      queries.push_back({Ray{eye, dir, 200.0F}, view, broad, players[target].p});
    }
    const auto time_batch = [&](bool use_broad_phase, auto&& query, std::vector<double>& sink) {
      const auto t0 = std::chrono::steady_clock::now();
      for (std::size_t q = 0; q < queries.size(); ++q) {
        QueryOptions o = queries[q].options;
        o.broad_phase = use_broad_phase;
        query(q, o);
      }
      sink.push_back(ns_since(t0) / static_cast<double>(queries.size()));
    };
    time_batch(
        true,
        [&](std::size_t q, const QueryOptions& o) { ray_a[q] = history.ray_cast(queries[q].ray, queries[q].view, o); },
        ray_broad);
    time_batch(
        false,
        [&](std::size_t q, const QueryOptions& o) { ray_b[q] = history.ray_cast(queries[q].ray, queries[q].view, o); },
        ray_all);
    time_batch(
        true,
        [&](std::size_t q, const QueryOptions& o) {
          ovl_a[q] = history.overlap_sphere(queries[q].feet, 3.0F, queries[q].view, out, o);
        },
        overlap_broad);
    time_batch(
        false,
        [&](std::size_t q, const QueryOptions& o) {
          ovl_b[q] = history.overlap_sphere(queries[q].feet, 3.0F, queries[q].view, out, o);
        },
        overlap_all);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto& a = ray_a[q];
      const auto& b = ray_b[q];
      if (!a.ok() || !b.ok() || a->hit.has_value() != b->hit.has_value() ||
          (a->hit && (a->hit->entity != b->hit->entity || a->hit->distance != b->hit->distance))) {
        fail("the broad phase changed a ray's answer");
      }
      if (!ovl_a[q].ok() || !ovl_b[q].ok() || ovl_a[q]->total != ovl_b[q]->total) {
        fail("the broad phase changed an overlap's answer");
      }
      ++rays;
      candidates += a->candidates;
      if (a->hit) ++hits;
    }
  }

  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  Figures f;
  f.players = n;
  f.ray_ns_broad = mean(ray_broad);
  f.ray_ns_exhaustive = mean(ray_all);
  f.overlap_ns_broad = mean(overlap_broad);
  f.overlap_ns_exhaustive = mean(overlap_all);
  f.record_us_per_tick = mean(record_ns) / 1000.0;
  f.record_ns_per_entity = mean(record_ns) / static_cast<double>(n);
  f.ray_candidates = static_cast<double>(candidates) / static_cast<double>(rays);
  f.hit_rate = static_cast<double>(hits) / static_cast<double>(rays);
  f.history_bytes = history.bytes();
  f.frames = history.frame_capacity();
  f.bytes_per_entity_tick = static_cast<double>(history.bytes()) / (static_cast<double>(n) * history.frame_capacity());
  return f;
}

Figures run(std::uint32_t n, std::uint32_t queries_per_tick) {
  std::vector<Figures> trials;
  for (int i = 0; i < kTrials; ++i)
    trials.push_back(run_trial(n, queries_per_tick, 1000 + static_cast<std::uint64_t>(i)));
  const auto med = [&trials](double Figures::*field) {
    std::vector<double> v;
    for (const Figures& t : trials) v.push_back(t.*field);
    return median(v);
  };
  Figures r = trials.front();
  for (double Figures::*field : {&Figures::ray_ns_broad, &Figures::ray_ns_exhaustive, &Figures::overlap_ns_broad,
                                 &Figures::overlap_ns_exhaustive, &Figures::record_us_per_tick,
                                 &Figures::record_ns_per_entity, &Figures::ray_candidates, &Figures::hit_rate}) {
    r.*field = med(field);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  std::vector<std::uint32_t> counts{64, 256};
  std::uint32_t queries = 50;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--json") == 0 && has_value) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--players") == 0 && has_value) {
      const long v = std::strtol(argv[++i], nullptr, 10);
      if (v < 2 || v > 65536) {
        (void)std::fprintf(stderr, "--players must be in 2..65536\n");
        return 2;
      }
      counts = {static_cast<std::uint32_t>(v)};
    } else if (std::strcmp(argv[i], "--queries") == 0 && has_value) {
      const long v = std::strtol(argv[++i], nullptr, 10);
      if (v < 1 || v > 100000) {
        (void)std::fprintf(stderr, "--queries must be in 1..100000 (per tick)\n");
        return 2;
      }
      queries = static_cast<std::uint32_t>(v);
    } else {
      (void)std::fprintf(stderr, "usage: %s [--json FILE] [--players N] [--queries PER_TICK]\n", argv[0]);
      return 2;
    }
  }

  std::vector<Figures> results;
  std::printf("%8s | %10s %10s %6s %6s | %10s %10s | %10s %10s | %7s %9s %7s\n", "players", "ray ns", "ray ns all",
              "tested", "hits", "ovl ns", "ovl ns all", "rec us/t", "rec ns/e", "frames", "hist KiB", "B/e/t");
  for (const std::uint32_t n : counts) {
    const Figures r = run(n, queries);
    results.push_back(r);
    std::printf("%8u | %10.1f %10.1f %6.2f %6.2f | %10.1f %10.1f | %10.2f %10.1f | %7u %9.1f %7.1f\n", r.players,
                r.ray_ns_broad, r.ray_ns_exhaustive, r.ray_candidates, r.hit_rate, r.overlap_ns_broad,
                r.overlap_ns_exhaustive, r.record_us_per_tick, r.record_ns_per_entity, r.frames,
                static_cast<double>(r.history_bytes) / 1024.0, r.bytes_per_entity_tick);
    (void)std::fflush(stdout);
  }
  std::printf(
      "(ray ns: one ray cast with the broad phase; all: testing every player exactly; tested: players tested exactly "
      "per ray with the broad phase; hits: share of rays that hit; ovl: a 3 m sphere overlap; rec: recording one tick "
      "of every player, per tick and per player; frames: ticks held for 250 ms at 60 Hz; hist: every buffer the "
      "history holds; B/e/t: those bytes per player per frame. Means over %u ticks x %u queries, median of %d "
      "trials)\n",
      kMeasuredTicks, queries, kTrials);

  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\"tick_rate\":" << kRate << ",\"max_rewind_ms\":250,\"results\":[";
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Figures& r = results[i];
      char line[768];
      (void)std::snprintf(line, sizeof line,
                          "%s{\"players\":%u,\"ray_ns_per_query\":%.1f,\"ray_ns_per_query_without_broad_phase\":%.1f,"
                          "\"ray_players_tested\":%.3f,\"ray_hit_rate\":%.3f,\"overlap_ns_per_query\":%.1f,"
                          "\"overlap_ns_per_query_without_broad_phase\":%.1f,\"record_us_per_tick\":%.3f,"
                          "\"record_ns_per_entity\":%.1f,\"frames\":%u,\"history_bytes\":%zu,"
                          "\"history_bytes_per_entity_tick\":%.1f}",
                          i == 0 ? "" : ",", r.players, r.ray_ns_broad, r.ray_ns_exhaustive, r.ray_candidates,
                          r.hit_rate, r.overlap_ns_broad, r.overlap_ns_exhaustive, r.record_us_per_tick,
                          r.record_ns_per_entity, r.frames, r.history_bytes, r.bytes_per_entity_tick);
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
