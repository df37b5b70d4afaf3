#include "evil_scripts.h"

#include <algorithm>
#include <charconv>

#include "tickwire/core/logging.h"

namespace tickwire::bots {

const std::vector<EvilScriptInfo>& evil_scripts() {
  static const std::vector<EvilScriptInfo> all = {
      {"garbage", EvilKind::kGarbage,
       "after the handshake, random datagrams of every length 0..1300 and truncated input packets", "protocol error"},
      {"flood", EvilKind::kFlood, "valid input packets at 100 times the normal rate", "flooding"},
      {"future", EvilKind::kFuture, "inputs claiming ticks 1000 and more ahead of the server (a speed hack)",
       "protocol error"},
      {"nan", EvilKind::kNan, "inputs whose codes lie outside their fields' ranges (NaN, infinities)",
       "protocol error"},
      {"stall", EvilKind::kStall, "opens the connection and never says hello", "handshake timed out"},
      {"mute", EvilKind::kMute, "joins, then neither reads nor sends for --timeout + 2 s", "timed out"},
      {"spoof-disconnect", EvilKind::kSpoofDisconnect,
       "from an honest bot's address (raw socket): ENet DISCONNECTs to every peer slot and session, then sealed "
       "guesses",
       kNoHarmSeen},
      {"spoof-keepalive", EvilKind::kSpoofKeepAlive,
       "from an honest bot's address (raw socket): keep-alives numbered far ahead, in the old framing and sealed",
       kNoHarmSeen},
      {"forge-input", EvilKind::kForgeInput,
       "from an honest bot's address (raw socket): inputs for far-future ticks, in the old framing and sealed",
       kNoHarmSeen},
      {"replay", EvilKind::kReplay,
       "an honest bot's datagrams captured on the path, replayed and rewritten from its address (raw sockets)",
       kNoHarmSeen},
  };
  return all;
}

bool attacks_a_session(EvilKind kind) {
  return kind == EvilKind::kSpoofDisconnect || kind == EvilKind::kSpoofKeepAlive || kind == EvilKind::kForgeInput ||
         kind == EvilKind::kReplay;
}

const EvilScriptInfo* find_evil_script(std::string_view name) {
  for (const EvilScriptInfo& info : evil_scripts()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::variant<std::vector<std::pair<std::string, int>>, std::string> parse_evil_mix(std::string_view text) {
  std::vector<std::pair<std::string, int>> mix;
  if (text.empty()) return std::string("expected NAME:COUNT[,NAME:COUNT...]");
  for (bool more = true; more;) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    more = comma != std::string_view::npos;
    text = more ? text.substr(comma + 1) : std::string_view{};
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) return "'" + std::string(item) + "' is not NAME:COUNT";
    const std::string name(item.substr(0, colon));
    if (!find_evil_script(name)) return "unknown evil script '" + name + "'";
    const std::string_view digits = item.substr(colon + 1);
    int count = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
    if (error != std::errc{} || end != digits.data() + digits.size() || count < 1 || count > 4096) {
      return "count of '" + name + "' must be a whole number in 1..4096";
    }
    mix.emplace_back(name, count);
  }
  return mix;
}

std::vector<EvilScriptOutcome> tally_evil(std::span<const EvilEnd> ends) {
  std::vector<EvilScriptOutcome> out;
  for (const EvilScriptInfo& info : evil_scripts()) {
    EvilScriptOutcome o;
    o.script = info.name;
    o.expected_reason = info.expected_reason;
    for (const EvilEnd& end : ends) {
      if (end.script != info.name) continue;
      ++o.bots;
      if (!end.reason) {
        ++o.still_connected;
        continue;
      }
      ++o.ended[*end.reason];
      if (*end.reason != info.expected_reason) ++o.unexpected;
    }
    if (o.bots > 0) out.push_back(std::move(o));
  }
  return out;
}

std::string evil_summary_text(const std::vector<EvilScriptOutcome>& outcomes) {
  if (outcomes.empty()) return {};
  std::string out = "evil bots (not counted above; each should end with the reason in brackets)\n";
  for (const EvilScriptOutcome& o : outcomes) {
    std::string line = "  " + o.script;
    line.resize(std::max<std::size_t>(line.size() + 1, 12), ' ');  // a space after a long name too
    line += std::to_string(o.bots) + " bots [" + o.expected_reason + "]:";
    for (const auto& [reason, count] : o.ended) line += " " + reason + " " + std::to_string(count) + ",";
    line += " still connected " + std::to_string(o.still_connected);
    if (o.unexpected > 0) line += ", unexpected reason " + std::to_string(o.unexpected);
    out += line + "\n";
  }
  return out;
}

std::string evil_json(const std::vector<EvilScriptOutcome>& outcomes) {
  std::string out = "[";
  for (const EvilScriptOutcome& o : outcomes) {
    if (out.size() > 1) out += ",";
    out += "{\"script\":\"" + json_escape(o.script) + "\",\"expected_reason\":\"" + json_escape(o.expected_reason) +
           "\",\"bots\":" + std::to_string(o.bots) + ",\"ended_by_reason\":{";
    bool first = true;
    for (const auto& [reason, count] : o.ended) {
      out += (first ? "\"" : ",\"") + json_escape(reason) + "\":" + std::to_string(count);
      first = false;
    }
    out += "},\"still_connected\":" + std::to_string(o.still_connected) +
           ",\"unexpected_reason\":" + std::to_string(o.unexpected) + "}";
  }
  return out + "]";
}

ThresholdCheck evil_check(const std::vector<EvilScriptOutcome>& outcomes) {
  std::size_t still = 0;
  for (const EvilScriptOutcome& o : outcomes) still += o.still_connected;
  const double figure = static_cast<double>(still);
  return ThresholdCheck{"--evil-must-fail (evil bots still connected)", "<=", figure, 0.0, still == 0, {}};
}

}  // namespace tickwire::bots
