#include "json.h"

#include <cctype>
#include <cstdlib>

namespace tickwire::bench {

const JsonValue* JsonValue::find(const std::string& key) const {
  if (type_ != Type::kObject) return nullptr;
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &it->second;
}

JsonValue JsonValue::make_bool(bool b) {
  JsonValue v(Type::kBool);
  v.bool_ = b;
  return v;
}
JsonValue JsonValue::make_number(double d) {
  JsonValue v(Type::kNumber);
  v.number_ = d;
  return v;
}
JsonValue JsonValue::make_string(std::string s) {
  JsonValue v(Type::kString);
  v.string_ = std::move(s);
  return v;
}
JsonValue JsonValue::make_array(std::vector<JsonValue> a) {
  JsonValue v(Type::kArray);
  v.array_ = std::move(a);
  return v;
}
JsonValue JsonValue::make_object(std::map<std::string, JsonValue> o) {
  JsonValue v(Type::kObject);
  v.object_ = std::move(o);
  return v;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::optional<JsonValue> document(std::string& error) {
    auto v = value(0);
    skip_space();
    if (v && pos_ != text_.size()) fail("unexpected text after the document");
    if (!error_.empty()) {
      error = where() + error_;
      return std::nullopt;
    }
    return v;
  }

 private:
  // Nesting bound: a profile file is shallow; deeper input is an error, not
  // a stack overflow.
  static constexpr int kMaxDepth = 64;

  std::optional<JsonValue> value(int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    skip_space();
    if (pos_ >= text_.size()) return fail("unexpected end of input");
    const char c = text_[pos_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') {
      auto s = string();
      if (!s) return std::nullopt;
      return JsonValue::make_string(std::move(*s));
    }
    if (literal("true")) return JsonValue::make_bool(true);
    if (literal("false")) return JsonValue::make_bool(false);
    if (literal("null")) return JsonValue::make_null();
    return number();
  }

  std::optional<JsonValue> object(int depth) {
    ++pos_;
    std::map<std::string, JsonValue> members;
    skip_space();
    if (peek('}')) return JsonValue::make_object(std::move(members));
    while (true) {
      skip_space();
      if (!peek_char('"')) return fail("expected a member name");
      auto key = string();
      if (!key) return std::nullopt;
      skip_space();
      if (!peek(':')) return fail("expected ':'");
      auto v = value(depth + 1);
      if (!v) return std::nullopt;
      if (members.contains(*key)) return fail("duplicate member \"" + *key + "\"");
      members.emplace(std::move(*key), std::move(*v));
      skip_space();
      if (peek('}')) return JsonValue::make_object(std::move(members));
      if (!peek(',')) return fail("expected ',' or '}'");
    }
  }

  std::optional<JsonValue> array(int depth) {
    ++pos_;
    std::vector<JsonValue> items;
    skip_space();
    if (peek(']')) return JsonValue::make_array(std::move(items));
    while (true) {
      auto v = value(depth + 1);
      if (!v) return std::nullopt;
      items.push_back(std::move(*v));
      skip_space();
      if (peek(']')) return JsonValue::make_array(std::move(items));
      if (!peek(',')) return fail("expected ',' or ']'");
    }
  }

  std::optional<std::string> string() {
    ++pos_;
    std::string out;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        default: fail("unsupported escape in a string"); return std::nullopt;
      }
    }
    fail("unterminated string");
    return std::nullopt;
  }

  std::optional<JsonValue> number() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '-' || text_[pos_] == '+' ||
            text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
    }
    if (start == pos_) return fail("expected a value");
    const std::string digits(text_.substr(start, pos_ - start));
    char* end = nullptr;
    const double d = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) return fail("malformed number \"" + digits + "\"");
    return JsonValue::make_number(d);
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool peek(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool peek_char(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }
  std::nullopt_t fail(const std::string& message) {
    if (error_.empty()) {
      error_ = message;
      error_pos_ = pos_;
    }
    return std::nullopt;
  }
  std::string where() const {
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < error_pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::string error_;
  std::size_t error_pos_ = 0;
};

}  // namespace

std::optional<JsonValue> parse_json(std::string_view text, std::string& error) { return Parser(text).document(error); }

}  // namespace tickwire::bench
