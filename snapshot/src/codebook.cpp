#include "tickwire/snapshot/codebook.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <span>
#include <string>

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

constexpr std::uint8_t kMagic[4] = {'T', 'W', 'C', 'B'};
constexpr std::uint8_t kFormatVersion = 2;

void put(std::vector<std::uint8_t>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  bool take(std::uint64_t& v, int bytes) {
    if (in_.size() - at_ < static_cast<std::size_t>(bytes)) return false;
    v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t{in_[at_++]} << (8 * i);
    return true;
  }
  std::size_t left() const { return in_.size() - at_; }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t at_ = 0;
};

Error bad(ErrorCode code, const std::string& what) { return make_error(code, "codebook: " + what); }

}  // namespace

bool codebook_fits(const ModelState& codebook, const Schema& schema) {
  // A probability of 0 or 1 would leave the coder an empty interval.
  auto usable = [](const BitModel& m) { return m.p >= 1 && m.p < kProbOne; };
  bool ok = true;
  each_fixed(codebook, [&](const BitModel& m) { ok = ok && usable(m); });
  if (!ok || codebook.aged_types.size() >= kAgeSets) return false;
  for (std::size_t set = 0; set <= codebook.aged_types.size(); ++set) {
    const auto& types = types_of_set(codebook, set);
    if (types.size() > schema.type_count()) return false;
    for (std::size_t t = 0; t < types.size(); ++t) {
      if (!types[t]) continue;
      TypeModels own;
      own.reset(schema.types()[t]);
      if (!types[t]->same_layout(own)) return false;
      for (const BitModel& m : types[t]->bits()) {
        if (!usable(m)) return false;
      }
    }
  }
  return true;
}

CodebookTrainer::CodebookTrainer(const Schema& schema) : types_(schema.types().begin(), schema.types().end()) {
  for (auto& set : typed_) set.resize(schema.type_count());
}

void CodebookTrainer::add(const ModelState& models, std::uint32_t age) {
  std::vector<Sums>& typed = typed_[age_set(age)];
  ++packets_;
  // A server training on live play calls this per snapshot: no allocation
  // once the sums exist.
  std::size_t i = 0;
  each_fixed(models, [this, &i](const BitModel& m) {
    if (fixed_.p.size() <= i) fixed_.p.push_back(0.0);
    fixed_.p[i++] += m.p;
  });
  ++fixed_.count;
  for (std::size_t t = 0; t < models.types.size() && t < typed.size(); ++t) {
    if (!models.types[t]) continue;
    accumulate(typed[t].p, models.types[t]->bits());
    ++typed[t].count;
  }
}

std::shared_ptr<const ModelState> CodebookTrainer::codebook() const {
  auto book = std::make_shared<ModelState>();
  if (fixed_.count > 0) {
    std::size_t i = 0;
    each_fixed(*book, [&](BitModel& m) { m.p = mean(fixed_.p[i++], fixed_.count); });
  }
  std::array<std::vector<std::shared_ptr<const TypeModels>>, kAgeSets> sets;
  for (std::size_t s = 0; s < kAgeSets; ++s) {
    sets[s].resize(types_.size());
    for (std::size_t t = 0; t < types_.size(); ++t) {
      const Sums& sums = typed_[s][t];
      if (sums.count == 0) continue;
      auto table = std::make_shared<TypeModels>();
      table->reset(types_[t]);
      const std::span<BitModel> bits = table->bits();
      for (std::size_t i = 0; i < bits.size() && i < sums.p.size(); ++i) bits[i].p = mean(sums.p[i], sums.count);
      sets[s][t] = std::move(table);
    }
  }
  // A set without packets for a type takes the nearest set's table, the
  // younger first.
  for (std::size_t t = 0; t < types_.size(); ++t) {
    for (std::size_t s = 0; s < kAgeSets; ++s) {
      for (std::size_t d = 1; !sets[s][t] && d < kAgeSets; ++d) {
        if (s >= d && typed_[s - d][t].count > 0)
          sets[s][t] = sets[s - d][t];
        else if (s + d < kAgeSets && typed_[s + d][t].count > 0)
          sets[s][t] = sets[s + d][t];
      }
    }
  }
  book->types = std::move(sets[0]);
  for (std::size_t s = 1; s < kAgeSets; ++s) book->aged_types.push_back(std::move(sets[s]));
  return book;
}

std::vector<std::uint8_t> write_codebook(const ModelState& codebook, const Schema& schema) {
  std::vector<std::uint8_t> out(std::begin(kMagic), std::end(kMagic));
  out.push_back(kFormatVersion);
  put(out, schema.hash(), 8);
  each_fixed(codebook, [&out](const BitModel& m) { put(out, m.p, 2); });
  out.push_back(static_cast<std::uint8_t>(1 + codebook.aged_types.size()));
  for (std::size_t set = 0; set <= codebook.aged_types.size(); ++set) {
    const auto& types = types_of_set(codebook, set);
    put(out, schema.type_count(), 4);
    for (std::size_t t = 0; t < schema.type_count(); ++t) {
      const TypeModels* table = t < types.size() ? types[t].get() : nullptr;
      out.push_back(table != nullptr ? 1 : 0);
      if (table == nullptr) continue;
      put(out, table->bits().size(), 4);
      for (const BitModel& m : table->bits()) put(out, m.p, 2);
    }
  }
  return out;
}

