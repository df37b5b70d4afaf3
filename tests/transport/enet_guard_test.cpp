// The fragment guard on hand-built ENet datagrams: honest geometry passes,
// every way of leaving gaps, overlapping or inflating the bookkeeping is
// caught, and malformed command streams are left to ENet.

#include "enet_guard.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tickwire::transport {
namespace {

constexpr std::uint32_t kMtu = 1392;
const std::uint32_t kF = enet_fragment_length(kMtu);

void put_be(std::vector<std::uint8_t>& out, std::uint32_t value, int width) {
  for (int i = width - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

struct Fragment {
  std::uint32_t count = 0, number = 0, total = 0, offset = 0;
  std::uint32_t length = 0;  // bytes of data that follow
  std::uint8_t command = 8;  // SEND_FRAGMENT; 12 is the unreliable kind
};

// An ENet datagram: header with sent time, then the commands.
std::vector<std::uint8_t> datagram(const std::vector<Fragment>& fragments) {
  std::vector<std::uint8_t> d;
  put_be(d, 0x8000 | 3, 2);  // sent-time flag, peer 3
  put_be(d, 1234, 2);
  for (const Fragment& f : fragments) {
    d.push_back(static_cast<std::uint8_t>(0x80 | f.command));
    d.push_back(0);   // channel
    put_be(d, 1, 2);  // reliable sequence
    put_be(d, 1, 2);  // start sequence
    put_be(d, f.length, 2);
    put_be(d, f.count, 4);
    put_be(d, f.number, 4);
    put_be(d, f.total, 4);
    put_be(d, f.offset, 4);
    d.insert(d.end(), f.length, 0x5A);
  }
  return d;
}

Fragment honest(std::uint32_t total, std::uint32_t number) {
  Fragment f;
  f.total = total;
  f.count = (total + kF - 1) / kF;
  f.number = number;
  f.offset = number * kF;
  f.length = number + 1 < f.count ? kF : total - f.offset;
  return f;
}

TEST(EnetGuard, TheFragmentLengthIsTheMtuLessEnetsHeaders) {
  EXPECT_EQ(kF, kMtu - 4 - 24);
  EXPECT_EQ(enet_fragment_length(10), 0u);
}

TEST(EnetGuard, HonestFragmentsPassReliableAndUnreliable) {
  const std::uint32_t total = 2 * kF + 100;
  for (std::uint32_t n = 0; n < 3; ++n) {
    EXPECT_TRUE(fragments_are_honest(datagram({honest(total, n)}), kMtu)) << n;
    Fragment unreliable = honest(total, n);
    unreliable.command = 12;
    EXPECT_TRUE(fragments_are_honest(datagram({unreliable}), kMtu)) << n;
  }
}

TEST(EnetGuard, EveryDishonestGeometryIsCaught) {
  const std::uint32_t total = 2 * kF + 100;
  std::vector<Fragment> hostile;
  Fragment f = honest(total, 0);
  f.length = 0;  // completes a number with no bytes
  hostile.push_back(f);
  f = honest(total, 1);
  f.offset = 0;  // overlaps fragment 0, leaves a gap
  hostile.push_back(f);
  f = honest(total, 0);
  f.count = 1024 * 1024;  // bookkeeping for a million fragments
  hostile.push_back(f);
  f = honest(total, 0);
  f.count = 0;
  hostile.push_back(f);
  f = honest(total, 2);
  f.number = 3;  // beyond the count
  hostile.push_back(f);
  f = honest(total, 0);
  f.length = kF - 1;  // shorter than an honest sender cuts
  hostile.push_back(f);
  f = honest(total, 2);
  f.length = 99;  // the last one short of the total
  hostile.push_back(f);
  f = honest(total, 0);
  f.total = 0;
  hostile.push_back(f);
  f = honest(total, 1);
  f.number = 0xFFFFFFFF;  // wraps a 32-bit offset computation
  f.count = 0xFFFFFFFF;
  hostile.push_back(f);
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    EXPECT_FALSE(fragments_are_honest(datagram({hostile[i]}), kMtu)) << "case " << i;
    // Hidden behind an honest command in the same datagram.
    EXPECT_FALSE(fragments_are_honest(datagram({honest(total, 0), hostile[i]}), kMtu)) << "case " << i;
  }
}

TEST(EnetGuard, MalformedStreamsAreLeftToEnet) {
  EXPECT_TRUE(fragments_are_honest({}, kMtu));
  auto d = datagram({honest(2 * kF + 100, 0)});
  // Cut inside the command: ENet drops it; the guard has nothing to judge.
  for (std::size_t size = 0; size < 4 + 24; ++size) {
    EXPECT_TRUE(fragments_are_honest(std::span(d.data(), size), kMtu)) << size;
  }
  // Compressed datagrams are dropped by ENet (no compressor is set).
  auto compressed = datagram({Fragment{}});
  compressed[0] |= 0x40;
  EXPECT_TRUE(fragments_are_honest(compressed, kMtu));
}

}  // namespace
}  // namespace tickwire::transport
