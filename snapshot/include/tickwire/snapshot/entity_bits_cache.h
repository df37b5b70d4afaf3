#pragma once
// One tick's coded entity changes, shared by the snapshots of every
// client: the shared path of a server coding with a codebook
// (docs/snapshots.md, "What is shared"). With a codebook an entity's bits
// depend only on its values now, the values they are predicted from (the
// baseline's and the references', each named by the tick it is from) and
// the packet's motion choice for its type. Clients that acknowledged the
// same snapshot, or whose baselines hold the entity from the same tick,
// get the same bits, so the first client's encoding codes them and the
// rest copy them.
//
// One cache serves one thread: a server gives each encoding thread its own.
// It is tied to one capture: begin() with another (a new tick) forgets
// what it held. Its memory is kept from tick to tick, so a warm cache does
// not allocate.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/tick.h"

namespace tickwire::snapshot {

class WorldState;

class EntityBitsCache {
 public:
  static constexpr std::uint32_t kNone = 0xFFFF'FFFFU;
  struct Key {
    std::uint32_t current = 0;         // the entity's index in the capture
    std::uint32_t baseline = 0;        // the tick of the baseline's values
    std::uint32_t reference = kNone;   // of the reference's values; kNone: no motion reference
    std::uint32_t reference2 = kNone;  // of the second reference's
    std::uint64_t motion = 0;          // the motion choices of the type's components, a bit each
    bool operator==(const Key&) const = default;
  };
  struct Bits {
    std::span<const std::uint64_t> words;  // first bit lowest
    std::size_t size = 0;                  // in bits
  };

  // The capture being coded and the coding tables (an identity only);
  // anything held for another is dropped.
  void begin(const WorldState* capture, Tick tick, const void* tables);
  std::optional<Bits> find(const Key& key) const;
  void insert(const Key& key, std::span<const std::uint64_t> words, std::size_t bits);

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::size_t entries() const { return entries_.size(); }
  // What the cache holds on to, in bytes (for memory accounting).
  std::size_t capacity_bytes() const {
    return heads_.capacity() * sizeof(std::uint32_t) + entries_.capacity() * sizeof(Entry) +
           words_.capacity() * sizeof(std::uint64_t);
  }

 private:
  // Entries are chained by entity: a lookup reads the entity's head and
  // the few entries of the baselines clients hold it at, all close by.
  struct Entry {
    Key key;
    std::uint32_t offset = 0;  // into words_
    std::uint32_t bits = 0;
    std::uint32_t next = kNone;  // the entity's next entry
  };

  const WorldState* capture_ = nullptr;
  Tick tick_{};
  const void* tables_ = nullptr;
  std::vector<std::uint32_t> heads_;  // by entity index in the capture: its first entry
  std::vector<Entry> entries_;
  std::vector<std::uint64_t> words_;
  mutable std::uint64_t hits_ = 0;
  mutable std::uint64_t misses_ = 0;
};

}  // namespace tickwire::snapshot
