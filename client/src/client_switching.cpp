// Which timeline each entity the game wants predicted joins, and whose it
// is (prediction::PredictedRole): the player's avatar is its own; another
// player's entity is predicted with a guess of that player's input when
// ClientConfig::predict_remote_players, else left interpolated; anything
// else the game lists is predicted as nobody's. Each switch between the
// timelines is blended in the drawing (TimelineBlend).

#include "tickwire/client/client.h"

namespace tickwire::client {

bool Client::predict_wanted(EntityId id, prediction::PlayerId me) {
  using prediction::PredictedRole;
  PredictedRole role = PredictedRole::kOwn;
  std::optional<prediction::PlayerId> steered_by;
  if (id != avatar_) {
    guess_scratch_->assign_slots(guess_neutral_->slots());  // the guess starts from the type's defaults
    steered_by = game_.guess_input(authoritative_, id, *guess_scratch_);
    if (steered_by && *steered_by != me) {
      if (!config_.predict_remote_players) return false;
      role = PredictedRole::kRemotePlayer;
    } else if (!steered_by) {
      role = PredictedRole::kUnowned;
    }
  }
  const bool joins = !prediction_->predicts(id);
  if (joins) switch_timeline(id);
  if (joins || prediction_->role(id) != role) prediction_->predict(id, role);
  if (role == PredictedRole::kRemotePlayer) prediction_->guess_input(id, *steered_by, *guess_scratch_);
  return true;
}

void Client::switch_timeline(EntityId id) {
  // What was drawn last frame is still in view_: the blend starts there.
  if (switch_blend_ && draw_options_.prediction) switch_blend_->switched(id, view_);
}

}  // namespace tickwire::client
