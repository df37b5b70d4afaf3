#include <algorithm>
#include <stdexcept>

#include "entity_coding.h"
#include "motion_context.h"
#include "shared_coding.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/snapshot/snapshot_codec.h"

namespace tickwire::snapshot {

namespace {

std::size_t op_index(EntityOp op) { return static_cast<std::size_t>(op); }

void encode_op(RangeEncoder& rc, EntityOpModels& m, std::size_t prev, EntityOp op) {
  const auto index = static_cast<std::size_t>(op);
  rc.bit(m.same[prev], index == prev);
  if (index == prev) return;
  std::size_t others[3];
  other_ops(prev, others);
  rc.bit(m.first[prev], index == others[0]);
  if (index == others[0]) return;
  rc.bit(m.second[prev], index == others[1]);
}

}  // namespace

namespace detail {
// What coding with a codebook needs besides the range coder: the prefix
// codes, the packet's prefix-coded bits and one entity's.
struct SharedScratch {
  // A type's motion choices as a key, a bit a component; kNoKey when its
  // components do not fit one.
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
  std::vector<std::uint64_t> motion_keys;  // by type, for this packet
  std::shared_ptr<const PrefixTables> tables;
  PrefixEncodeIo io;
  BitSink entity;
  BitSink bits;
};
}  // namespace detail

SnapshotEncoder::SnapshotEncoder(Schema schema) : schema_(std::move(schema)) {}
SnapshotEncoder::~SnapshotEncoder() = default;
SnapshotEncoder::SnapshotEncoder(SnapshotEncoder&&) noexcept = default;
SnapshotEncoder& SnapshotEncoder::operator=(SnapshotEncoder&&) noexcept = default;

void SnapshotEncoder::set_codebook(const std::shared_ptr<const ModelState>& codebook) {
  if (!codebook) {
    shared_.reset();
    return;
  }
  if (!shared_) shared_ = std::make_unique<detail::SharedScratch>();
  shared_->tables = detail::prefix_tables(codebook, schema_);
}

// A changed entity's prefix-coded bits: from the cache when another
// client's packet coded the same change, else coded here (and kept).
void SnapshotEncoder::code_shared_entity(const EncodeInput& in, const TypeSpec& type, TypeModels& models,
                                         const EntityState& b, std::uint32_t current, const detail::MotionContext& m,
                                         std::uint32_t* codes, const std::uint8_t* motion) {
  detail::SharedScratch& s = *shared_;
  EntityBitsCache* cache = in.bits_cache;
  EntityBitsCache::Key key;
  if (cache != nullptr) {
    key.current = current;
    key.baseline = b.updated.value();
    if (m.ref != nullptr) {
      key.reference = m.ref_tick.value();
      if (m.ref2 != nullptr) key.reference2 = m.ref2_tick.value();
      if (motion != nullptr) {
        key.motion = s.motion_keys[b.type.value];
        if (key.motion == detail::SharedScratch::kNoKey) cache = nullptr;
      }
    }
  }
  if (cache != nullptr) {
    if (const auto hit = cache->find(key)) {
      s.bits.append(hit->words, hit->size);
      return;
    }
  }
  s.io.begin(s.tables->type(b.type, in.current->tick() - b.updated));
  detail::code_changed_entity(s.io, type, models, in.baseline->code_data(b), m, codes, motion);
  s.entity.clear();
  s.io.finish(s.entity);
  if (cache != nullptr) cache->insert(key, s.entity.words(), s.entity.size());
  s.bits.append(s.entity);
}

void SnapshotEncoder::encode(const EncodeInput& in, std::span<const DeltaItem> items, std::vector<std::uint8_t>& bytes,
                             WorldState& view, std::vector<std::uint32_t>* item_bits) {
  const WorldState& cur = *in.current;
  const WorldState* base = in.baseline;
  const WorldState* ref = base != nullptr ? in.reference : nullptr;
  const WorldState* ref2 = ref != nullptr ? in.reference2 : nullptr;
  const Tick tick = cur.tick();
  view.clear();
  view.refer_to(in.shared);
  view.set_tick(tick);
  // The codes of the current state's entity `c`, kept as a reference when
  // the view shares the capture. The coders only read them.
  const auto keep_current = [&](const EntityState& e, const EntityState& c, std::uint16_t stride) {
    if (in.shared != nullptr) {
      EntityState shared = e;
      shared.offset = c.offset;
      view.append_shared(shared);
    } else {
      view.append_copy(e, cur.code_data(c), stride);
    }
    return const_cast<std::uint32_t*>(cur.code_data(c));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  };
  if (item_bits != nullptr) item_bits->assign(items.size(), 0);

  // Without a change to report the body is left out entirely: an idle
  // world costs only the header.
  bool has_body = false;
  // Room for the entities the view will hold, not one per item: against an
  // old baseline, removals and unsent spawns can be most of the items.
  std::size_t held = 0;
  for (const DeltaItem& item : items) {
    const bool spawn = item.op == EntityOp::kSpawned;
    has_body = has_body || (spawn ? item.send : item.op != EntityOp::kUnchanged);
    held += (spawn ? item.send : item.op != EntityOp::kRemoved) ? 1U : 0U;
  }
  view.reserve(held);

  SnapshotHeader h;
  h.has_baseline = base != nullptr;
  if (base != nullptr) {
    h.baseline_low = static_cast<std::uint16_t>(base->tick().value() & 0xFFFFU);
    h.age = static_cast<std::uint32_t>(tick - base->tick());
    h.has_reference = ref != nullptr;
    if (ref != nullptr) h.reference_gap = static_cast<std::uint32_t>(base->tick() - ref->tick());
    h.has_reference2 = ref2 != nullptr;
    if (ref2 != nullptr) h.reference2_gap = static_cast<std::uint32_t>(ref->tick() - ref2->tick());
  } else {
    h.tick = tick.value();
  }
  h.has_body = has_body;
  const bool book = in.adaptive && in.codebook != nullptr;
  if (book && (!shared_ || shared_->tables->codebook() != in.codebook)) {
    throw std::invalid_argument("SnapshotEncoder: the input's codebook is not the one set_codebook was given");
  }
  const bool carried = in.adaptive && !book && base != nullptr && in.inherit_models;  // models from a held state
  h.static_models = !in.adaptive || book;
  h.fresh_models = in.adaptive && !book && base != nullptr && !in.inherit_models;
  const WorldState* models_from = base;
  if (carried && in.models_from != nullptr && in.models_from->tick() < base->tick()) {
    h.models_elsewhere = true;
    h.models_gap = static_cast<std::uint32_t>(base->tick() - in.models_from->tick());
    models_from = in.models_from;
  }
  if (!has_body) h.has_reference = h.has_reference2 = false;
  BitWriter writer(32, std::move(header_));
  serialize(writer, h);
  const auto header = writer.data();
  bytes.assign(header.begin(), header.end());
  header_ = writer.take();  // its buffer, for the next packet

  models_.begin(schema_, book ? in.codebook : (carried ? models_from->models() : nullptr), book);
  masks_.resize(schema_.type_count());
  for (auto& mask : masks_) mask.clear();
  body_.clear();
  RangeEncoder rc(body_, in.adaptive && !book);  // a codebook's models stay as they are
  detail::EncodeIo io{rc, in.adaptive};
  detail::ReferenceCursor cursor(ref, ref2);
  if (book) {
    shared_->bits.clear();
    shared_->motion_keys.resize(schema_.type_count());
    if (in.bits_cache != nullptr) in.bits_cache->begin(&cur, tick, shared_->tables.get());
  }
  // An item's cost: its share of both parts of the body.
  const auto cost_bits = [&] { return rc.cost_bits() + (book ? shared_->bits.size() : 0); };
  std::size_t prev = 0;
  bool any_spawn = false;
  // Entities of one type tend to come in runs: look the type up once a run.
  TypeId run_type{0xFFFF};
  const TypeSpec* type = nullptr;
  TypeModels* type_models = nullptr;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const DeltaItem& item = items[k];
    if (item.base == DeltaItem::kNone) {
      any_spawn = any_spawn || (item.op == EntityOp::kSpawned && item.send);
      continue;
    }
    const EntityState& b = base->entities()[item.base];
    if (b.type != run_type) {
      run_type = b.type;
      type = &schema_.type(b.type);
      type_models = nullptr;
    }
    const std::uint16_t stride = type->stride();
    EntityOp op = item.op;
    if (op == EntityOp::kChanged && !item.send) op = EntityOp::kSkipped;
    const std::uint64_t before = item_bits != nullptr ? cost_bits() : 0;
    if (has_body) encode_op(rc, models_.ops, prev, op);
    prev = op_index(op);
    switch (op) {
      case EntityOp::kUnchanged: {
        // Same codes as the current state's: refresh the update tick.
        EntityState e = b;
        e.updated = tick;
        keep_current(e, cur.entities()[item.current], stride);
        break;
      }
      case EntityOp::kSkipped:
        if (in.shared != nullptr && base->shared() == in.shared && (b.offset & EntityState::kOwnCodes) == 0 &&
            !(b.updated < in.shared_from)) {
          view.append_shared(b);
        } else {
          view.append_copy(b, base->code_data(b), stride);
        }
        break;
      case EntityOp::kChanged: {
        const EntityState& c = cur.entities()[item.current];
        EntityState e = b;
        e.updated = tick;
        std::uint32_t* codes = keep_current(e, c, stride);
        if (type_models == nullptr) type_models = &models_.type(schema_, b.type);
        const std::uint8_t* motion = nullptr;
        if (ref != nullptr) {
          // The type's motion choices go before its first changed entity.
          std::vector<std::uint8_t>& mask = masks_[b.type.value];
          if (mask.empty()) {
            const auto* chosen = in.motion_choice != nullptr && b.type.value < in.motion_choice->size()
                                     ? &(*in.motion_choice)[b.type.value]
                                     : nullptr;
            if (chosen != nullptr && chosen->size() == stride) mask = *chosen;
            detail::code_motion_choice(io, *type, *type_models, mask);
            if (book) {
              std::uint64_t key = stride < 64 ? 0 : detail::SharedScratch::kNoKey;
              for (std::size_t i = 0; i < mask.size() && stride < 64; ++i) {
                if (mask[i] != 0) key |= std::uint64_t{1} << i;
              }
              shared_->motion_keys[b.type.value] = key;
            }
          }
          motion = mask.data();
        }
        if (book) {
          code_shared_entity(in, *type, *type_models, b, item.current, cursor.find(b, tick), codes, motion);
        } else {
          detail::code_changed_entity(io, *type, *type_models, base->code_data(b), cursor.find(b, tick), codes, motion);
        }
        break;
      }
      case EntityOp::kRemoved:
      case EntityOp::kSpawned: break;
    }
    if (item_bits != nullptr) (*item_bits)[k] = static_cast<std::uint32_t>(cost_bits() - before);
  }

