#pragma once
// The hostile clients tickwire-bots can mix into a run (--script NAME or
// --evil NAME:COUNT,...), and how their runs ended. An evil bot does not
// play: it speaks the wire protocol by hand (evil_packets.h) to break one
// rule, and passes when the server turns it away or disconnects it. Its
// figures are kept apart from the honest bots' thresholds.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "thresholds.h"

namespace tickwire::bots {

enum class EvilKind : std::uint8_t {
  kGarbage,
  kFlood,
  kFuture,
  kNan,
  kStall,
  kMute,
  // Attacks on an honest bot's session (evil_session.cpp): these never
  // connect; they send from the victim's address with a raw socket.
  kSpoofDisconnect,
  kSpoofKeepAlive,
  kForgeInput,
  kReplay,
};

// Whether the kind attacks another bot's session rather than playing.
bool attacks_a_session(EvilKind kind);

// The end of a session attacker that did no harm it could see.
inline constexpr const char* kNoHarmSeen = "no harm seen";

struct EvilScriptInfo {
  std::string name;
  EvilKind kind;
  std::string description;
  // The reason a server with the default limits gives when it ends the
  // bot, as transport::to_string() words it.
  std::string expected_reason;
};

// Every evil script, in the order --help lists them.
const std::vector<EvilScriptInfo>& evil_scripts();
// Null for an unknown name.
const EvilScriptInfo* find_evil_script(std::string_view name);

// "garbage:8,flood:8": names with their counts (1..4096 each), or a
// message saying what is wrong.
std::variant<std::vector<std::pair<std::string, int>>, std::string> parse_evil_mix(std::string_view text);

// How one evil bot's run ended.
struct EvilEnd {
  std::string script;
  bool reached_server = false;        // the transport connected
  std::optional<std::string> reason;  // why it ended; none: still connected
};

struct EvilScriptOutcome {
  std::string script;
  std::string expected_reason;
  std::size_t bots = 0;
  std::map<std::string, std::uint64_t> ended;  // by reason
  std::size_t still_connected = 0;
  std::size_t unexpected = 0;  // ended, but for another reason than expected
};

// Per script, in the order of evil_scripts().
std::vector<EvilScriptOutcome> tally_evil(std::span<const EvilEnd> ends);

std::string evil_summary_text(const std::vector<EvilScriptOutcome>& outcomes);
std::string evil_json(const std::vector<EvilScriptOutcome>& outcomes);
// --evil-must-fail: no evil bot may still be connected at the end.
ThresholdCheck evil_check(const std::vector<EvilScriptOutcome>& outcomes);

}  // namespace tickwire::bots
