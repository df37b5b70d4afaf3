#include "tickwire/lagcomp/slot_map.h"

#include <algorithm>
#include <bit>

namespace tickwire::lagcomp::detail {

SlotMap::SlotMap(std::uint32_t max_entries) {
  const std::uint64_t cells = std::bit_ceil(std::uint64_t{max_entries} * 2);
  keys_.assign(cells, 0);
  values_.assign(cells, 0);
  mask_ = static_cast<std::uint32_t>(cells - 1);
  shift_ = 64U - static_cast<unsigned>(std::countr_zero(cells));
}

std::optional<std::uint32_t> SlotMap::find(std::uint32_t id) const {
  for (std::uint32_t i = home(id);; i = (i + 1) & mask_) {
    if (values_[i] == 0) return std::nullopt;
    if (keys_[i] == id) return values_[i] - 1;
  }
}

void SlotMap::insert(std::uint32_t id, std::uint32_t slot) {
  std::uint32_t i = home(id);
  while (values_[i] != 0) i = (i + 1) & mask_;
  keys_[i] = id;
  values_[i] = slot + 1;
  ++size_;
}

void SlotMap::erase(std::uint32_t id) {
  std::uint32_t i = home(id);
  while (true) {
    if (values_[i] == 0) return;
    if (keys_[i] == id) break;
    i = (i + 1) & mask_;
  }
  // Backward shift: pull later entries of the probe run into the hole
  // unless their home lies cyclically in (hole, entry].
  std::uint32_t hole = i;
  for (std::uint32_t j = (i + 1) & mask_; values_[j] != 0; j = (j + 1) & mask_) {
    const std::uint32_t h = home(keys_[j]);
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (stays) continue;
    keys_[hole] = keys_[j];
    values_[hole] = values_[j];
    hole = j;
  }
  values_[hole] = 0;
  --size_;
}

void SlotMap::clear() {
  std::fill(values_.begin(), values_.end(), 0U);
  size_ = 0;
}

}  // namespace tickwire::lagcomp::detail
