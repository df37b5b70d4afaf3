#pragma once
// Threads that share one tick's snapshot encoding. The simulation stays on
// the caller's thread; only the per-client encodings, which read the
// captured world and write each client's own buffers, are spread. The
// caller works too, so N workers are N - 1 threads plus the caller. Which
// thread encodes which client changes nothing in the bytes: each client's
// encoding depends only on its own state and the captured world.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tickwire::server {

class EncodePool {
 public:
  // `workers` >= 1; 1 starts no thread.
  explicit EncodePool(std::size_t workers);
  ~EncodePool();
  EncodePool(const EncodePool&) = delete;
  EncodePool& operator=(const EncodePool&) = delete;

  // Calls job(i, w) once for every i in [0, count), spread over the
  // workers, and returns when all are done; w in [0, workers()) names the
  // thread (0: the caller), for state a thread keeps to itself. `job` must
  // not throw.
  using Job = std::function<void(std::size_t, std::size_t)>;
  void run(std::size_t count, const Job& job);
  std::size_t workers() const { return threads_.size() + 1; }

 private:
  void work_loop(std::size_t worker);
  void take_jobs(std::size_t worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::uint64_t generation_ = 0;  // one per run
  std::size_t busy_ = 0;          // threads still in the current run
  bool stopping_ = false;
  const Job* job_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
};

}  // namespace tickwire::server
