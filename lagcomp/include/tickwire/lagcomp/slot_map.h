#pragma once
// A fixed-capacity map from entity id to slot, for the history's
// recording: open addressing with linear probing and backward-shift
// deletion (no tombstones, so it never degrades as entities come and go),
// sized at construction to at least twice the entities it may hold, so it
// never allocates afterwards and a probe stays short.

#include <cstdint>
#include <optional>
#include <vector>

namespace tickwire::lagcomp::detail {

class SlotMap {
 public:
  SlotMap() = default;
  explicit SlotMap(std::uint32_t max_entries);

  std::optional<std::uint32_t> find(std::uint32_t id) const;
  // `id` must be absent and the map hold fewer than max_entries.
  void insert(std::uint32_t id, std::uint32_t slot);
  void erase(std::uint32_t id);
  void clear();
  std::uint32_t size() const { return size_; }
  std::size_t bytes() const { return keys_.capacity() * sizeof(std::uint32_t) * 2; }

 private:
  std::uint32_t home(std::uint32_t id) const {
    // Fibonacci hashing: sequential ids spread over the table.
    return static_cast<std::uint32_t>((id * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  std::vector<std::uint32_t> keys_;
  std::vector<std::uint32_t> values_;  // slot + 1; 0 marks an empty cell
  std::uint32_t mask_ = 0;
  unsigned shift_ = 0;
  std::uint32_t size_ = 0;
};

}  // namespace tickwire::lagcomp::detail
