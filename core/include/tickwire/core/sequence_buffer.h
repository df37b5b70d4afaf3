#pragma once
// A window of the most recent `capacity` sequence numbers with a value per
// present sequence, in the manner of yojimbo's SequenceBuffer: packets sent
// awaiting an ack, packets received for building ack bits. Moving the
// window forward clears the slots it passes over, so a slot's tag always
// names a sequence inside the window and a found entry is never stale.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tickwire/core/sequence.h"

namespace tickwire {

template <class T>
class SequenceBuffer {
 public:
  // capacity must be a power of two no larger than 32768 (std::invalid_argument
  // otherwise): a power of two divides 65536, so slot indices stay
  // consistent across wrap-around, and the window must fit in is_newer's half.
  explicit SequenceBuffer(std::size_t capacity)
      : entries_(checked(capacity)), tags_(capacity, kEmpty), mask_(capacity - 1) {}

  // A fresh value-initialized slot for s, or nullptr when s is at or behind
  // newest() - capacity (too old to track). A newer s moves the window.
  T* insert(Sequence s) {
    if (!empty_) {
      const int ahead = Sequence::distance(s, newest_);
      if (ahead <= -static_cast<int>(capacity())) return nullptr;
      if (ahead > 0) {
        clear_range(newest_.next(), ahead);
        newest_ = s;
      }
    } else {
      empty_ = false;
      newest_ = s;
    }
    const std::size_t i = index(s);
    tags_[i] = s.value();
    entries_[i].value = T{};
    return &entries_[i].value;
  }

  T* find(Sequence s) { return exists(s) ? &entries_[index(s)].value : nullptr; }
  const T* find(Sequence s) const { return exists(s) ? &entries_[index(s)].value : nullptr; }
  bool exists(Sequence s) const { return tags_[index(s)] == s.value(); }

  void erase(Sequence s) {
    if (exists(s)) tags_[index(s)] = kEmpty;
  }

  // Forgets every entry and the window, as if newly constructed.
  void reset() {
    for (auto& tag : tags_) tag = kEmpty;
    empty_ = true;
    newest_ = Sequence{};
  }

  // Newest sequence ever inserted (erasing it does not move the window back).
  // Meaningful only when !empty().
  Sequence newest() const { return newest_; }
  // True until the first insert (or after reset()).
  bool empty() const { return empty_; }
  std::size_t capacity() const { return entries_.size(); }

  // Bit i is set when sequence ack - 1 - i is present, for i in 0..31.
  std::uint32_t ack_bits(Sequence ack) const {
    std::uint32_t bits = 0;
    for (int i = 0; i < 32; ++i) {
      if (exists(ack - 1 - i)) bits |= std::uint32_t{1} << i;
    }
    return bits;
  }

 private:
  // Wider than any 16-bit sequence, so an empty slot never matches.
  static constexpr std::uint32_t kEmpty = 0xFFFF'FFFFU;

  static std::size_t checked(std::size_t capacity) {
    if (capacity == 0 || capacity > 32768 || (capacity & (capacity - 1)) != 0) {
      throw std::invalid_argument("SequenceBuffer capacity must be a power of two <= 32768");
    }
    return capacity;
  }
  std::size_t index(Sequence s) const { return static_cast<std::size_t>(s.value()) & mask_; }

  // Clears `count` slots starting at `first`; all of them when the window
  // jumps by at least its size.
  void clear_range(Sequence first, int count) {
    if (static_cast<std::size_t>(count) >= capacity()) {
      for (auto& tag : tags_) tag = kEmpty;
      return;
    }
    for (int i = 0; i < count; ++i) tags_[index(first + i)] = kEmpty;
  }

  // Wrapped so SequenceBuffer<bool> hands out real bool* (not vector<bool> proxies).
  struct Slot {
    T value{};
  };

  std::vector<Slot> entries_;
  std::vector<std::uint32_t> tags_;
  std::size_t mask_;
  Sequence newest_{};
  bool empty_ = true;
};

}  // namespace tickwire
