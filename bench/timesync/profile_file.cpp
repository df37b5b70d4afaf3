#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "json.h"
#include "profiles.h"

// Profile files: the JSON terms of docs/time-measurements.md.

namespace tickwire::bench {

namespace {

using transport::LinkConditions;

Duration millis_f(double ms) { return Duration::micros(std::llround(ms * 1000.0)); }

// Applies the fields present in `spec` to `c`; unknown fields are errors
// (a typo should not silently run the default).
Result<void> apply_link(const JsonValue& spec, LinkConditions& c) {
  if (!spec.is(JsonValue::Type::kObject)) return make_error(ErrorCode::kInvalidArgument, "a link must be an object");
  for (const auto& [key, value] : spec.object()) {
    if (!value.is(JsonValue::Type::kNumber)) {
      return make_error(ErrorCode::kInvalidArgument, "link field \"" + key + "\" must be a number");
    }
    const double v = value.number();
    if (key == "latency_ms") {
      c.latency = millis_f(v);
    } else if (key == "jitter_ms") {
      c.jitter = millis_f(v);
    } else if (key == "loss") {
      c.loss = v;
    } else if (key == "burst_enter") {
      c.burst_enter = v;
    } else if (key == "burst_exit") {
      c.burst_exit = v;
    } else if (key == "burst_loss") {
      c.burst_loss = v;
    } else if (key == "duplicate") {
      c.duplicate = v;
    } else if (key == "reorder") {
      c.reorder = v;
    } else if (key == "reorder_delay_ms") {
      c.reorder_delay = millis_f(v);
    } else if (key == "delay_spike_rate") {
      c.delay_spike_rate = v;
    } else if (key == "delay_spike_min_ms") {
      c.delay_spike_min = millis_f(v);
    } else if (key == "delay_spike_max_ms") {
      c.delay_spike_max = millis_f(v);
    } else if (key == "delay_spike_pareto_shape") {
      c.delay_spike_pareto_shape = v;
    } else if (key == "bandwidth_bytes_per_second") {
      c.bandwidth_bytes_per_second = static_cast<std::uint64_t>(std::max(0.0, v));
    } else {
      return make_error(ErrorCode::kInvalidArgument, "unknown link field \"" + key + "\"");
    }
  }
  if (auto valid = c.validate(); !valid) return valid;
  return {};
}

// "link" sets both directions, then "up" and "down" refine each.
Result<void> apply_links(const JsonValue& spec, LinkConditions& up, LinkConditions& down) {
  if (const JsonValue* both = spec.find("link")) {
    if (auto r = apply_link(*both, up); !r) return r;
    if (auto r = apply_link(*both, down); !r) return r;
  }
  if (const JsonValue* u = spec.find("up")) {
    if (auto r = apply_link(*u, up); !r) return r;
  }
  if (const JsonValue* d = spec.find("down")) {
    if (auto r = apply_link(*d, down); !r) return r;
  }
  return {};
}

// Which links a track or wave applies to: "both" (the default), "up" or "down".
Result<void> read_links(const JsonValue& spec, bool& up, bool& down) {
  const JsonValue* links = spec.find("links");
  if (links == nullptr) return {};
  const std::string which = links->is(JsonValue::Type::kString) ? links->string() : "";
  if (which != "both" && which != "up" && which != "down") {
    return make_error(ErrorCode::kInvalidArgument, "\"links\" must be \"both\", \"up\" or \"down\"");
  }
  up = which != "down";
  down = which != "up";
  return {};
}

// {"from_ms", "to_ms", "rise_s"} for a sawtooth, {"low_ms", "high_ms",
// "every_s"} for a flap, and "links": "both" (the default), "up" or "down".
Result<LatencyWave> read_wave(const JsonValue& spec, bool sawtooth) {
  if (!spec.is(JsonValue::Type::kObject)) return make_error(ErrorCode::kInvalidArgument, "must be an object");
  const char* low_key = sawtooth ? "from_ms" : "low_ms";
  const char* high_key = sawtooth ? "to_ms" : "high_ms";
  const char* period_key = sawtooth ? "rise_s" : "every_s";
  for (const auto& [key, value] : spec.object()) {
    if (key != low_key && key != high_key && key != period_key && key != "links") {
      return make_error(ErrorCode::kInvalidArgument, "unknown field \"" + key + "\"");
    }
  }
  const auto number = [&](const char* key, double lo, double hi) -> std::optional<double> {
    const JsonValue* v = spec.find(key);
    if (v == nullptr || !v->is(JsonValue::Type::kNumber) || !(v->number() >= lo && v->number() <= hi)) {
      return std::nullopt;
    }
    return v->number();
  };
  const auto low = number(low_key, 0, 10000);
  const auto high = number(high_key, 0, 10000);
  // A period of at least a second: shorter is jitter, not a changing path.
  const auto period = number(period_key, 1, 86400);
  if (!low || !high || !period) {
    return make_error(ErrorCode::kInvalidArgument, std::string("needs \"") + low_key + "\" and \"" + high_key +
                                                       "\" in ms (0..10000) and \"" + period_key +
                                                       "\" in s (1..86400)");
  }
  LatencyWave w{sawtooth ? LatencyWave::Shape::kSawtooth : LatencyWave::Shape::kSquare,
                millis_f(*low),
                millis_f(*high),
                millis_f(*period * 1000.0),
                true,
                true};
  if (auto r = read_links(spec, w.up, w.down); !r) return make_error(r.error().code, r.error().detail);
  return w;
}

// {"corners": [[seconds, ms], ...], "repeat_s": R, "links": ...}: corners
// in time order, seconds and delays within a day and 10 s.
Result<DelayTrack> read_track(const JsonValue& spec) {
  if (!spec.is(JsonValue::Type::kObject)) return make_error(ErrorCode::kInvalidArgument, "a track must be an object");
  for (const auto& [key, value] : spec.object()) {
    if (key != "corners" && key != "repeat_s" && key != "links") {
      return make_error(ErrorCode::kInvalidArgument, "unknown track field \"" + key + "\"");
    }
  }
  DelayTrack track;
  if (auto r = read_links(spec, track.up, track.down); !r) return make_error(r.error().code, r.error().detail);
  const JsonValue* corners = spec.find("corners");
  if (corners == nullptr || !corners->is(JsonValue::Type::kArray) || corners->array().empty()) {
    return make_error(ErrorCode::kInvalidArgument, "a track needs \"corners\": [[seconds, ms], ...]");
  }
  for (const JsonValue& c : corners->array()) {
    const bool pair = c.is(JsonValue::Type::kArray) && c.array().size() == 2 &&
                      c.array()[0].is(JsonValue::Type::kNumber) && c.array()[1].is(JsonValue::Type::kNumber);
    const double at = pair ? c.array()[0].number() : -1, extra = pair ? c.array()[1].number() : -1;
    if (!(at >= 0 && at <= 86400 && extra >= -10000 && extra <= 10000)) {
      return make_error(ErrorCode::kInvalidArgument, "a corner is [seconds 0..86400, ms -10000..10000]");
    }
    track.corners.push_back({millis_f(at * 1000.0), millis_f(extra)});
    if (track.corners.size() > 1 && track.corners.back().at < track.corners[track.corners.size() - 2].at) {
      return make_error(ErrorCode::kInvalidArgument, "corners must be in time order");
    }
  }
  if (const JsonValue* repeat = spec.find("repeat_s")) {
    // At least a second: the schedule is sampled every 100 ms.
    if (!repeat->is(JsonValue::Type::kNumber) || !(repeat->number() >= 1 && repeat->number() <= 86400)) {
      return make_error(ErrorCode::kInvalidArgument, "\"repeat_s\" must be in 1..86400");
    }
    track.repeat = millis_f(repeat->number() * 1000.0);
  }
  return track;
}

Result<ClockStep> read_clock_step(const JsonValue& spec) {
  const JsonValue* at = spec.find("at_s");
  const JsonValue* by = spec.find("by_ms");
  if (!spec.is(JsonValue::Type::kObject) || spec.object().size() != 2 || at == nullptr || by == nullptr ||
      !at->is(JsonValue::Type::kNumber) || !by->is(JsonValue::Type::kNumber) ||
      !(at->number() >= 0 && at->number() <= 86400) || !(by->number() >= 0 && by->number() <= 100000)) {
    // Forward only: the clocks a game reads are monotonic.
    return make_error(ErrorCode::kInvalidArgument, "a clock step is {\"at_s\": 0..86400, \"by_ms\": 0..100000}");
  }
  return ClockStep{millis_f(at->number() * 1000.0), millis_f(by->number())};
}

Result<void> read_changes(const JsonValue& spec, BenchProfile& p) {
  if (const JsonValue* tracks = spec.find("tracks")) {
    if (!tracks->is(JsonValue::Type::kArray)) return make_error(ErrorCode::kInvalidArgument, "tracks must be an array");
    for (const JsonValue& t : tracks->array()) {
      auto track = read_track(t);
      if (!track) return make_error(track.error().code, "track: " + track.error().detail);
      p.tracks.push_back(*track);
    }
  }
  if (const JsonValue* steps = spec.find("clock_steps")) {
    if (!steps->is(JsonValue::Type::kArray)) {
      return make_error(ErrorCode::kInvalidArgument, "clock_steps must be an array");
    }
    for (const JsonValue& s : steps->array()) {
      auto step = read_clock_step(s);
      if (!step) return make_error(step.error().code, step.error().detail);
      p.clock_steps.push_back(*step);
    }
    std::stable_sort(p.clock_steps.begin(), p.clock_steps.end(),
                     [](const ClockStep& a, const ClockStep& b) { return a.at < b.at; });
  }
  return {};
}

Result<BenchProfile> read_profile(const JsonValue& spec) {
  if (!spec.is(JsonValue::Type::kObject)) return make_error(ErrorCode::kInvalidArgument, "a profile must be an object");
  for (const auto& [key, value] : spec.object()) {
    if (key != "name" && key != "description" && key != "base" && key != "link" && key != "up" && key != "down" &&
        key != "drift_ppm" && key != "steps" && key != "sawtooth" && key != "flap" && key != "tracks" &&
        key != "clock_steps") {
      return make_error(ErrorCode::kInvalidArgument, "unknown profile field \"" + key + "\"");
    }
  }
  const JsonValue* name = spec.find("name");
  if (name == nullptr || !name->is(JsonValue::Type::kString) || name->string().empty()) {
    return make_error(ErrorCode::kInvalidArgument, "a profile needs a \"name\"");
  }
  BenchProfile p;
  if (const JsonValue* base = spec.find("base")) {
    bool found = false;
    for (const auto& b : builtin_profiles()) {
      if (base->is(JsonValue::Type::kString) && b.name == base->string()) {
        p = b;
        found = true;
      }
    }
    if (!found) return make_error(ErrorCode::kInvalidArgument, "unknown base profile in \"" + name->string() + "\"");
  }
  p.name = name->string();
  if (const JsonValue* d = spec.find("description"); d != nullptr && d->is(JsonValue::Type::kString)) {
    p.description = d->string();
  } else if (!spec.find("base")) {
    p.description = "from a profile file";
  }
  if (auto r = apply_links(spec, p.up, p.down); !r) return make_error(r.error().code, p.name + ": " + r.error().detail);
  if (const JsonValue* drift = spec.find("drift_ppm")) {
    if (!drift->is(JsonValue::Type::kNumber) || std::fabs(drift->number()) > 100000) {
      return make_error(ErrorCode::kInvalidArgument, p.name + ": drift_ppm must be a number within +-100000");
    }
    p.drift_ppm = drift->number();
  }
  if (const JsonValue* steps = spec.find("steps")) {
    if (!steps->is(JsonValue::Type::kArray))
      return make_error(ErrorCode::kInvalidArgument, p.name + ": steps must be an array");
    p.steps.clear();
    for (const JsonValue& s : steps->array()) {
      const JsonValue* at = s.find("at_s");
      if (at == nullptr || !at->is(JsonValue::Type::kNumber) || at->number() < 0) {
        return make_error(ErrorCode::kInvalidArgument, p.name + ": each step needs \"at_s\" >= 0");
      }
      LinkStep step{millis_f(at->number() * 1000.0), p.up, p.down};
      if (auto r = apply_links(s, step.up, step.down); !r) {
        return make_error(r.error().code, p.name + ": step: " + r.error().detail);
      }
      p.steps.push_back(step);
    }
    std::stable_sort(p.steps.begin(), p.steps.end(), [](const LinkStep& a, const LinkStep& b) { return a.at < b.at; });
  }
  if (spec.find("sawtooth") != nullptr && spec.find("flap") != nullptr) {
    return make_error(ErrorCode::kInvalidArgument, p.name + ": one of \"sawtooth\" and \"flap\", not both");
  }
  for (const char* kind : {"sawtooth", "flap"}) {
    if (const JsonValue* w = spec.find(kind)) {
      auto wave = read_wave(*w, std::string(kind) == "sawtooth");
      if (!wave) return make_error(wave.error().code, p.name + ": " + kind + ": " + wave.error().detail);
      p.wave = *wave;
    }
  }
  if (auto r = read_changes(spec, p); !r) return make_error(r.error().code, p.name + ": " + r.error().detail);
  return p;
}

}  // namespace

Result<std::vector<BenchProfile>> load_profiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(ErrorCode::kIo, "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  const auto doc = parse_json(text.str(), error);
  if (!doc) return make_error(ErrorCode::kMalformed, path + ": " + error);
  const JsonValue* list = doc->find("profiles");
  if (list == nullptr || !list->is(JsonValue::Type::kArray)) {
    return make_error(ErrorCode::kMalformed, path + ": expected {\"profiles\": [...]}");
  }
  std::vector<BenchProfile> out;
  for (const JsonValue& spec : list->array()) {
    auto p = read_profile(spec);
    if (!p) return make_error(p.error().code, path + ": " + p.error().detail);
    out.push_back(std::move(*p));
  }
  return out;
}

}  // namespace tickwire::bench
