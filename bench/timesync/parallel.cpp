#include "parallel.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tickwire::bench {

void run_in_order(std::size_t jobs, unsigned threads, const std::function<void(std::size_t)>& job,
                  const std::function<void(std::size_t)>& done) {
  if (threads <= 1 || jobs <= 1) {
    for (std::size_t i = 0; i < jobs; ++i) {
      job(i);
      done(i);
    }
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable finished_one;
  std::vector<bool> finished(jobs, false);
  std::vector<std::exception_ptr> errors(jobs);
  auto work = [&] {
    while (!stop) {
      const std::size_t i = next++;
      if (i >= jobs) return;
      std::exception_ptr error;
      try {
        job(i);
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      errors[i] = error;
      finished[i] = true;
      finished_one.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  std::exception_ptr failure;
  for (std::size_t i = 0; i < jobs && !failure; ++i) {
    {
      std::unique_lock lock(mutex);
      finished_one.wait(lock, [&] { return static_cast<bool>(finished[i]); });
      failure = errors[i];
    }
    if (failure) break;
    try {
      done(i);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  stop = true;
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tickwire::bench
