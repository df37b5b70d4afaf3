#pragma once
// A tick's slot in a ring of `size` slots: the tick modulo the size, by a
// mask when the size is a power of two. Rings of per-tick state are read
// for every entity of every client's snapshot, and a 64-bit division costs
// tens of cycles.

#include <cstddef>

#include "tickwire/core/tick.h"

namespace tickwire {

class TickSlots {
 public:
  TickSlots() = default;
  explicit TickSlots(std::size_t size) : size_(size), mask_(size != 0 && (size & (size - 1)) == 0 ? size - 1 : 0) {}
  std::size_t operator()(Tick tick) const {
    const auto t = static_cast<std::size_t>(tick.value());
    return mask_ != 0 || size_ == 1 ? t & mask_ : t % size_;
  }

 private:
  std::size_t size_ = 1;
  std::size_t mask_ = 0;
};

}  // namespace tickwire
