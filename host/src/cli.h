#pragma once
// The pieces of option parsing that see CLI11, shared by the host's flags,
// the game's flags and the parser. Internal: no public header includes it.

#include <CLI/CLI.hpp>
#include <cstdint>
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
    last_ = app_.add_option(long_name(std::move(name)), value, std::move(help))->capture_default_str()->group(group_);
    return last_;
  }
  CLI::Option* add_flag(std::string name, std::string help, bool& value) {
    last_ = app_.add_flag(long_name(std::move(name)), value, std::move(help))->group(group_);
    return last_;
  }
  CLI::Option* last() const { return last_; }

 private:
  static std::string long_name(std::string name) { return name.rfind("--", 0) == 0 ? name : "--" + name; }
  CLI::App& app_;
  std::string group_;
  CLI::Option* last_ = nullptr;
};

}  // namespace tickwire::host
