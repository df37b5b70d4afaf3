#pragma once
// Watches the GameServer through the sidecar (GET /watch/gameserver, one
// JSON line per change) on a thread of its own, and counts each time its
// state becomes Allocated: by the server's own Allocate, or by a fleet's
// allocator choosing this server for a match. The stream is opened again
// when it ends or fails, after a backoff when it failed.

#include <spdlog/logger.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "agones.h"

namespace tickwire::host {

class AgonesFailures;

class AgonesWatch {
 public:
  AgonesWatch(const AgonesConfig& config, std::shared_ptr<spdlog::logger> log, AgonesFailures& failures);
  ~AgonesWatch();
  AgonesWatch(const AgonesWatch&) = delete;
  AgonesWatch& operator=(const AgonesWatch&) = delete;

  // Ends the stream and the thread; returns once the thread has ended.
  void stop();
  std::uint64_t allocations() const { return allocations_.load(); }

 private:
  void run();
  // One watch request; true when it received anything.
  bool watch_once();
  void on_line(const std::string& line);

  AgonesConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  AgonesFailures& failures_;
  std::atomic<std::uint64_t> allocations_{0};
  std::string state_;  // the last state seen; only the thread touches it
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::function<void()> cancel_;  // ends the request under way (guarded by mutex_)
  std::thread thread_;
};

}  // namespace tickwire::host
