#include "tickwire/prediction/proximity_rule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tickwire::prediction {

void ProximityRuleConfig::validate() const {
  if (!std::isfinite(enter) || !std::isfinite(leave)) {
    throw std::invalid_argument("proximity rule: the radii must be finite");
  }
  if (enter > 0.0F && leave < enter) {
    throw std::invalid_argument("proximity rule: the leave radius must be at least the enter radius");
  }
}

ProximityRule::ProximityRule(ProximityRuleConfig config) : config_(config) { config_.validate(); }

void ProximityRule::begin() { ++round_; }

bool ProximityRule::wants(snapshot::EntityId id, float distance, bool contact) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                             [](const Entry& e, snapshot::EntityId key) { return e.id < key; });
  if (it == entries_.end() || it->id != id) it = entries_.insert(it, Entry{id});
  Entry& e = *it;
  e.seen = round_;
  if (contact) e.held_until = round_ + config_.hold_snapshots;
  const bool near = config_.enter > 0.0F && distance <= (e.predicted ? config_.leave : config_.enter);
  // Rounds wrap after 2^32 evaluations: compare by difference.
  const bool held = static_cast<std::int32_t>(e.held_until - round_) >= 0 && (contact || e.predicted);
  e.predicted = near || held;
  return e.predicted;
}

void ProximityRule::end() {
  std::erase_if(entries_, [&](const Entry& e) { return e.seen != round_; });
}

}  // namespace tickwire::prediction
