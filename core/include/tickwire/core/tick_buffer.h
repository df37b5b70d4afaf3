#pragma once
// A fixed-capacity ring of per-tick values (inputs, predicted states,
// snapshots). Each slot remembers the tick it holds, so a lookup for tick
// t never returns the value of t - capacity that happens to share the slot.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/core/tick_slots.h"

namespace tickwire {

template <class T>
class TickBuffer {
 public:
  // Throws std::invalid_argument for capacity 0: a set-up error.
  explicit TickBuffer(std::size_t capacity) : slots_(checked(capacity)), index_(capacity) {}

  // Stores value for tick, replacing whatever shared its slot. An occupied
  // slot's value is assigned rather than rebuilt, so a value that owns
  // storage (an input record) reuses it: a ring written every tick stops
  // allocating once warm.
  T& insert(Tick tick, const T& value) { return put(tick, value); }
  T& insert(Tick tick, T&& value) { return put(tick, std::move(value)); }

  T* find(Tick tick) {
    auto& slot = slots_[index(tick)];
    return slot && slot->tick == tick ? &slot->value : nullptr;
  }
  const T* find(Tick tick) const {
    const auto& slot = slots_[index(tick)];
    return slot && slot->tick == tick ? &slot->value : nullptr;
  }
  bool contains(Tick tick) const { return find(tick) != nullptr; }

  void erase(Tick tick) {
    auto& slot = slots_[index(tick)];
    if (!slot || slot->tick != tick) return;
    slot.reset();
    if (newest_ && *newest_ == tick) recompute_newest();
  }

  void clear() {
    for (auto& slot : slots_) slot.reset();
    newest_.reset();
  }

  std::size_t capacity() const { return slots_.size(); }
  // The newest tick still stored; nullopt when the buffer is empty.
  std::optional<Tick> newest() const { return newest_; }

 private:
  struct Entry {
    Tick tick;
    T value;
  };

  template <class V>
  T& put(Tick tick, V&& value) {
    auto& slot = slots_[index(tick)];
    const bool replaced_newest = slot && newest_ && slot->tick == *newest_ && tick < *newest_;
    if (slot) {
      slot->tick = tick;
      slot->value = std::forward<V>(value);
    } else {
      slot.emplace(Entry{tick, T(std::forward<V>(value))});
    }
    if (replaced_newest) {
      recompute_newest();
    } else if (!newest_ || tick > *newest_) {
      newest_ = tick;
    }
    return slot->value;
  }

  static std::size_t checked(std::size_t capacity) {
    if (capacity == 0) throw std::invalid_argument("TickBuffer capacity must be at least 1");
    return capacity;
  }
  std::size_t index(Tick tick) const { return index_(tick); }

  // Only needed when the newest entry leaves, which normal forward use
  // (inserting ever newer ticks) never causes.
  void recompute_newest() {
    newest_.reset();
    for (const auto& slot : slots_) {
      if (slot && (!newest_ || slot->tick > *newest_)) newest_ = slot->tick;
    }
  }

  std::vector<std::optional<Entry>> slots_;
  TickSlots index_;
  std::optional<Tick> newest_;
};

}  // namespace tickwire
