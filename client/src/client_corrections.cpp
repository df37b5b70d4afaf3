// What the client tells prediction about each snapshot's corrections
// (prediction/correction_causes.h): which entities other players steer, as
// the game guesses them, and whether the server stood in for one of this
// player's inputs since the previous snapshot applied.

#include "tickwire/client/client.h"

namespace tickwire::client {

void Client::start_correction_causes() {
  // Records for NetGame::guess_input, shared with the switching of timelines.
  guess_neutral_.emplace(game_.schema(), game_.input_type());
  guess_scratch_ = guess_neutral_;
  inputs_missed_seen_ = 0;
}

void Client::set_correction_context() {
  prediction::CorrectionContext context;
  // The server's running count of ticks it ran without this player's
  // input, from its snapshots' feedback: any since the previous snapshot
  // applied were ticks in (previous state, this state].
  const std::uint64_t missed = time_->measurements()->stats().missed;
  context.own_input_stood_in = missed != inputs_missed_seen_;
  inputs_missed_seen_ = missed;
  const prediction::PlayerId me{*client_id_};
  authoritative_.for_each([&](EntityId id) {
    guess_scratch_->assign_slots(guess_neutral_->slots());
    const auto player = game_.guess_input(authoritative_, id, *guess_scratch_);
    if (player && *player != me) context.other_players.push_back(id);
  });
  prediction_->correction_classifier().set_context(std::move(context));
}

}  // namespace tickwire::client
