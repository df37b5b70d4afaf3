#include "summary.h"

#include <cmath>
#include <sstream>

#include "report_text.h"

namespace tickwire::spoof {
namespace {

using tools::format;
using tools::json_number;
using tools::ull;

double ratio(std::uint64_t numerator, std::uint64_t denominator) {
  return denominator == 0 ? 0.0 : static_cast<double>(numerator) / static_cast<double>(denominator);
}

std::string counter_json(const Counter& c) {
  return "{\"packets\":" + std::to_string(c.packets) + ",\"bytes\":" + std::to_string(c.bytes) + "}";
}

std::string mix_text(const AttackConfig& config, bool quote) {
  std::string out;
  for (std::size_t i = 0; i < config.mix.size(); ++i) {
    if (i > 0) out += ",";
    out += quote ? "\"" + std::string(to_string(config.mix[i])) + "\"" : to_string(config.mix[i]);
  }
  return out;
}

}  // namespace

Summary summarize(const AttackResult& result) {
  Summary s;
  for (const Counter& kind : result.sent_by_kind) {
    s.sent.packets += kind.packets;
    s.sent.bytes += kind.bytes;
  }
  for (const SourceCounters& source : result.sources) {
    s.received.packets += source.received.packets;
    s.received.bytes += source.received.bytes;
    if (source.received.packets > 0) ++s.sources_answered;
    if (source.sent.bytes == 0) continue;
    const double r = ratio(source.received.bytes, source.sent.bytes);
    if (r > s.max_source_ratio) {
      s.max_source_ratio = r;
      s.max_ratio_source = source.endpoint;
    }
  }
  s.overall_ratio = ratio(s.received.bytes, s.sent.bytes);
  const double sending_s = std::chrono::duration<double>(result.sending_time).count();
  s.achieved_rate = sending_s > 0.0 ? static_cast<double>(s.sent.packets) / sending_s : 0.0;
  return s;
}

std::string start_text(const AttackConfig& config) {
  return format("tickwire-spoof: %.0f attempts/s to %s for %.3g s from %zu sources starting at %s, mix %s, seed %llu\n",
                config.rate, config.target.to_string().c_str(), config.duration_s, config.sources,
                Ipv4Endpoint{config.first_source, 0}.host().c_str(), mix_text(config, false).c_str(), ull(config.seed));
}

std::string summary_text(const AttackConfig& config, const AttackResult& result, const Summary& summary) {
  const double sending_s = std::chrono::duration<double>(result.sending_time).count();
  std::string out;
  out += format("tickwire-spoof summary%s: %llu attempts to %s from %zu sources in %.3f s\n",
                result.stopped_early ? " (stopped early)" : "", ull(result.attempts), config.target.to_string().c_str(),
                config.sources, sending_s);
  out += format("  rate %.0f/s requested, %.1f/s achieved; CPU %.2f s user + %.2f s sys\n", config.rate,
                summary.achieved_rate, result.cpu_user_s, result.cpu_system_s);
  out += format("  %-10s %12s %14s\n", "sent", "packets", "bytes");
  for (Kind kind : kAllKinds) {
    const Counter& c = result.sent_by_kind[index_of(kind)];
    out += format("  %-10s %12llu %14llu\n", to_string(kind), ull(c.packets), ull(c.bytes));
  }
  out += format("  %-10s %12llu %14llu   (%llu send errors)\n", "total", ull(summary.sent.packets),
                ull(summary.sent.bytes), ull(result.send_errors));
  out += format("  received back: %llu packets, %llu bytes, by %zu of %zu sources\n", ull(summary.received.packets),
                ull(summary.received.bytes), summary.sources_answered, result.sources.size());
  const std::string where = summary.max_ratio_source ? " at " + summary.max_ratio_source->to_string() : "";
  out += format("  largest per-source ratio received/sent: %.4f%s\n", summary.max_source_ratio, where.c_str());
  out += format("  overall ratio received/sent: %.4f\n", summary.overall_ratio);
  return out;
}

std::string summary_json(const AttackConfig& config, const AttackResult& result, const Summary& summary) {
  std::ostringstream out;
  out << "{\"target\":\"" << config.target.to_string() << "\",\"seed\":" << config.seed
      << ",\"rate_requested\":" << json_number(config.rate)
      << ",\"rate_achieved\":" << json_number(summary.achieved_rate) << ",\"sources\":" << config.sources
      << ",\"duration_s\":" << json_number(config.duration_s)
      << ",\"sending_s\":" << json_number(std::chrono::duration<double>(result.sending_time).count()) << ",\"mix\":["
      << mix_text(config, true) << "],\"stopped_early\":" << (result.stopped_early ? "true" : "false")
      << ",\"cpu_user_s\":" << json_number(result.cpu_user_s) << ",\"cpu_sys_s\":" << json_number(result.cpu_system_s)
      << ",\"attempts\":" << result.attempts << ",\"send_errors\":" << result.send_errors << ",\"sent\":{";
  for (Kind kind : kAllKinds)
    out << "\"" << to_string(kind) << "\":" << counter_json(result.sent_by_kind[index_of(kind)]) << ",";
  out << "\"total\":" << counter_json(summary.sent) << "},\"received\":" << counter_json(summary.received)
      << ",\"sources_answered\":" << summary.sources_answered
      << ",\"max_source_ratio\":" << json_number(summary.max_source_ratio) << ",\"max_ratio_source\":";
  if (summary.max_ratio_source) {
    out << "\"" << summary.max_ratio_source->to_string() << "\"";
  } else {
    out << "null";
  }
  out << ",\"overall_ratio\":" << json_number(summary.overall_ratio) << "}\n";
  return out.str();
}

}  // namespace tickwire::spoof
