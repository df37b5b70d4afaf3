// libFuzzer target: the stream of GET /watch/gameserver as the host's
// Agones watch reads it (host/src/gameserver_state.h): bytes cut into
// chunks at the positions the first input byte picks, split into lines,
// each line searched for the GameServer's state.
//
// Invariants: a found state is never empty and is a string the line holds
// verbatim; no line comes out longer than the splitter's bound or holding
// a newline; the lines and the dropped ones account for every newline.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "gameserver_state.h"

namespace {

constexpr std::size_t kMaxLine = 512;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64U;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  tickwire::host::LineSplitter lines(kMaxLine);
  std::size_t newlines = 0;
  std::size_t seen = 0;
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    const auto piece = bytes.substr(at, chunk);
    for (const char c : piece) newlines += c == '\n' ? 1U : 0U;
    lines.feed(piece);
    while (auto line = lines.next()) {
      ++seen;
      TICKWIRE_FUZZ_CHECK(line->size() <= kMaxLine);
      TICKWIRE_FUZZ_CHECK(line->find('\n') == std::string::npos);
      if (const auto state = tickwire::host::game_server_state(*line)) {
        TICKWIRE_FUZZ_CHECK(!state->empty());
        TICKWIRE_FUZZ_CHECK(line->find("\"" + *state + "\"") != std::string::npos);
      }
    }
  }
  // Every newline ended a line, kept or dropped as overlong.
  TICKWIRE_FUZZ_CHECK(seen <= newlines);
  (void)tickwire::host::game_server_state(bytes);
  return 0;
}
