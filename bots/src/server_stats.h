#pragma once
// Reads the server's --stats-json file: one flat JSON object of numbers per
// line. Parsed leniently, since the server adds keys over time: every
// numeric value is kept by its key, anything else is skipped, and a line
// that is not an object is ignored.

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tickwire::bots {

struct ServerSample {
  std::map<std::string, double> values;
  std::optional<double> get(const std::string& key) const;
};

std::optional<ServerSample> parse_server_line(std::string_view line);
std::vector<ServerSample> read_server_stats(std::istream& in);

}  // namespace tickwire::bots
