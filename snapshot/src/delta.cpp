#include "tickwire/snapshot/delta.h"

#include <algorithm>

namespace tickwire::snapshot {

bool Relevancy::operator()(EntityId id, TypeId type) const {
  if (listed_) return std::binary_search(ids_.begin(), ids_.end(), id);
  return !predicate_ || predicate_(id, type);
}

namespace {

// A type's stride, looked up once a run of entities of one type.
class Strides {
 public:
  explicit Strides(const Schema& schema) : schema_(schema) {}
  std::uint16_t of(TypeId type) {
    if (type != type_) {
      type_ = type;
      stride_ = schema_.type(type).stride();
    }
    return stride_;
  }

 private:
  const Schema& schema_;
  TypeId type_{0xFFFF};
  std::uint16_t stride_ = 0;
};

// The classification of one entity both states hold, by index in each.
// Inlined: it runs for every entity of every client's packet, and the call
// cost as much as the comparison.
[[gnu::always_inline]] inline void diff_pair(Strides& strides, const WorldState& current, const WorldState& baseline,
                                             std::uint32_t i, std::uint32_t j, std::vector<DeltaItem>& items) {
  const EntityState& c = current.entities()[i];
  const EntityState& b = baseline.entities()[j];
  if (c.type != b.type || c.generation != b.generation) {
    items.push_back({j, DeltaItem::kNone, EntityOp::kRemoved, true});
    items.push_back({DeltaItem::kNone, i, EntityOp::kSpawned, true});
    return;
  }
  const std::uint16_t stride = strides.of(c.type);
  // A loop, not std::equal (a call to memcmp): an entity's codes are a few
  // words, and a moving entity differs in its first ones.
  const std::uint32_t* x = current.code_data(c);
  const std::uint32_t* y = baseline.code_data(b);
  std::uint16_t k = 0;
  while (k < stride && x[k] == y[k]) ++k;
  items.push_back({j, i, k == stride ? EntityOp::kUnchanged : EntityOp::kChanged, true});
}

// diff_states for a listed relevancy: the same merge, over the listed
// entities of the current state only (found by binary search), so its cost
// follows what the client sees rather than the size of the world.
void diff_listed(const Schema& schema, const WorldState& current, const WorldState* baseline,
                 std::span<const EntityId> listed, std::vector<DeltaItem>& items) {
  const auto cur = current.entities();
  const std::span<const EntityState> base = baseline != nullptr ? baseline->entities() : std::span<const EntityState>{};
  Strides strides(schema);
  std::size_t k = 0;
  std::size_t at = 0;
  const auto index = current.id_index();
  // The index in `cur` of the next listed entity the current state holds;
  // cur.size() after the last.
  auto next = [&]() -> std::size_t {
    if (!index.empty()) {
      // A capture's table: one lookup an id.
      while (k < listed.size()) {
        const std::uint32_t id = listed[k++].value;
        if (id < index.size() && index[id] != WorldState::kNoIndex) return index[id];
      }
      return cur.size();
    }
    while (k < listed.size()) {
      const EntityId id = listed[k++];
      // Galloping from the last one found: the next listed entity is
      // usually a few places on, and a binary search of the whole rest
      // would read far-off entities for each.
      std::size_t lo = at;
      std::size_t hi = at;
      for (std::size_t step = 1; hi < cur.size() && cur[hi].id < id; step *= 2) {
        lo = hi + 1;
        hi = at + step;
      }
      hi = std::min(hi, cur.size());
      at = static_cast<std::size_t>(std::lower_bound(cur.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     cur.begin() + static_cast<std::ptrdiff_t>(hi), id,
                                                     [](const EntityState& e, EntityId v) { return e.id < v; }) -
                                    cur.begin());
      if (at < cur.size() && cur[at].id == id) return at;
    }
    return cur.size();
  };
  std::size_t i = next();
  std::size_t j = 0;
  while (i < cur.size() || j < base.size()) {
    if (j == base.size() || (i < cur.size() && cur[i].id < base[j].id)) {
      items.push_back({DeltaItem::kNone, static_cast<std::uint32_t>(i), EntityOp::kSpawned, true});
      i = next();
    } else if (i == cur.size() || base[j].id < cur[i].id) {
      items.push_back({static_cast<std::uint32_t>(j), DeltaItem::kNone, EntityOp::kRemoved, true});
      ++j;
    } else {
      diff_pair(strides, current, *baseline, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), items);
      i = next();
      ++j;
    }
  }
}

}  // namespace

void diff_states(const Schema& schema, const WorldState& current, const WorldState* baseline, const Relevancy& relevant,
                 std::vector<DeltaItem>& items) {
  items.clear();
  if (relevant.listed()) {
    diff_listed(schema, current, baseline, relevant.ids(), items);
    return;
  }
  const auto cur = current.entities();
  const std::span<const EntityState> base = baseline != nullptr ? baseline->entities() : std::span<const EntityState>{};
  items.reserve(cur.size() + base.size());
  Strides strides(schema);
  auto visible = [&](const EntityState& e) { return relevant(e.id, e.type); };
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
    if (!visible(cur[i])) {
      items.push_back({static_cast<std::uint32_t>(j), DeltaItem::kNone, EntityOp::kRemoved, true});
    } else {
      diff_pair(strides, current, *baseline, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), items);
    }
    ++i;
    ++j;
  }
}

}  // namespace tickwire::snapshot
