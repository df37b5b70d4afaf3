// bench_snapshot: bandwidth and cost of snapshots on deterministic scenes
// (asteroids, asteroids_simple, cubes_idle, arena; arena_smooth only when
// asked for), one client. Prints a table; --json FILE writes the figures.
//
//   bench_snapshot [--transport sim|enet|both] [--scene NAME] [--seconds N] [--warmup N]
//                  [--json FILE] [--seed N] [--ablation] [--reference-span TICKS]
//
// --warmup N runs each scene N seconds (as fast as it computes) before the
// client connects, to measure a later stretch: the asteroids settle into a
// ring over several minutes.
//
// --transport sim (the default) runs over SimNetwork (25 ms one-way each
// way, 2 ms jitter) at 0% and 2% loss, in virtual time: its wire figures
// are SimNetwork's model ("modelled wire"). --transport enet runs between
// two real ENet hosts on loopback, in real time (--seconds of wall clock
// per scene), at 0% and 2% loss (each side's receiving end drops that share
// of the unreliable datagrams after its socket read them): its wire figures are every datagram each side's
// socket sent, ENet's headers, acknowledgements and pings included, plus
// 28 bytes each for IP and UDP ("measured wire"). "payload" is the game's
// bytes alone: snapshot payloads down, acks and inputs up.
//
// --reference-span fixes the sender's reference span (it adapts by
// default), for tuning experiments.
//
// --latency-ms sets SimNetwork's one-way delay (25 by default): a longer
// round trip keeps more snapshots in flight. --models-in-flight sets the
// sender's bound on the in-flight states that keep their coding models
// (SenderConfig::max_models_in_flight; 0: none), and --views-in-flight its
// bound on the in-flight states kept at all (max_views_in_flight; 0: none),
// to measure what the bounds cost.
//
// --ablation measures what each compression step buys, per scene at 0%
// loss with the payload limit lifted so only the coding differs.

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness.h"
#include "scene.h"

namespace {

using tickwire::bench::RunOptions;
using tickwire::bench::RunResult;
using tickwire::bench::Scene;
using tickwire::bench::TransportKind;

// Run by default, in this order; arena_smooth only when asked for.
constexpr std::array<std::string_view, 4> kScenes = {"asteroids", "asteroids_simple", "cubes_idle", "arena"};

struct Args {
  std::string scene;
  double seconds = 120.0;
  double warmup = 0.0;
  std::string json;
  std::uint64_t seed = 1;
  bool ablation = false;
  std::uint32_t reference_span = 0;
  std::uint32_t latency_ms = 25;
  std::optional<std::uint32_t> models_in_flight;
  std::optional<std::uint32_t> views_in_flight;
  bool sim = true;
  bool enet = false;
};

constexpr const char* kUsage =
    "usage: bench_snapshot [--transport sim|enet|both] "
    "[--scene asteroids|asteroids_simple|cubes_idle|arena|arena_smooth] [--seconds N] [--warmup N] "
    "[--json FILE] [--seed N] [--ablation] [--reference-span TICKS] [--latency-ms N] [--models-in-flight N] "
    "[--views-in-flight N]\n";

[[noreturn]] void usage(const char* why) {
  std::cerr << "bench_snapshot: " << why << "\n" << kUsage;
  std::exit(2);
}

// A whole non-negative integer, or a usage error naming the option.
std::uint64_t whole_number(const std::string& text, const std::string& option) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || end == nullptr || *end != '\0' || errno != 0) {
    usage((option + " needs a whole number, not '" + text + "'").c_str());
  }
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--scene") {
      a.scene = value();
    } else if (arg == "--seconds") {
      a.seconds = std::atof(value().c_str());
      if (!(a.seconds > 0)) usage("--seconds must be > 0");
    } else if (arg == "--warmup") {
      a.warmup = std::atof(value().c_str());
      if (!(a.warmup >= 0)) usage("--warmup must be >= 0");
    } else if (arg == "--json") {
      a.json = value();
    } else if (arg == "--seed") {
      a.seed = whole_number(value(), arg);
    } else if (arg == "--ablation") {
      a.ablation = true;
    } else if (arg == "--reference-span") {
      const std::uint64_t span = whole_number(value(), arg);
      if (span > tickwire::snapshot::kMaxHistoryTicks) usage("--reference-span must be at most 4096 ticks");
      a.reference_span = static_cast<std::uint32_t>(span);
    } else if (arg == "--latency-ms") {
      const std::uint64_t ms = whole_number(value(), arg);
      if (ms > 5000) usage("--latency-ms must be at most 5000");
      a.latency_ms = static_cast<std::uint32_t>(ms);
    } else if (arg == "--models-in-flight") {
      const std::uint64_t n = whole_number(value(), arg);
      if (n > tickwire::snapshot::kMaxHistoryTicks) usage("--models-in-flight must be at most 4096");
      a.models_in_flight = static_cast<std::uint32_t>(n);
    } else if (arg == "--views-in-flight") {
      const std::uint64_t n = whole_number(value(), arg);
      if (n == 1 || n > tickwire::snapshot::kMaxHistoryTicks) usage("--views-in-flight must be 0 or in 2..4096");
      a.views_in_flight = static_cast<std::uint32_t>(n);
    } else if (arg == "--transport") {
      const std::string t = value();
      if (t != "sim" && t != "enet" && t != "both") usage("--transport must be sim, enet or both");
      a.sim = t != "enet";
      a.enet = t != "sim";
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  if (!a.scene.empty() && a.scene != "arena_smooth" &&
      std::find(kScenes.begin(), kScenes.end(), a.scene) == kScenes.end()) {
    usage("unknown scene");
  }
  if (a.ablation && a.enet) usage("--ablation runs over SimNetwork only");
  if (a.latency_ms != 25 && a.enet) usage("--latency-ms applies to SimNetwork only");
  return a;
}

