#pragma once
// The pieces of option parsing that see CLI11, shared by the host's flags,
// the game's flags and the parser. Internal: no public header includes it.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "options.h"

namespace tickwire::host {

// Flags whose value is kept only when given, read after parsing.
struct RawFlags {
  std::uint16_t metrics_port = 0;
  CLI::Option* metrics_port_option = nullptr;
  std::uint64_t schema_hash = 0;
  CLI::Option* schema_hash_option = nullptr;
};

// A validator that checks without adding its own description to --help,
// where the option's text already states the allowed values.
inline CLI::Validator quiet(CLI::Validator v) {
  v.description("");
  return v;
}

void add_host_flags(CLI::App& app, Options& o, RawFlags& raw);

}  // namespace tickwire::host

namespace tickwire::host {

// What GameOptions adds its flags to: the parser, in a --help group
// named after the game.
class GameOptions::Impl {
 public:
  Impl(CLI::App& app, std::string group) : app_(app), group_(std::move(group)) {}
  template <typename T>
  CLI::Option* add(std::string name, std::string help, T& value) {
    last_ = app_.add_option(free_name(name), value, std::move(help))->capture_default_str()->group(group_);
    return last_;
  }
  CLI::Option* add_flag(std::string name, std::string help, bool& value) {
    last_ = app_.add_flag(free_name(name), value, std::move(help))->group(group_);
    return last_;
  }
  CLI::Option* last() const { return last_; }

 private:
  // "speed" or "--speed"; anything else is a mistake in the game's code,
  // reported by parse_options as a start-up error (status 2).
  static std::string long_name(const std::string& name) {
    const std::string bare = name.rfind("--", 0) == 0 ? name.substr(2) : name;
    if (bare.empty() || bare[0] == '-') {
      throw std::invalid_argument("'" + name + "' is not an option name (give it as \"speed\" or \"--speed\")");
    }
    return "--" + bare;
  }
  std::string free_name(const std::string& name) const {
    std::string flag = long_name(name);
    if (app_.get_option_no_throw(flag) != nullptr) {
      throw std::invalid_argument(flag + " is taken already (by a flag of the host's, or the game's twice)");
    }
    return flag;
  }
  CLI::App& app_;
  std::string group_;
  CLI::Option* last_ = nullptr;
};

}  // namespace tickwire::host
