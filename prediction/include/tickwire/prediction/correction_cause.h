#pragma once
// Why a snapshot corrected a predicted entity, as the runtime can tell:
// what ClientStats::mispredictions_by_cause counts and what a player-facing
// report names (docs/prediction.md, "Why corrections happen").

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tickwire::prediction {

enum class CorrectionCause : std::uint8_t {
  kOwnInput,     // the server stood in for one of the player's own inputs (late or missing)
  kRemotePlayer, // a remote player: its guessed input was wrong, or contact with it where it was shown
  kUnowned,      // an object nobody owns (a ball, a platform) that the prediction got wrong
  kSpawn,        // a predicted spawn or despawn the server did otherwise
  kServerEvent,  // none of those: something only the server knew (a hit, a rule, a random draw)
};
inline constexpr std::size_t kCorrectionCauses = 5;

// "own_input", "remote_player", "unowned", "spawn", "server_event": the keys
// of the bots' JSON.
constexpr std::string_view to_string(CorrectionCause cause) {
  constexpr std::array<std::string_view, kCorrectionCauses> kNames{"own_input", "remote_player", "unowned", "spawn",
                                                                   "server_event"};
  return kNames[static_cast<std::size_t>(cause)];
}

using CorrectionCounts = std::array<std::uint64_t, kCorrectionCauses>;

}  // namespace tickwire::prediction
