// ClientPrediction's guesses of other players' inputs: an entity predicted
// as kRemotePlayer is steered, in every tick predicted or replayed after
// the newest server state, by the input the game guessed from that state
// (NetGame::guess_input), as the server itself repeats an input that
// never arrived.
#include <algorithm>

#include "tickwire/prediction/client_prediction.h"

namespace tickwire::prediction {

namespace {

auto guess_slot(auto& guesses, EntityId id) {
  return std::lower_bound(guesses.begin(), guesses.end(), id, [](const auto& g, EntityId key) { return g.id < key; });
}

}  // namespace

void ClientPrediction::guess_input(EntityId id, PlayerId player, const snapshot::Record& input) {
  if (!predicts(id) || role(id) != PredictedRole::kRemotePlayer) return;
  if (player == config_.player || input.type() != config_.input_type) return;
  auto it = guess_slot(guesses_, id);
  if (it == guesses_.end() || it->id != id) it = guesses_.insert(it, GuessedInput{id, player, neutral_});
  it->player = player;
  it->input.assign_slots(input.slots());
  // As the server would hold it once decoded from the wire.
  it->input.quantize();
}

const snapshot::Record* ClientPrediction::guessed_input(EntityId id) const {
  const auto it = guess_slot(guesses_, id);
  return it != guesses_.end() && it->id == id ? &it->input : nullptr;
}

void ClientPrediction::forget_guess(EntityId id) {
  const auto it = guess_slot(guesses_, id);
  if (it != guesses_.end() && it->id == id) guesses_.erase(it);
}

std::span<const PlayerInput> ClientPrediction::tick_inputs(const PlayerInput& own) {
  tick_inputs_.clear();
  tick_inputs_.push_back(own);
  for (const GuessedInput& g : guesses_) {
    // Two entities of one player: the first guess stands (Inputs::find
    // would see only it anyway).
    const bool seen = std::any_of(tick_inputs_.begin(), tick_inputs_.end(),
                                  [&](const PlayerInput& p) { return p.player == g.player; });
    if (!seen) tick_inputs_.push_back(PlayerInput{g.player, &g.input, true, std::nullopt, std::nullopt});
  }
  return tick_inputs_;
}

}  // namespace tickwire::prediction
