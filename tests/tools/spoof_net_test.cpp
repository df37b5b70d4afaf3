// tickwire-spoof's attack loop over real loopback sockets: 2000 attempts in
// one second from 16 forged sources against a plain UDP socket that
// answers every datagram with one byte, so every count is known exactly.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <map>
#include <thread>

#include "attack.h"
#include "summary.h"

namespace tickwire::spoof {
namespace {

// Counts what arrives and answers each datagram with one byte, from its
// own thread, until stopped.
class OneByteAnswerer {
 public:
  OneByteAnswerer() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    socklen_t length = sizeof address;
    bound_ = bound_ && ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    port_ = ntohs(address.sin_port);
    // Short receive timeouts let the thread notice it is stopped.
    timeval timeout{0, 20000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (bound_) thread_ = std::thread([this] { serve(); });
  }
  ~OneByteAnswerer() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  OneByteAnswerer(const OneByteAnswerer&) = delete;
  OneByteAnswerer& operator=(const OneByteAnswerer&) = delete;

  bool ok() const { return bound_; }
  std::uint16_t port() const { return port_; }
  // Read only after the thread has stopped (the destructor, or stop()).
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  std::uint64_t packets() const { return packets_; }
  std::uint64_t bytes() const { return bytes_; }
  const std::map<std::uint32_t, std::uint64_t>& packets_by_address() const { return by_address_; }

 private:
  void serve() {
    std::array<std::uint8_t, 2048> buffer{};
    const std::uint8_t answer = 0;
    while (!stop_.load()) {
      sockaddr_in from{};
      socklen_t length = sizeof from;
      const ssize_t size =
          ::recvfrom(fd_, buffer.data(), buffer.size(), 0, reinterpret_cast<sockaddr*>(&from), &length);
      if (size < 0) continue;
      ++packets_;
      bytes_ += static_cast<std::uint64_t>(size);
      ++by_address_[ntohl(from.sin_addr.s_addr)];
      ::sendto(fd_, &answer, 1, 0, reinterpret_cast<const sockaddr*>(&from), length);
    }
  }

  int fd_ = -1;
  bool bound_ = false;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::uint64_t packets_ = 0;
  std::uint64_t bytes_ = 0;
  std::map<std::uint32_t, std::uint64_t> by_address_;
};

TEST(SpoofNet, OneSecondAt2000PerSecondFrom16Sources) {
  OneByteAnswerer server;
  ASSERT_TRUE(server.ok());

  AttackConfig config;
  config.target = {0x7F000001, server.port()};
  config.rate = 2000.0;
  config.sources = 16;
  config.duration_s = 1.0;
  config.seed = 11;
  config.listen_after = std::chrono::milliseconds(300);
  auto result = run_attack(config);
  server.stop();
  ASSERT_TRUE(result.ok()) << result.error().detail;
  const Summary summary = summarize(*result);

  // Sent: exactly the scheduled attempts, the mix even, 125 from each source.
  EXPECT_EQ(result->attempts, 2000U);
  EXPECT_EQ(result->send_errors, 0U);
  EXPECT_EQ(summary.sent.packets, 2000U);
  for (const Counter& kind : result->sent_by_kind) EXPECT_EQ(kind.packets, 500U);
  EXPECT_GE(result->sending_time, std::chrono::milliseconds(999)) << "the last attempt is due at one second";
  EXPECT_LT(result->sending_time, std::chrono::milliseconds(1500));

  // The server saw all of it, from the 16 forged addresses.
  EXPECT_EQ(server.packets(), 2000U);
  EXPECT_EQ(server.bytes(), summary.sent.bytes);
  ASSERT_EQ(server.packets_by_address().size(), 16U);
  for (const auto& [address, packets] : server.packets_by_address()) {
    EXPECT_GE(address, kFirstSource);
    EXPECT_LT(address, kFirstSource + 16);
    EXPECT_EQ(packets, 125U);
  }

  // Received back: one byte per datagram, at every source.
  EXPECT_EQ(summary.received.packets, 2000U);
  EXPECT_EQ(summary.received.bytes, 2000U);
  EXPECT_EQ(summary.sources_answered, 16U);
  double largest = 0.0;
  for (const SourceCounters& source : result->sources) {
    EXPECT_EQ(source.sent.packets, 125U);
    EXPECT_EQ(source.received.packets, 125U);
    EXPECT_EQ(source.received.bytes, 125U);
    largest = std::max(largest, 125.0 / static_cast<double>(source.sent.bytes));
  }
  EXPECT_DOUBLE_EQ(summary.max_source_ratio, largest);
  EXPECT_DOUBLE_EQ(summary.overall_ratio, 2000.0 / static_cast<double>(summary.sent.bytes));
  EXPECT_GT(summary.achieved_rate, 1300.0);
  EXPECT_LE(summary.achieved_rate, 2005.0);
}

}  // namespace
}  // namespace tickwire::spoof
