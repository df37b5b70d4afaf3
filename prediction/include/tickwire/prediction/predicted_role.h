#pragma once

#include <cstdint>

namespace tickwire::prediction {

// Whose entity a predicted entity is, which decides what steers it in a
// replay and what a correction of it is blamed on (CorrectionCause).
enum class PredictedRole : std::uint8_t {
  kOwn,           // the player's own: its avatar, its predicted spawns
  kRemotePlayer,  // another player's, steered by a guess of their input (NetGame::guess_input)
  kUnowned,       // nobody's (a ball, a platform): moved by the game alone
};

}  // namespace tickwire::prediction
