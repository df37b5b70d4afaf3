#include "family.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>

#include "providers.h"
#include "report.h"
#include "stats.h"

namespace tickwire::bench {

namespace {

constexpr double kOnTimeBar = 0.995;
constexpr std::size_t kWorstShown = 10;
const std::string& ours_name() {
  static const std::string name = to_string(ProviderKind::kAdaptive);
  return name;
}

const RunResult* find_run(const LinkOutcome& link, const std::string& provider, std::uint32_t hz) {
  for (const RunResult& r : link.runs) {
    if (r.provider == provider && r.send_hz == hz) return &r;
  }
  return nullptr;
}

bool dominated_by_any(const LinkOutcome& link, const RunResult& run, bool baselines_only) {
  for (const RunResult& other : link.runs) {
    if (other.send_hz != run.send_hz || other.provider == run.provider) continue;
    if (baselines_only && other.provider == ours_name()) continue;
    if (dominates(other, run)) return true;
  }
  return false;
}

struct Spread {
  double p10 = 0, p50 = 0, p90 = 0, worst = 0;
};

Spread spread_of(std::vector<double> v, bool higher_is_better) {
  Spread s;
  if (v.empty()) return s;
  s.p10 = percentile(v, 0.10);
  s.p50 = percentile(v, 0.50);
  s.p90 = percentile(v, 0.90);
  s.worst = higher_is_better ? *std::min_element(v.begin(), v.end()) : *std::max_element(v.begin(), v.end());
  return s;
}

struct ProviderFigures {
  std::string provider;
  std::uint32_t hz = 0;
  std::size_t links = 0;
  Spread on_time, excess, bursts, cost;
  double share_on_time_bar = 0;  // links with >= 99.5% on time
  double share_dominated = 0;    // links where another provider dominates
};

ProviderFigures figures_of(const std::vector<LinkOutcome>& links, const std::string& provider, std::uint32_t hz,
                           const CostPrices& prices) {
  ProviderFigures f{provider, hz, 0, {}, {}, {}, {}, 0, 0};
  std::vector<double> on_time, excess, bursts, cost;
  std::size_t at_bar = 0, dominated = 0;
  for (const LinkOutcome& link : links) {
    const RunResult* r = find_run(link, provider, hz);
    if (r == nullptr) continue;
    ++f.links;
    on_time.push_back(100.0 * r->on_time_rate);
    excess.push_back(r->mean_excess_lead_ms);
    bursts.push_back(late_burst_per_minute(*r));
    cost.push_back(player_cost_ms(*r, prices));
    if (r->on_time_rate >= kOnTimeBar) ++at_bar;
    if (dominated_by_any(link, *r, false)) ++dominated;
  }
  f.on_time = spread_of(on_time, true);
  f.excess = spread_of(excess, false);
  f.bursts = spread_of(bursts, false);
  f.cost = spread_of(cost, false);
  f.share_on_time_bar = ratio(at_bar, f.links);
  f.share_dominated = ratio(dominated, f.links);
  return f;
}

// Issue targets for ours at one rate: not dominated by any baseline; on
// time >= 99.5% where any provider reaches it; its excess lead against the
// leanest provider that reaches it.
struct Targets {
  std::size_t links = 0;
  double not_dominated = 0;
  std::size_t reachable = 0;  // links where some provider reaches 99.5%
  double at_bar_where_reachable = 0;
  double median_excess_gap_ms = 0;
};

Targets targets_of(const std::vector<LinkOutcome>& links, std::uint32_t hz) {
  Targets t;
  std::size_t clean = 0, at_bar = 0;
  std::vector<double> gaps;
  for (const LinkOutcome& link : links) {
    const RunResult* ours = find_run(link, ours_name(), hz);
    if (ours == nullptr) continue;
    ++t.links;
    if (!dominated_by_any(link, *ours, true)) ++clean;
    double best = std::numeric_limits<double>::infinity();
    for (const RunResult& r : link.runs) {
      if (r.send_hz == hz && r.on_time_rate >= kOnTimeBar) best = std::min(best, r.mean_excess_lead_ms);
    }
    if (best == std::numeric_limits<double>::infinity()) continue;
    ++t.reachable;
    if (ours->on_time_rate >= kOnTimeBar) ++at_bar;
    gaps.push_back(ours->mean_excess_lead_ms - best);
  }
  t.not_dominated = ratio(clean, t.links);
  t.at_bar_where_reachable = ratio(at_bar, t.reachable);
  t.median_excess_gap_ms = percentile(gaps, 0.5);
  return t;
}

// How much more ours costs than the cheapest provider on the link, at the
// rate where the gap is widest.
struct Regret {
  const LinkOutcome* link = nullptr;
  double worst_ms = 0;
};

double regret_at(const LinkOutcome& link, std::uint32_t hz, const CostPrices& prices, const RunResult** best) {
  const RunResult* ours = find_run(link, ours_name(), hz);
  if (ours == nullptr) return 0;
  *best = ours;
  for (const RunResult& r : link.runs) {
    if (r.send_hz == hz && player_cost_ms(r, prices) < player_cost_ms(**best, prices)) *best = &r;
  }
  return player_cost_ms(*ours, prices) - player_cost_ms(**best, prices);
}

std::vector<Regret> worst_links(const std::vector<LinkOutcome>& links, const FamilyConditions& c) {
  std::vector<Regret> out;
  for (const LinkOutcome& link : links) {
    Regret r{&link, -std::numeric_limits<double>::infinity()};
    for (const std::uint32_t hz : c.send_rates) {
      const RunResult* best = nullptr;
      r.worst_ms = std::max(r.worst_ms, regret_at(link, hz, c.prices, &best));
    }
    out.push_back(r);
  }
  // Ties (and equal regrets) keep the links' order: the list is the same every run.
  std::stable_sort(out.begin(), out.end(), [](const Regret& a, const Regret& b) { return a.worst_ms > b.worst_ms; });
  if (out.size() > kWorstShown) out.resize(kWorstShown);
  return out;
}

bool ours_ran(const FamilyConditions& c) {
  return std::find(c.providers.begin(), c.providers.end(), ours_name()) != c.providers.end();
}

void print_spread(const Spread& s, const char* format) {
  for (const double v : {s.p10, s.p50, s.p90, s.worst}) std::printf(format, v);
  std::printf(" |");
}

std::string json_number(double v) {
  char buffer[64];
  (void)std::snprintf(buffer, sizeof buffer, "%.4f", v);
  return buffer;
}

std::string json_text(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(ch) >= 0x20) out.push_back(ch);
  }
  return out + "\"";
}

