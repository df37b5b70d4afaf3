#include "tickwire/snapshot/entity_bits_cache.h"

#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot {

void EntityBitsCache::begin(const WorldState* capture, Tick tick, const void* tables) {
  if (capture == capture_ && tick == tick_ && tables == tables_) return;
  capture_ = capture;
  tick_ = tick;
  tables_ = tables;
  heads_.assign(capture != nullptr ? capture->size() : 0, kNone);
  entries_.clear();
  words_.clear();
}

std::optional<EntityBitsCache::Bits> EntityBitsCache::find(const Key& key) const {
  if (key.current < heads_.size()) {
    for (std::uint32_t e = heads_[key.current]; e != kNone; e = entries_[e].next) {
      const Entry& entry = entries_[e];
      // A chain is one entity's: what tells its entries apart is the
      // baseline first, then the references.
      if (entry.key.baseline == key.baseline && entry.key.reference == key.reference &&
          entry.key.reference2 == key.reference2 && entry.key.motion == key.motion) {
        ++hits_;
        return Bits{std::span(words_).subspan(entry.offset, (entry.bits + 63) / 64), entry.bits};
      }
    }
  }
  ++misses_;
  return std::nullopt;
}

void EntityBitsCache::insert(const Key& key, std::span<const std::uint64_t> words, std::size_t bits) {
  if (key.current >= heads_.size()) return;  // not an entity of the capture: nothing to share
  Entry entry;
  entry.key = key;
  entry.offset = static_cast<std::uint32_t>(words_.size());
  entry.bits = static_cast<std::uint32_t>(bits);
  entry.next = heads_[key.current];
  heads_[key.current] = static_cast<std::uint32_t>(entries_.size());
  entries_.push_back(entry);
  const std::size_t used = (bits + 63) / 64;
  words_.insert(words_.end(), words.begin(), words.begin() + static_cast<std::ptrdiff_t>(used));
}

}  // namespace tickwire::snapshot