  const std::size_t kept = view.size();  // in id order; spawns follow, in id order too
  if (has_body) {
    std::uint32_t count = 0;
    for (const DeltaItem& item : items) count += (item.op == EntityOp::kSpawned && item.send) ? 1U : 0U;
    encode_magnitude(rc, models_.spawn_count, count + 1, kMaxExponent);
    const int type_bits = detail::spawn_type_bits(schema_.type_count());
    std::uint32_t next_min = 0;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const DeltaItem& item = items[k];
      if (item.op != EntityOp::kSpawned || !item.send) continue;
      const std::uint64_t before = item_bits != nullptr ? cost_bits() : 0;
      const EntityState& c = cur.entities()[item.current];
      const TypeSpec& spec = schema_.type(c.type);
      encode_magnitude(rc, models_.spawn_gap, c.id.value - next_min + 1, kMaxExponent);
      next_min = c.id.value + 1;
      rc.direct(c.type.value, type_bits);
      encode_magnitude(rc, models_.spawn_generation, std::uint32_t{c.generation} + 1U, kMaxExponent);
      std::uint32_t* codes = keep_current(EntityState{c.id, c.type, c.generation, tick, 0}, c, spec.stride());
      if (book) {
        detail::PrefixRawWriter raw{shared_->bits};
        detail::code_spawned_entity(raw, spec, codes);
      } else {
        detail::code_spawned_entity(io, spec, codes);
      }
      if (item_bits != nullptr) (*item_bits)[k] = static_cast<std::uint32_t>(cost_bits() - before);
    }
    rc.finish();
    if (book) {
      // The prefix-coded part first, after its length in bytes (LEB128),
      // then the range coder's.
      for (std::size_t n = (shared_->bits.size() + 7) / 8;; n >>= 7) {
        bytes.push_back(static_cast<std::uint8_t>((n & 0x7FU) | (n >= 0x80 ? 0x80U : 0U)));
        if (n < 0x80) break;
      }
      shared_->bits.append_bytes_to(bytes);
    }
    bytes.insert(bytes.end(), body_.begin(), body_.end());
  }
  if (any_spawn) view.merge_appended(kept);
  if (in.adaptive && !book) {
    // A packet without a body leaves the models as its baseline had them.
    view.set_models(has_body ? models_.publish() : (base != nullptr ? base->shared_models() : nullptr));
  }
}

