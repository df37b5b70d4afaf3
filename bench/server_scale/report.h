#pragma once
// What the benchmark prints and writes: the machine it ran on, a table row
// per step, the verdict on the targets, and the JSON of it all.

#include <string>
#include <vector>

#include "figures.h"
#include "step.h"

namespace tickwire::bench {

struct Machine {
  long cores = 0;
  std::string cpu_model;
  std::string kernel;
  std::string loadavg_start;  // the first three fields of /proc/loadavg
  std::string loadavg_end;
};

Machine read_machine();
std::string read_loadavg();

void print_preamble(const Machine& m, const StepConfig& c);
void print_header();
void print_row(const StepFigures& f);
// Notes on steps whose figures say more about the machine than the server.
void print_notes(const std::vector<StepFigures>& steps);
// The targets' verdicts, one line each; the number that failed.
// The server's time by phase, its memory and the bots' CPU, per step.
void print_split(const std::vector<StepFigures>& steps);
int print_verdict(const std::vector<StepFigures>& steps, const Targets& t);

bool write_json(const std::string& path, const Machine& m, const StepConfig& c, const Targets& t,
                const std::vector<StepFigures>& steps);

}  // namespace tickwire::bench
