// bench_snapshot: bandwidth and cost of snapshots on deterministic scenes
// (asteroids, cubes_idle, arena; arena_smooth only when asked for),
// one client over SimNetwork (25 ms one-way each way, 2 ms jitter), at 0%
// and 2% loss. Prints a table; --json FILE writes the figures.
//
//   bench_snapshot [--scene NAME] [--seconds N] [--json FILE] [--seed N] [--ablation]
//                  [--reference-span TICKS]
//
// --reference-span fixes the sender's reference span (it adapts by
// default), for tuning experiments.
//
// --ablation measures what each compression step buys, per scene at 0%
// loss with the payload limit lifted so only the coding differs.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "harness.h"
#include "scene.h"

namespace {

using tickwire::bench::RunOptions;
using tickwire::bench::RunResult;
using tickwire::bench::Scene;

struct Args {
  std::string scene;
  double seconds = 120.0;
  std::string json;
  std::uint64_t seed = 1;
  bool ablation = false;
  std::uint32_t reference_span = 0;
};

[[noreturn]] void usage(const char* why) {
  std::cerr << "bench_snapshot: " << why << "\n"
            << "usage: bench_snapshot [--scene asteroids|cubes_idle|arena|arena_smooth] [--seconds N] [--json FILE] "
               "[--seed N] "
               "[--ablation]\n";
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--scene") {
      a.scene = value();
    } else if (arg == "--seconds") {
      a.seconds = std::atof(value().c_str());
      if (!(a.seconds > 0)) usage("--seconds must be > 0");
    } else if (arg == "--json") {
      a.json = value();
    } else if (arg == "--seed") {
      a.seed = std::strtoull(value().c_str(), nullptr, 10);
    } else if (arg == "--ablation") {
      a.ablation = true;
    } else if (arg == "--reference-span") {
      a.reference_span = static_cast<std::uint32_t>(std::strtoul(value().c_str(), nullptr, 10));

    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  if (!a.scene.empty() && a.scene != "asteroids" && a.scene != "cubes_idle" && a.scene != "arena" &&
      a.scene != "arena_smooth") {
    usage("unknown scene");
  }
  return a;
}

std::unique_ptr<Scene> make(const std::string& name, std::uint64_t seed) {
  if (name == "asteroids") return tickwire::bench::make_asteroids(seed);
  if (name == "cubes_idle") return tickwire::bench::make_cubes_idle(seed);
  if (name == "arena_smooth") return tickwire::bench::make_arena_smooth(seed);
  return tickwire::bench::make_arena(seed);
}

void print_header() {
  std::printf("%-12s %4s %3s %8s %8s %9s %5s %5s %7s %7s %7s %5s %11s %4s %4s %8s\n", "scene", "loss", "hz", "payload",
              "wire", "snap_wire", "p50", "max", "enc_us", "dec_us", "cap_us", "age", "decoded", "full", "drop",
              "deferred");
  std::printf("%-12s %4s %3s %8s %8s %9s %5s %5s %7s %7s %7s %5s %11s %4s %4s %8s\n", "", "", "", "kbit/s", "kbit/s",
              "kbit/s", "bytes", "bytes", "", "", "", "ticks", "of sent", "", "", "");
}

void print_row(const RunResult& r) {
  char decoded[32];
  std::snprintf(decoded, sizeof decoded, "%llu/%llu", static_cast<unsigned long long>(r.decoded),
                static_cast<unsigned long long>(r.snapshots));
  std::printf("%-12s %3.0f%% %3u %8.2f %8.2f %9.2f %5zu %5zu %7.2f %7.2f %7.2f %5.2f %11s %4llu %4llu %8llu\n",
              r.scene.c_str(), r.loss * 100.0, r.send_hz, r.payload_kbps, r.wire_kbps, r.snapshot_wire_kbps,
              r.bytes_p50, r.bytes_max, r.encode_us, r.decode_us, r.capture_us, r.mean_baseline_age, decoded,
              static_cast<unsigned long long>(r.full_snapshots), static_cast<unsigned long long>(r.dropped),
              static_cast<unsigned long long>(r.deferred));
  if (r.mismatches != 0) {
    std::printf("  ERROR: %llu decoded states differ from what the server recorded\n",
                static_cast<unsigned long long>(r.mismatches));
  }
  std::fflush(stdout);
}

void write_json(const std::string& path, const std::vector<RunResult>& results) {
  std::ofstream out(path);
  out << "{\"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& r = results[i];
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "%s\n{\"scene\":\"%s\",\"loss\":%.2f,\"send_hz\":%u,\"payload_kbps\":%.3f,\"wire_kbps\":%.3f,"
                  "\"bytes_per_snapshot_p50\":%zu,\"bytes_per_snapshot_max\":%zu,\"encode_us_per_client_tick\":%.3f,"
                  "\"decode_us_per_tick\":%.3f,\"capture_us_per_tick\":%.3f,\"snapshot_wire_kbps\":%.3f,"
                  "\"mean_baseline_age_ticks\":%.3f,\"mismatches\":%llu}",
                  i == 0 ? "" : ",", r.scene.c_str(), r.loss, r.send_hz, r.payload_kbps, r.wire_kbps, r.bytes_p50,
                  r.bytes_max, r.encode_us, r.decode_us, r.capture_us, r.snapshot_wire_kbps, r.mean_baseline_age,
                  static_cast<unsigned long long>(r.mismatches));
    out << buf;
  }
  out << "\n]}\n";
}

