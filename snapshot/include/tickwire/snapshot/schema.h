#pragma once
// The entity schema: the types a game networks and their fields, declared
// once at start-up in plain C++. Each field says its range and precision
// (so it quantizes to a known number of steps), how it interpolates, and
// whether its changes are predicted from recent motion when delta-encoded.
//
//   SchemaBuilder builder;
//   TypeBuilder ship = builder.entity_type("ship");
//   Field<Vec3> position = ship.add_vec3("position", {-500, -50, -500}, {500, 50, 500}, 0.01F);
//   Field<Quat> rotation = ship.add_quat("rotation", 0.001F);
//   Field<std::int32_t> health = ship.add_int("health", 0, 100);
//   Schema schema = builder.build();
//
// Registration errors (empty or duplicate names, empty ranges, a precision
// finer than a float can hold over its range) throw std::invalid_argument:
// a schema is built from constants, so a bad one is a programming error.
// Schema::hash() is stable across runs and platforms and belongs in the
// handshake fingerprint: two builds with different schemas would misread
// each other's snapshots.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tickwire/snapshot/field_value.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/math.h"

namespace tickwire::snapshot {

enum class FieldKind : std::uint8_t {
  kFloat,
  kInt,
  kBool,
  kEnum,
  kAngle,  // radians, wrapping, 2^bits steps per turn
  kVec2,
  kVec3,
  kQuat,  // "smallest three": the index of the largest component and the other three
  kFloatArray,
  kIntArray,
};

const char* to_string(FieldKind kind);

enum class Interpolation : std::uint8_t {
  kLinear,   // straight line between snapshots
  kAngular,  // shortest arc: angles wrap, quaternions slerp
  kStep,     // holds the older value until the newer snapshot's tick
  // An integer the game bumps whenever the entity jumps (respawn,
  // teleport); steps like kStep. Where it differs between two states, the
  // whole entity is not blended between them: it shows the older state
  // until the newer one's tick and is never extrapolated across the jump,
  // so a client never draws it sliding between its old spot and the new.
  kTeleportCounter,
};

// How the delta encoder guesses a field's new value before coding the
// difference. kAuto predicts from motion for fields that interpolate
// (positions, angles: things that move) and holds the last value for step
// fields (counters, states: things that jump). kAcceleration fits a
// parabola through three earlier states instead of a line through two: for
// fields that follow steady acceleration, like a projectile under gravity.
// It amplifies quantization noise, so it loses on anything else.
enum class Prediction : std::uint8_t { kAuto, kHold, kMotion, kAcceleration };

// How one slot of an entity maps to one integer code on the wire.
enum class CodeKind : std::uint8_t {
  kFloat,      // bounded float: steps over [min, max]
  kInt,        // integer, bool or enum: value - int_min
  kAngle,      // 2^bits steps per turn, arithmetic modulo 2^bits
  kQuatIndex,  // index of a quaternion's largest component (0..3)
  kQuatValue,  // one of the other three, steps over [-1/sqrt 2, 1/sqrt 2]
};

struct ComponentSpec {
  CodeKind kind = CodeKind::kInt;
  bool wraps = false;          // residuals are taken modulo max_code + 1
  bool motion = false;         // predicted from motion when delta-encoded
  bool second_order = false;   // ... from acceleration (Prediction::kAcceleration)
  std::uint8_t bits = 0;       // bits to send a code raw
  std::uint32_t max_code = 0;  // codes lie in [0, max_code]
  float min = 0.0F;            // kFloat, kQuatValue
  float max = 0.0F;
  std::int32_t int_min = 0;        // kInt
  std::uint32_t default_slot = 0;  // the slot of a newly spawned entity
};

struct FieldSpec {
  std::string name;
  FieldKind kind = FieldKind::kFloat;
  Interpolation interpolation = Interpolation::kLinear;
  Prediction prediction = Prediction::kAuto;
  std::uint16_t offset = 0;  // first slot (and code) of the field in its entity
  std::uint16_t count = 0;   // slots (and codes) it occupies
};

enum class TypeRole : std::uint8_t {
  kEntity,  // lives in a World and in snapshots
  kRecord,  // sent whole (a game's input): see record.h
};

struct TypeSpec {
  std::string name;
  TypeRole role = TypeRole::kEntity;
  float priority = 1.0F;  // relative send priority under a tight budget
  std::vector<FieldSpec> fields;
  std::vector<ComponentSpec> components;  // one per slot
  std::uint16_t stride() const { return static_cast<std::uint16_t>(components.size()); }
};

// A typed handle to one field of one type, returned at registration and
// used with World::get and World::set. Default-constructed handles are
// invalid and rejected by every accessor.
template <class T>
class Field {
 public:
  Field() = default;
  TypeId type() const { return type_; }
  std::uint16_t index() const { return index_; }
  std::uint16_t offset() const { return offset_; }
  bool valid() const { return valid_; }

 private:
  friend class TypeBuilder;
  Field(TypeId type, std::uint16_t index, std::uint16_t offset)
      : type_(type), index_(index), offset_(offset), valid_(true) {}
  TypeId type_;
  std::uint16_t index_ = 0;
  std::uint16_t offset_ = 0;
  bool valid_ = false;
};

class Schema {
 public:
  // A schema with no types (what a default World or receiver would use).
  Schema();