void json_spread(std::ostream& out, const char* name, const Spread& s) {
  out << ",\"" << name << "\":{\"p10\":" << json_number(s.p10) << ",\"p50\":" << json_number(s.p50)
      << ",\"p90\":" << json_number(s.p90) << ",\"worst\":" << json_number(s.worst) << "}";
}

}  // namespace

double player_cost_ms(const RunResult& r, const CostPrices& prices) {
  return r.mean_excess_lead_ms + prices.late_input_ms * (1.0 - r.on_time_rate) +
         prices.late_burst_second_ms * ratio(r.late_burst_seconds, r.input_seconds);
}

double late_burst_per_minute(const RunResult& r) { return 60.0 * ratio(r.late_burst_seconds, r.input_seconds); }

void print_family(const std::vector<LinkOutcome>& links, const FamilyConditions& c) {
  std::printf(
      "\nrandom links %s (simulated, deterministic): %zu links x %.0f simulated s, %u clients; percentiles across "
      "links (p10 p50 p90 worst)\n"
      "cost = excess lead + %.0f ms x late share + %.0f ms x late-burst-second share; lb/min = late-burst seconds "
      "per client-minute\n",
      c.which.c_str(), links.size(), c.seconds_per_link, c.clients, c.prices.late_input_ms,
      c.prices.late_burst_second_ms);
  std::printf("%-14s %3s | %-31s | %-27s | %-27s | %-27s | %7s %6s\n", "provider", "Hz", "on_time%", "excess_lead_ms",
              "late_burst/min", "cost_ms", ">=99.5%", "domin%");
  for (const std::uint32_t hz : c.send_rates) {
    for (const std::string& provider : c.providers) {
      const ProviderFigures f = figures_of(links, provider, hz, c.prices);
      std::printf("%-14s %3u |", provider.c_str(), hz);
      print_spread(f.on_time, " %7.3f");
      print_spread(f.excess, " %6.1f");
      print_spread(f.bursts, " %6.2f");
      print_spread(f.cost, " %6.1f");
      std::printf(" %6.1f%% %5.1f%%\n", 100 * f.share_on_time_bar, 100 * f.share_dominated);
    }
  }
  if (!ours_ran(c)) return;
  for (const std::uint32_t hz : c.send_rates) {
    const Targets t = targets_of(links, hz);
    std::printf(
        "%s at %u Hz: dominated by no baseline on %.1f%% of %zu links; >= 99.5%% on time on %.1f%% of the %zu links "
        "where any provider reaches it; median excess lead %+.1f ms over the leanest provider reaching it there\n",
        ours_name().c_str(), hz, 100 * t.not_dominated, t.links, 100 * t.at_bar_where_reachable, t.reachable,
        t.median_excess_gap_ms);
  }
  std::printf("\nworst links for %s (largest cost over the cheapest provider, at either rate):\n", ours_name().c_str());
  for (const Regret& w : worst_links(links, c)) {
    std::printf("  %-10s seed %llu  +%.1f ms |", w.link->id.name().c_str(),
                static_cast<unsigned long long>(w.link->id.link_seed()), w.worst_ms);
    for (const std::uint32_t hz : c.send_rates) {
      const RunResult* best = nullptr;
      (void)regret_at(*w.link, hz, c.prices, &best);
      const RunResult* ours = find_run(*w.link, ours_name(), hz);
      if (ours == nullptr || best == nullptr) continue;
      std::printf(" %uHz %.2f%% %.1f ms cost %.1f (best %s %.1f) |", hz, 100 * ours->on_time_rate,
                  ours->mean_excess_lead_ms, player_cost_ms(*ours, c.prices), best->provider.c_str(),
                  player_cost_ms(*best, c.prices));
    }
    std::printf("\n      %s\n", w.link->description.c_str());
  }
}

