#pragma once
// Coding of one changed entity, written once for both directions: the
// encoder passes its codes in (and never writes them: they may be a shared
// capture other threads read), the decoder gets them out, and both make the
// same predictions from the same baseline and reference codes. (The
// snapshot counterpart of the serialize(Stream&) idiom of core/.)
// Private to the snapshot library.

#include <bit>
#include <cstdint>
#include <span>

#include "tickwire/core/tick.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/motion_predict.h"
#include "tickwire/snapshot/range_coder.h"
#include "tickwire/snapshot/residual_code.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot::detail {

struct EncodeIo {
  static constexpr bool kDecoding = false;
  static constexpr bool kRangeCoded = true;
  RangeEncoder& rc;
  bool flag(BitModel& m, bool& b) {
    rc.bit(m, b);
    return true;
  }
  bool raw(std::uint32_t& v, int bits) {
    rc.direct(v, bits);
    return true;
  }
  bool adaptive = true;
  bool residual(ResidualModelRef m, std::int64_t& r, int max_exponent, std::uint64_t /*max_magnitude*/) {
    if (adaptive) {
      encode_residual(rc, m, r, max_exponent);
    } else {
      encode_residual_fixed(rc, r, max_exponent);
    }
    return true;
  }
};

struct DecodeIo {
  static constexpr bool kDecoding = true;
  static constexpr bool kRangeCoded = true;
  RangeDecoder& rc;
  bool adaptive = true;
  const char* failure = nullptr;  // set with the first rejection
  bool flag(BitModel& m, bool& b) {
    b = rc.bit(m);
    return true;
  }
  bool raw(std::uint32_t& v, int bits) {
    v = rc.direct(bits);
    return true;
  }
  bool residual(ResidualModelRef m, std::int64_t& r, int max_exponent, std::uint64_t max_magnitude) {
    r = adaptive ? decode_residual(rc, m, max_exponent) : decode_residual_fixed(rc, max_exponent);
    return checked(r, max_magnitude);
  }
  // An adaptive residual whose zero flag was read already and said no.
  bool nonzero_residual(ResidualModelRef m, std::int64_t& r, int max_exponent, std::uint64_t max_magnitude) {
    r = decode_nonzero_residual(rc, m, max_exponent);
    return checked(r, max_magnitude);
  }
  bool checked(std::int64_t r, std::uint64_t max_magnitude) {
    const std::uint64_t mag = static_cast<std::uint64_t>(r < 0 ? -r : r);
    if (mag > max_magnitude) return fail("residual larger than its field's range");
    return true;
  }
  bool fail(const char* why) {
    if (failure == nullptr) failure = why;
    return false;
  }
};

// What the motion predictor knows about one entity: the reference codes
// (null when there is no usable reference) and the factors from the tick
// distances; num and den are kept for quaternions.
struct MotionContext {
  const std::uint32_t* ref = nullptr;
  const std::uint32_t* ref2 = nullptr;  // second reference, for second order
  // The ticks the references' values are from (with ref, ref2): with the
  // baseline's, they name the values a prediction is made from.
  Tick ref_tick{};
  Tick ref2_tick{};
  std::int64_t num = 0;  // snapshot tick - baseline's update tick
  std::int64_t den = 0;  // baseline's update tick - reference's
  MotionFactors factors;
};

// The decoded value from its prediction and residual, checked.
template <class Io>
bool store_decoded(Io& io, const ComponentSpec& c, std::uint32_t pred, std::int64_t r, std::uint32_t& value) {
  std::int64_t v = static_cast<std::int64_t>(pred) + r;
  if (c.wraps) {
    v = wrap_unsigned(v, std::int64_t{c.max_code} + 1);
  } else if (v < 0 || v > static_cast<std::int64_t>(c.max_code)) {
    return io.fail("decoded value outside its field's range");
  }
  value = static_cast<std::uint32_t>(v);
  return true;
}

