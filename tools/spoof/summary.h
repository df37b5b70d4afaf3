#pragma once
// What a run amounts to: the figures derived from the counters, as a
// readable summary and as JSON.

#include <optional>
#include <string>

#include "attack.h"

namespace tickwire::spoof {

struct Summary {
  Counter sent;                      // every kind
  Counter received;                  // by every source
  std::size_t sources_answered = 0;  // sources that received anything
  // The largest bytes received / bytes sent of one source, and which one
  // (none when nothing came back); sources that sent nothing are left out.
  double max_source_ratio = 0.0;
  std::optional<Ipv4Endpoint> max_ratio_source;
  double overall_ratio = 0.0;  // bytes received / bytes sent
  double achieved_rate = 0.0;  // datagrams sent per second of sending
};

Summary summarize(const AttackResult& result);

// The line printed before the run: what is sent where, and the seed.
std::string start_text(const AttackConfig& config);
std::string summary_text(const AttackConfig& config, const AttackResult& result, const Summary& summary);
std::string summary_json(const AttackConfig& config, const AttackResult& result, const Summary& summary);

}  // namespace tickwire::spoof
