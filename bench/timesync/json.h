#pragma once
// A small JSON reader for the benchmark's profile files: objects, arrays,
// strings, numbers, booleans and null, with the position of the first
// error. Enough for hand-written configuration; not a general library.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tickwire::bench {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type() const { return type_; }
  bool is(Type t) const { return type_ == t; }
  bool boolean() const { return bool_; }
  double number() const { return number_; }
  const std::string& string() const { return string_; }
  const std::vector<JsonValue>& array() const { return array_; }
  const std::map<std::string, JsonValue>& object() const { return object_; }
  // Member of an object; null when absent or not an object.
  const JsonValue* find(const std::string& key) const;

  static JsonValue make_null() { return JsonValue(Type::kNull); }
  static JsonValue make_bool(bool b);
  static JsonValue make_number(double d);
  static JsonValue make_string(std::string s);
  static JsonValue make_array(std::vector<JsonValue> a);
  static JsonValue make_object(std::map<std::string, JsonValue> o);

 private:
  explicit JsonValue(Type t) : type_(t) {}
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::map<std::string, JsonValue> object_;
};

// Parses a whole document; on failure returns empty and sets `error` to a
// message with the line and column.
std::optional<JsonValue> parse_json(std::string_view text, std::string& error);

}  // namespace tickwire::bench
