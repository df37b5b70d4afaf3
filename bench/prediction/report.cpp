#include "report.h"

#include <sched.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tickwire::bench {
namespace {

using prediction::CorrectionCause;
using prediction::kCorrectionCauses;

std::string escaped(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string cause_name(std::size_t c) { return std::string(to_string(static_cast<CorrectionCause>(c))); }

void write_run(std::ostream& out, const MatchFigures& f) {
  out << "    {\"profile\": \"" << escaped(f.profile) << "\", \"variant\": \"" << escaped(f.variant)
      << "\", \"seed\": " << f.seed << ", \"clients\": " << f.clients << ", \"connected\": " << f.connected
      << ", \"minutes_per_client\": " << f.minutes << ",\n"
      << "     \"mispredictions_per_min\": " << f.mispredictions_per_min
      << ", \"rollbacks_per_min\": " << f.rollbacks_per_min << ",\n     \"mispredictions_by_cause_per_min\": {";
  for (std::size_t c = 0; c < kCorrectionCauses; ++c) {
    out << (c == 0 ? "" : ", ") << '"' << cause_name(c) << "\": " << f.by_cause_per_min[c];
  }
  out << "},\n     \"corrections_drawn\": " << f.corrections_drawn << ", \"correction_m_p50\": " << f.correction_p50
      << ", \"correction_m_p99\": " << f.correction_p99 << ",\n     \"visual_pops\": " << f.visual_pops
      << ", \"frames_drawn\": " << f.frames_drawn << ", \"visual_pops_per_min\": " << f.visual_pops_per_min << ",\n"
      << "     \"harness_pops\": " << f.harness_pops << ", \"harness_ball_pops\": " << f.harness_ball_pops
      << ", \"harness_pops_after_switch\": " << f.harness_pops_after_switch
      << ", \"harness_pops_predicted\": " << f.harness_pops_predicted
      << ", \"harness_pops_interpolated\": " << f.harness_pops_interpolated
      << ", \"harness_pops_per_min\": " << f.harness_pops_per_min
      << ", \"largest_drawn_excess_m\": " << f.largest_excess_m << ",\n"
      << "     \"client_update_us_p50\": " << f.update_p50_us << ", \"client_update_us_p99\": " << f.update_p99_us
      << ",\n     \"client_update_thread_cpu_us_p50\": " << f.update_cpu_p50_us
      << ", \"client_update_thread_cpu_us_p99\": " << f.update_cpu_p99_us << ", \"frames_timed\": " << f.frames_timed
      << ", \"hard_resets\": " << f.hard_resets << ", \"goals\": " << f.goals << "}";
}

}  // namespace

std::string describe_host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string model = "unknown CPU";
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
    break;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = 0;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) cpus = CPU_COUNT(&set);
  std::ostringstream out;
  out << model << ", " << cpus << " CPUs available";
  return out.str();
}

void print_preamble(const RunSettings& s) {
  std::printf(
      "bench_prediction: simulated network (deterministic), seed %llu (--seed or TICKWIRE_SEED to repeat)\n"
      "pitch match on the real server and clients: %u clients all chasing the ball, %u Hz ticks, %u Hz snapshots, "
      "%u frames per second simulated;\n%.0f s measured per run after %.0f s of warm-up\n"
      "client CPU: wall time of Client::update per frame, measured, this host (%s)\n",
      static_cast<unsigned long long>(s.seed), s.clients, kTickRate, kSendRate, kFrameRate, s.seconds, s.warmup_seconds,
      s.cpu.c_str());
  for (const Variant& v : s.variants) std::printf("  %-10s %s\n", v.name.c_str(), v.description.c_str());
}

void print_header() {
  std::printf("\n%-10s %-10s %5s %8s %8s | %7s %7s %7s %7s %7s | %6s %6s %7s | %7s %6s | %7s %7s %5s\n", "profile",
              "variant", "conn", "mispr/m", "rollb/m", "own", "remote", "unowned", "spawn", "server", "c_p50", "c_p99",
              "pops/m", "hpops/m", "step_m", "cpu_p50", "cpu_p99", "goals");
}

void print_row(const MatchFigures& f) {
  std::printf(
      "%-10s %-10s %2u/%-2u %8.1f %8.1f | %7.1f %7.1f %7.1f %7.1f %7.1f | %6.3f %6.3f %7.2f | %7.2f %6.2f | %7.1f "
      "%7.1f "
      "%5d\n",
      f.profile.c_str(), f.variant.c_str(), f.connected, f.clients, f.mispredictions_per_min, f.rollbacks_per_min,
      f.by_cause_per_min[0], f.by_cause_per_min[1], f.by_cause_per_min[2], f.by_cause_per_min[3], f.by_cause_per_min[4],
      f.correction_p50, f.correction_p99, f.visual_pops_per_min, f.harness_pops_per_min, f.largest_excess_m,
      f.update_p50_us, f.update_p99_us, f.goals);
  (void)std::fflush(stdout);
}

void print_legend() {
  std::printf(
      "\nmispr/m, rollb/m: snapshots that corrected the prediction, replays run; per client per minute\n"
      "own..server: corrected entities by cause (own_input, remote_player, unowned, spawn, server_event), per client "
      "per minute\n"
      "c_p50, c_p99: correction size as drawn, metres (the median client's p50, the worst client's p99)\n"
      "pops/m: visual pops per minute of frames drawn (ClientStats); hpops/m: the benchmark's own count from the "
      "drawn\n"
      "views (a player or the ball moved over visual_pop_distance beyond its velocity in a frame, teleports "
      "excepted);\n"
      "step_m: the largest such excess any client drew, metres\n"
      "cpu_p50/p99: microseconds per Client::update, measured, this host\n");
}

bool write_json(const std::string& path, const RunSettings& s, const std::vector<MatchFigures>& runs) {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\n  \"benchmark\": \"bench_prediction\",\n  \"network\": \"simulated, deterministic per seed\",\n"
      << "  \"seed\": " << s.seed << ", \"clients\": " << s.clients << ", \"seconds\": " << s.seconds
      << ", \"warmup_seconds\": " << s.warmup_seconds << ",\n  \"tick_rate\": " << kTickRate
      << ", \"send_rate\": " << kSendRate << ", \"frame_rate\": " << kFrameRate << ",\n  \"cpu\": \"" << escaped(s.cpu)
      << "\", \"cpu_note\": \"client_update_us (wall) and client_update_thread_cpu_us: measured, this host\",\n  "
         "\"variants\": [\n";
  for (std::size_t i = 0; i < s.variants.size(); ++i) {
    const Variant& v = s.variants[i];
    out << "    {\"name\": \"" << escaped(v.name)
        << "\", \"prediction_switch_blend_ms\": " << v.switch_blend.micros() / 1000
        << ", \"predict_remote_players\": " << (v.predict_remote_players ? "true" : "false")
        << ", \"smoothing\": " << (v.smoothing ? "true" : "false") << "}" << (i + 1 < s.variants.size() ? "," : "")
        << "\n";
  }
  out << "  ],\n  \"runs\": [\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    write_run(out, runs[i]);
    out << (i + 1 < runs.size() ? ",\n" : "\n");
  }
  out << "  ]\n}\n";
  return static_cast<bool>(out);
}

}  // namespace tickwire::bench