Result<std::shared_ptr<const ModelState>> read_codebook(std::span<const std::uint8_t> bytes, const Schema& schema) {
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return bad(ErrorCode::kBadProtocolId, "not a codebook (no TWCB at the start)");
  }
  Reader r(bytes.subspan(sizeof(kMagic)));
  std::uint64_t v = 0;
  if (!r.take(v, 1)) return bad(ErrorCode::kTruncated, "ends in its header");
  if (v != kFormatVersion) {
    return bad(ErrorCode::kBadVersion, "format version " + std::to_string(v) + ", not 2 (train it again)");
  }
  if (!r.take(v, 8)) return bad(ErrorCode::kTruncated, "ends in its header");
  if (v != schema.hash()) return bad(ErrorCode::kMalformed, "made for another schema (its hash differs)");
  auto book = std::make_shared<ModelState>();
  bool cut = false;
  bool certain = false;
  // A probability of 0 or 1 would leave the coder an empty interval.
  auto read_model = [&](BitModel& m) {
    if (cut || !r.take(v, 2)) {
      cut = true;
      return;
    }
    certain = certain || v == 0 || v >= kProbOne;
    m.p = static_cast<std::uint16_t>(v);
  };
  each_fixed(*book, read_model);
  if (!cut && !r.take(v, 1)) cut = true;
  if (cut) return bad(ErrorCode::kTruncated, "ends in its op and spawn models");
  if (v < 1 || v > kAgeSets) {
    return bad(ErrorCode::kMalformed, std::to_string(v) + " age sets, not 1 to " + std::to_string(kAgeSets));
  }
  const std::size_t set_count = v;
  for (std::size_t set = 0; set < set_count; ++set) {
    const std::string in_set = set_count > 1 ? " of age set " + std::to_string(set) : "";
    if (!r.take(v, 4)) return bad(ErrorCode::kTruncated, "ends before the types" + in_set);
    if (v != schema.type_count()) {
      return bad(ErrorCode::kMalformed,
                 std::to_string(v) + " types" + in_set + ", the schema has " + std::to_string(schema.type_count()));
    }
    std::vector<std::shared_ptr<const TypeModels>>& types = set == 0 ? book->types : book->aged_types.emplace_back();
    types.resize(schema.type_count());
    for (std::size_t t = 0; t < schema.type_count(); ++t) {
      const std::string type = "type " + std::to_string(t) + in_set;
      if (!r.take(v, 1)) return bad(ErrorCode::kTruncated, "ends before " + type);
      if (v > 1) return bad(ErrorCode::kMalformed, type + " is neither present nor absent");
      if (v == 0) continue;
      auto table = std::make_shared<TypeModels>();
      table->reset(schema.types()[t]);
      if (!r.take(v, 4)) return bad(ErrorCode::kTruncated, "ends in " + type);
      if (v != table->bits().size()) {
        return bad(ErrorCode::kMalformed,
                   type + " has " + std::to_string(v) + " models, its layout " + std::to_string(table->bits().size()));
      }
      for (BitModel& m : table->bits()) read_model(m);
      if (cut) return bad(ErrorCode::kTruncated, "ends in " + type);
      types[t] = std::move(table);
    }
  }
  if (certain) return bad(ErrorCode::kOutOfRange, "a probability of 0 or 1");
  if (r.left() != 0) return bad(ErrorCode::kMalformed, std::to_string(r.left()) + " bytes after the last type");
  return std::shared_ptr<const ModelState>(std::move(book));
}

std::uint64_t codebook_hash(const ModelState& codebook, const Schema& schema) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (const std::uint8_t b : write_codebook(codebook, schema)) {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Result<std::shared_ptr<const ModelState>> load_codebook(const std::string& path, const Schema& schema) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  // Tables of a few KB per type; a file far larger is not a codebook, and
  // is refused before it is read.
  constexpr std::streamoff kMaxBytes = 8 << 20;
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxBytes) return make_error(ErrorCode::kTooLong, path + ": over 8 MiB, not a codebook");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));  // NOLINT: bytes as chars
  if (!in) return make_error(ErrorCode::kIo, path + ": cannot be read (" + std::strerror(errno) + ")");
  auto book = read_codebook(bytes, schema);
  if (!book) return make_error(book.error().code, path + ": " + book.error().detail);
  return book;
}

Result<void> save_codebook(const std::string& path, const ModelState& codebook, const Schema& schema) {
  const std::vector<std::uint8_t> bytes = write_codebook(codebook, schema);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out)
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));  // NOLINT
  if (out) out.flush();
  if (!out) return make_error(ErrorCode::kIo, path + ": cannot be written (" + std::strerror(errno) + ")");
  return {};
}

Result<void> CodebookTrainer::save(const std::string& path, const Schema& schema) const {
  if (packets_ == 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      path + ": no snapshot was sent while training (no client played), so there is no codebook "
                             "to write");
  }
  return save_codebook(path, *codebook(), schema);
}

}  // namespace tickwire::snapshot
