#include "gameserver_state.h"

#include <cstddef>
#include <utility>

namespace tickwire::host {
namespace {

// A forward-only reader of just enough JSON to walk to one key: strings
// are compared raw (the keys sought need no escapes) and everything else
// is skipped. Nesting is capped so a hostile line cannot exhaust the stack.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  std::optional<std::string> state() {
    // {"result": {...}} from the watch, or the record itself. "result" is
    // taken at the top level only: a nested one is skipped like any other
    // value (depth-capped), so {"result":{"result":... cannot recurse.
    return in_object([this](std::string_view key) -> std::optional<std::optional<std::string>> {
      if (key == "result") return std::optional<std::optional<std::string>>(std::in_place, record_state());
      if (key == "status") return std::optional<std::optional<std::string>>(std::in_place, status_state());
      return std::nullopt;
    });
  }

 private:
  static constexpr int kMaxDepth = 64;

  std::optional<std::string> record_state() {
    return in_object([this](std::string_view key) -> std::optional<std::optional<std::string>> {
      if (key == "status") return std::optional<std::optional<std::string>>(std::in_place, status_state());
      return std::nullopt;
    });
  }

  std::optional<std::string> status_state() {
    return in_object([this](std::string_view key) -> std::optional<std::optional<std::string>> {
      if (key != "state") return std::nullopt;
      skip_ws();
      std::optional<std::string> value;
      if (peek() == '"') {
        if (const auto text = string()) value = std::string(*text);
      }
      return std::optional<std::optional<std::string>>(std::in_place, std::move(value));
    });
  }

  // Walks the members of the object at the cursor. `on_key` either
  // consumes the value and returns the walk's answer, or returns nullopt
  // to have the value skipped.
  template <typename OnKey>
  std::optional<std::string> in_object(OnKey on_key) {
    skip_ws();
    if (!eat('{')) return std::nullopt;
    skip_ws();
    if (eat('}')) return std::nullopt;
    for (;;) {
      skip_ws();
      const auto key = string();
      skip_ws();
      if (!key || !eat(':')) return std::nullopt;
      if (auto answer = on_key(*key)) return *answer;
      if (!skip_value(0)) return std::nullopt;
      skip_ws();
      if (eat(',')) continue;
      return std::nullopt;  // '}' without the key, or malformed
    }
  }

  bool skip_value(int depth) {
    if (depth > kMaxDepth) return false;
    skip_ws();
    const char c = peek();
    if (c == '"') return string().has_value();
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++i_;
      skip_ws();
      if (eat(close)) return true;
      for (;;) {
        if (c == '{') {
          skip_ws();
          if (!string()) return false;
          skip_ws();
          if (!eat(':')) return false;
        }
        if (!skip_value(depth + 1)) return false;
        skip_ws();
        if (eat(',')) continue;
        return eat(close);
      }
    }
    // A number or a literal: up to the next delimiter.
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ' && s_[i_] != '\n' &&
           s_[i_] != '\r' && s_[i_] != '\t') {
      ++i_;
    }
    return i_ > start;
  }

  // The raw text of a string at the cursor, escapes left as they are.
  std::optional<std::string_view> string() {
    if (!eat('"')) return std::nullopt;
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? std::size_t{2} : std::size_t{1};
    if (i_ >= s_.size()) return std::nullopt;
    const std::string_view text = s_.substr(start, i_ - start);
    ++i_;
    return text;
  }

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(char c) {
    if (peek() != c || i_ >= s_.size()) return false;
    ++i_;
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<std::string> game_server_state(std::string_view json) {
  auto state = Reader(json).state();
  if (state && state->empty()) return std::nullopt;
  return state;
}

void LineSplitter::feed(std::string_view bytes) {
  for (const char c : bytes) {
    if (c == '\n') {
      if (!dropping_) lines_.push_back(std::move(current_));
      current_.clear();
      dropping_ = false;
    } else if (!dropping_) {
      if (current_.size() >= max_line_) {
        current_.clear();
        dropping_ = true;
      } else {
        current_ += c;
      }
    }
  }
}

std::optional<std::string> LineSplitter::next() {
  if (lines_.empty()) return std::nullopt;
  std::string line = std::move(lines_.front());
  lines_.pop_front();
  return line;
}

}  // namespace tickwire::host
