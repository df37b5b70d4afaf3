#include "tickwire/prediction/state_history.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "tickwire/snapshot/field_value.h"

namespace tickwire::prediction {

const HistoryRow* StateBlock::find(snapshot::EntityId id) const {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), id,
                             [](const HistoryRow& r, snapshot::EntityId v) { return r.id < v; });
  return it != rows_.end() && it->id == id ? &*it : nullptr;
}

void StateBlock::append(snapshot::EntityId id, snapshot::TypeId type, std::span<const std::uint32_t> slots) {
  rows_.push_back({id, type, static_cast<std::uint16_t>(slots.size()), static_cast<std::uint32_t>(slots_.size())});
  slots_.insert(slots_.end(), slots.begin(), slots.end());
}

void StateBlock::capture(Tick tick, const snapshot::World& world, std::span<const snapshot::EntityId> ids) {
  reset(tick);
  for (const snapshot::EntityId id : ids) {
    if (const auto type = world.type_of(id)) append(id, *type, world.slots(id));
  }
}

std::uint64_t StateBlock::checksum() const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      h ^= (v >> (8 * i)) & 0xFFU;
      h *= 0x100000001b3ULL;
    }
  };
  for (const HistoryRow& r : rows_) {
    mix(r.id.value);
    mix(r.type.value);
    for (std::uint32_t s : slots(r)) mix(s);
  }
  return h;
}

std::size_t StateBlock::bytes() const {
  return rows_.capacity() * sizeof(HistoryRow) + slots_.capacity() * sizeof(std::uint32_t);
}

StateHistory::StateHistory(std::size_t capacity) : blocks_(capacity) {
  if (capacity == 0) throw std::invalid_argument("StateHistory: capacity must be at least 1");
}

void StateHistory::capture(Tick tick, const snapshot::World& world, std::span<const snapshot::EntityId> ids,
                           std::span<const std::uint8_t> simulated) {
  Slot& slot = slot_of(tick);
  const bool merge = !simulated.empty() && slot.used && slot.block.tick() == tick;
  // The old block of this tick is still needed while merging: build into
  // the scratch block and swap (both keep their capacity).
  scratch_.reset(tick);
  for (const snapshot::EntityId id : ids) {
    const bool from_world = simulated.empty() || (id.value < simulated.size() && simulated[id.value] != 0);
    if (from_world) {
      if (const auto type = world.type_of(id)) scratch_.append(id, *type, world.slots(id));
    } else if (merge) {
      if (const HistoryRow* old = slot.block.find(id)) scratch_.append(id, old->type, slot.block.slots(*old));
    }
  }
  std::swap(slot.block, scratch_);
  slot.used = true;
}

StateBlock& StateHistory::begin(Tick tick) {
  pending_slot_ = &slot_of(tick);
  pending_previous_ = pending_slot_->used && pending_slot_->block.tick() == tick ? &pending_slot_->block : nullptr;
  scratch_.reset(tick);
  return scratch_;
}

void StateHistory::commit() {
  if (pending_slot_ == nullptr) return;
  std::swap(pending_slot_->block, scratch_);
  pending_slot_->used = true;
  pending_slot_ = nullptr;
  pending_previous_ = nullptr;
}

const StateBlock* StateHistory::find(Tick tick) const {
  const Slot& slot = blocks_[static_cast<std::size_t>(tick.value()) % blocks_.size()];
  return slot.used && slot.block.tick() == tick ? &slot.block : nullptr;
}

void StateHistory::clear() {
  for (Slot& s : blocks_) s.used = false;
}

std::size_t StateHistory::bytes() const {
  std::size_t n = scratch_.bytes();
  for (const Slot& s : blocks_) n += s.block.bytes();
  return n;
}

std::string describe_entity(const snapshot::TypeSpec& type, std::span<const std::uint32_t> slots) {
  std::string out;
  char buf[64];
  for (const snapshot::FieldSpec& f : type.fields) {
    if (!out.empty()) out += ' ';
    out += f.name;
    out += '=';
    if (f.count > 1) out += '(';
    for (std::size_t i = 0; i < f.count; ++i) {
      const std::size_t k = f.offset + i;
      if (k >= slots.size()) break;
      if (i > 0) out += ", ";
      // Shortest form that reads back as the same float, so a one-ulp difference shows.
      const auto r = type.components[k].kind == snapshot::CodeKind::kInt
                         ? std::to_chars(buf, buf + sizeof buf, snapshot::slot_int(slots[k]))
                         : std::to_chars(buf, buf + sizeof buf, snapshot::slot_float(slots[k]));
      out.append(buf, r.ptr);
    }
    if (f.count > 1) out += ')';
  }
  return out;
}

std::string describe(const StateBlock& block, const snapshot::Schema& schema) {
  std::string out = "tick " + std::to_string(block.tick().value()) + ":\n";
  for (const HistoryRow& r : block.rows()) {
    const snapshot::TypeSpec& type = schema.type(r.type);
    out += "  entity " + std::to_string(r.id.value) + " (" + type.name + "): " + describe_entity(type, block.slots(r)) +
           "\n";
  }
  return out;
}

std::string describe_differences(const StateBlock& first, const StateBlock& second, const snapshot::Schema& schema) {
  std::string out;
  const auto line = [&out](const HistoryRow& r, const std::string& what) {
    out += "  entity " + std::to_string(r.id.value) + ": " + what + "\n";
  };
  for (const HistoryRow& a : first.rows()) {
    const HistoryRow* b = second.find(a.id);
    if (b == nullptr) {
      line(a, "only in the first");
      continue;
    }
    if (a.type != b->type) {
      line(a, "type differs");
      continue;
    }
    const snapshot::TypeSpec& type = schema.type(a.type);
    const auto x = first.slots(a);
    const auto y = second.slots(*b);
    std::string fields;
    for (const snapshot::FieldSpec& f : type.fields) {
      if (!std::equal(x.begin() + f.offset, x.begin() + f.offset + f.count, y.begin() + f.offset)) {
        fields += (fields.empty() ? "" : ", ") + f.name;
      }
    }
    if (!fields.empty()) line(a, "differs in " + fields);
  }
  for (const HistoryRow& b : second.rows()) {
    if (first.find(b.id) == nullptr) line(b, "only in the second");
  }
  return out;
}

}  // namespace tickwire::prediction