std::uint64_t SnapshotEncoder::estimate_residual_bits(const EncodeInput& in, std::span<const DeltaItem> items,
                                                      std::size_t max_entities, PredictionCosts* costs) const {
  if (in.baseline == nullptr) return 0;
  if (costs != nullptr) {
    costs->motion.resize(schema_.type_count());
    costs->hold.resize(schema_.type_count());
    for (std::size_t t = 0; t < schema_.type_count(); ++t) {
      const std::size_t stride = schema_.types()[t].stride();
      costs->motion[t].assign(stride, 0);
      costs->hold[t].assign(stride, 0);
    }
  }
  std::size_t changed = 0;
  for (const DeltaItem& item : items) changed += item.op == EntityOp::kChanged ? 1 : 0;
  const std::size_t every = changed > max_entities && max_entities > 0 ? changed / max_entities : 1;
  detail::ReferenceCursor cursor(in.reference, in.reference2);
  const Tick tick = in.current->tick();
  std::uint64_t bits = 0;
  std::size_t seen = 0;
  auto cost = [](std::int64_t r) {
    return 2 * static_cast<std::uint64_t>(std::bit_width(static_cast<std::uint64_t>(r < 0 ? -r : r))) + 1;
  };
  for (const DeltaItem& item : items) {
    if (item.op != EntityOp::kChanged || (seen++ % every) != 0) continue;
    const EntityState& b = in.baseline->entities()[item.base];
    const EntityState& c = in.current->entities()[item.current];
    const TypeSpec& type = schema_.type(b.type);
    const std::uint32_t* base = in.baseline->code_data(b);
    const std::uint32_t* codes = in.current->code_data(c);
    const detail::MotionContext& m = cursor.find(b, tick);
    const std::vector<std::uint8_t>* choice = in.motion_choice != nullptr && b.type.value < in.motion_choice->size()
                                                  ? &(*in.motion_choice)[b.type.value]
                                                  : nullptr;
    auto moves = [&](std::size_t i) { return choice == nullptr || i >= choice->size() || (*choice)[i] != 0; };
    for (const FieldSpec& f : type.fields) {
      const std::size_t o = f.offset;
      if (f.kind == FieldKind::kQuat) {
        const std::uint32_t steps = type.components[o + 1].max_code;
        const std::uint32_t* q = codes + o;
        std::uint32_t held[3] = {base[o + 1], base[o + 2], base[o + 3]};
        if (q[0] != base[o]) codes_in_frame(fixed_from_codes(base + o, steps), static_cast<int>(q[0]), steps, held);
        std::uint32_t extrapolated[3] = {held[0], held[1], held[2]};
        if (m.ref != nullptr && type.components[o].motion) {
          const FixedQuat p =
              extrapolate(fixed_from_codes(base + o, steps), fixed_from_codes(m.ref + o, steps), m.num, m.den);
          codes_in_frame(p, static_cast<int>(q[0]), steps, extrapolated);
        }
        std::uint64_t with_motion = 0;
        std::uint64_t with_hold = 0;
        for (std::size_t k = 0; k < 3; ++k) {
          with_motion += cost(static_cast<std::int64_t>(q[k + 1]) - extrapolated[k]);
          with_hold += cost(static_cast<std::int64_t>(q[k + 1]) - held[k]);
        }
        bits += moves(o) ? with_motion : with_hold;
        if (costs != nullptr) {
          costs->motion[b.type.value][o] += with_motion;
          costs->hold[b.type.value][o] += with_hold;
        }
        continue;
      }
      for (std::size_t i = o; i < o + f.count; ++i) {
        const ComponentSpec& spec = type.components[i];
        if (spec.max_code == 0) continue;
        const std::int64_t modulus = std::int64_t{spec.max_code} + 1;
        std::int64_t with_motion =
            static_cast<std::int64_t>(codes[i]) - detail::predicted(spec, base, m, i, m.ref != nullptr);
        std::int64_t with_hold = static_cast<std::int64_t>(codes[i]) - base[i];
        if (spec.wraps) {
          with_motion = wrap_signed(with_motion, modulus);
          with_hold = wrap_signed(with_hold, modulus);
        }
        bits += cost(moves(i) ? with_motion : with_hold);
        if (costs != nullptr) {
          costs->motion[b.type.value][i] += cost(with_motion);
          costs->hold[b.type.value][i] += cost(with_hold);
        }
      }
    }
  }
  return bits;
}

}  // namespace tickwire::snapshot