// Everything but a zero residual (and, decoding, with kZeroFlagRead, the
// adaptive zero flag already read as no); out of line, so that the common
// case below inlines into the entity loops without this frame.
template <class Io, bool kZeroFlagRead = false>
[[gnu::noinline]] bool code_value_full(Io& io, ResidualModelRef model, const ComponentSpec& c, std::uint32_t pred,
                                       std::uint32_t& value, int& context) {
  std::int64_t r = 0;
  if constexpr (!Io::kDecoding) {
    r = static_cast<std::int64_t>(value) - static_cast<std::int64_t>(pred);
    if (c.wraps) r = wrap_signed(r, std::int64_t{c.max_code} + 1);
  }
  const std::uint64_t limit = max_magnitude(c);
  if constexpr (kZeroFlagRead) {
    if (!io.nonzero_residual(model, r, max_exponent_for(limit), limit)) return false;
  } else {
    if (!io.residual(model, r, max_exponent_for(limit), limit)) return false;
  }
  if constexpr (Io::kDecoding) {
    if (!store_decoded(io, c, pred, r, value)) return false;
  }
  const int cls = residual_context(r);
  if (cls > context) context = cls;
  return true;
}

template <class Io>
inline bool code_value(Io& io, ResidualModelRef model, const ComponentSpec& c, std::uint32_t pred, std::uint32_t& value,
                       int& context) {
  // Most components of a changed entity sit exactly on their prediction:
  // one decision, with none of the rest (context 0 never raises the
  // context).
  if constexpr (!Io::kRangeCoded) {
    // The prefix coders hold each decision's outcome already.
    if constexpr (Io::kDecoding) {
      if (io.take_zero()) {
        // A prediction always lies in the field's range (a baseline's
        // codes were checked as they arrived, and motion wraps or clamps
        // into the range), so the value needs no check.
        value = pred;
        return true;
      }
      // One call for the rest: the prefix coders keep their context
      // themselves, so `context` (the range coder's) is not theirs.
      return io.nonzero_value(c, pred, value);
    } else if (value == pred) {
      io.zero();
      return true;
    }
  } else {
    if (io.adaptive) {
      if constexpr (Io::kDecoding) {
        if (!io.rc.bit(*model.zero)) return code_value_full<Io, true>(io, model, c, pred, value, context);
        value = pred;  // in range, as above
        return true;
      } else {
        if (value == pred) {
          io.rc.bit(*model.zero, true);
          return true;
        }
      }
    }
  }
  return code_value_full(io, model, c, pred, value, context);
}

template <class Io>
bool code_quat(Io& io, std::span<const ComponentSpec> cs, TypeModels& models, std::size_t first,
               const std::uint32_t* base, const std::uint32_t* ref, std::int64_t num, std::int64_t den,
               std::uint32_t* codes, int& context) {
  const std::uint32_t steps = cs[1].max_code;
  const bool motion = ref != nullptr && cs[0].motion;
  FixedQuat predicted;
  std::uint32_t predicted_index = base[0];
  if (motion) {
    predicted = extrapolate(fixed_from_codes(base, steps), fixed_from_codes(ref, steps), num, den);
    predicted_index = static_cast<std::uint32_t>(largest_index(predicted));
  }
  std::uint32_t index = codes[0];
  bool same = index == predicted_index;
  if (!io.flag(models.component(first).same_index(), same)) return false;
  if (same) {
    index = predicted_index;
  } else if (!io.raw(index, 2)) {
    return false;
  }
  std::uint32_t pred[3] = {base[1], base[2], base[3]};
  if (motion || index != base[0]) {
    if (!motion) predicted = fixed_from_codes(base, steps);
    codes_in_frame(predicted, static_cast<int>(index), steps, pred);
  }
  if constexpr (Io::kDecoding) codes[0] = index;
  for (std::size_t k = 0; k < 3; ++k) {
    if (!code_value(io, models.component(first + 1 + k).residual(context), cs[1 + k], pred[k], codes[1 + k], context)) {
      return false;
    }
  }
  return true;
}

