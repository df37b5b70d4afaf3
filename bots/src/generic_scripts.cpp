// Scripts that need nothing but the schema: they work on the input
// record's codes (one per slot, each in [0, max_code] as the schema
// declares), so every value they send lies within its field's range and
// quantizes exactly. Rotations stay at their default: random codes of a
// quaternion's components describe no rotation in particular.

#include <algorithm>

#include "tickwire/bots/bots.h"
#include "tickwire/transport/link_model.h"

namespace tickwire::bots {
namespace {

// The rate assumed before the server's is known (BotView::tick_rate).
constexpr std::uint32_t kDefaultTicksPerSecond = 60;
constexpr std::uint32_t kMaxTicksPerSecond = 100'000;  // keeps the tick counts in an int

struct Slot {
  std::uint32_t max_code = 0;
  bool wraps = false;     // angles: walking past one end comes in at the other
  bool discrete = false;  // bools and enums: switched, not walked
  bool fixed = false;     // quaternion codes: left at the default
};

enum class Style : std::uint8_t { kIdle, kHeld, kWalk, kBursts };

class GenericScript final : public BotScript {
 public:
  GenericScript(Style style, std::uint64_t seed) : style_(style), rng_(seed) {}

  void input(const BotView& view, Tick /*tick*/, snapshot::Record& out) override {
    if (style_ == Style::kIdle) return;
    // "About once a second" and the bursts' quiet spells are in ticks of
    // the server's rate, once it is known.
    ticks_per_second_ =
        static_cast<int>(view.tick_rate != 0 ? std::min(view.tick_rate, kMaxTicksPerSecond) : kDefaultTicksPerSecond);
    if (slots_.empty()) start(out);
    switch (style_) {
      case Style::kIdle:
      case Style::kHeld: break;
      case Style::kWalk: walk(); break;
      case Style::kBursts: burst(); break;
    }
    (void)out.from_codes(codes_);  // every code lies in [0, max_code]
  }

 private:
  void start(const snapshot::Record& out) {
    const snapshot::TypeSpec& spec = out.spec();
    codes_.resize(spec.stride());
    out.to_codes(codes_);
    slots_.resize(spec.stride());
    velocity_.assign(spec.stride(), 0);
    for (const snapshot::FieldSpec& f : spec.fields) {
      const bool discrete = f.kind == snapshot::FieldKind::kBool || f.kind == snapshot::FieldKind::kEnum;
      for (std::uint16_t i = f.offset; i < f.offset + f.count; ++i) {
        slots_[i] =
            Slot{spec.components[i].max_code, spec.components[i].wraps, discrete, f.kind == snapshot::FieldKind::kQuat};
      }
    }
    draw_all();
    if (style_ == Style::kBursts) countdown_ = quiet_ticks();  // it holds first
  }

  std::uint32_t draw(const Slot& s) {
    return static_cast<std::uint32_t>(rng_.next() % (std::uint64_t{s.max_code} + 1));
  }
  void draw_all() {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (!slots_[i].fixed) codes_[i] = draw(slots_[i]);
    }
  }

  // Each slot drifts one way at about a hundredth of its range per tick,
  // picking a new direction about once a second and turning at the ends;
  // switches change about once a second.
  void walk() {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      if (s.fixed) continue;
      if (s.discrete) {
        if (rng_.chance(1.0 / ticks_per_second_)) codes_[i] = draw(s);
        continue;
      }
      if (rng_.chance(1.0 / ticks_per_second_)) velocity_[i] = static_cast<int>(rng_.next() % 3) - 1;
      const std::int64_t step = std::max<std::int64_t>(1, s.max_code / 100) * velocity_[i];
      std::int64_t code = std::int64_t{codes_[i]} + step;
      const std::int64_t span = std::int64_t{s.max_code} + 1;
      if (s.wraps) {
        code = ((code % span) + span) % span;
      } else if (code < 0 || code > s.max_code) {
        velocity_[i] = -velocity_[i];
        code = std::clamp<std::int64_t>(code, 0, s.max_code);
      }
      codes_[i] = static_cast<std::uint32_t>(code);
    }
  }

  // Quiet for 1 to 3 s (from the start), then 5 to 20 ticks of fresh
  // values every tick.
  void burst() {
    if (--countdown_ > 0) {
      if (bursting_) draw_all();
      return;
    }
    bursting_ = !bursting_;
    countdown_ = bursting_ ? 5 + static_cast<int>(rng_.next() % 16) : quiet_ticks();
  }
  // 1 to 3 s of ticks.
  int quiet_ticks() {
    return ticks_per_second_ + static_cast<int>(rng_.next() % static_cast<std::uint64_t>(2 * ticks_per_second_));
  }

  Style style_;
  transport::SimRng rng_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> codes_;
  std::vector<int> velocity_;
  bool bursting_ = false;
  int countdown_ = 0;
  int ticks_per_second_ = static_cast<int>(kDefaultTicksPerSecond);
};

ScriptInfo generic(const char* name, const char* description, Style style) {
  return {name, description, [style](std::uint64_t seed) { return std::make_unique<GenericScript>(style, seed); }};
}

}  // namespace

BotScript::~BotScript() = default;

void add_shot_figures(ShotFigures& into, const ShotFigures& from) {
  into.on_target += from.on_target;
  into.on_target_hits += from.on_target_hits;
  into.off_target += from.off_target;
  into.off_target_hits += from.off_target_hits;
  into.teleport_blocked += from.teleport_blocked;
  into.unresolved += from.unresolved;
}

const std::vector<ScriptInfo>& generic_scripts() {
  static const std::vector<ScriptInfo> all = {
      generic("generic-idle", "sends the input type's defaults (any game)", Style::kIdle),
      generic("generic-held", "holds one random value per input field (any game)", Style::kHeld),
      generic("generic-walk", "walks every input field within its range, switches flipped now and then (any game)",
              Style::kWalk),
      generic("generic-bursts",
              "holds its input, then changes every field each tick for a moment, every 1-3 s "
              "(any game)",
              Style::kBursts),
  };
  return all;
}

std::uint64_t bot_seed(std::uint64_t run_seed, std::size_t index) {
  // splitmix64 of the pair: neighbouring bots get unrelated streams.
  std::uint64_t z = run_seed * 0x9E3779B97F4A7C15ULL + (std::uint64_t{index} + 1) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace tickwire::bots