bool write_family_json(const std::string& path, const std::vector<LinkOutcome>& links, const FamilyConditions& c) {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\"random_links\":{\"which\":" << json_text(c.which) << ",\"links\":" << links.size()
      << ",\"seconds_per_link\":" << json_number(c.seconds_per_link) << ",\"clients\":" << c.clients
      << ",\"simulated\":true,\"deterministic\":true},\"prices\":{\"late_input_ms\":"
      << json_number(c.prices.late_input_ms)
      << ",\"late_burst_second_ms\":" << json_number(c.prices.late_burst_second_ms) << "},\"distributions\":[";
  const char* sep = "\n";
  for (const std::uint32_t hz : c.send_rates) {
    for (const std::string& provider : c.providers) {
      const ProviderFigures f = figures_of(links, provider, hz, c.prices);
      out << sep << "{\"provider\":" << json_text(provider) << ",\"send_hz\":" << hz << ",\"links\":" << f.links;
      json_spread(out, "on_time_percent", f.on_time);
      json_spread(out, "mean_excess_lead_ms", f.excess);
      json_spread(out, "late_burst_seconds_per_client_minute", f.bursts);
      json_spread(out, "cost_ms", f.cost);
      out << ",\"share_on_time_995\":" << json_number(f.share_on_time_bar)
          << ",\"share_dominated\":" << json_number(f.share_dominated) << "}";
      sep = ",\n";
    }
  }
  out << "],\"targets\":[";
  sep = "";
  for (const std::uint32_t hz : ours_ran(c) ? c.send_rates : std::vector<std::uint32_t>{}) {
    const Targets t = targets_of(links, hz);
    out << sep << "{\"send_hz\":" << hz << ",\"not_dominated_share\":" << json_number(t.not_dominated)
        << ",\"reachable_links\":" << t.reachable
        << ",\"on_time_995_share_where_reachable\":" << json_number(t.at_bar_where_reachable)
        << ",\"median_excess_gap_ms\":" << json_number(t.median_excess_gap_ms) << "}";
    sep = ",";
  }
  out << "],\"worst\":[";
  sep = "";
  for (const Regret& w : ours_ran(c) ? worst_links(links, c) : std::vector<Regret>{}) {
    out << sep << "{\"link\":" << json_text(w.link->id.name()) << ",\"regret_ms\":" << json_number(w.worst_ms) << "}";
    sep = ",";
  }
  out << "],\"links\":[";
  sep = "\n";
  for (const LinkOutcome& link : links) {
    out << sep << "{\"link\":" << json_text(link.id.name()) << ",\"link_seed\":" << link.id.link_seed()
        << ",\"description\":" << json_text(link.description) << ",\"runs\":[";
    const char* run_sep = "";
    for (const RunResult& r : link.runs) {
      out << run_sep << "{\"provider\":" << json_text(r.provider) << ",\"send_hz\":" << r.send_hz
          << ",\"on_time_rate\":" << json_number(r.on_time_rate)
          << ",\"reachable_rate\":" << json_number(r.reachable_rate)
          << ",\"mean_excess_lead_ms\":" << json_number(r.mean_excess_lead_ms)
          << ",\"p99_excess_lead_ms\":" << json_number(r.p99_excess_lead_ms)
          << ",\"late_burst_seconds\":" << r.late_burst_seconds << ",\"input_seconds\":" << r.input_seconds
          << ",\"cost_ms\":" << json_number(player_cost_ms(r, c.prices)) << ",\"hard_resets\":" << r.hard_resets
          << ",\"dominated\":" << (dominated_by_any(link, r, false) ? "true" : "false") << "}";
      run_sep = ",";
    }
    out << "]}";
    sep = ",\n";
  }
  out << "\n]}\n";
  return static_cast<bool>(out);
}

}  // namespace tickwire::bench
