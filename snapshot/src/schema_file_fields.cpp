// Field lines of a schema file: each kind's words, then the TypeBuilder
// call that adds it (docs/schema-file.md).

#include <array>
#include <limits>
#include <utility>

#include "schema_file_cursor.h"

namespace tickwire::snapshot::schema_file {
namespace {

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::int32_t int32(Cursor& c, const char* what) {
  return static_cast<std::int32_t>(c.integer(what, kInt32Min, kInt32Max));
}

// The optional "interpolation X" and "prediction Y" that end a field line.
struct Motion {
  Interpolation interpolation;
  Prediction prediction = Prediction::kAuto;
};

Motion motion(Cursor& c, Interpolation default_interpolation) {
  Motion m{default_interpolation};
  bool seen_interpolation = false;
  bool seen_prediction = false;
  while (!c.done()) {
    if (!seen_interpolation && c.take("interpolation")) {
      const std::string_view word = c.next("interpolation");
      const auto value = interpolation(word);
      if (!value) throw Problem{"unknown interpolation " + quoted(word)};
      m.interpolation = *value;
      seen_interpolation = true;
    } else if (!seen_prediction && c.take("prediction")) {
      const std::string_view word = c.next("prediction");
      const auto value = prediction(word);
      if (!value) throw Problem{"unknown prediction " + quoted(word)};
      m.prediction = *value;
      seen_prediction = true;
    } else {
      c.finish();
    }
  }
  return m;
}

// The array adders are templates over the size; one instance per size.
enum class FileEnum : std::uint32_t {};
using FloatArrayAdder = void (*)(TypeBuilder&, std::string, float, float, float, Motion);
using IntArrayAdder = void (*)(TypeBuilder&, std::string, std::int32_t, std::int32_t, Motion);
constexpr std::size_t kMaxArray = 64;

template <std::size_t N>
void add_float_array(TypeBuilder& t, std::string name, float min, float max, float precision, Motion m) {
  t.add_float_array<N>(std::move(name), min, max, precision, m.interpolation, m.prediction);
}
template <std::size_t N>
void add_int_array(TypeBuilder& t, std::string name, std::int32_t min, std::int32_t max, Motion m) {
  t.add_int_array<N>(std::move(name), min, max, m.interpolation, m.prediction);
}
template <std::size_t... I>
constexpr std::array<FloatArrayAdder, sizeof...(I)> float_array_adders(std::index_sequence<I...>) {
  return {&add_float_array<I + 1>...};
}
template <std::size_t... I>
constexpr std::array<IntArrayAdder, sizeof...(I)> int_array_adders(std::index_sequence<I...>) {
  return {&add_int_array<I + 1>...};
}
constexpr auto kFloatArrayAdders = float_array_adders(std::make_index_sequence<kMaxArray>{});
constexpr auto kIntArrayAdders = int_array_adders(std::make_index_sequence<kMaxArray>{});

template <std::size_t N>
std::array<float, N> floats(Cursor& c, const char* what) {
  std::array<float, N> out{};
  for (float& v : out) v = c.number(what);
  return out;
}

}  // namespace

void add_field(TypeBuilder& t, Cursor& c) {
  std::string name = c.name("field name");
  const std::string_view kind_word = c.next("field kind");
  const auto kind = field_kind(kind_word);
  if (!kind) throw Problem{"unknown field kind " + quoted(kind_word)};
  switch (*kind) {
    case FieldKind::kFloat: {
      c.expect("min");
      const float min = c.number("min");
      c.expect("max");
      const float max = c.number("max");
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kLinear);
      t.add_float(std::move(name), min, max, precision, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kInt: {
      c.expect("min");
      const std::int32_t min = int32(c, "min");
      c.expect("max");
      const std::int32_t max = int32(c, "max");
      const Motion m = motion(c, Interpolation::kStep);
      t.add_int(std::move(name), min, max, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kBool:
      c.finish();
      t.add_bool(std::move(name));
      return;
    case FieldKind::kEnum: {
      c.expect("count");
      const auto count = static_cast<std::uint32_t>(c.integer("count", 1, kInt32Max));
      c.finish();
      t.add_enum<FileEnum>(std::move(name), count);
      return;
    }
    case FieldKind::kAngle: {
      c.expect("bits");
      const auto bits = static_cast<int>(c.integer("bits", 2, 20));
      const Motion m = motion(c, Interpolation::kAngular);
      t.add_angle(std::move(name), bits, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kVec2: {
      c.expect("min");
      const auto min = floats<2>(c, "min");
      c.expect("max");
      const auto max = floats<2>(c, "max");
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kLinear);
      t.add_vec2(std::move(name), {min[0], min[1]}, {max[0], max[1]}, precision, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kVec3: {
      c.expect("min");
      const auto min = floats<3>(c, "min");
      c.expect("max");
      const auto max = floats<3>(c, "max");
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kLinear);
      t.add_vec3(std::move(name), {min[0], min[1], min[2]}, {max[0], max[1], max[2]}, precision, m.interpolation,
                 m.prediction);
      return;
    }
    case FieldKind::kQuat: {
      if (c.take("bits")) {
        const auto bits = static_cast<int>(c.integer("bits", 2, 20));
        const Motion m = motion(c, Interpolation::kAngular);
        t.add_quat_bits(std::move(name), bits, m.interpolation, m.prediction);
        return;
      }
      c.expect("precision");
      const float precision = c.number("precision");
      const Motion m = motion(c, Interpolation::kAngular);
      t.add_quat(std::move(name), precision, m.interpolation, m.prediction);
      return;
    }
    case FieldKind::kFloatArray: {
      c.expect("size");
      const auto size = static_cast<std::size_t>(c.integer("size", 1, kMaxArray));
      c.expect("min");
      const float min = c.number("min");
      c.expect("max");
      const float max = c.number("max");
      c.expect("precision");
      const float precision = c.number("precision");
      kFloatArrayAdders[size - 1](t, std::move(name), min, max, precision, motion(c, Interpolation::kLinear));
      return;
    }
    case FieldKind::kIntArray: {
      c.expect("size");
      const auto size = static_cast<std::size_t>(c.integer("size", 1, kMaxArray));
      c.expect("min");
      const std::int32_t min = int32(c, "min");
      c.expect("max");
      const std::int32_t max = int32(c, "max");
      kIntArrayAdders[size - 1](t, std::move(name), min, max, motion(c, Interpolation::kStep));
      return;
    }
  }
}

}  // namespace tickwire::snapshot::schema_file
