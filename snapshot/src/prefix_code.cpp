#include "prefix_code.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace tickwire::snapshot::detail {

void BitSink::append_bytes_to(std::vector<std::uint8_t>& out) const {
  const std::size_t bytes = (bits_ + 7) / 8;
  const std::size_t at = out.size();
  out.resize(at + bytes);
  if constexpr (std::endian::native == std::endian::little) {
    // The words' bytes are already in wire order: the whole body at once.
    std::memcpy(out.data() + at, words_.data(), bytes);
  } else {
    for (std::size_t i = 0; i < bytes; ++i) out[at + i] = static_cast<std::uint8_t>(words_[i / 8] >> (8 * (i % 8)));
  }
}

bool BitSource::at_clean_end() const {
  if (overran_ || (pos_ + 7) / 8 != bytes_.size()) return false;
  return (pos_ & 7U) == 0 || (std::uint32_t{bytes_.back()} >> (pos_ & 7U)) == 0;
}

namespace {

// Huffman code lengths for weights >= 1, returning the longest. Ties are
// broken by symbol and leaves go before merged nodes of equal weight, so
// the lengths depend on the weights alone.
int huffman_lengths(std::span<const std::uint64_t> w, std::vector<std::uint8_t>& lengths) {
  const std::size_t n = w.size();
  lengths.assign(n, 0);
  if (n < 2) return 0;
  std::vector<std::uint32_t> leaves(n);
  std::iota(leaves.begin(), leaves.end(), 0U);
  std::sort(leaves.begin(), leaves.end(),
            [&](std::uint32_t a, std::uint32_t b) { return w[a] < w[b] || (w[a] == w[b] && a < b); });
  // Two queues: the sorted leaves, and merged nodes, which are made in
  // order of weight. Node ids: leaves 0..n-1, merged nodes n.. in order.
  std::vector<std::uint64_t> merged;
  merged.reserve(n - 1);
  std::vector<std::uint32_t> parent(2 * n - 1, 0);
  std::size_t next_leaf = 0;
  std::size_t next_merged = 0;
  const auto weight = [&](std::uint32_t id) { return id < n ? w[id] : merged[id - n]; };
  const auto take = [&]() -> std::uint32_t {
    if (next_leaf < n && (next_merged >= merged.size() || w[leaves[next_leaf]] <= merged[next_merged])) {
      return leaves[next_leaf++];
    }
    return static_cast<std::uint32_t>(n + next_merged++);
  };
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const std::uint32_t a = take();
    const std::uint32_t b = take();
    const auto id = static_cast<std::uint32_t>(n + k);
    parent[a] = id;
    parent[b] = id;
    merged.push_back(weight(a) + weight(b));
  }
  // A merged node's parent was made after it: depths from the root down.
  std::vector<std::uint8_t> depth(2 * n - 1, 0);
  int longest = 0;
  for (std::size_t id = 2 * n - 2; id-- > 0;) {
    depth[id] = static_cast<std::uint8_t>(std::min(255, depth[parent[id]] + 1));
    if (id < n) {
      lengths[id] = depth[id];
      longest = std::max(longest, static_cast<int>(depth[id]));
    }
  }
  return longest;
}

std::uint32_t reverse_bits(std::uint32_t v, int count) {
  std::uint32_t r = 0;
  for (int i = 0; i < count; ++i) r |= ((v >> i) & 1U) << (count - 1 - i);
  return r;
}

}  // namespace

void PrefixCode::build(std::span<const std::uint64_t> weights) {
  if (weights.empty() || weights.size() > (std::size_t{1} << kMaxLength)) {
    throw std::invalid_argument("PrefixCode: between 1 and 2^20 symbols");
  }
  std::vector<std::uint64_t> w(weights.begin(), weights.end());
  for (std::uint64_t& x : w) x = std::max<std::uint64_t>(x, 1);
  // Too long a code for the rarest symbols: flatten the weights (the
  // small ones meet at 1) until it fits; all equal is a balanced tree.
  while ((max_length_ = huffman_lengths(w, length_)) > kMaxLength) {
    for (std::uint64_t& x : w) x = std::max<std::uint64_t>(x >> 2, 1);
  }
  sorted_.resize(w.size());
  std::iota(sorted_.begin(), sorted_.end(), 0U);
  std::stable_sort(sorted_.begin(), sorted_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return length_[a] < length_[b]; });
  std::fill(std::begin(count_), std::end(count_), 0U);
  for (const std::uint8_t len : length_) ++count_[len];
  std::uint32_t code = 0;
  std::uint32_t index = count_[0];
  for (int len = 1; len <= max_length_; ++len) {
    first_code_[len] = code;
    first_index_[len] = index;
    code = (code + count_[len]) << 1;
    index += count_[len];
  }
  code_.assign(w.size(), 0);
  std::uint32_t rank = 0;
  int at_length = -1;
  for (const std::uint32_t s : sorted_) {
    const int len = length_[s];
    if (len != at_length) {
      at_length = len;
      rank = 0;
    }
    code_[s] = len == 0 ? 0 : reverse_bits(first_code_[len] + rank++, len);
  }
  fast_bits_ = std::min(max_length_, kFastBits);
  fast_.assign(std::size_t{1} << fast_bits_, 0U);
  for (std::uint32_t s = 0; s < code_.size(); ++s) {
    const int len = length_[s];
    if (len == 0 || len > fast_bits_) continue;
    // Every window whose first `len` bits are the code.
    for (std::uint32_t rest = 0; rest < (1U << (fast_bits_ - len)); ++rest) {
      fast_[code_[s] | (rest << len)] = (s << 5) | static_cast<std::uint32_t>(len);
    }
  }
}

bool PrefixCode::read(BitSource& in, std::uint32_t& symbol) const {
  if (max_length_ == 0) {
    symbol = 0;
    return true;
  }
  // Away from the end one wide window serves the table and the long codes
  // alike, with no bounds check; near it one peek: bits past the end read
  // as zero, and a code that needs them fails in skip().
  std::uint64_t wide = 0;
  const bool away = in.peek_wide(wide);
  const std::uint32_t window = away ? static_cast<std::uint32_t>(wide) : in.peek(max_length_);
  const auto take = [&in, away](int count) {
    if (!away) return in.skip(count);
    in.take_peeked(count);
    return true;
  };
  if (const std::uint32_t hit = read_short(window); hit != 0) {
    if (!take(static_cast<int>(hit & 31U))) return false;
    symbol = hit >> 5;
    return true;
  }
  std::uint32_t code = 0;
  for (int len = 1; len <= max_length_; ++len) {
    code = (code << 1) | ((window >> (len - 1)) & 1U);
    if (code >= first_code_[len] && code - first_code_[len] < count_[len]) {
      if (!take(len)) return false;
      symbol = sorted_[first_index_[len] + code - first_code_[len]];
      return true;
    }
  }
  return false;
}

}  // namespace tickwire::snapshot::detail
