#include "arena_bots.h"

#include <optional>

namespace tickwire::arena_bots {

void ArenaBotScript::input(const bots::BotView& view, Tick tick, snapshot::Record& out) {
  const arena::Schema& s = arena::schema();
  std::optional<Vec2> self;
  others_.clear();
  arena::Input input;
  if (!script_->aims()) {
    for (const snapshot::EntityId id : view.world.entities(s.player_type)) {
      const Vec2 position = view.world.get(id, s.player_position);
      if (view.self && id == *view.self) {
        self = position;
      } else {
        others_.push_back(position);
      }
    }
    script_->input(ArenaView{self, others_}, tick, input);
    arena::to_record(input, out);
    return;
  }
  // The predicted world is at the tick before this input's, where the
  // server's shot starts.
  if (view.predicted != nullptr && view.self && view.predicted->contains(*view.self)) {
    self = view.predicted->get(*view.self, s.player_position);
  }
  // Aims only at players drawn between two real states: held or
  // extrapolated, the view is a guess, not what the server had.
  if (view.interpolated) {
    for (const snapshot::EntityId id : view.world.entities(s.player_type)) {
      if (view.self && id == *view.self) continue;
      others_.push_back(view.world.get(id, s.player_position));
    }
  }
  script_->input(ArenaView{self, others_}, tick, input);
  arena::to_record(input, out);
  if (input.fire && self) {
    // Scored as sent: the aim after the wire's quantization.
    const arena::Input sent = arena::from_record(out);
    shots_.fired(tick, ray_hits_any(*self, sent.aim, others_));
  }
}

void ArenaBotScript::observe(const bots::BotView& newest) {
  if (!newest.player) return;
  // The newest state decoded: the shot entity is never predicted, and the
  // interpolated view would show its result an interpolation delay late.
  const arena::Schema& s = arena::schema();
  if (const auto shot = arena::find_shot(newest.world, *newest.player)) {
    shots_.judged(newest.world.get(*shot, s.shot_tick), newest.world.get(*shot, s.shot_result));
  }
}

bots::BotsSpec spec() {
  bots::BotsSpec spec;
  spec.program = "tickwire-bots";
  spec.game_name = "the arena game";
  spec.game_version = TICKWIRE_VERSION;
  spec.make_game = [] { return std::make_unique<arena::Game>(); };
  for (const ScriptInfo& info : scripts()) {
    spec.scripts.push_back({info.name, info.description, [make = info.make](std::uint64_t seed) {
                              return std::make_unique<ArenaBotScript>(make(seed));
                            }});
  }
  spec.default_script = "wander";
  return spec;
}

}  // namespace tickwire::arena_bots
