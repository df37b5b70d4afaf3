#pragma once
// The state ("Ready", "Allocated", ...) in a GameServer record as the
// Agones sidecar sends it: GET /gameserver answers the record itself,
// each line of GET /watch/gameserver wraps it as {"result": record}.
// The sidecar is local, but its bytes are still input: anything that is
// not such a record gives nullopt, never a crash.

#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace tickwire::host {

std::optional<std::string> game_server_state(std::string_view json);

// Splits a byte stream into lines for the watch: feed() what arrived,
// then take each complete line. A line longer than `max_line` is dropped
// whole, so a sidecar that never sends a newline cannot grow it forever.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line = 1 << 20) : max_line_(max_line) {}
  void feed(std::string_view bytes);
  std::optional<std::string> next();

 private:
  std::size_t max_line_;
  std::string current_;  // the line still arriving
  std::deque<std::string> lines_;
  bool dropping_ = false;  // inside a line that outgrew max_line_
};

}  // namespace tickwire::host
