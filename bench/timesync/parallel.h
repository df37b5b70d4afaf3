#pragma once
// Runs independent jobs on a few threads and hands their results back in
// job order. Each benchmark run owns its network, clocks and random
// streams, so the figures do not depend on how many threads ran them.

#include <cstddef>
#include <functional>

namespace tickwire::bench {

// Calls job(i) for every i < jobs, on `threads` threads (at least one; one
// runs them all on the calling thread), and done(i) on the calling thread in
// order of i, each as soon as jobs 0..i have finished. An exception from a
// job is rethrown from here, at its turn, after the other threads stop.
void run_in_order(std::size_t jobs, unsigned threads, const std::function<void(std::size_t)>& job,
                  const std::function<void(std::size_t)>& done);

}  // namespace tickwire::bench
