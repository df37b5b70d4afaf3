#include "tickwire/snapshot/codebook.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace tickwire::snapshot {

namespace {

// The models of a packet outside its type tables, in one fixed order.
template <class State, class Fn>
void each_fixed(State& s, Fn&& fn) {
  for (auto* group : {&s.ops.same, &s.ops.first, &s.ops.second}) {
    for (auto& m : *group) fn(m);
  }
  for (auto* magnitude : {&s.spawn_count, &s.spawn_gap, &s.spawn_generation}) {
    for (auto& m : magnitude->exponent) fn(m);
    for (auto& m : magnitude->mantissa) fn(m);
  }
}

void accumulate(std::vector<double>& sums, std::span<const BitModel> bits) {
  if (sums.empty()) sums.assign(bits.size(), 0.0);
  for (std::size_t i = 0; i < bits.size() && i < sums.size(); ++i) sums[i] += bits[i].p;
}

std::uint16_t mean(double sum, std::uint64_t count) {
  const double p = std::round(sum / static_cast<double>(count));
  // Within the range adaptation itself keeps, so no decision is ever free
  // or impossible.
  const double lowest = static_cast<double>(kProbOne >> kAdaptShift);
  return static_cast<std::uint16_t>(std::clamp(p, lowest, static_cast<double>(kProbOne) - lowest));
}

}  // namespace

bool codebook_fits(const ModelState& codebook, const Schema& schema) {
  // A probability of 0 or 1 would leave the coder an empty interval.
  auto usable = [](const BitModel& m) { return m.p >= 1 && m.p < kProbOne; };
  bool ok = true;
  each_fixed(codebook, [&](const BitModel& m) { ok = ok && usable(m); });
  if (!ok || codebook.types.size() > schema.type_count()) return false;
  for (std::size_t t = 0; t < codebook.types.size(); ++t) {
    if (!codebook.types[t]) continue;
    TypeModels own;
    own.reset(schema.types()[t]);
    if (!codebook.types[t]->same_layout(own)) return false;
    for (const BitModel& m : codebook.types[t]->bits()) {
      if (!usable(m)) return false;
    }
  }
  return true;
}

CodebookTrainer::CodebookTrainer(const Schema& schema)
    : types_(schema.types().begin(), schema.types().end()), typed_(schema.type_count()) {}

void CodebookTrainer::add(const ModelState& models) {
  ++packets_;
  std::vector<BitModel> flat;
  each_fixed(models, [&flat](const BitModel& m) { flat.push_back(m); });
  accumulate(fixed_.p, flat);
  ++fixed_.count;
  for (std::size_t t = 0; t < models.types.size() && t < typed_.size(); ++t) {
    if (!models.types[t]) continue;
    accumulate(typed_[t].p, models.types[t]->bits());
    ++typed_[t].count;
  }
}

std::shared_ptr<const ModelState> CodebookTrainer::codebook() const {
  auto book = std::make_shared<ModelState>();
  if (fixed_.count > 0) {
    std::size_t i = 0;
    each_fixed(*book, [&](BitModel& m) { m.p = mean(fixed_.p[i++], fixed_.count); });
  }
  book->types.resize(typed_.size());
  for (std::size_t t = 0; t < typed_.size(); ++t) {
    if (typed_[t].count == 0) continue;
    auto table = std::make_shared<TypeModels>();
    table->reset(types_[t]);
    const std::span<BitModel> bits = table->bits();
    for (std::size_t i = 0; i < bits.size() && i < typed_[t].p.size(); ++i) {
      bits[i].p = mean(typed_[t].p[i], typed_[t].count);
    }
    book->types[t] = std::move(table);
  }
  return book;
}

}  // namespace tickwire::snapshot
