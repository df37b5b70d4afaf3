#pragma once
// The benchmark's own look at what a client draws, beside the runtime's
// ClientStats: frame to frame, how far each player and the ball moved
// beyond what their drawn velocity explains. A cross-check of
// ClientStats::visual_pops made from the view alone, and the largest such
// step, which a count does not show.

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "pitch/game.h"
#include "tickwire/core/time.h"

namespace tickwire::bench {

class DrawnSteps {
 public:
  // `pop_distance`: the excess over the explained move that counts as a
  // pop (ClientConfig::visual_pop_distance).
  explicit DrawnSteps(float pop_distance) : pop_distance_(pop_distance) {}

  // Whether the client predicts an entity this frame.
  using Predicts = std::function<bool(snapshot::EntityId)>;

  // After each frame of the client: its view, the frame's length and which
  // entities it predicts. `count` false updates what was drawn without
  // counting (the warm-up).
  void observe(const snapshot::World& view, Duration frame, bool count, const Predicts& predicts);

  std::uint64_t pops() const { return pops_; }
  std::uint64_t ball_pops() const { return ball_pops_; }  // of those, the ball's
  // Of all pops: within kSwitchWindow frames of the entity entering or
  // leaving the predicted set, and otherwise by the timeline it was on.
  std::uint64_t pops_after_switch() const { return after_switch_; }
  std::uint64_t pops_predicted() const { return predicted_; }
  std::uint64_t pops_interpolated() const { return interpolated_; }
  // 250 ms at 60 frames a second: longer than the default blend.
  static constexpr std::uint64_t kSwitchWindow = 15;
  std::uint64_t frames() const { return frames_; }
  double largest_excess() const { return largest_; }  // metres

 private:
  struct Drawn {
    pitch::Vec2 position;
    float speed = 0;
    std::int32_t teleports = 0;
    bool predicted = false;
    std::uint64_t frame = 0;     // the frame it was last seen in
    std::uint64_t switched = 0;  // the frame it last entered or left the predicted set
  };
  // True when it counted a pop.
  bool step(snapshot::EntityId id, Drawn now, double dt, bool count);
  void classify(const Drawn& now);

  float pop_distance_;
  std::unordered_map<std::uint32_t, Drawn> last_;
  std::uint64_t frame_index_ = 0;
  std::uint64_t pops_ = 0;
  std::uint64_t ball_pops_ = 0;
  std::uint64_t after_switch_ = 0;
  std::uint64_t predicted_ = 0;
  std::uint64_t interpolated_ = 0;
  std::uint64_t frames_ = 0;
  double largest_ = 0;
};

}  // namespace tickwire::bench
