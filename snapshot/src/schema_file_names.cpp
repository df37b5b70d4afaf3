#include "schema_file_names.h"

#include <array>
#include <utility>

namespace tickwire::snapshot::schema_file {
namespace {

template <class E, std::size_t N>
using Table = std::array<std::pair<E, const char*>, N>;

constexpr Table<FieldKind, 10> kKinds{{{FieldKind::kFloat, "float"},
                                       {FieldKind::kInt, "int"},
                                       {FieldKind::kBool, "bool"},
                                       {FieldKind::kEnum, "enum"},
                                       {FieldKind::kAngle, "angle"},
                                       {FieldKind::kVec2, "vec2"},
                                       {FieldKind::kVec3, "vec3"},
                                       {FieldKind::kQuat, "quat"},
                                       {FieldKind::kFloatArray, "float_array"},
                                       {FieldKind::kIntArray, "int_array"}}};
constexpr Table<Interpolation, 4> kInterpolations{{{Interpolation::kLinear, "linear"},
                                                   {Interpolation::kAngular, "angular"},
                                                   {Interpolation::kStep, "step"},
                                                   {Interpolation::kTeleportCounter, "teleport_counter"}}};
constexpr Table<Prediction, 4> kPredictions{{{Prediction::kAuto, "auto"},
                                             {Prediction::kHold, "hold"},
                                             {Prediction::kMotion, "motion"},
                                             {Prediction::kAcceleration, "acceleration"}}};
constexpr Table<TypeRole, 2> kRoles{{{TypeRole::kEntity, "entity"}, {TypeRole::kRecord, "record"}}};

template <class E, std::size_t N>
const char* find_name(const Table<E, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "unknown";
}

template <class E, std::size_t N>
std::optional<E> find_value(const Table<E, N>& table, std::string_view word) {
  for (const auto& [e, name] : table) {
    if (word == name) return e;
  }
  return std::nullopt;
}

}  // namespace

const char* name_of(FieldKind kind) { return find_name(kKinds, kind); }
const char* name_of(Interpolation interpolation) { return find_name(kInterpolations, interpolation); }
const char* name_of(Prediction prediction) { return find_name(kPredictions, prediction); }
const char* name_of(TypeRole role) { return find_name(kRoles, role); }

std::optional<FieldKind> field_kind(std::string_view word) { return find_value(kKinds, word); }
std::optional<Interpolation> interpolation(std::string_view word) { return find_value(kInterpolations, word); }
std::optional<Prediction> prediction(std::string_view word) { return find_value(kPredictions, word); }
std::optional<TypeRole> role(std::string_view word) { return find_value(kRoles, word); }

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > SchemaFileLimits::kMaxNameBytes) return false;
  for (const char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace tickwire::snapshot::schema_file
