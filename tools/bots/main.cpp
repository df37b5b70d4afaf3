// tickwire-bots: many scripted clients of the arena game in one process
// against a real server, for load and soak runs. The runner is the
// game-agnostic tickwire::bots; the arena brings its game and scripts.

#include "arena_bots.h"

int main(int argc, char** argv) { return tickwire::bots::run_bots(argc, argv, tickwire::arena_bots::spec()); }
