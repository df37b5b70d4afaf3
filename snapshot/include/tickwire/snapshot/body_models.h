#pragma once
// The adaptive models of snapshot bodies, shared in layout by encoder and
// decoder. A packet's models start where the packet of its baseline left
// them: both ends hold that state (the client decoded the baseline, the
// server encoded it), so what the models learned carries over and a small
// packet does not pay to learn its statistics again. Without a baseline
// they start fresh. Per-type tables are copied on first touch, so a packet
// pays only for the types it codes.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tickwire/snapshot/residual_code.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

// Residuals are coded in one of three contexts picked by the largest
// residual so far in the same entity (0, 1, larger): the components of one
// entity tend to be surprising together (a bounce, a turn), so a large
// residual announces more.
inline constexpr int kResidualContexts = 3;

// The largest residual a component can need: its range, or half of it
// when it wraps.
inline std::uint64_t max_magnitude(const ComponentSpec& c) {
  return c.wraps ? (std::uint64_t{c.max_code} + 1) / 2 : c.max_code;
}

inline int residual_context(std::int64_t r) {
  const std::int64_t m = r < 0 ? -r : r;
  return m == 0 ? 0 : (m == 1 ? 1 : 2);
}

// One component's models, inside its type's table: the quaternion
// index flag, the motion flag, then per context a zero flag and as many
// exponent steps as the component's range can use.
class ComponentModels {
 public:
  ComponentModels(BitModel* at, int exponents) : at_(at), exponents_(exponents) {}
  BitModel& same_index() { return at_[0]; }  // quaternions: largest component as predicted
  BitModel& motion() { return at_[1]; }      // this packet predicts the field from motion (else holds it)
  ResidualModelRef residual(int context) {
    BitModel* r = at_ + 2 + static_cast<std::ptrdiff_t>(context) * (1 + exponents_);
    return {r, r + 1};
  }
  // Models a component of `exponents` steps takes.
  static std::size_t size(int exponents) {
    return 2 + static_cast<std::size_t>(kResidualContexts) * (1 + static_cast<std::size_t>(exponents));
  }

 private:
  BitModel* at_;
  int exponents_;
};

// An op is coded as "the same as the previous entity's?" and, if not,
// which of the other three; models are indexed by the previous op. Runs
// (all unchanged, all moving) then cost one likely decision per entity.
struct EntityOpModels {
  std::array<BitModel, 4> same;
  std::array<BitModel, 4> first;   // the lowest-numbered other op?
  std::array<BitModel, 4> second;  // else the next one? (else the last)
};

// The three ops other than `prev`, in increasing order.
inline void other_ops(std::size_t prev, std::size_t out[3]) {
  for (std::size_t op = 0, k = 0; op < 4; ++op) {
    if (op != prev) out[k++] = op;
  }
}

// A type's models, one table: each component gets only the exponent steps
// its range can use (a position of 16 bits 16, not the 32 of the widest),
// which halves what a table costs to hold and to copy for a packet.
class TypeModels {
 public:
  // Fresh models for `spec`.
  void reset(const TypeSpec& spec) {
    offsets_.clear();
    exponents_.clear();
    std::size_t size = 0;
    for (const ComponentSpec& c : spec.components) {
      const int e = max_exponent_for(max_magnitude(c));
      offsets_.push_back(static_cast<std::uint32_t>(size));
      exponents_.push_back(static_cast<std::uint8_t>(e));
      size += ComponentModels::size(e);
    }
    bits_.assign(size, BitModel{});
  }
  // Becomes a copy of `other`. A block recycled from its type's pool
  // already has the type's layout, so only the models themselves are
  // copied.
  bool same_layout(const TypeModels& other) const {
    return offsets_ == other.offsets_ && exponents_ == other.exponents_ && bits_.size() == other.bits_.size();
  }
  void assign(const TypeModels& other) {
    if (same_layout(other)) {
      std::copy(other.bits_.begin(), other.bits_.end(), bits_.begin());
    } else {
      *this = other;
    }
  }
  ComponentModels component(std::size_t i) { return {bits_.data() + offsets_[i], exponents_[i]}; }
  std::size_t bytes() const { return bits_.size() * sizeof(BitModel); }
  // Every model of the table, in layout order (for training a codebook).
  std::span<const BitModel> bits() const { return bits_; }
  std::span<BitModel> bits() { return bits_; }

