#pragma once
// A rule a game can state NetGame::predicted_entities with: an entity near
// the player's avatar is predicted from closer than `enter`, until further
// than `leave` (the gap is hysteresis: an entity at the edge does not flip
// between the interpolated and the predicted timelines every snapshot),
// and for `hold_snapshots` evaluations after it last touched the avatar
// (contact is what mispredicts, and the push goes on after it).
//
//   rule.begin();                           // once per predicted_entities call
//   if (rule.wants(id, distance, touching)) out.push_back(id);
//   rule.end();                             // forgets what was not asked about
//
// It keeps state between calls, so a game holds one per client (its
// NetGame object serves one client).

#include <cstdint>
#include <vector>

#include "tickwire/snapshot/ids.h"

namespace tickwire::prediction {

struct ProximityRuleConfig {
  float enter = 3.0F;  // <= 0: never by distance
  float leave = 4.5F;  // at least enter
  std::uint32_t hold_snapshots = 15;
  // Throws std::invalid_argument for a radius not finite, or leave < enter.
  void validate() const;
};

class ProximityRule {
 public:
  explicit ProximityRule(ProximityRuleConfig config = {});

  void begin();
  // Whether `id`, `distance` from the avatar and touching it or not, is
  // predicted after this evaluation.
  bool wants(snapshot::EntityId id, float distance, bool contact);
  void end();

  const ProximityRuleConfig& config() const { return config_; }

 private:
  struct Entry {
    snapshot::EntityId id;
    std::uint32_t seen = 0;        // the round it was last asked about
    std::uint32_t held_until = 0;  // predicted through this round after a contact
    bool predicted = false;
  };

  ProximityRuleConfig config_;
  std::vector<Entry> entries_;  // sorted by id
  std::uint32_t round_ = 0;
};

}  // namespace tickwire::prediction
