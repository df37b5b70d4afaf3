#include "report.h"

#include <cstdio>
#include <fstream>

namespace tickwire::bench {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    out.push_back(ch);
  }
  return out + "\"";
}

std::string number(double v, int digits) {
  char buffer[64];
  (void)std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string joined(const std::vector<std::string>& names, const char* separator) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : separator) + n;
  return out;
}

std::string rates(const std::vector<std::uint32_t>& send_rates) {
  std::string out;
  for (std::size_t i = 0; i < send_rates.size(); ++i) {
    if (i > 0) out += i + 1 == send_rates.size() ? " and " : ", ";
    out += std::to_string(send_rates[i]);
  }
  return out;
}

}  // namespace

bool dominates(const RunResult& a, const RunResult& b) {
  const double more_on_time = 100.0 * (a.on_time_rate - b.on_time_rate);
  const double less_lead = b.mean_excess_lead_ms - a.mean_excess_lead_ms;
  return more_on_time >= kDominanceOnTimePoints && less_lead >= kDominanceExcessLeadMs;
}

void judge(std::vector<RunResult>& group) {
  for (RunResult& ours : group) {
    if (ours.provider != to_string(ProviderKind::kAdaptive)) continue;
    std::vector<std::string> by;
    for (const RunResult& other : group) {
      if (&other == &ours || other.provider == ours.provider) continue;
      if (dominates(other, ours)) by.push_back(other.provider);
    }
    ours.dominated_by = by;
  }
}

void print_table_header() {
  std::printf("%-14s %-15s %4s %8s %8s %8s %8s %8s %8s %6s %8s %8s %7s  %s\n", "provider", "profile", "Hz", "on_time%",
              "reach%", "exc_mean", "exc_p99", "interp50", "starved%", "resets", "signs/m", "offs_p99", "wall_s",
              "dominated_by");
}

void print_row(const RunResult& r) {
  const std::string verdict = !r.dominated_by ? "" : (r.dominated_by->empty() ? "-" : joined(*r.dominated_by, ","));
  std::printf("%-14s %-15s %4u %8.3f %8.3f %8.2f %8.2f %8.2f %8.3f %6llu %8.2f %8.2f %7.1f  %s\n", r.provider.c_str(),
              r.profile.c_str(), r.send_hz, 100.0 * r.on_time_rate, 100.0 * r.reachable_rate, r.mean_excess_lead_ms,
              r.p99_excess_lead_ms, r.interp_delay_ms_p50, 100.0 * r.starved_frame_rate,
              static_cast<unsigned long long>(r.hard_resets), r.scale_sign_changes_per_min, r.offset_error_ms_p99,
              r.wall_seconds, verdict.c_str());
  (void)std::fflush(stdout);
}

std::string describe(const RunConditions& c) {
  char buffer[512];
  (void)std::snprintf(buffer, sizeof buffer,
                      "%.3g simulated minutes per run, %u clients, ticks at %u Hz, snapshots at %s Hz%s, frames at "
                      "%.0f Hz, input redundancy %s, base seed %llu",
                      c.minutes, c.clients, c.tick_rate, rates(c.send_rates).c_str(),
                      c.send_rates.size() > 1 ? " (each profile at each rate)" : "", c.frame_rate, c.redundancy.c_str(),
                      static_cast<unsigned long long>(c.seed));
  return buffer;
}

bool write_json(const std::string& path, const std::vector<RunResult>& results, const RunConditions& c) {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\"minutes\":" << number(c.minutes, 3) << ",\"clients\":" << c.clients << ",\"seed\":" << c.seed
      << ",\"tick_hz\":" << c.tick_rate << ",\"send_hz\":[";
  for (std::size_t i = 0; i < c.send_rates.size(); ++i) out << (i == 0 ? "" : ",") << c.send_rates[i];
  out << "],\"frame_hz\":" << number(c.frame_rate, 1) << ",\"redundancy\":" << json_string(c.redundancy)
      << ",\"dominance\":{\"on_time_points\":" << number(kDominanceOnTimePoints, 3)
      << ",\"excess_lead_ms\":" << number(kDominanceExcessLeadMs, 3) << "},\"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& r = results[i];
    out << (i == 0 ? "\n" : ",\n") << "{\"provider\":" << json_string(r.provider)
        << ",\"profile\":" << json_string(r.profile) << ",\"send_hz\":" << r.send_hz
        << ",\"on_time_rate\":" << number(r.on_time_rate, 6) << ",\"reachable_rate\":" << number(r.reachable_rate, 6)
        << ",\"mean_excess_lead_ms\":" << number(r.mean_excess_lead_ms, 3)
        << ",\"p99_excess_lead_ms\":" << number(r.p99_excess_lead_ms, 3)
        << ",\"interp_delay_ms_p50\":" << number(r.interp_delay_ms_p50, 3)
        << ",\"starved_frame_rate\":" << number(r.starved_frame_rate, 6) << ",\"hard_resets\":" << r.hard_resets
        << ",\"scale_sign_changes_per_min\":" << number(r.scale_sign_changes_per_min, 3)
        << ",\"offset_error_ms_p99\":" << number(r.offset_error_ms_p99, 3) << ",\"inputs\":" << r.inputs
        << ",\"on_time_inputs\":" << r.on_time << ",\"hard_resets_total\":" << r.hard_resets_total
        << ",\"predicted_sign_changes_per_min\":" << number(r.predicted_sign_changes_per_min, 3)
        << ",\"interpolation_sign_changes_per_min\":" << number(r.interpolation_sign_changes_per_min, 3)
        << ",\"offset_error_ms_mean\":" << number(r.offset_error_ms_mean, 3)
        << ",\"late_burst_seconds\":" << r.late_burst_seconds << ",\"input_seconds\":" << r.input_seconds
        << ",\"wall_seconds\":" << number(r.wall_seconds, 2);
    if (r.dominated_by) {
      out << ",\"dominated_by\":[";
      for (std::size_t k = 0; k < r.dominated_by->size(); ++k) {
        out << (k == 0 ? "" : ",") << json_string((*r.dominated_by)[k]);
      }
      out << "]";
    }
    out << "}";
  }
  out << "\n]}\n";
  return static_cast<bool>(out);
}

}  // namespace tickwire::bench
