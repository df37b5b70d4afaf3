// The --stats-json file: what the session showed, for tests and for the
// frame-time figure. The net graph's newest values are the ones on screen
// in the last frame (the screenshot's, when one was taken), beside the
// client's own stats read for that sample.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app.h"

namespace tickwire::viewer {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

// A string as a JSON string's contents: quotes, backslashes and control
// characters escaped.
std::string json_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char code[8];
      (void)std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(ch));
      out += code;
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string App::stats_json(const std::string& exit_reason) const {
  const client::Client& c = *client_;
  // The client's figures as the graph read them for its newest sample.
  const client::ClientStats& s = graph_.stats_at_latest();
  std::ostringstream o;
  o.precision(6);
  o << "{\n";
  o << "  \"connected\": " << (ever_connected_ ? "true" : "false") << ",\n";
  o << "  \"state\": \"" << client::to_string(c.state()) << "\",\n";
  o << "  \"exit_reason\": \"" << exit_reason << "\",\n";
  o << "  \"client_id\": " << c.client_id().value_or(0U) << ",\n";
  o << "  \"game\": \"" << json_escape(spec_.game_name) << "\",\n";
  o << "  \"players_drawn\": " << scene_.players_drawn() << ",\n";
  o << "  \"entities_drawn\": " << scene_.entities_drawn() << ",\n";
  if (self_) o << "  \"self\": {\"x\": " << self_->x << ", \"y\": " << self_->y << "},\n";
  o << "  \"correction_flashes\": " << scene_.flashes_shown() << ",\n";
  if (spec_.extra_stats) {
    for (const auto& [key, value] : spec_.extra_stats()) o << "  \"" << json_escape(key) << "\": " << value << ",\n";
  }
  o << "  \"frames\": " << frames_ << ",\n";
  o << "  \"frame_ms_p50\": " << quantile(frame_ms_, 0.50) << ",\n";
  o << "  \"frame_ms_p99\": " << quantile(frame_ms_, 0.99) << ",\n";
  o << "  \"frame_times_measured\": " << frame_ms_.size() << ",\n";
  const char* parts[] = {"update", "build", "render", "present"};
  for (std::size_t i = 0; i < part_ms_.size(); ++i) {
    o << "  \"" << parts[i] << "_ms_p50\": " << quantile(part_ms_[i], 0.50) << ", \"" << parts[i]
      << "_ms_p99\": " << quantile(part_ms_[i], 0.99) << ",\n";
  }
  o << "  \"net_graph_shown\": " << (show_graph_ ? "true" : "false") << ",\n";
  o << "  \"screenshot\": " << (screenshot_taken_ ? "true" : "false") << ",\n";
  o << "  \"graph\": {";
  for (std::size_t i = 0; i < kSeriesCount; ++i) {
    const auto k = static_cast<Series>(i);
    o << (i == 0 ? "" : ", ") << "\"" << series_key(k) << "\": " << graph_.latest(k);
  }
  o << ", \"samples\": " << graph_.samples_taken() << "},\n";
  const NetGraph::Totals& t = graph_.totals();
  o << "  \"graph_totals\": {\"mispredictions\": " << t.mispredictions << ", \"rollbacks\": " << t.rollbacks
    << ", \"late_inputs\": " << t.late_inputs << ", \"missing_inputs\": " << t.missing_inputs
    << ", \"hard_resets\": " << t.hard_resets << ", \"snapshots\": " << t.snapshots
    << ", \"payload_bytes_in\": " << t.payload_bytes_in << ", \"wire_bytes_in\": " << t.wire_bytes_in << "},\n";
  o << "  \"client\": {\"rtt_ms\": " << s.rtt.millis_f() << ", \"jitter_ms\": " << s.jitter.millis_f()
    << ", \"loss_percent\": " << s.loss * 100.0 << ", \"lead_ms\": " << s.lead.millis_f()
    << ", \"interpolation_delay_ms\": " << s.interpolation_delay.millis_f()
    << ", \"mispredictions\": " << s.mispredictions << ", \"rollbacks\": " << s.rollbacks
    << ", \"max_rollback_depth\": " << s.max_rollback_depth << ", \"late_inputs\": " << s.late_inputs
    << ", \"missing_inputs\": " << s.missing_inputs << ", \"hard_resets\": " << s.hard_resets
    << ", \"snapshots\": " << s.snapshots << ", \"bytes_in\": " << s.bytes_in << ", \"bytes_out\": " << s.bytes_out
    << ", \"predicted_ticks\": " << s.predicted_ticks << "}";
  if (const auto wire = conditioner_->wire_stats()) {
    o << ",\n  \"wire\": {\"bytes_received\": " << wire->bytes_received << ", \"bytes_sent\": " << wire->bytes_sent
      << "}";
  }
  const transport::SimLinkStats& up = conditioner_->uplink_stats();
  const transport::SimLinkStats& down = conditioner_->downlink_stats();
  o << ",\n  \"link\": {\"preset\": \"" << link_preset_ << "\", \"up_sent\": " << up.sent
    << ", \"up_lost\": " << up.dropped_loss << ", \"down_sent\": " << down.sent
    << ", \"down_lost\": " << down.dropped_loss << "}";
  o << "\n}\n";
  return o.str();
}

void App::finish_stats(const std::string& exit_reason) {
  if (options_.stats_json.empty()) return;
  std::ofstream out(options_.stats_json, std::ios::out | std::ios::trunc);
  out << stats_json(exit_reason);
  if (!out) {
    std::cerr << program_ << ": cannot write --stats-json " << options_.stats_json << "\n";
    exit_code_ = kExitCannotStart;
  }
}

}  // namespace tickwire::viewer