std::unique_ptr<Scene> make(const std::string& name, std::uint64_t seed) {
  if (name == "asteroids") return tickwire::bench::make_asteroids(seed);
  if (name == "asteroids_simple") return tickwire::bench::make_asteroids_simple(seed);
  if (name == "cubes_idle") return tickwire::bench::make_cubes_idle(seed);
  if (name == "arena_smooth") return tickwire::bench::make_arena_smooth(seed);
  return tickwire::bench::make_arena(seed);
}

void print_header(const char* wire) {
  std::printf("%-16s %-4s %4s %3s | %8s %9s %6s | %8s %9s %6s | %5s %5s %7s %7s %5s %11s %4s %4s %8s\n", "scene", "net",
              "loss", "hz", "payload", wire, "dgram", "payload", wire, "dgram", "p50", "max", "enc_us", "dec_us", "age",
              "decoded", "full", "drop", "deferred");
  std::printf("%-16s %-4s %4s %3s | %8s %9s %6s | %8s %9s %6s | %5s %5s %7s %7s %5s %11s %4s %4s %8s\n", "", "", "", "",
              "down", "wire down", "/s dn", "up", "wire up", "/s up", "bytes", "bytes", "", "", "ticks", "of sent", "",
              "", "");
  std::printf("%-16s %-4s %4s %3s | %8s %9s %6s | %8s %9s %6s |\n", "", "", "", "", "kbit/s", "kbit/s", "", "kbit/s",
              "kbit/s", "");
}

void print_row(const RunResult& r) {
  char decoded[32];
  std::snprintf(decoded, sizeof decoded, "%llu/%llu", static_cast<unsigned long long>(r.decoded),
                static_cast<unsigned long long>(r.snapshots));
  std::printf(
      "%-16s %-4s %3.0f%% %3u | %8.2f %9.2f %6.1f | %8.2f %9.2f %6.1f | %5zu %5zu %7.2f %7.2f %5.2f %11s %4llu %4llu "
      "%8llu\n",
      r.scene.c_str(), r.transport.c_str(), r.loss * 100.0, r.send_hz, r.down.payload_kbps, r.down.wire_kbps,
      r.down.datagrams_per_s, r.up.payload_kbps, r.up.wire_kbps, r.up.datagrams_per_s, r.bytes_p50, r.bytes_max,
      r.encode_us, r.decode_us, r.mean_baseline_age, decoded, static_cast<unsigned long long>(r.full_snapshots),
      static_cast<unsigned long long>(r.dropped), static_cast<unsigned long long>(r.deferred));
  if (r.mismatches != 0) {
    std::printf("  ERROR: %llu decoded states differ from what the server recorded\n",
                static_cast<unsigned long long>(r.mismatches));
  }
  if (r.unverified != 0) {
    std::printf(
        "  note: %llu states the server kept no record of (a round trip beyond the history) were not compared\n",
        static_cast<unsigned long long>(r.unverified));
  }
  std::fflush(stdout);
}

