#pragma once
// A sorted multiset of doubles for the lead estimator's tail: thousands of
// values, one inserted and one erased per sample, and queries that walk
// only the largest few hundred. Kept as a list of short sorted blocks with
// their largest values in a flat array, so an insert or erase is a binary
// search over a few cache lines and a small move inside one block, where
// a node-based std::multiset chased a dozen scattered nodes and allocated
// one per sample (measurable when a process runs hundreds of clients).
// Holds the same values in the same order as std::multiset<double> would.

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace tickwire::timesync {

class SortedBag {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void clear() {
    blocks_.clear();
    maxes_.clear();
    size_ = 0;
  }

  void insert(double v) {
    if (blocks_.empty()) {
      blocks_.emplace_back().reserve(kSplitAt);
      blocks_.back().push_back(v);
      maxes_.push_back(v);
      size_ = 1;
      return;
    }
    // The first block whose largest exceeds v, else the last: after its
    // equals, as std::multiset::insert places it.
    std::size_t b = static_cast<std::size_t>(std::upper_bound(maxes_.begin(), maxes_.end(), v) - maxes_.begin());
    if (b == blocks_.size()) b = blocks_.size() - 1;
    std::vector<double>& block = blocks_[b];
    block.insert(std::upper_bound(block.begin(), block.end(), v), v);
    maxes_[b] = block.back();
    ++size_;
    if (block.size() >= kSplitAt) split(b);
  }

  // Removes one value equal to v; returns false when there is none.
  bool erase(double v) {
    const std::size_t b = static_cast<std::size_t>(std::lower_bound(maxes_.begin(), maxes_.end(), v) - maxes_.begin());
    if (b == blocks_.size()) return false;
    std::vector<double>& block = blocks_[b];
    const auto it = std::lower_bound(block.begin(), block.end(), v);
    if (it == block.end() || *it != v) return false;
    block.erase(it);
    --size_;
    if (block.empty()) {
      blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
      maxes_.erase(maxes_.begin() + static_cast<std::ptrdiff_t>(b));
    } else {
      maxes_[b] = block.back();
    }
    return true;
  }

  // Walks the values from the largest down.
  class Descending {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = double;
    using difference_type = std::ptrdiff_t;
    using pointer = const double*;
    using reference = const double&;

    Descending() = default;
    const double& operator*() const { return (*blocks_)[block_ - 1][index_ - 1]; }
    Descending& operator++() {
      if (--index_ == 0 && --block_ > 0) index_ = (*blocks_)[block_ - 1].size();
      return *this;
    }
    Descending operator++(int) {
      Descending old = *this;
      ++*this;
      return old;
    }
    bool operator==(const Descending& o) const { return block_ == o.block_ && index_ == o.index_; }

   private:
    friend class SortedBag;
    // block_ and index_ count from 1; block_ 0 is the end.
    Descending(const std::vector<std::vector<double>>* blocks, std::size_t block, std::size_t index)
        : blocks_(blocks), block_(block), index_(index) {}
    const std::vector<std::vector<double>>* blocks_ = nullptr;
    std::size_t block_ = 0;
    std::size_t index_ = 0;
  };

  Descending largest_first() const {
    if (blocks_.empty()) return end();
    return Descending(&blocks_, blocks_.size(), blocks_.back().size());
  }
  Descending end() const { return Descending(&blocks_, 0, 0); }

  // The k-th largest (1-based); k in [1, size()].
  double kth_largest(std::size_t k) const {
    for (std::size_t b = blocks_.size(); b-- > 0;) {
      const std::vector<double>& block = blocks_[b];
      if (k <= block.size()) return block[block.size() - k];
      k -= block.size();
    }
    return 0.0;
  }

 private:
  static constexpr std::size_t kSplitAt = 256;

  void split(std::size_t b) {
    std::vector<double> upper;
    upper.reserve(kSplitAt);
    std::vector<double>& block = blocks_[b];
    const auto mid = block.begin() + static_cast<std::ptrdiff_t>(block.size() / 2);
    upper.assign(mid, block.end());
    block.erase(mid, block.end());
    maxes_[b] = block.back();
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(upper));
    maxes_.insert(maxes_.begin() + static_cast<std::ptrdiff_t>(b) + 1, blocks_[b + 1].back());
  }

  std::vector<std::vector<double>> blocks_;  // each sorted, non-empty; in order
  std::vector<double> maxes_;                // each block's largest
  std::size_t size_ = 0;
};

}  // namespace tickwire::timesync
