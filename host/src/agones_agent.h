#pragma once
// AgonesAgent runs the exchange with the Agones sidecar on threads of its
// own, so the tick loop never waits on HTTP:
//  - lifecycle calls (Ready, Allocate, Shutdown) queued in order, each
//    retried until answered, since the sidecar may start after the server;
//  - Health pings at an interval until Shutdown;
//  - the connected players kept in a Counter and a List: the loop says
//    who joined and left, the agent brings Agones to that state, one
//    request at a time, retrying what fails;
//  - a watch of the GameServer that counts each time it becomes Allocated.
// Nothing the sidecar does stops the server: failures are logged (not
// every one) and counted for the metrics.

#include <spdlog/logger.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "agones.h"

namespace tickwire::host {

class AgonesWatch;

// The kinds of request, for the failure counts and the metrics' labels.
enum class AgonesCall : std::uint8_t { kReady, kHealth, kAllocate, kShutdown, kCounter, kList, kWatch };
inline constexpr std::size_t kAgonesCalls = 7;
const char* agones_call_label(AgonesCall call);

class AgonesFailures {
 public:
  void count(AgonesCall call) { counts_[static_cast<std::size_t>(call)].fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t of(AgonesCall call) const { return counts_[static_cast<std::size_t>(call)].load(); }

 private:
  std::array<std::atomic<std::uint64_t>, kAgonesCalls> counts_{};
};

class AgonesAgent {
 public:
  enum class Call : std::uint8_t { kReady, kAllocate, kShutdown };

  AgonesAgent(AgonesConfig config, std::shared_ptr<spdlog::logger> log);
  ~AgonesAgent();
  AgonesAgent(const AgonesAgent&) = delete;
  AgonesAgent& operator=(const AgonesAgent&) = delete;

  // Queues a call; returns at once. Health pings stop after shutdown.
  void request(Call call);
  // The Counter's and the List's capacity (the server's max clients).
  void set_capacity(std::size_t capacity);
  // A player connected or left; `id` is its value in the List. The same
  // id may be connected twice (a player back while its old session times
  // out): it stays in the List until both have left.
  void player_joined(const std::string& id);
  void player_left(const std::string& id);
  // Waits up to `limit` for the queued lifecycle calls to be answered,
  // then stops the threads. False when some were still unanswered.
  bool finish(std::chrono::milliseconds limit);

  // How many times the watch saw the GameServer become Allocated.
  std::uint64_t allocations() const;
  const AgonesFailures& failures() const { return failures_; }

 private:
  using Clock = std::chrono::steady_clock;
  // Backoff of one kind of request.
  struct Retry {
    Clock::time_point next{};
    std::chrono::milliseconds delay{};
    int attempts = 0;
  };
  // One request that brings Agones closer to the players the loop reported.
  struct SyncStep {
    enum class Kind : std::uint8_t { kCapacity, kCount, kListCapacity, kAdd, kRemove } kind;
    std::int64_t number = 0;
    std::string value;
  };

  void run();
  Result<void> send(Call call);
  void ping();
  // Under the lock: the next step for the Counter or the List, if any.
  std::optional<SyncStep> counter_step() const;
  std::optional<SyncStep> list_step() const;
  // Without the lock: sends one step; under it again: records the outcome.
  void sync(const SyncStep& step, Retry& retry, std::unique_lock<std::mutex>& lock);
  void call_next(Retry& retry, std::unique_lock<std::mutex>& lock);
  void note_failure(AgonesCall call, const std::string& what, const Error& error, Retry& retry);
  // Under the lock: a 4xx answer that asking again would not change.
  bool note_refusal(const SyncStep& step, const std::string& what);

  AgonesConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  AgonesRest rest_;
  AgonesFailures failures_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Call> queue_;
  bool stopping_ = false;
  Clock::time_point deadline_;
  // What the loop reported (guarded by mutex_)...
  std::optional<std::int64_t> capacity_;
  std::map<std::string, int> players_;  // each id's connected sessions
  std::int64_t sessions_ = 0;
  // ...and what Agones acknowledged (likewise, written by the agent's thread).
  std::optional<std::int64_t> acked_capacity_;
  std::optional<std::int64_t> acked_count_;
  std::optional<std::int64_t> acked_list_capacity_;
  std::set<std::string> acked_list_;
  std::set<std::string> refused_;  // added values the sidecar refused, until they leave
  // Only the agent's thread touches these.
  bool shut_down_ = false;
  bool ever_answered_ = false;
  bool health_failing_ = false;
  bool counter_off_ = false;  // the Counter or List turned out not to exist
  bool list_off_ = false;
  std::unique_ptr<AgonesWatch> watch_;
  std::thread thread_;
};

}  // namespace tickwire::host