 private:
  std::vector<BitModel> bits_;
  std::vector<std::uint32_t> offsets_;  // by component, into bits_
  std::vector<std::uint8_t> exponents_;
};

// The models a packet ended with; immutable once published, shared by
// every state that inherits it.
struct ModelState {
  EntityOpModels ops;
  MagnitudeModel spawn_count;
  MagnitudeModel spawn_gap;
  MagnitudeModel spawn_generation;
  std::vector<std::shared_ptr<const TypeModels>> types;  // by type id; null: never touched
  // A codebook's type tables for entities whose baseline values are older
  // (age sets 1 and up: age_set()): aged_types[set - 1], by type id. Empty
  // in adaptive states, and in a codebook means `types` for every age.
  std::vector<std::vector<std::shared_ptr<const TypeModels>>> aged_types;
};

// A codebook keeps its entity models in sets by how many ticks old the
// values an entity's change is predicted from are: how far a residual
// strays depends mostly on that, and it is what differs most between a
// client on a LAN and one on a mobile link (or at another snapshot rate).
// Sets: 1 tick, 2, 3-4, 5-8, 9-16, 17 and more.
inline constexpr std::size_t kAgeSets = 6;
inline std::size_t age_set(std::int64_t ticks) {
  if (ticks <= 2) return ticks <= 1 ? 0 : 1;
  if (ticks <= 4) return 2;
  return ticks <= 8 ? 3 : (ticks <= 16 ? 4 : 5);
}
// The type tables of age set `set` (a codebook without sets: its only ones).
inline const std::vector<std::shared_ptr<const TypeModels>>& types_of_set(const ModelState& m, std::size_t set) {
  return set == 0 || set > m.aged_types.size() ? m.types : m.aged_types[set - 1];
}

// The working models of one packet.
class BodyModels {
 public:
  // Starts a packet from `inherited` (null: fresh models). `fixed`: the
  // packet is coded without adaptation (a codebook), so its type tables are
  // read where they are instead of copied; the coder must then never adapt.
  void begin(const Schema& schema, const ModelState* inherited, bool fixed = false) {
    inherited_ = inherited;
    fixed_ = fixed;
    if (inherited != nullptr) {
      ops = inherited->ops;
      spawn_count = inherited->spawn_count;
      spawn_gap = inherited->spawn_gap;
      spawn_generation = inherited->spawn_generation;
    } else {
      ops = EntityOpModels{};
      spawn_count = MagnitudeModel{};
      spawn_gap = MagnitudeModel{};
      spawn_generation = MagnitudeModel{};
    }
    touched_.assign(schema.type_count(), nullptr);
    if (type_pools_.size() < schema.type_count()) type_pools_.resize(schema.type_count());
    if (++begun_ % kTrimInterval == 0) {
      for (auto& pool : type_pools_) trim(pool);
      trim(state_pool_);
    }
  }

  TypeModels& type(const Schema& schema, TypeId id) {
    auto& block = touched_[id.value];
    if (!block) {
      const TypeModels* from =
          inherited_ != nullptr && id.value < inherited_->types.size() ? inherited_->types[id.value].get() : nullptr;
      // Shared by every coder reading the codebook; a coder that does not
      // adapt only reads it.
      if (fixed_ && from != nullptr)
        return const_cast<TypeModels&>(*from);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
      block = recycled(type_pools_[id.value]);
      if (from != nullptr) {
        block->assign(*from);
      } else {
        block->reset(schema.type(id));
      }
    }
    return *block;
  }

  // Blocks looked at to find free ones, over the coder's life (for tests:
  // a warm coder finds one at the first place it looks).
  std::uint64_t recycle_probes() const { return probes_; }

