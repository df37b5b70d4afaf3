// pitch-viewer: a window onto a match of pitch, on the viewer library.
// WASD or the arrows run, space or the left button kicks; --script plays
// one of the computer players instead. The pitch's lines, the goals, the
// teams' colours and the scoreboard are drawn here; the netcode's markers
// (predictions, the server's ghosts, corrections) come with the viewer.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "pitch/ai.h"
#include "pitch/game.h"
#include "tickwire/viewer/viewer.h"

namespace {

namespace viewer = tickwire::viewer;
namespace snapshot = tickwire::snapshot;
using pitch::Vec2;

constexpr viewer::Colour kLines{235, 240, 235, 255};
constexpr viewer::Colour kNet{220, 220, 220, 255};
constexpr viewer::Colour kTeams[2] = {{230, 70, 60, 255}, {70, 130, 240, 255}};
constexpr viewer::Colour kOwn{80, 220, 120, 255};
constexpr viewer::Colour kBall{250, 250, 250, 255};

// What the scripts and the status line read: the view as drawn this frame.
struct Seen {
  const snapshot::World* view = nullptr;
  std::optional<pitch::EntityId> me;
};

// Lines only: the overlay is drawn over the players, so nothing is filled.
void draw_pitch(viewer::Canvas& c) {
  const float l = pitch::kHalfLength;
  const float w = pitch::kHalfWidth;
  c.rect({-l, -w}, {l, w}, kLines, 2.0F);
  c.line({0.0F, -w}, {0.0F, w}, kLines, 2.0F);
  c.circle({}, 6.0F, kLines, 2.0F);
  c.filled_circle({}, 0.25F, kLines);
}

void draw_goal(viewer::Canvas& c, const snapshot::World& world, snapshot::EntityId id, const viewer::EntityContext&) {
  const auto& s = pitch::schema();
  const Vec2 p = world.get(id, s.goal_position);
  const float back = p.x < 0.0F ? p.x - pitch::kGoalDepth : p.x + pitch::kGoalDepth;
  const auto team = static_cast<std::size_t>(world.get(id, s.goal_team) != 0);
  c.filled_rect({p.x, -pitch::kGoalHalfWidth}, {back, pitch::kGoalHalfWidth}, kTeams[team].with_alpha(0.35F));
  c.rect({p.x, -pitch::kGoalHalfWidth}, {back, pitch::kGoalHalfWidth}, kNet, 2.0F);
}

void draw_player(viewer::Canvas& c, const snapshot::World& world, snapshot::EntityId id,
                 const viewer::EntityContext& ctx) {
  const auto& s = pitch::schema();
  const Vec2 p = ctx.position.value_or(world.get(id, s.player_position));
  const auto team = static_cast<std::size_t>(world.get(id, s.player_team) != 0);
  c.filled_circle(p, pitch::kPlayerRadius, kTeams[team]);
  if (ctx.own) c.circle(p, pitch::kPlayerRadius + c.units(3.0F), kOwn, 3.0F);
}

void draw_ball(viewer::Canvas& c, const snapshot::World& world, snapshot::EntityId id,
               const viewer::EntityContext& ctx) {
  const Vec2 p = ctx.position.value_or(world.get(id, pitch::schema().ball_position));
  c.filled_circle(p, std::max(pitch::kBallRadius, c.units(4.0F)), kBall);
}

std::string scoreline(const snapshot::World* view) {
  const auto& s = pitch::schema();
  const auto board = view != nullptr ? pitch::find_scoreboard(*view) : std::nullopt;
  if (!board) return "no scoreboard yet";
  const int left = view->get(*board, s.seconds_left);
  char text[64];
  std::snprintf(text, sizeof text, "home %d - %d away   %d:%02d", view->get(*board, s.score_home),
                view->get(*board, s.score_away), left / 60, left % 60);
  return text;
}

template <class Play>
viewer::ScriptSpec script(std::shared_ptr<Seen> seen, std::string name, std::string description, Play play) {
  return {std::move(name), std::move(description), [seen, play](std::uint64_t seed) -> viewer::InputFn {
            return [seen, play, seed](const viewer::Controls&, tickwire::Tick tick, snapshot::Record& out) {
              pitch::Input in;
              if (seen->view != nullptr && seen->me) in = play(*seen->view, *seen->me, seed, tick);
              pitch::to_record(in, out);
            };
          }};
}

}  // namespace

int main(int argc, char** argv) {
  auto seen = std::make_shared<Seen>();
  viewer::ViewerSpec spec;
  spec.game_name = std::string(pitch::kGameName);
  spec.game_version = std::string(pitch::kGameVersion);
  spec.make_game = [] { return std::make_unique<pitch::Game>(); };
  spec.input = [](const viewer::Controls& c, tickwire::Tick, snapshot::Record& out) {
    pitch::to_record(pitch::Input{c.move, c.space || c.left}, out);
  };
  const auto chase = [](const snapshot::World& w, pitch::EntityId me, std::uint64_t, tickwire::Tick) {
    return pitch::chase_ball(w, me);
  };
  const auto defend = [](const snapshot::World& w, pitch::EntityId me, std::uint64_t, tickwire::Tick) {
    return pitch::defend_goal(w, me);
  };
  const auto roam = [](const snapshot::World& w, pitch::EntityId me, std::uint64_t seed, tickwire::Tick tick) {
    const auto board = pitch::find_scoreboard(w);
    const auto rate = board ? w.get(*board, pitch::schema().tick_rate) : 60;
    return pitch::wander(w, me, seed, tick, static_cast<std::uint32_t>(rate > 0 ? rate : 60));
  };
  spec.scripts = {script(seen, "chase", "runs the ball at the other goal", chase),
                  script(seen, "defend", "guards its own goal", defend),
                  script(seen, "wander", "roams the pitch", roam)};
  spec.drawers = {{"player", draw_player}, {"ball", draw_ball}, {"goal", draw_goal}};
  spec.layout.radii = {{"player", pitch::kPlayerRadius}, {"ball", pitch::kBallRadius}};
  spec.layout.hidden_types = {"scoreboard"};
  const float margin = pitch::kGoalDepth + 1.0F;
  // Room above the pitch for the score.
  spec.layout.bounds = viewer::Bounds{{-pitch::kHalfLength - margin, -pitch::kHalfWidth - 1.0F},
                                      {pitch::kHalfLength + margin, pitch::kHalfWidth + 3.0F}};
  spec.on_frame = [seen](const viewer::FrameContext& frame) {
    seen->view = frame.view;
    seen->me = frame.avatar;
  };
  spec.overlay = [seen](viewer::Canvas& c, const viewer::FrameContext&) {
    draw_pitch(c);
    c.text({-pitch::kHalfLength, pitch::kHalfWidth + 2.5F}, scoreline(seen->view), kLines);
  };
  spec.controls_help = "WASD / arrows: run\nspace / left button: kick";
  spec.status_text = [seen] { return scoreline(seen->view); };
  return viewer::run_viewer(argc, argv, spec);
}
