// EnetWaitSet: many transports' sockets in one epoll set, kept between
// waits.
#include <enet/enet.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <ctime>

#include "enet_transport_impl.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::transport {

namespace {

constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);
// A longer wait is cut to an hour; the caller loops (as wait_for_any).
constexpr std::int64_t kMaxWaitMicros = 3'600'000'000;

}  // namespace

std::uint64_t next_serial() {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

EnetWaitSet::EnetWaitSet() : epoll_(epoll_create1(EPOLL_CLOEXEC)) {}

EnetWaitSet::~EnetWaitSet() {
  if (epoll_ >= 0) ::close(epoll_);
}

std::size_t EnetWaitSet::watched() const {
  return static_cast<std::size_t>(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.fd >= 0; }));
}

// Only slots whose transport changed touch the kernel. A closed socket
// leaves the epoll set by itself, and its number may already belong to a
// newer transport at another index, so a slot takes its old number out of
// the set only while it still owns that number.
void EnetWaitSet::follow(std::span<EnetTransport* const> transports) {
  if (slots_.size() < transports.size()) slots_.resize(transports.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const EnetTransport* t = i < transports.size() ? transports[i] : nullptr;
    const std::uint64_t serial = t != nullptr ? t->impl_->serial : 0;
    Slot& slot = slots_[i];
    if (slot.serial == serial) continue;
    if (slot.fd >= 0 && static_cast<std::size_t>(slot.fd) < owner_.size() &&
        owner_[static_cast<std::size_t>(slot.fd)] == i) {
      (void)epoll_ctl(epoll_, EPOLL_CTL_DEL, slot.fd, nullptr);  // gone already if the socket closed
      owner_[static_cast<std::size_t>(slot.fd)] = kNoSlot;
    }
    slot = Slot{};
    if (t == nullptr) continue;
    const int fd = t->impl_->host->socket;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    // EEXIST: the number was registered by a slot not yet re-followed this
    // call, whose transport closed and whose socket number this one took.
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0 &&
        (errno != EEXIST || epoll_ctl(epoll_, EPOLL_CTL_MOD, fd, &ev) != 0)) {
      continue;  // not watched; the slot retries next call
    }
    slot = Slot{serial, fd};
    if (owner_.size() <= static_cast<std::size_t>(fd)) owner_.resize(static_cast<std::size_t>(fd) + 1, kNoSlot);
    owner_[static_cast<std::size_t>(fd)] = i;
  }
}

void EnetWaitSet::wait(std::span<EnetTransport* const> transports, Duration max_wait, std::vector<std::size_t>& ready) {
  if (epoll_ < 0) {
    EnetTransport::wait_for_any(transports, max_wait, ready);
    return;
  }
  ready.clear();
  follow(transports);
  bool any = false;
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const EnetTransport* t = transports[i];
    if (t == nullptr) continue;
    any = true;
    // Decoded events would not wake the socket.
    if (!enet_list_empty(&t->impl_->host->dispatchQueue)) ready.push_back(i);
  }
  if (!ready.empty() || !any) return;
  const std::int64_t us = std::clamp<std::int64_t>(max_wait.micros(), 0, kMaxWaitMicros);
  const timespec timeout{static_cast<time_t>(us / 1'000'000), static_cast<long>(us % 1'000'000) * 1000};
  const std::size_t capacity = std::max<std::size_t>(transports.size(), 1);
  if (events_.size() < capacity) events_.resize(capacity);
  const int n = epoll_pwait2(epoll_, events_.data(), static_cast<int>(capacity), &timeout, nullptr);
  if (n < 0 && errno == ENOSYS) {  // a kernel before 5.11
    ::close(epoll_);
    epoll_ = -1;
    EnetTransport::wait_for_any(transports, max_wait, ready);
    return;
  }
  for (int k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(events_[static_cast<std::size_t>(k)].data.u64);
    if (i < transports.size() && transports[i] != nullptr) ready.push_back(i);
  }
  std::sort(ready.begin(), ready.end());
}

}  // namespace tickwire::transport
