#include "encode_pool.h"

namespace tickwire::server {

EncodePool::EncodePool(std::size_t workers) {
  for (std::size_t i = 1; i < workers; ++i) threads_.emplace_back([this, i] { work_loop(i); });
}

EncodePool::~EncodePool() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

// Jobs are handed out one index at a time: clients' encodings differ in
// cost (a full snapshot, a budget that needs several passes), so fixed
// shares would leave workers idle behind the slowest.
void EncodePool::take_jobs(std::size_t worker) {
  for (std::size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) (*job_)(i, worker);
}

void EncodePool::run(std::size_t count, const Job& job) {
  if (threads_.empty() || count < 2) {
    for (std::size_t i = 0; i < count; ++i) job(i, 0);
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    count_ = count;
    next_.store(0);
    busy_ = threads_.size();
    ++generation_;
  }
  start_.notify_all();
  take_jobs(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
  job_ = nullptr;
}

void EncodePool::work_loop(std::size_t worker) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    take_jobs(worker);
    bool last = false;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      last = --busy_ == 0;
    }
    if (last) done_.notify_one();
  }
}

}  // namespace tickwire::server