  // Model blocks this coder keeps, in use or spare (for tests and memory
  // accounting).
  std::size_t pooled_blocks() const {
    std::size_t n = state_pool_.blocks.size();
    for (const auto& pool : type_pools_) n += pool.blocks.size();
    return n;
  }

  // The state to hand to packets that use this one as their baseline.
  std::shared_ptr<const ModelState> publish() {
    std::shared_ptr<ModelState> state = recycled(state_pool_);
    state->ops = ops;
    state->spawn_count = spawn_count;
    state->spawn_gap = spawn_gap;
    state->spawn_generation = spawn_generation;
    state->types.resize(touched_.size());
    for (std::size_t i = 0; i < touched_.size(); ++i) {
      state->types[i].reset();
      if (touched_[i]) {
        state->types[i] = touched_[i];
      } else if (inherited_ != nullptr && i < inherited_->types.size()) {
        state->types[i] = inherited_->types[i];
      }
    }
    return state;
  }

  EntityOpModels ops;
  MagnitudeModel spawn_count;
  MagnitudeModel spawn_gap;
  MagnitudeModel spawn_generation;

 private:
  // Blocks are recycled rather than allocated per packet: a pool keeps
  // every block it ever made, and one that only the pool still holds (no
  // state refers to it any more) is reused. The states a sender or
  // receiver holds are a ring, so the oldest blocks come free in turn: a
  // pool keeps its blocks in the order they were handed out (a new block
  // goes just before the scan's start, trimming keeps the order), and a
  // scan from where the last one ended finds one at once. Each type has a
  // pool of its own because types live differently: a type's block is
  // shared by the states until the next packet that touches the type, so
  // within a type blocks come free in the order they were made, while a
  // pool of every type's blocks walked past the long-lived ones of rarely
  // touched types (14 blocks a scan on a thin client, a cache miss each:
  // 6% of its time). The pools stop growing at the number of states held.
  //
  // A burst of states in flight (acks held up by a stall) raises that
  // number, and a pool that never shrank would keep its high-water mark
  // for the life of the connection: a few KB per client over the first
  // minutes on a server. Every kTrimInterval packets, blocks nothing
  // refers to beyond kSpareBlocks are let go; the spares absorb the
  // ordinary wobble of acks, so a warm coder still allocates nothing.
  static constexpr std::size_t kSpareBlocks = 4;
  static constexpr std::uint32_t kTrimInterval = 64;
  template <class T>
  struct Pool {
    std::vector<std::shared_ptr<T>> blocks;
    std::size_t next = 0;
  };
  template <class T>
  static void trim(Pool<T>& pool) {
    std::size_t spare = 0;
    std::size_t kept = 0;
    std::size_t next = 0;
    auto& blocks = pool.blocks;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (i == pool.next) next = kept;
      if (blocks[i].use_count() == 1 && ++spare > kSpareBlocks) continue;
      if (kept != i) blocks[kept] = std::move(blocks[i]);
      ++kept;
    }
    blocks.resize(kept);
    pool.next = next < kept ? next : 0;
  }
  template <class T>
  std::shared_ptr<T> recycled(Pool<T>& pool) {
    const std::size_t n = pool.blocks.size();
    for (std::size_t k = 0; k < n; ++k) {
      ++probes_;
      std::shared_ptr<T>& block = pool.blocks[(pool.next + k) % n];
      if (block.use_count() == 1) {
        pool.next = (pool.next + k + 1) % n;
        return block;
      }
    }
    // All in use: the new block is the newest, just before the oldest.
    const auto at =
        pool.blocks.insert(pool.blocks.begin() + static_cast<std::ptrdiff_t>(pool.next), std::make_shared<T>());
    pool.next = (pool.next + 1) % (n + 1);
    return *at;
  }

  const ModelState* inherited_ = nullptr;
  bool fixed_ = false;  // begin(..., fixed): type tables read in place
  std::uint32_t begun_ = 0;
  std::uint64_t probes_ = 0;
  std::vector<std::shared_ptr<TypeModels>> touched_;
  std::vector<Pool<TypeModels>> type_pools_;  // by type id
  Pool<ModelState> state_pool_;
};

}  // namespace tickwire::snapshot
