#pragma once
// A ring of world states indexed by tick: the server's history, each
// client's sent views on the server, and a client's decoded states. Slots
// keep their storage when reused, so a ring that is written every tick
// stops allocating once warm. A slot remembers its tick, so a lookup never
// returns the state of an older tick that shared the slot.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot {

class StateRing {
 public:
  struct Slot {
    std::optional<Tick> tick;
    bool acked = false;  // the sender's mark: the client confirmed this state
    // The sender's mark: the state gave up its coding models, so it can
    // no longer be a baseline (it may still be a reference).
    bool models_dropped = false;
    // Held out of line and only while the slot is in use: a sender's ring
    // is mostly released slots, and a state inline in each of its 64 slots
    // cost 5 KB a client. Never null in a slot claimed and not released.
    std::unique_ptr<WorldState> state;
  };

  // Throws std::invalid_argument for capacity 0: a set-up error.
  explicit StateRing(std::size_t capacity) : slots_(checked(capacity)), index_(capacity) {}
  // A copy holds copies of the states (a receiver copied to replay
  // packets from the same starting point, say).
  StateRing(const StateRing& other)
      : slots_(other.slots_.size()), index_(other.index_), newest_(other.newest_), held_(other.held_) {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& from = other.slots_[i];
      slots_[i].tick = from.tick;
      slots_[i].acked = from.acked;
      slots_[i].models_dropped = from.models_dropped;
      if (from.state) slots_[i].state = std::make_unique<WorldState>(*from.state);
    }
  }
  StateRing& operator=(const StateRing& other) {
    if (this != &other) *this = StateRing(other);
    return *this;
  }
  StateRing(StateRing&&) noexcept = default;
  StateRing& operator=(StateRing&&) noexcept = default;
  ~StateRing() = default;

  Slot* find(Tick tick) {
    Slot& s = slots_[index(tick)];
    return s.tick == tick ? &s : nullptr;
  }
  const Slot* find(Tick tick) const {
    const Slot& s = slots_[index(tick)];
    return s.tick == tick ? &s : nullptr;
  }

  // The slot for `tick`, whatever it held before; its state is left for
  // the caller to overwrite (or swap with). A slot released before gets a
  // state object released elsewhere, so a ring in a steady state of
  // claims and releases stops allocating.
  Slot& claim(Tick tick) {
    Slot& s = slots_[index(tick)];
    if (!s.tick) ++held_;
    s.tick = tick;
    s.acked = false;
    s.models_dropped = false;
    if (!s.state) {
      if (free_.empty()) {
        s.state = std::make_unique<WorldState>();
      } else {
        s.state = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!newest_ || tick > *newest_) newest_ = tick;
    return s;
  }

  // Empties a slot: its tick is forgotten, and what its state held is
  // returned (its storage, for the caller to keep or drop) while the state
  // object waits for the next claim.
  WorldState release(Slot& s) {
    if (s.tick) --held_;
    s.tick.reset();
    s.acked = false;
    s.models_dropped = false;
    WorldState held;
    if (s.state) {
      held = std::move(*s.state);
      *s.state = WorldState{};
      free_.push_back(std::move(s.state));
    }
    return held;
  }

  void clear() {
    for (Slot& s : slots_) {
      s.tick.reset();
      s.acked = false;
      s.models_dropped = false;
    }
    newest_.reset();
    held_ = 0;
  }

  std::size_t capacity() const { return slots_.size(); }
  // Slots that hold a tick: claimed and not released since.
  std::size_t held() const { return held_; }
  // Newest tick ever claimed since the last clear (it may have been
  // overwritten only by a newer one, so it is always held).
  std::optional<Tick> newest() const { return newest_; }
  std::span<const Slot> slots() const { return slots_; }
  std::span<Slot> slots() { return slots_; }

 private:
  static std::size_t checked(std::size_t capacity) {
    if (capacity == 0) throw std::invalid_argument("StateRing capacity must be at least 1");
    return capacity;
  }
  std::size_t index(Tick tick) const { return index_(tick); }

  std::vector<Slot> slots_;
  TickSlots index_;
  std::vector<std::unique_ptr<WorldState>> free_;  // released state objects
  std::optional<Tick> newest_;
  std::size_t held_ = 0;
};

// The server's world states per tick, kept for a configurable depth: one
// capture a tick, shared by every client. The views the senders keep of
// what each client holds point into these captures (SharedCodes) instead
// of copying the codes, which is most of what a client would otherwise
// cost in memory. Ticks captured must increase, and a capture is
// overwritten `depth` ticks later: a sender refers to it only while that
// cannot happen (SnapshotSender::encode).
class WorldHistory {
 public:
  explicit WorldHistory(std::size_t depth) : ring_(depth) {
    shared_.slots_.assign(depth, nullptr);
    shared_.states_.assign(depth, nullptr);
    shared_.index_ = TickSlots(depth);
  }
  WorldHistory(const WorldHistory&) = delete;  // views point into it
  WorldHistory& operator=(const WorldHistory&) = delete;

  // Captures `world` as the state of `tick` and returns it. Throws
  // std::invalid_argument unless `tick` is newer than every tick before.
  const WorldState& capture(const World& world, Tick tick) {
    if (ring_.newest() && tick <= *ring_.newest()) {
      throw std::invalid_argument("WorldHistory: captured ticks must increase");
    }
    // Clients diff against the newest capture: only it keeps an id table,
    // whose storage passes from one to the next.
    StateRing::Slot* newest = ring_.newest() ? ring_.find(*ring_.newest()) : nullptr;
    WorldState* previous = newest != nullptr ? newest->state.get() : nullptr;
    auto& slot = ring_.claim(tick);
    WorldState& state = *slot.state;
    if (previous != nullptr && previous != &state) previous->pass_id_index_storage(state);
    state.refer_to(nullptr);
    snapshot::capture(world, tick, state);
    const std::size_t at = shared_.index_(tick);
    shared_.slots_[at] = state.own_codes();
    shared_.states_[at] = &state;
    return state;
  }
  const WorldState* find(Tick tick) const {
    const auto* s = ring_.find(tick);
    return s != nullptr ? s->state.get() : nullptr;
  }
  std::optional<Tick> newest() const { return ring_.newest(); }
  std::size_t depth() const { return ring_.capacity(); }
  const SharedCodes& shared() const { return shared_; }

 private:
  StateRing ring_;
  SharedCodes shared_;
};

}  // namespace tickwire::snapshot