struct Variant {
  const char* name;
  bool delta;
  bool motion;
  bool adaptive_span;
  bool per_field;
  bool adaptive;
  bool inherit;
};

int run_ablation(const Args& args, const std::vector<std::string>& scenes) {
  // Each row adds one step to the one before, except the marked side row.
  const Variant variants[] = {
      {"quantized, full every time (fixed codes)", false, false, false, false, false, false},
      {"+ delta vs acked baseline", true, false, false, false, false, false},
      {"+ motion prediction, span = baseline age", true, true, false, false, false, false},
      {"+ reference span chosen per client", true, true, true, false, false, false},
      {"+ motion or hold chosen per field", true, true, true, true, false, false},
      {"+ adaptive range coding, fresh per packet", true, true, true, true, true, false},
      {"+ models inherited from the baseline", true, true, true, true, true, true},
      {"(side) all but motion prediction", true, false, false, false, true, true},
  };
  std::printf("%-12s %-45s %9s %9s %6s\n", "scene", "variant (0% loss, no payload limit)", "payload", "wire", "p50");
  for (const auto& name : scenes) {
    for (const Variant& v : variants) {
      auto scene = make(name, args.seed);
      RunOptions o;
      o.seconds = args.seconds;
      o.seed = args.seed;
      o.unlimited = true;
      o.sender.delta = v.delta;
      o.sender.motion_prediction = v.motion;
      o.sender.adaptive_reference_span = v.adaptive_span;
      o.sender.choose_motion_per_field = v.per_field;
      o.sender.adaptive_coding = v.adaptive;
      o.sender.inherit_models = v.inherit;
      const RunResult r = tickwire::bench::run_scene(*scene, o);
      std::printf("%-12s %-45s %9.2f %9.2f %6zu%s\n", name.c_str(), v.name, r.payload_kbps, r.wire_kbps, r.bytes_p50,
                  r.mismatches != 0 ? "  ERROR: mismatches" : "");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  std::vector<std::string> scenes = {"asteroids", "cubes_idle", "arena"};
  if (!args.scene.empty()) scenes = {args.scene};
  if (args.ablation) return run_ablation(args, scenes);

  std::printf("bench_snapshot: %.0f simulated seconds per run, seed %llu, 25 ms one-way, 2 ms jitter\n", args.seconds,
              static_cast<unsigned long long>(args.seed));
  print_header();
  std::vector<RunResult> results;
  int errors = 0;
  for (const auto& name : scenes) {
    for (double loss : {0.0, 0.02}) {
      auto scene = make(name, args.seed);
      RunOptions o;
      o.loss = loss;
      o.seconds = args.seconds;
      o.seed = args.seed;
      o.sender.reference_span = args.reference_span;

      results.push_back(tickwire::bench::run_scene(*scene, o));
      print_row(results.back());
      errors += results.back().mismatches != 0 ? 1 : 0;
    }
  }
  if (!args.json.empty()) write_json(args.json, results);
  return errors == 0 ? 0 : 1;
}