  std::size_t type_count() const { return data_->types.size(); }
  bool has_type(TypeId type) const { return type.value < data_->types.size(); }
  // Throws std::out_of_range for an unknown type.
  const TypeSpec& type(TypeId type) const {
    if (!has_type(type)) throw_unknown_type(type);
    return data_->types[type.value];
  }
  std::span<const TypeSpec> types() const { return data_->types; }
  std::optional<TypeId> find_type(std::string_view name) const;
  std::uint16_t max_stride() const { return data_->max_stride; }
  // FNV-1a over a canonical description of every type and field.
  std::uint64_t hash() const { return data_->hash; }

 private:
  friend class SchemaBuilder;
  struct Data {
    std::vector<TypeSpec> types;
    std::uint64_t hash = 0;
    std::uint16_t max_stride = 0;
  };
  explicit Schema(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  [[noreturn]] static void throw_unknown_type(TypeId type);
  std::shared_ptr<const Data> data_;
};

class SchemaBuilder;

// Adds fields to one type. Holds a pointer to its builder, which must
// outlive it (both are start-up locals in practice).
class TypeBuilder {
 public:
  TypeId id() const { return id_; }
  // Higher is sent sooner when a client's budget is tight; must be > 0.
  TypeBuilder& priority(float value);

  // A float in [min, max], sent in steps no wider than precision.
  Field<float> add_float(std::string name, float min, float max, float precision,
                         Interpolation interpolation = Interpolation::kLinear,
                         Prediction prediction = Prediction::kAuto);
  Field<std::int32_t> add_int(std::string name, std::int32_t min, std::int32_t max,
                              Interpolation interpolation = Interpolation::kStep,
                              Prediction prediction = Prediction::kAuto);
  Field<bool> add_bool(std::string name);
  // Values 0..count-1 of an enum class; always steps.
  template <class E>
  Field<E> add_enum(std::string name, std::uint32_t count) {
    static_assert(std::is_enum_v<E>, "add_enum needs an enum type");
    return make<E>(add_enum_field(std::move(name), count));
  }
  // An angle in radians with 2^bits steps per turn (bits in [2, 20]); reads
  // back in [-pi, pi). Residuals and interpolation take the short way round.
  Field<float> add_angle(std::string name, int bits, Interpolation interpolation = Interpolation::kAngular,
                         Prediction prediction = Prediction::kAuto);
  Field<Vec2> add_vec2(std::string name, Vec2 min, Vec2 max, float precision,
                       Interpolation interpolation = Interpolation::kLinear, Prediction prediction = Prediction::kAuto);
  Field<Vec3> add_vec3(std::string name, Vec3 min, Vec3 max, float precision,
                       Interpolation interpolation = Interpolation::kLinear, Prediction prediction = Prediction::kAuto);
  // A rotation as "smallest three": each of the three smaller components in
  // steps no wider than precision over [-1/sqrt 2, 1/sqrt 2].
  Field<Quat> add_quat(std::string name, float precision, Interpolation interpolation = Interpolation::kAngular,
                       Prediction prediction = Prediction::kAuto);
  // The same with an explicit bit count per component (2..20).
  Field<Quat> add_quat_bits(std::string name, int bits_per_component,
                            Interpolation interpolation = Interpolation::kAngular,
                            Prediction prediction = Prediction::kAuto);
  template <std::size_t N>
  Field<std::array<float, N>> add_float_array(std::string name, float min, float max, float precision,
                                              Interpolation interpolation = Interpolation::kLinear,
                                              Prediction prediction = Prediction::kAuto) {
    return make<std::array<float, N>>(
        add_float_array_field(std::move(name), N, min, max, precision, interpolation, prediction));
  }
  template <std::size_t N>
  Field<std::array<std::int32_t, N>> add_int_array(std::string name, std::int32_t min, std::int32_t max,
                                                   Interpolation interpolation = Interpolation::kStep,
                                                   Prediction prediction = Prediction::kAuto) {
    return make<std::array<std::int32_t, N>>(
        add_int_array_field(std::move(name), N, min, max, interpolation, prediction));
  }

 private:
  friend class SchemaBuilder;
  struct Added {
    std::uint16_t index;
    std::uint16_t offset;
  };
  TypeBuilder(SchemaBuilder& builder, TypeId id) : builder_(&builder), id_(id) {}
  template <class T>
  Field<T> make(Added a) const {
    return Field<T>(id_, a.index, a.offset);
  }
  Added add_enum_field(std::string name, std::uint32_t count);
  Added add_float_array_field(std::string name, std::size_t n, float min, float max, float precision,
                              Interpolation interpolation, Prediction prediction);
  Added add_int_array_field(std::string name, std::size_t n, std::int32_t min, std::int32_t max,
                            Interpolation interpolation, Prediction prediction);
  Added add(FieldSpec field, std::vector<ComponentSpec> components);

  SchemaBuilder* builder_;
  TypeId id_;
};

class SchemaBuilder {
 public:
  static constexpr std::size_t kMaxTypes = 1024;
  static constexpr std::size_t kMaxStride = 1024;  // slots per type

  TypeBuilder entity_type(std::string name);
  // A type that never lives in a World, sent whole with serialize_record
  // (a game's input type, for example).
  TypeBuilder record_type(std::string name);
  // Validates and freezes; the builder may keep adding afterwards, and a
  // later build() includes everything.
  Schema build() const;

 private:
  friend class TypeBuilder;
  TypeBuilder add_type(std::string name, TypeRole role);
  std::vector<TypeSpec> types_;
};

}  // namespace tickwire::snapshot
