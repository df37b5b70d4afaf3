#include "tickwire/snapshot/entity_bits_cache.h"

#include <algorithm>

namespace tickwire::snapshot {

void EntityBitsCache::begin(const WorldState* capture, Tick tick, const void* tables) {
  if (capture == capture_ && tick == tick_ && tables == tables_) return;
  capture_ = capture;
  tick_ = tick;
  tables_ = tables;
  words_.clear();
  count_ = 0;
  if (++stamp_ == 0) {  // wrapped: old stamps could look current
    for (Slot& s : slots_) s.stamp = 0;
    stamp_ = 1;
  }
}

std::size_t EntityBitsCache::hash(const Key& key) {
  std::uint64_t h = key.current * 0x9E37'79B9'7F4A'7C15ULL;
  h ^= (std::uint64_t{key.baseline} << 32 | key.reference) * 0xC2B2'AE3D'27D4'EB4FULL;
  h ^= (std::uint64_t{key.reference2} ^ key.motion) * 0x1656'67B1'9E37'79F9ULL;
  h ^= h >> 29;
  return static_cast<std::size_t>(h);
}

std::optional<EntityBitsCache::Bits> EntityBitsCache::find(const Key& key) const {
  if (!slots_.empty()) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.stamp != stamp_) break;
      if (s.key == key) {
        ++hits_;
        return Bits{std::span(words_).subspan(s.offset, (s.bits + 63) / 64), s.bits};
      }
    }
  }
  ++misses_;
  return std::nullopt;
}

void EntityBitsCache::insert(const Key& key, std::span<const std::uint64_t> words, std::size_t bits) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash(key) & mask;
  while (slots_[i].stamp == stamp_) {
    if (slots_[i].key == key) return;  // already held
    i = (i + 1) & mask;
  }
  const std::size_t used = (bits + 63) / 64;
  Slot& s = slots_[i];
  s.key = key;
  s.offset = static_cast<std::uint32_t>(words_.size());
  s.bits = static_cast<std::uint32_t>(bits);
  s.stamp = stamp_;
  words_.insert(words_.end(), words.begin(), words.begin() + static_cast<std::ptrdiff_t>(used));
  ++count_;
}

void EntityBitsCache::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.stamp != stamp_) continue;
    std::size_t i = hash(s.key) & mask;
    while (slots_[i].stamp == stamp_) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace tickwire::snapshot