// The wire figures are keyed by their kind ("modelled_wire_..." or
// "measured_wire_..."), so a reader cannot take one for the other.
void write_json(const std::string& path, const std::vector<RunResult>& results) {
  std::ofstream out(path);
  out << "{\"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& r = results[i];
    const char* w = r.wire.c_str();
    char buf[2048];
    std::snprintf(
        buf, sizeof buf,
        "%s\n{\"scene\":\"%s\",\"transport\":\"%s\",\"wire\":\"%s\",\"loss\":%.2f,\"send_hz\":%u,\"seconds\":%.3f,"
        "\"warmup_seconds\":%.1f,"
        "\"payload_down_kbps\":%.3f,\"%s_wire_down_kbps\":%.3f,\"datagrams_down_per_s\":%.3f,"
        "\"payload_up_kbps\":%.3f,\"%s_wire_up_kbps\":%.3f,\"datagrams_up_per_s\":%.3f,"
        "\"bytes_per_snapshot_p50\":%zu,\"bytes_per_snapshot_max\":%zu,\"encode_us_per_client_tick\":%.3f,"
        "\"decode_us_per_tick\":%.3f,\"capture_us_per_tick\":%.3f,"
        "\"mean_baseline_age_ticks\":%.3f,\"snapshots\":%llu,\"decoded\":%llu,\"mismatches\":%llu,"
        "\"unverified\":%llu}",
        i == 0 ? "" : ",", r.scene.c_str(), r.transport.c_str(), w, r.loss, r.send_hz, r.seconds, r.warmup_seconds,
        r.down.payload_kbps, w, r.down.wire_kbps, r.down.datagrams_per_s, r.up.payload_kbps, w, r.up.wire_kbps,
        r.up.datagrams_per_s, r.bytes_p50, r.bytes_max, r.encode_us, r.decode_us, r.capture_us, r.mean_baseline_age,
        static_cast<unsigned long long>(r.snapshots), static_cast<unsigned long long>(r.decoded),
        static_cast<unsigned long long>(r.mismatches), static_cast<unsigned long long>(r.unverified));
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
  bool codebook = false;  // models trained on another run of the scene, then fixed
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
      {"(side) static models trained on another run", true, true, true, true, true, true, true},
  };
  std::printf("%-16s %-45s %9s %9s %6s %7s %7s\n", "scene", "variant (0% loss, no payload limit)", "payload",
              "modelled", "p50", "encode", "decode");
  std::printf("%-16s %-45s %9s %9s %6s %7s %7s\n", "", "", "down", "wire down", "bytes", "us", "us");
  for (const auto& name : scenes) {
    for (const Variant& v : variants) {
      auto scene = make(name, args.seed);
      RunOptions o;
      o.seconds = args.seconds;
      o.warmup_seconds = args.warmup;
      o.seed = args.seed;
      o.unlimited = true;
      o.sender.delta = v.delta;
      o.sender.motion_prediction = v.motion;
      o.sender.adaptive_reference_span = v.adaptive_span;
      o.sender.choose_motion_per_field = v.per_field;
      o.sender.adaptive_coding = v.adaptive;
      o.sender.inherit_models = v.inherit;
      if (v.codebook) {
        // Trained on the scene played with another seed, coded as it ships;
        // then the same models for every packet of the run measured.
        RunOptions training = o;
        training.seed = args.seed + 1;
        tickwire::snapshot::CodebookTrainer trainer(scene->schema());
        training.train = &trainer;
        auto other = make(name, training.seed);
        (void)tickwire::bench::run_scene(*other, training);
        o.sender.codebook = trainer.codebook();
      }
      const RunResult r = tickwire::bench::run_scene(*scene, o);
      std::printf("%-16s %-45s %9.2f %9.2f %6zu %7.2f %7.2f%s\n", name.c_str(), v.name, r.down.payload_kbps,
                  r.down.wire_kbps, r.bytes_p50, r.encode_us, r.decode_us,
                  r.mismatches != 0 ? "  ERROR: mismatches" : "");
      std::fflush(stdout);
    }
  }
  return 0;
}

int run(const Args& args) {
  std::vector<std::string> scenes(kScenes.begin(), kScenes.end());
  if (!args.scene.empty()) scenes = {args.scene};
  if (args.ablation) return run_ablation(args, scenes);

  std::vector<RunResult> results;
  int errors = 0;
  auto one = [&](const std::string& name, TransportKind transport, double loss) {
    auto scene = make(name, args.seed);
    RunOptions o;
    o.transport = transport;
    o.loss = loss;
    o.seconds = args.seconds;
    o.warmup_seconds = args.warmup;
    o.seed = args.seed;
    o.sender.reference_span = args.reference_span;
    o.latency_ms = args.latency_ms;
    if (args.models_in_flight) o.sender.max_models_in_flight = *args.models_in_flight;
    if (args.views_in_flight) o.sender.max_views_in_flight = *args.views_in_flight;
    results.push_back(tickwire::bench::run_scene(*scene, o));
    print_row(results.back());
    errors += results.back().mismatches != 0 ? 1 : 0;
  };
  if (args.sim) {
    std::printf(
        "bench_snapshot over SimNetwork: %.0f simulated seconds per run after %.0f s of warm-up, seed %llu, %u ms "
        "one-way, 2 ms jitter\n",
        args.seconds, args.warmup, static_cast<unsigned long long>(args.seed), args.latency_ms);
    print_header("modelled");
    for (const auto& name : scenes) {
      for (double loss : {0.0, 0.02}) one(name, TransportKind::kSim, loss);
    }
  }
  if (args.enet) {
    std::printf(
        "%sbench_snapshot over ENet on loopback: %.0f real seconds per run after %.0f s of warm-up, seed %llu, "
        "0%% and 2%% loss (dropped at the receiver, after the socket's count)\n",
        args.sim ? "\n" : "", args.seconds, args.warmup, static_cast<unsigned long long>(args.seed));
    print_header("measured");
    for (const auto& name : scenes) {
      for (double loss : {0.0, 0.02}) one(name, TransportKind::kEnet, loss);
    }
  }
  if (!args.json.empty()) write_json(args.json, results);
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::cerr << "bench_snapshot: " << e.what() << "\n";
    return 1;
  }
}
