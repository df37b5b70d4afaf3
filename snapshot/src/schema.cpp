#include "tickwire/snapshot/schema.h"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "tickwire/core/quantize.h"
#include "tickwire/snapshot/field_codec.h"

namespace tickwire::snapshot {

const char* to_string(FieldKind kind) {
  switch (kind) {
    case FieldKind::kFloat: return "float";
    case FieldKind::kInt: return "int";
    case FieldKind::kBool: return "bool";
    case FieldKind::kEnum: return "enum";
    case FieldKind::kAngle: return "angle";
    case FieldKind::kVec2: return "vec2";
    case FieldKind::kVec3: return "vec3";
    case FieldKind::kQuat: return "quat";
    case FieldKind::kFloatArray: return "float array";
    case FieldKind::kIntArray: return "int array";
  }
  return "unknown";
}

namespace {

constexpr std::size_t kMaxArray = 64;

[[noreturn]] void reject(const std::string& field, const std::string& why) {
  throw std::invalid_argument("snapshot schema: field '" + field + "': " + why);
}

bool motion_for(Interpolation interpolation, Prediction prediction) {
  if (prediction == Prediction::kMotion || prediction == Prediction::kAcceleration) return true;
  if (prediction == Prediction::kHold) return false;
  return interpolation != Interpolation::kStep && interpolation != Interpolation::kTeleportCounter;
}

// A bounded float. Besides the checks of core's quantizer, the precision
// must be coarser than a float's resolution at the ends of the range, or
// two codes would read back as the same float and a snapped value would not
// quantize to itself.
ComponentSpec float_component(const std::string& name, float min, float max, float precision, bool motion) {
  const auto q = try_make_quantizer(min, max, precision);
  if (!q) reject(name, "needs finite min < max, precision > 0 and at most 2^32 - 1 steps");
  const std::uint32_t steps = q->steps();
  const double step = (static_cast<double>(max) - static_cast<double>(min)) / static_cast<double>(steps);
  const float edge = std::fmax(std::fabs(min), std::fabs(max));
  const double ulp = static_cast<double>(std::nextafter(edge, std::numeric_limits<float>::infinity()) - edge);
  if (ulp > step / 4.0) reject(name, "precision is finer than a float can hold over this range");
  ComponentSpec c;
  c.kind = CodeKind::kFloat;
  c.motion = motion;
  c.max_code = steps;
  c.bits = static_cast<std::uint8_t>(bits_required(steps));
  c.min = min;
  c.max = max;
  const float zero = min > 0.0F ? min : (max < 0.0F ? max : 0.0F);
  c.default_slot = float_slot(dequantize_float(quantize_float(zero, min, max, steps), min, max, steps));
  return c;
}

ComponentSpec int_component(const std::string& name, std::int32_t min, std::int32_t max, bool motion) {
  if (min > max) reject(name, "integer range has min > max");
  ComponentSpec c;
  c.kind = CodeKind::kInt;
  c.motion = motion;
  c.max_code = static_cast<std::uint32_t>(static_cast<std::int64_t>(max) - static_cast<std::int64_t>(min));
  c.bits = static_cast<std::uint8_t>(bits_required(c.max_code));
  c.int_min = min;
  c.default_slot = int_slot(min > 0 ? min : (max < 0 ? max : 0));
  return c;
}

void check_name(const TypeSpec& type, const std::string& name) {
  if (name.empty()) throw std::invalid_argument("snapshot schema: type '" + type.name + "' has a field with no name");
  for (const FieldSpec& f : type.fields) {
    if (f.name == name)
      throw std::invalid_argument("snapshot schema: type '" + type.name + "' has two fields named '" + name + "'");
  }
}

// FNV-1a, 64 bits: fixed constants and byte order, so the hash is the same
// on every platform and in every build.
class Fnv {
 public:
  void byte(std::uint8_t b) {
    h_ ^= b;
    h_ *= 0x100000001b3ULL;
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    for (char ch : s) byte(static_cast<std::uint8_t>(ch));
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace

Schema::Schema() : data_(std::make_shared<const Data>()) {}

void Schema::throw_unknown_type(TypeId type) {
  throw std::out_of_range("snapshot schema: unknown type id " + std::to_string(type.value));
}

std::optional<TypeId> Schema::find_type(std::string_view name) const {
  for (std::size_t i = 0; i < data_->types.size(); ++i) {
    if (data_->types[i].name == name) return TypeId{static_cast<std::uint16_t>(i)};
  }
  return std::nullopt;
}

TypeBuilder SchemaBuilder::entity_type(std::string name) { return add_type(std::move(name), TypeRole::kEntity); }
TypeBuilder SchemaBuilder::record_type(std::string name) { return add_type(std::move(name), TypeRole::kRecord); }

TypeBuilder SchemaBuilder::add_type(std::string name, TypeRole role) {
  if (name.empty()) throw std::invalid_argument("snapshot schema: a type needs a name");
  for (const TypeSpec& t : types_) {
    if (t.name == name) throw std::invalid_argument("snapshot schema: two types named '" + name + "'");
  }
  if (types_.size() >= kMaxTypes) throw std::invalid_argument("snapshot schema: more than 1024 types");
  TypeSpec spec;
  spec.name = std::move(name);
  spec.role = role;
  types_.push_back(std::move(spec));
  return TypeBuilder(*this, TypeId{static_cast<std::uint16_t>(types_.size() - 1)});
}

Schema SchemaBuilder::build() const {
  auto data = std::make_shared<Schema::Data>();
  data->types = types_;
  Fnv h;
  h.u32(static_cast<std::uint32_t>(types_.size()));
  for (const TypeSpec& t : types_) {
    if (t.stride() > data->max_stride) data->max_stride = t.stride();
    h.str(t.name);
    h.byte(static_cast<std::uint8_t>(t.role));
    h.u32(static_cast<std::uint32_t>(t.fields.size()));
    for (const FieldSpec& f : t.fields) {
      h.str(f.name);
      h.byte(static_cast<std::uint8_t>(f.kind));
      h.byte(static_cast<std::uint8_t>(f.interpolation));
      h.byte(static_cast<std::uint8_t>(f.prediction));
      h.u32(f.count);
    }
    for (const ComponentSpec& c : t.components) {
      h.byte(static_cast<std::uint8_t>(c.kind));
      h.byte(static_cast<std::uint8_t>((c.wraps ? 1 : 0) | (c.motion ? 2 : 0) | (c.second_order ? 4 : 0)));
      h.u32(c.max_code);
      h.f32(c.min);
      h.f32(c.max);
      h.u32(static_cast<std::uint32_t>(c.int_min));
    }
    // Priority is the sender's local policy, not part of the wire contract.
  }
  data->hash = h.value();
  return Schema(std::move(data));
}

TypeBuilder& TypeBuilder::priority(float value) {
  if (!(value > 0.0F) || !std::isfinite(value))
    throw std::invalid_argument("snapshot schema: priority must be finite and > 0");
  builder_->types_[id_.value].priority = value;
  return *this;
}

TypeBuilder::Added TypeBuilder::add(FieldSpec field, std::vector<ComponentSpec> components) {
  TypeSpec& type = builder_->types_[id_.value];
  check_name(type, field.name);
  if (field.interpolation == Interpolation::kTeleportCounter && field.kind != FieldKind::kInt) {
    reject(field.name, "only an integer field counts teleports");
  }
  if (field.prediction == Prediction::kAcceleration) {
    if (field.kind == FieldKind::kQuat)
      reject(field.name, "rotations predict from angular velocity; kAcceleration does not apply");
    for (ComponentSpec& c : components) c.second_order = c.motion;
  }
  if (type.components.size() + components.size() > SchemaBuilder::kMaxStride) {
    reject(field.name, "type '" + type.name + "' would exceed 1024 slots");
  }
  field.offset = static_cast<std::uint16_t>(type.components.size());
  field.count = static_cast<std::uint16_t>(components.size());
  type.components.insert(type.components.end(), components.begin(), components.end());
  type.fields.push_back(std::move(field));
  return {static_cast<std::uint16_t>(type.fields.size() - 1), type.fields.back().offset};
}

Field<float> TypeBuilder::add_float(std::string name, float min, float max, float precision,
                                    Interpolation interpolation, Prediction prediction) {
  auto c = float_component(name, min, max, precision, motion_for(interpolation, prediction));
  return make<float>(add({std::move(name), FieldKind::kFloat, interpolation, prediction, 0, 0}, {c}));
}

Field<std::int32_t> TypeBuilder::add_int(std::string name, std::int32_t min, std::int32_t max,
                                         Interpolation interpolation, Prediction prediction) {
  if (interpolation == Interpolation::kAngular) reject(name, "integers interpolate linearly or in steps");
  auto c = int_component(name, min, max, motion_for(interpolation, prediction));
  return make<std::int32_t>(add({std::move(name), FieldKind::kInt, interpolation, prediction, 0, 0}, {c}));
}

Field<bool> TypeBuilder::add_bool(std::string name) {
  auto c = int_component(name, 0, 1, false);
  return make<bool>(add({std::move(name), FieldKind::kBool, Interpolation::kStep, Prediction::kHold, 0, 0}, {c}));
}

TypeBuilder::Added TypeBuilder::add_enum_field(std::string name, std::uint32_t count) {
  if (count == 0 || count > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
    reject(name, "an enum needs between 1 and 2^31 - 1 values");
  }
  auto c = int_component(name, 0, static_cast<std::int32_t>(count - 1), false);
  return add({std::move(name), FieldKind::kEnum, Interpolation::kStep, Prediction::kHold, 0, 0}, {c});
}

Field<float> TypeBuilder::add_angle(std::string name, int bits, Interpolation interpolation, Prediction prediction) {
  // Past 20 bits a float near pi no longer tells neighbouring steps apart.
  if (bits < 2 || bits > 20) reject(name, "an angle needs 2 to 20 bits");
  ComponentSpec c;
  c.kind = CodeKind::kAngle;
  c.wraps = true;
  c.motion = motion_for(interpolation, prediction);
  c.bits = static_cast<std::uint8_t>(bits);
  c.max_code = static_cast<std::uint32_t>((std::uint64_t{1} << bits) - 1);
  c.default_slot = float_slot(0.0F);
  return make<float>(add({std::move(name), FieldKind::kAngle, interpolation, prediction, 0, 0}, {c}));
}

Field<Vec2> TypeBuilder::add_vec2(std::string name, Vec2 min, Vec2 max, float precision, Interpolation interpolation,
                                  Prediction prediction) {
  if (interpolation == Interpolation::kAngular) reject(name, "vectors interpolate linearly or in steps");
  const bool motion = motion_for(interpolation, prediction);
  std::vector<ComponentSpec> cs{float_component(name, min.x, max.x, precision, motion),
                                float_component(name, min.y, max.y, precision, motion)};
  return make<Vec2>(add({std::move(name), FieldKind::kVec2, interpolation, prediction, 0, 0}, std::move(cs)));
}

Field<Vec3> TypeBuilder::add_vec3(std::string name, Vec3 min, Vec3 max, float precision, Interpolation interpolation,
                                  Prediction prediction) {
  if (interpolation == Interpolation::kAngular) reject(name, "vectors interpolate linearly or in steps");
  const bool motion = motion_for(interpolation, prediction);
  std::vector<ComponentSpec> cs{float_component(name, min.x, max.x, precision, motion),
                                float_component(name, min.y, max.y, precision, motion),
                                float_component(name, min.z, max.z, precision, motion)};
  return make<Vec3>(add({std::move(name), FieldKind::kVec3, interpolation, prediction, 0, 0}, std::move(cs)));
}

namespace {

std::vector<ComponentSpec> quat_components(const std::string& name, std::uint32_t steps, bool motion) {
  ComponentSpec index = int_component(name, 0, 3, motion);
  index.kind = CodeKind::kQuatIndex;
  index.default_slot = float_slot(0.0F);
  ComponentSpec value;
  value.kind = CodeKind::kQuatValue;
  value.motion = motion;
  value.max_code = steps;
  value.bits = static_cast<std::uint8_t>(bits_required(steps));
  value.min = -kQuatBound;
  value.max = kQuatBound;
  value.default_slot = float_slot(0.0F);
  std::vector<ComponentSpec> cs{index, value, value, value};
  // Codes are (index, three components) but slots are x, y, z, w, and a
  // new entity holds the identity: w = 1.
  cs[3].default_slot = float_slot(1.0F);
  return cs;
}

}  // namespace

Field<Quat> TypeBuilder::add_quat(std::string name, float precision, Interpolation interpolation,
                                  Prediction prediction) {
  if (interpolation == Interpolation::kLinear) interpolation = Interpolation::kAngular;
  const auto q = try_make_quantizer(-kQuatBound, kQuatBound, precision);
  // A million steps is finer than any float quaternion distinguishes.
  if (!q || q->steps() > (1U << 20) || q->steps() < 3) reject(name, "quaternion precision must give 3 to 2^20 steps");
  auto cs = quat_components(name, q->steps(), motion_for(interpolation, prediction));
  return make<Quat>(add({std::move(name), FieldKind::kQuat, interpolation, prediction, 0, 0}, std::move(cs)));
}

Field<Quat> TypeBuilder::add_quat_bits(std::string name, int bits_per_component, Interpolation interpolation,
                                       Prediction prediction) {
  if (interpolation == Interpolation::kLinear) interpolation = Interpolation::kAngular;
  if (bits_per_component < 2 || bits_per_component > 20) reject(name, "quaternion components need 2 to 20 bits");
  const auto steps = static_cast<std::uint32_t>((1U << bits_per_component) - 1);
  auto cs = quat_components(name, steps, motion_for(interpolation, prediction));
  return make<Quat>(add({std::move(name), FieldKind::kQuat, interpolation, prediction, 0, 0}, std::move(cs)));
}

TypeBuilder::Added TypeBuilder::add_float_array_field(std::string name, std::size_t n, float min, float max,
                                                      float precision, Interpolation interpolation,
                                                      Prediction prediction) {
  if (n == 0 || n > kMaxArray) reject(name, "arrays hold 1 to 64 elements");
  std::vector<ComponentSpec> cs(n, float_component(name, min, max, precision, motion_for(interpolation, prediction)));
  return add({std::move(name), FieldKind::kFloatArray, interpolation, prediction, 0, 0}, std::move(cs));
}

TypeBuilder::Added TypeBuilder::add_int_array_field(std::string name, std::size_t n, std::int32_t min, std::int32_t max,
                                                    Interpolation interpolation, Prediction prediction) {
  if (n == 0 || n > kMaxArray) reject(name, "arrays hold 1 to 64 elements");
  if (interpolation == Interpolation::kAngular) reject(name, "integers interpolate linearly or in steps");
  std::vector<ComponentSpec> cs(n, int_component(name, min, max, motion_for(interpolation, prediction)));
  return add({std::move(name), FieldKind::kIntArray, interpolation, prediction, 0, 0}, std::move(cs));
}

}  // namespace tickwire::snapshot
