#include "profiles.h"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "json.h"
#include "tickwire/transport/link_profiles.h"

namespace tickwire::bench {

namespace {

using transport::LinkConditions;

BenchProfile shared(const std::string& name) {
  const auto p = transport::find_link_profile(name);
  if (!p) throw std::logic_error("link profile missing: " + name);
  return BenchProfile{p->name, p->description, p->up, p->down, 0, {}};
}

LinkConditions with_latency(LinkConditions c, Duration latency) {
  c.latency = latency;
  return c;
}

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

Result<BenchProfile> read_profile(const JsonValue& spec) {
  if (!spec.is(JsonValue::Type::kObject)) return make_error(ErrorCode::kInvalidArgument, "a profile must be an object");
  for (const auto& [key, value] : spec.object()) {
    if (key != "name" && key != "description" && key != "base" && key != "link" && key != "up" && key != "down" &&
        key != "drift_ppm" && key != "steps") {
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
  }
  return p;
}

}  // namespace

std::vector<BenchProfile> builtin_profiles() {
  std::vector<BenchProfile> out;
  for (const char* name : {"lan", "broadband", "wifi", "mobile", "asymmetric"}) out.push_back(shared(name));

  // Broadband whose route lengthens to 60 ms each way at minute 3 and
  // returns at minute 6.
  BenchProfile route = shared("broadband");
  route.name = "route_change";
  route.description = "broadband, 20 ms one-way stepping to 60 ms at 3 min and back at 6 min";
  route.steps.push_back(LinkStep{Duration::seconds(180), with_latency(route.up, Duration::millis(60)),
                                 with_latency(route.down, Duration::millis(60))});
  route.steps.push_back(LinkStep{Duration::seconds(360), route.up, route.down});
  out.push_back(route);

  BenchProfile drift = shared("broadband");
  drift.name = "drift";
  drift.description = "broadband, client clocks 1000 ppm fast";
  drift.drift_ppm = 1000;
  out.push_back(drift);
  return out;
}

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
