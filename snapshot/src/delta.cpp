#include "tickwire/snapshot/delta.h"

#include <algorithm>

namespace tickwire::snapshot {

void diff_states(const Schema& schema, const WorldState& current, const WorldState* baseline, const Relevancy& relevant,
                 std::vector<DeltaItem>& items) {
  items.clear();
  const auto cur = current.entities();
  const std::span<const EntityState> base = baseline != nullptr ? baseline->entities() : std::span<const EntityState>{};
  items.reserve(cur.size() + base.size());
  auto visible = [&](const EntityState& e) { return !relevant || relevant(e.id, e.type); };
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < cur.size() || j < base.size()) {
    if (j == base.size() || (i < cur.size() && cur[i].id < base[j].id)) {
      if (visible(cur[i])) items.push_back({DeltaItem::kNone, static_cast<std::uint32_t>(i), EntityOp::kSpawned, true});
      ++i;
      continue;
    }
    if (i == cur.size() || base[j].id < cur[i].id) {
      items.push_back({static_cast<std::uint32_t>(j), DeltaItem::kNone, EntityOp::kRemoved, true});
      ++j;
      continue;
    }
    const EntityState& c = cur[i];
    const EntityState& b = base[j];
    if (!visible(c)) {
      items.push_back({static_cast<std::uint32_t>(j), DeltaItem::kNone, EntityOp::kRemoved, true});
    } else if (c.type != b.type || c.generation != b.generation) {
      items.push_back({static_cast<std::uint32_t>(j), DeltaItem::kNone, EntityOp::kRemoved, true});
      items.push_back({DeltaItem::kNone, static_cast<std::uint32_t>(i), EntityOp::kSpawned, true});
    } else {
      const std::uint16_t stride = schema.type(c.type).stride();
      const bool same = std::equal(current.code_data(c), current.code_data(c) + stride, baseline->code_data(b));
      items.push_back({static_cast<std::uint32_t>(j), static_cast<std::uint32_t>(i),
                       same ? EntityOp::kUnchanged : EntityOp::kChanged, true});
    }
    ++i;
    ++j;
  }
}

}  // namespace tickwire::snapshot
