#pragma once
// Batches timed with the steady clock: an operation's cost is the median,
// over trials, of a batch's mean, so one descheduled batch moves nothing.

#include <algorithm>
#include <chrono>
#include <vector>

namespace tickwire::bench {

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Nanoseconds per call of run_batch()'s work, which does `batch` operations.
template <typename RunBatch>
double median_ns_per_op(int trials, int batch, RunBatch&& run_batch) {
  std::vector<double> per_op;
  per_op.reserve(static_cast<std::size_t>(trials));
  for (int t = 0; t < trials; ++t) {
    const auto t0 = std::chrono::steady_clock::now();
    run_batch();
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - t0;
    per_op.push_back(elapsed.count() / batch);
  }
  return median(per_op);
}

}  // namespace tickwire::bench
