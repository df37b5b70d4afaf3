#pragma once
// Computer players: the inputs a bot or the viewer's scripted player sends.
// Each reads the world it is shown (a client's view) and the player it
// controls, and returns that player's input for one tick.

#include <cstdint>

#include "pitch/game.h"

namespace pitch {

// Gets behind the ball, facing the other team's goal, runs it forward and
// kicks when it lines up.
Input chase_ball(const tickwire::snapshot::World& world, EntityId me);

// Stays between the ball and its own goal; clears the ball when it comes
// near.
Input defend_goal(const tickwire::snapshot::World& world, EntityId me);

// Roams between points that change every few seconds, picked from `seed`
// and the tick; kicks the ball away if it passes by.
Input wander(const tickwire::snapshot::World& world, EntityId me, std::uint64_t seed, Tick tick,
             std::uint32_t tick_rate);

}  // namespace pitch
