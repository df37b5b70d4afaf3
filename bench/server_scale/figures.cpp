#include "figures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace tickwire::bench {

std::optional<double> json_number(std::string_view text, std::string_view key, std::size_t from) {
  const std::string quoted = "\"" + std::string(key) + "\":";
  const auto at = text.find(quoted, from);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string rest(text.substr(at + quoted.size(), 40));
  char* end = nullptr;
  const double v = std::strtod(rest.c_str(), &end);
  if (end == rest.c_str()) return std::nullopt;
  return v;
}

std::optional<StatsLine> parse_stats_line(std::string_view line) {
  StatsLine s;
  struct Field {
    const char* key;
    double* field;
  };
  const Field required[] = {{"t", &s.t},
                            {"tick", &s.tick},
                            {"clients", &s.clients},
                            {"tick_us_p50", &s.tick_us_p50},
                            {"tick_us_p99", &s.tick_us_p99},
                            {"tick_us_max", &s.tick_us_max},
                            {"ticks_overrun", &s.ticks_overrun},
                            {"ticks_skipped", &s.ticks_skipped},
                            {"packets_in", &s.packets_in},
                            {"kbps_in", &s.kbps_in},
                            {"kbps_out", &s.kbps_out},
                            {"late_inputs", &s.late_inputs},
                            {"missing_inputs", &s.missing_inputs},
                            {"disconnects", &s.disconnects}};
  for (const Field& f : required) {
    const auto v = json_number(line, f.key);
    if (!v) return std::nullopt;
    *f.field = *v;
  }
  // Absent from servers that do not report them: 0 then.
  const Field optional[] = {{"wire_kbps_in", &s.wire_kbps_in},
                            {"wire_kbps_out", &s.wire_kbps_out},
                            {"receive_us", &s.receive_us},
                            {"simulate_us", &s.simulate_us},
                            {"relevancy_us", &s.relevancy_us},
                            {"encode_us", &s.encode_us},
                            {"send_us", &s.send_us},
                            {"rss_kb", &s.rss_kb},
                            {"heap_kb", &s.heap_kb},
                            {"views_held", &s.views_held},
                            {"longest_reference_span", &s.longest_reference_span}};
  for (const Field& f : optional) *f.field = json_number(line, f.key).value_or(0);
  return s;
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::uint64_t count(double v) { return v > 0 ? static_cast<std::uint64_t>(std::llround(v)) : 0; }

}  // namespace

StepFigures compute_figures(int bots, const std::vector<Sample>& window, const Sample& baseline, const Targets& targets,
                            std::optional<IdleMemory> idle) {
  StepFigures f;
  f.bots = bots;
  if (window.size() < 2) {
    f.error = "fewer than two stats lines in the measurement window";
    return f;
  }
  const Sample& last = window.back();
  const StatsLine& a = baseline.line;
  const StatsLine& b = last.line;
  std::vector<double> p50s;
  double clients_sum = 0;
  double kbps_sum = 0;
  double wire_in_sum = 0;
  double wire_out_sum = 0;
  double views_sum = 0;
  f.clients_min = b.clients;
  for (const Sample& s : window) {
    p50s.push_back(s.line.tick_us_p50);
    f.tick_ms_p99 = std::max(f.tick_ms_p99, s.line.tick_us_p99 / 1000.0);
    f.tick_ms_max = std::max(f.tick_ms_max, s.line.tick_us_max / 1000.0);
    clients_sum += s.line.clients;
    kbps_sum += s.line.kbps_in + s.line.kbps_out;
    wire_in_sum += s.line.wire_kbps_in;
    wire_out_sum += s.line.wire_kbps_out;
    views_sum += s.line.views_held;
    f.longest_reference_span = std::max(f.longest_reference_span, s.line.longest_reference_span);
    f.clients_min = std::min(f.clients_min, s.line.clients);
  }
  const auto n = static_cast<double>(window.size());
  f.tick_ms_p50 = median(p50s) / 1000.0;
  f.clients_mean = clients_sum / n;
  f.window_s = b.t - a.t;
  f.ticks = b.tick - a.tick;
  f.ticks_overrun = count(b.ticks_overrun - a.ticks_overrun);
  f.ticks_skipped = count(b.ticks_skipped - a.ticks_skipped);
  f.disconnects = count(b.disconnects - a.disconnects);
  f.server_late_inputs = count(b.late_inputs - a.late_inputs);
  const double client_ticks = f.clients_mean * f.ticks;
  if (client_ticks <= 0) {
    f.error = "no clients connected in the measurement window";
    return f;
  }
  f.late_input_rate = (b.missing_inputs - a.missing_inputs) / client_ticks;
  f.server_cpu_us_per_client_tick = (last.server_cpu_us - baseline.server_cpu_us) / client_ticks;
  f.payload_kbps_per_client = kbps_sum / n / f.clients_mean;
  // The server's "in" is the clients' upstream, its "out" their downstream.
  f.wire_kbps_in_per_client = wire_in_sum / n / f.clients_mean;
  f.wire_kbps_out_per_client = wire_out_sum / n / f.clients_mean;
  f.views_per_client = views_sum / n / f.clients_mean;
  if (f.window_s > 0) f.packets_in_per_client_s = (b.packets_in - a.packets_in) / f.clients_mean / f.window_s;
  const double wall = last.wall_s - baseline.wall_s;
  if (wall > 0) {
    f.server_core_load = (last.server_cpu_us - baseline.server_cpu_us) / 1e6 / wall;
    f.bots_core_load = (last.bots_cpu_us - baseline.bots_cpu_us) / 1e6 / wall;
  }
  // A bot samples one input a frame. The inputs that reached the server
  // (in time, or late) count the frames the bots actually ran, also when
  // their core could not run 60: not the packets, of which a lossy uplink
  // sends two a frame and a lagging bot one for several frames.
  const double frames = client_ticks - (b.missing_inputs - a.missing_inputs) + (b.late_inputs - a.late_inputs);
  if (frames > 0) f.bots_cpu_us_per_bot_frame = (last.bots_cpu_us - baseline.bots_cpu_us) / frames;
  f.receive_us_per_client_tick = (b.receive_us - a.receive_us) / client_ticks;
  f.simulate_us_per_client_tick = (b.simulate_us - a.simulate_us) / client_ticks;
  f.relevancy_us_per_client_tick = (b.relevancy_us - a.relevancy_us) / client_ticks;
  f.encode_us_per_client_tick = (b.encode_us - a.encode_us) / client_ticks;
  f.send_us_per_client_tick = (b.send_us - a.send_us) / client_ticks;
  f.rss_mb = b.rss_kb / 1024.0;
  if (idle && b.rss_kb > 0 && f.clients_mean > 0) f.rss_kb_per_client = (b.rss_kb - idle->rss_kb) / f.clients_mean;
  if (idle && idle->heap_kb > 0 && b.heap_kb > 0 && f.clients_mean > 0)
    f.heap_kb_per_client = (b.heap_kb - idle->heap_kb) / f.clients_mean;
  // Every bot must have stayed connected: figures over fewer clients than
  // asked for would flatter the step.
  f.holds = f.tick_ms_p99 <= targets.tick_ms_p99 && f.ticks_overrun == 0 && f.ticks_skipped == 0 &&
            f.disconnects == 0 && f.late_input_rate < targets.late_input_rate &&
            f.clients_min >= static_cast<double>(bots);
  return f;
}

}  // namespace tickwire::bench
