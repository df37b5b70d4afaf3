#include "tickwire/snapshot/world.h"

#include <algorithm>

#include "tickwire/snapshot/field_codec.h"

namespace tickwire::snapshot {

namespace {
// Freed ids wait until this many are free before being handed out again,
// so a client rarely sees an id come back soon after it left (the
// generation tells them apart anyway), while ids stay small.
constexpr std::size_t kReuseAfterFree = 1024;
}  // namespace

World::World(Schema schema, WorldConfig config) : schema_(std::move(schema)), config_(config) {
  stores_.resize(schema_.type_count());
  for (const TypeSpec& t : schema_.types()) strides_.push_back(t.stride());
}

void World::check_type(TypeId type) const {
  if (!schema_.has_type(type)) throw std::invalid_argument("World: unknown type id " + std::to_string(type.value));
  if (schema_.type(type).role != TypeRole::kEntity) {
    throw std::invalid_argument("World: type '" + schema_.type(type).name + "' is a record type, not an entity type");
  }
}

std::span<const EntityId> World::entities(TypeId type) const {
  if (type.value >= stores_.size()) return {};
  return stores_[type.value].ids;
}

EntityId World::spawn(TypeId type) {
  check_type(type);
  if (live_.size() >= config_.max_entities) throw std::length_error("World: max_entities are alive");
  for (;;) {
    std::uint32_t id = 0;
    if (!free_ids_.empty() && (free_ids_.size() >= kReuseAfterFree || next_id_ >= config_.max_entities)) {
      id = free_ids_.front();
      free_ids_.pop_front();
      entries_[id].queued_free = false;
    } else if (next_id_ < config_.max_entities) {
      id = next_id_++;
    } else {
      throw std::length_error("World: no free entity id");
    }
    if (contains(EntityId{id})) continue;  // taken by spawn_at meanwhile
    place(EntityId{id}, type);
    return EntityId{id};
  }
}

bool World::spawn_at(EntityId id, TypeId type) {
  check_type(type);
  if (id.value >= config_.max_entities || contains(id)) return false;
  place(id, type);
  return true;
}

void World::place(EntityId id, TypeId type) {
  if (id.value >= entries_.size()) entries_.resize(static_cast<std::size_t>(id.value) + 1);
  const TypeSpec& spec = schema_.type(type);
  Store& store = stores_[type.value];
  Entry& e = entries_[id.value];
  e.type = type.value;
  e.alive = true;
  e.index = static_cast<std::uint32_t>(store.ids.size());
  ++e.generation;
  store.ids.push_back(id);
  for (const ComponentSpec& c : spec.components) store.slots.push_back(c.default_slot);
  // New ids usually come last; a mirrored or reused one goes in its place.
  if (live_.empty() || live_.back() < id) {
    live_.push_back(id);
  } else {
    live_.insert(std::lower_bound(live_.begin(), live_.end(), id), id);
  }
}

bool World::despawn(EntityId id) {
  if (!contains(id)) return false;
  Entry& e = entries_[id.value];
  Store& store = stores_[e.type];
  const std::size_t stride = schema_.type(TypeId{e.type}).stride();
  const std::size_t last = store.ids.size() - 1;
  if (e.index != last) {
    // Swap-remove keeps the store dense; the moved entity learns its new place.
    const EntityId moved = store.ids[last];
    store.ids[e.index] = moved;
    std::copy_n(store.slots.begin() + static_cast<std::ptrdiff_t>(last * stride), stride,
                store.slots.begin() + static_cast<std::ptrdiff_t>(e.index * stride));
    entries_[moved.value].index = e.index;
  }
  store.ids.pop_back();
  store.slots.resize(last * stride);
  e.alive = false;
  queue_free(id.value);
  live_.erase(std::lower_bound(live_.begin(), live_.end(), id));
  return true;
}

void World::queue_free(std::uint32_t id) {
  if (entries_[id].queued_free) return;
  entries_[id].queued_free = true;
  free_ids_.push_back(id);
}

void World::clear() {
  for (Store& s : stores_) {
    s.ids.clear();
    s.slots.clear();
  }
  for (std::uint32_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].alive) queue_free(i);
    entries_[i].alive = false;
  }
  live_.clear();
}

void World::throw_bad_access(EntityId id, TypeId type, bool valid) const {
  if (!valid) throw std::invalid_argument("World: invalid field handle");
  if (!contains(id)) throw std::out_of_range("World: no entity " + std::to_string(id.value));
  const Entry& e = entries_[id.value];
  if (e.type != type.value) {
    throw std::invalid_argument("World: entity " + std::to_string(id.value) + " is a '" +
                                schema_.type(TypeId{e.type}).name + "', the field belongs to '" +
                                schema_.type(type).name + "'");
  }
  throw std::invalid_argument("World: field handle out of its type");
}

std::span<const std::uint32_t> World::slots(EntityId id) const {
  if (!contains(id)) return {};
  const Entry& e = entries_[id.value];
  const std::size_t stride = schema_.type(TypeId{e.type}).stride();
  return {stores_[e.type].slots.data() + e.index * stride, stride};
}

std::span<std::uint32_t> World::slots(EntityId id) {
  if (!contains(id)) return {};
  const Entry& e = entries_[id.value];
  const std::size_t stride = schema_.type(TypeId{e.type}).stride();
  return {stores_[e.type].slots.data() + e.index * stride, stride};
}

void World::quantize() {
  std::vector<std::uint32_t> codes(schema_.max_stride());
  for (std::size_t t = 0; t < stores_.size(); ++t) {
    const TypeSpec& spec = schema_.type(TypeId{static_cast<std::uint16_t>(t)});
    const std::size_t stride = spec.stride();
    std::span<std::uint32_t> all(stores_[t].slots);
    for (std::size_t i = 0; i < stores_[t].ids.size(); ++i) {
      auto s = all.subspan(i * stride, stride);
      quantize_entity(spec, s, std::span(codes).first(stride));
      dequantize_entity(spec, std::span(codes).first(stride), s);
    }
  }
}

void World::quantize(EntityId id) {
  auto s = slots(id);
  if (s.empty()) return;
  const TypeSpec& spec = schema_.type(TypeId{entries_[id.value].type});
  std::vector<std::uint32_t> codes(spec.stride());
  quantize_entity(spec, s, codes);
  dequantize_entity(spec, codes, s);
}

void World::copy_entity(const World& from, EntityId id) {
  const auto type = from.type_of(id);
  if (!type) {
    despawn(id);
    return;
  }
  if (type_of(id) != type) {
    despawn(id);
    if (!spawn_at(id, *type)) throw std::length_error("World::copy_entity: id outside this world's max_entities");
  }
  const auto src = from.slots(id);
  std::copy(src.begin(), src.end(), slots(id).begin());
}

std::optional<std::uint32_t> World::step_difference(const World& other, EntityId id) const {
  const auto type = type_of(id);
  if (!type || other.type_of(id) != type) return std::nullopt;
  const TypeSpec& spec = schema_.type(*type);
  std::vector<std::uint32_t> a(spec.stride());
  std::vector<std::uint32_t> b(spec.stride());
  quantize_entity(spec, slots(id), a);
  quantize_entity(spec, other.slots(id), b);
  std::uint32_t worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const ComponentSpec& c = spec.components[i];
    std::uint32_t d = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
    if (c.wraps) d = std::min(d, c.max_code + 1 - d);
    if (c.kind == CodeKind::kQuatIndex && d != 0) return spec.components[i + 1].max_code;
    worst = std::max(worst, d);
  }
  return worst;
}

}  // namespace tickwire::snapshot