// Component i's prediction: from motion when the entity has a reference
// (`has_reference`, m.ref != nullptr, which a caller coding many components
// reads once) and motion prediction is on for it (`motion`, may be null),
// otherwise the baseline's code.
[[gnu::always_inline]] inline std::uint32_t predicted(const ComponentSpec& c, const std::uint32_t* base,
                                                      const MotionContext& m, std::size_t i, bool has_reference,
                                                      const std::uint8_t* motion = nullptr) {
  if (has_reference && c.motion && (motion == nullptr || motion[i] != 0)) {
    return predict_code(base[i], m.ref[i], m.ref2 != nullptr ? m.ref2 + i : nullptr, c.wraps, c.max_code, m.factors,
                        c.second_order);
  }
  return base[i];
}

// The packet's choice, per motion field of a type, of predicting from
// motion or holding: sent before the type's first changed entity.
template <class Io>
bool code_motion_choice(Io& io, const TypeSpec& type, TypeModels& models, std::vector<std::uint8_t>& mask) {
  mask.resize(type.components.size(), 1);
  for (const FieldSpec& f : type.fields) {
    const std::size_t first = f.offset;
    const std::size_t last = f.kind == FieldKind::kQuat ? first + 1 : first + f.count;
    for (std::size_t i = first; i < last; ++i) {
      if (!type.components[i].motion || type.components[i].max_code == 0) continue;
      bool use = mask[i] != 0;
      if (!io.flag(models.component(i).motion(), use)) return false;
      mask[i] = use ? 1 : 0;
    }
  }
  return true;
}

// Residuals of every field of a changed entity against its prediction;
// `motion` (per component, may be null) turns motion prediction off.
template <class Io>
bool code_changed_entity(Io& io, const TypeSpec& type, TypeModels& models, const std::uint32_t* base,
                         const MotionContext& m, std::uint32_t* codes, const std::uint8_t* motion = nullptr) {
  int context = 0;
  // Locals for what every component reads: through the references the
  // compiler would reload them after each call a residual makes.
  const ComponentSpec* const components = type.components.data();
  const bool has_reference = m.ref != nullptr;
  for (const FieldSpec& f : type.fields) {
    const std::size_t first = f.offset;
    if (f.kind == FieldKind::kQuat) {
      const bool moves = has_reference && (motion == nullptr || motion[first] != 0);
      if (!code_quat(io, std::span(type.components).subspan(first, 4), models, first, base + first,
                     moves ? m.ref + first : nullptr, m.num, m.den, codes + first, context)) {
        return false;
      }
      continue;
    }
    const std::size_t end = first + f.count;
    for (std::size_t i = first; i < end; ++i) {
      const ComponentSpec& c = components[i];
      if (c.max_code == 0) {  // a one-value range carries nothing
        if constexpr (Io::kDecoding) codes[i] = 0;
        continue;
      }
      const std::uint32_t pred = predicted(c, base, m, i, has_reference, motion);
      // The prefix coders' codes are fixed: they read no model.
      ResidualModelRef model{nullptr, nullptr};
      if constexpr (Io::kRangeCoded) model = models.component(i).residual(context);
      if (!code_value(io, model, c, pred, codes[i], context)) return false;
    }
  }
  return true;
}

// A spawned entity's codes, raw: there is nothing to predict them from.
template <class Io>
bool code_spawned_entity(Io& io, const TypeSpec& type, std::uint32_t* codes) {
  for (std::size_t i = 0; i < type.components.size(); ++i) {
    const ComponentSpec& c = type.components[i];
    if (c.bits == 0) {
      if constexpr (Io::kDecoding) codes[i] = 0;
      continue;
    }
    if (!io.raw(codes[i], c.bits)) return false;
    if constexpr (Io::kDecoding) {
      if (codes[i] > c.max_code) return io.fail("spawned entity's field outside its range");
    }
  }
  return true;
}

}  // namespace tickwire::snapshot::detail
