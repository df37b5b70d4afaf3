#include "tickwire/prediction/correction_causes.h"

#include <algorithm>
#include <cmath>

namespace tickwire::prediction {

CorrectionCause classify_correction(const CorrectionFacts& facts) {
  if (facts.spawn) return CorrectionCause::kSpawn;
  if (facts.role == PredictedRole::kOwn && facts.own_input_stood_in) return CorrectionCause::kOwnInput;
  if (facts.role == PredictedRole::kRemotePlayer || facts.near_other_player) return CorrectionCause::kRemotePlayer;
  if (facts.role == PredictedRole::kUnowned) return CorrectionCause::kUnowned;
  return CorrectionCause::kServerEvent;
}

bool within_touching_distance(const Reach& a, const Reach& b, double seconds) {
  const double travel = (static_cast<double>(a.speed) + static_cast<double>(b.speed)) * std::max(seconds, 0.0);
  const double reach = static_cast<double>(a.radius) + static_cast<double>(b.radius) + travel;
  return static_cast<double>(distance(a.position, b.position)) <= reach;
}

void CorrectionClassifier::set_motion_fields(std::span<const MotionFields> motion) {
  motion_.clear();
  for (const MotionFields& m : motion) {
    if (m.type.value >= motion_.size()) motion_.resize(std::size_t{m.type.value} + 1);
    motion_[m.type.value] = m;
  }
}

void CorrectionClassifier::set_context(CorrectionContext context) {
  context_ = std::move(context);
  std::sort(context_.other_players.begin(), context_.other_players.end());
}

CorrectionCause CorrectionClassifier::classify(snapshot::EntityId id, PredictedRole role, bool spawn,
                                               const snapshot::World& server, const StateBlock* predicted,
                                               double seconds) const {
  CorrectionFacts facts;
  facts.spawn = spawn;
  facts.role = role;
  facts.own_input_stood_in = context_.own_input_stood_in;
  // Contact only decides between the rules after it: skip the search when
  // an earlier rule already holds.
  const bool earlier_rule = spawn || (role == PredictedRole::kOwn && facts.own_input_stood_in);
  if (!earlier_rule && role != PredictedRole::kRemotePlayer) {
    facts.near_other_player = near_other_player(id, server, predicted, seconds);
  }
  return classify_correction(facts);
}

bool CorrectionClassifier::near_other_player(snapshot::EntityId id, const snapshot::World& server,
                                             const StateBlock* predicted, double seconds) const {
  const std::optional<Reach> here_server = reach_in(server, id);
  const std::optional<Reach> here_predicted = predicted != nullptr ? reach_in(*predicted, id) : std::nullopt;
  if (!here_server && !here_predicted) return false;
  for (const snapshot::EntityId other : context_.other_players) {
    if (other == id) continue;
    const std::optional<Reach> there_server = reach_in(server, other);
    if (here_server && there_server && within_touching_distance(*here_server, *there_server, seconds)) return true;
    if (!here_predicted) continue;
    // Where the prediction had the other one: its own predicted state when
    // it was predicted, else the server's (what the prediction was shown).
    std::optional<Reach> there_predicted = reach_in(*predicted, other);
    if (!there_predicted) there_predicted = there_server;
    if (there_predicted && within_touching_distance(*here_predicted, *there_predicted, seconds)) return true;
  }
  return false;
}

const MotionFields* CorrectionClassifier::motion_of(snapshot::TypeId type) const {
  if (type.value >= motion_.size() || !motion_[type.value]) return nullptr;
  return &*motion_[type.value];
}

std::optional<Reach> CorrectionClassifier::reach_in(const snapshot::World& world, snapshot::EntityId id) const {
  const auto type = world.type_of(id);
  if (!type) return std::nullopt;
  return reach_of(*type, world.slots(id));
}

std::optional<Reach> CorrectionClassifier::reach_in(const StateBlock& block, snapshot::EntityId id) const {
  const HistoryRow* row = block.find(id);
  if (row == nullptr) return std::nullopt;
  return reach_of(row->type, block.slots(*row));
}

std::optional<Reach> CorrectionClassifier::reach_of(snapshot::TypeId type, std::span<const std::uint32_t> slots) const {
  const MotionFields* m = motion_of(type);
  if (m == nullptr) return std::nullopt;
  Reach r;
  r.position = m->position(slots);
  r.radius = m->radius;
  if (const auto v = m->velocity(slots)) r.speed = distance(*v, Point{});
  if (!std::isfinite(r.speed)) r.speed = 0.0F;
  return r;
}

}  // namespace tickwire::prediction
