#include "shared_coding.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "tickwire/snapshot/codebook.h"

namespace tickwire::snapshot::detail {

namespace {

// Weights are fixed point with kOne for certainty; probabilities are the
// models' 15-bit ones. Integer arithmetic, so that every platform builds
// the same codes from the same codebook.
constexpr std::uint64_t kOne = std::uint64_t{1} << 46;
std::uint64_t times(std::uint64_t w, std::uint32_t p) { return (w * p) >> kProbBits; }

// What the chunk and exponent codes are built from: each decision's models.
struct DecisionModels {
  std::uint32_t differs = 0;                           // flag: P(not the predicted index)
  std::uint32_t nonzero[kResidualContexts] = {};       // residual: P(not zero) by context
  std::vector<std::uint32_t> stop[kResidualContexts];  // P(exponent ends at step e | got there) by context
};

// The chance of a chunk's decisions going as `symbol` says, from context
// `context`. A residual's outcome is its context class (0, 1, more), so
// the context each decision is coded in follows from the symbol.
std::uint64_t chunk_weight(std::span<const DecisionModels> models, std::span<const PrefixDecision> decisions,
                           std::uint32_t symbol, int context, int& after) {
  std::uint64_t w = kOne;
  for (std::size_t j = 0; j < decisions.size(); ++j) {
    const DecisionModels& m = models[j];
    if (decisions[j].flag) {
      const bool differs = symbol % 2 != 0;
      symbol /= 2;
      w = times(w, differs ? m.differs : kProbOne - m.differs);
      continue;
    }
    const auto outcome = static_cast<int>(symbol % 3);
    symbol /= 3;
    const std::uint32_t nonzero = m.nonzero[context];
    const std::uint32_t one = m.stop[context][0];
    if (outcome == 0) {
      w = times(w, kProbOne - nonzero);
    } else {
      w = times(times(w, nonzero), outcome == 1 ? one : kProbOne - one);
    }
    context = std::max(context, outcome);
  }
  after = context;
  return w;
}

PrefixType build_type(const TypeSpec& spec, const TypeModels* trained) {
  TypeModels models;
  if (trained != nullptr) {
    models = *trained;
  } else {
    models.reset(spec);
  }
  PrefixType out;
  std::vector<DecisionModels> dm;
  const auto add_residual = [&](std::size_t component) {
    const ComponentSpec& c = spec.components[component];
    const int e_max = max_exponent_for(max_magnitude(c));
    out.decisions.push_back({false, static_cast<std::uint8_t>(e_max)});
    DecisionModels m;
    for (int ctx = 0; ctx < kResidualContexts; ++ctx) {
      const ResidualModelRef r = models.component(component).residual(ctx);
      m.nonzero[ctx] = r.zero->p;  // the models' p is the chance of a 0: "not zero"
      // The exponent goes in unary, each step's p the chance it stops
      // there; at e_max it stops without a decision.
      for (int e = 0; e < e_max; ++e) m.stop[ctx].push_back(r.exponent[e].p);
      m.stop[ctx].push_back(kProbOne);
    }
    dm.push_back(std::move(m));
  };
  for (const FieldSpec& f : spec.fields) {
    if (f.kind == FieldKind::kQuat) {
      DecisionModels m;
      m.differs = models.component(f.offset).same_index().p;
      out.decisions.push_back({true, 0});
      dm.push_back(std::move(m));
      for (std::size_t k = 1; k < 4; ++k) add_residual(f.offset + k);
      continue;
    }
    for (std::size_t i = f.offset; i < f.offset + f.count; ++i) {
      if (spec.components[i].max_code != 0) add_residual(i);
    }
  }
  // A chunk's symbol: its outcomes, then (but for the last chunk) whether
  // anything after it is not the likely outcome. The flag is what lets an
  // entity whose later decisions all went the likely way stop after its
  // first chunk: a prefix code spends at least a bit a symbol, so a chunk
  // of near certain outcomes of its own would cost about a bit for nothing.
  for (std::size_t first = 0; first < out.decisions.size();) {
    PrefixChunk& chunk = out.chunks.emplace_back();
    chunk.first = first;
    while (first < out.decisions.size()) {
      const std::uint32_t radix = out.decisions[first].flag ? 2 : 3;
      if (chunk.outcomes * radix * 2 > kMaxChunkSymbols) break;
      chunk.outcomes *= radix;
      ++first;
    }
    chunk.count = first - chunk.first;
    // At most 12 decisions (2^12 * 2 symbols), so 24 bits of outcomes.
    static_assert(kMaxChunkSymbols <= (1U << 15), "a chunk's outcomes must fit below bit 30");
    chunk.unpacked.resize(chunk.outcomes);
    for (std::uint32_t symbol = 0; symbol < chunk.outcomes; ++symbol) {
      std::uint32_t rest = symbol;
      std::uint32_t packed = 0;
      std::uint32_t largest = 0;
      for (std::size_t j = 0; j < chunk.count; ++j) {
        const std::uint32_t radix = out.decisions[chunk.first + j].flag ? 2 : 3;
        const std::uint32_t outcome = rest % radix;
        rest /= radix;
        packed |= outcome << (2 * j);
        if (radix == 3) largest = std::max(largest, outcome);
      }
      chunk.unpacked[symbol] = packed | (largest << 30);
    }
  }
  std::vector<std::uint64_t> weights;
  for (std::size_t k = 0; k < out.chunks.size(); ++k) {
    PrefixChunk& chunk = out.chunks[k];
    const bool last = k + 1 == out.chunks.size();
    const std::size_t rest = chunk.first + chunk.count;  // the decisions after the chunk
    const auto decisions = std::span(out.decisions).subspan(chunk.first, chunk.count);
    const auto chunk_models = std::span(dm).subspan(chunk.first, chunk.count);
    // The first chunk always starts in context 0.
    const int contexts = k == 0 ? 1 : kResidualContexts;
    for (int ctx = 0; ctx < contexts; ++ctx) {
      weights.assign(last ? chunk.outcomes : 2 * chunk.outcomes, 0);
      for (std::uint32_t s = 0; s < chunk.outcomes; ++s) {
        int after = ctx;
        const std::uint64_t w = chunk_weight(chunk_models, decisions, s, ctx, after);
        if (last) {
          weights[s] = w;
          continue;
        }
        // The chance that every later decision goes the likely way (the
        // context then stays where the chunk left it), in 15 bits.
        std::uint64_t quiet = kOne;
        for (std::size_t d = rest; d < out.decisions.size(); ++d) {
          quiet = times(quiet, out.decisions[d].flag ? kProbOne - dm[d].differs : kProbOne - dm[d].nonzero[after]);
        }
        const auto quiet15 =
            static_cast<std::uint32_t>(std::clamp<std::uint64_t>(quiet >> (46 - kProbBits), 1, kProbOne - 1));
        weights[s] = times(w, quiet15);
        weights[s + chunk.outcomes] = times(w, kProbOne - quiet15);
      }
      // After the first, a chunk is there because something in it or after
      // it is not the likely outcome: all likely and nothing more cannot be.
      if (k > 0) weights[0] = 0;
      chunk.codes[ctx].build(weights);
    }
  }
  out.exponents.resize(out.decisions.size() * kResidualContexts);
  for (std::size_t d = 0; d < out.decisions.size(); ++d) {
    if (out.decisions[d].flag || out.decisions[d].max_exponent == 0) continue;
    for (int ctx = 0; ctx < kResidualContexts; ++ctx) {
      const std::vector<std::uint32_t>& stop = dm[d].stop[ctx];
      weights.assign(stop.size() - 1, 0);
      std::uint64_t reach = times(kOne, kProbOne - stop[0]);  // the chance of getting to step e
      for (std::size_t e = 1; e < stop.size(); ++e) {
        weights[e - 1] = times(reach, stop[e]);
        reach = times(reach, kProbOne - stop[e]);
      }
      out.exponents[d * kResidualContexts + static_cast<std::size_t>(ctx)].build(weights);
    }
  }
  return out;
}

}  // namespace

PrefixTables::PrefixTables(std::shared_ptr<const ModelState> codebook, const Schema& schema)
    : codebook_(std::move(codebook)) {
  // Sets often share a table (one the trainer filled from a neighbour):
  // its codes are built once.
  std::vector<std::pair<const TypeModels*, std::shared_ptr<const PrefixType>>> built;
  for (std::size_t set = 0; set < kAgeSets; ++set) {
    const auto& types = types_of_set(*codebook_, set);
    for (std::size_t t = 0; t < schema.type_count(); ++t) {
      const TypeModels* trained = t < types.size() ? types[t].get() : nullptr;
      std::shared_ptr<const PrefixType> codes;
      for (const auto& [from, made] : built) {
        if (trained != nullptr && from == trained) codes = made;
      }
      if (!codes) {
        codes = std::make_shared<const PrefixType>(build_type(schema.types()[t], trained));
        built.emplace_back(trained, codes);
      }
      sets_[set].push_back(std::move(codes));
    }
  }
}

std::shared_ptr<const PrefixTables> prefix_tables(const std::shared_ptr<const ModelState>& codebook,
                                                  const Schema& schema) {
  struct Entry {
    const ModelState* codebook;
    std::uint64_t schema_hash;
    std::weak_ptr<const PrefixTables> tables;
  };
  static std::mutex mutex;
  static std::vector<Entry> built;
  const std::lock_guard<std::mutex> lock(mutex);
  std::erase_if(built, [](const Entry& e) { return e.tables.expired(); });
  // A live entry holds its codebook, so its address names it.
  for (const Entry& e : built) {
    if (e.codebook == codebook.get() && e.schema_hash == schema.hash()) {
      if (auto tables = e.tables.lock()) return tables;
    }
  }
  auto tables = std::make_shared<const PrefixTables>(codebook, schema);
  built.push_back({codebook.get(), schema.hash(), tables});
  return tables;
}

void PrefixEncodeIo::begin(const PrefixType& type) {
  type_ = &type;
  next_ = 0;
  context_ = 0;
  outcomes_.resize(type.decisions.size());
  tail_.clear();
}

bool PrefixEncodeIo::residual(ResidualModelRef /*model*/, std::int64_t& r, int /*max_exponent*/,
                              std::uint64_t /*max_magnitude*/) {
  const std::size_t d = next_++;
  const int cls = residual_context(r);
  outcomes_[d] = static_cast<std::uint8_t>(cls);
  if (cls == 2) {
    const auto m = static_cast<std::uint64_t>(r < 0 ? -r : r);
    const int e = static_cast<int>(std::bit_width(m)) - 1;
    type_->exponents[d * kResidualContexts + static_cast<std::size_t>(context_)].put(tail_,
                                                                                     static_cast<std::uint32_t>(e - 1));
    tail_.put(r < 0 ? 1U : 0U, 1);
    tail_.put(m & ((std::uint64_t{1} << e) - 1U), e);
  } else if (cls == 1) {
    tail_.put(r < 0 ? 1U : 0U, 1);
  }
  context_ = std::max(context_, cls);
  return true;
}

void PrefixEncodeIo::finish(BitSink& out) const {
  const auto& chunks = type_->chunks;
  // The last decision that did not go the likely way: chunks after its
  // own are left out.
  std::size_t end = 0;
  for (std::size_t d = 0; d < outcomes_.size(); ++d) {
    if (outcomes_[d] != 0) end = d + 1;
  }
  int context = 0;  // the context each chunk starts in
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const PrefixChunk& chunk = chunks[k];
    std::uint32_t symbol = 0;
    std::uint32_t place = 1;
    int after = context;
    for (std::size_t d = chunk.first; d < chunk.first + chunk.count; ++d) {
      const bool flag = type_->decisions[d].flag;
      symbol += outcomes_[d] * place;
      place *= flag ? 2U : 3U;
      if (!flag) after = std::max<int>(after, outcomes_[d]);
    }
    const bool more = end > chunk.first + chunk.count;
    if (k + 1 < chunks.size() && more) symbol += chunk.outcomes;
    chunk.codes[context].put(out, symbol);
    if (!more) break;
    context = after;
  }
  out.append(tail_);
}

namespace {

// Four decisions' outcomes, two bits each, spread to a byte each (the
// first lowest, as a little-endian word lays them out).
struct OutcomeSpread {
  std::array<std::uint32_t, 256> bytes{};
  constexpr OutcomeSpread() {
    for (std::uint32_t v = 0; v < 256; ++v) {
      for (std::uint32_t j = 0; j < 4; ++j) bytes[v] |= ((v >> (2 * j)) & 3U) << (8 * j);
    }
  }
};
constexpr OutcomeSpread kOutcomeSpread;

}  // namespace

bool PrefixDecodeIo::begin(const PrefixType& type) {
  type_ = &type;
  next_ = 0;
  context_ = 0;
  // Every decision of a chunk read is written below; only those of the
  // chunks left out are zeroed (a memset call for ten bytes cost more).
  // Outcomes are written four at a time, so up to three bytes past a
  // chunk's last: the next chunk or the zeroing overwrites them, and the
  // three spare bytes at the end take the last chunk's.
  outcomes_.resize(type.decisions.size() + 3);
  std::size_t written = 0;
  int context = 0;
  for (std::size_t k = 0; k < type.chunks.size(); ++k) {
    const PrefixChunk& chunk = type.chunks[k];
    std::uint32_t symbol = 0;
    if (!chunk.codes[context].read(in_, symbol)) return fail("snapshot body ended early");
    const bool more = symbol >= chunk.outcomes;  // never so for the last chunk, whose code has no such symbols
    if (more) symbol -= chunk.outcomes;
    const std::uint32_t packed = chunk.unpacked[symbol];
    // Through locals: stores through the vector's bytes could alias
    // anything, so the compiler would reload every field each decision.
    std::uint8_t* const out = outcomes_.data() + chunk.first;
    const std::size_t count = chunk.count;
    for (std::size_t j = 0; j < count; j += 4) {
      const std::uint32_t four = kOutcomeSpread.bytes[(packed >> (2 * j)) & 0xFFU];
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out + j, &four, 4);
      } else {
        for (std::size_t b = 0; b < 4; ++b) out[j + b] = static_cast<std::uint8_t>(four >> (8 * b));
      }
    }
    context = std::max<int>(context, static_cast<int>(packed >> 30));
    written = chunk.first + chunk.count;
    if (!more) break;
  }
  // The decisions of the chunks left out, four at a time too (the spare
  // bytes take the overhang): a call to memset for a few bytes cost more.
  std::uint8_t* const all = outcomes_.data();
  const std::size_t decisions = outcomes_.size() - 3;
  for (std::size_t j = written; j < decisions; j += 4) {
    const std::uint32_t none = 0;
    std::memcpy(all + j, &none, 4);
  }
  decided_ = outcomes_.data();
  return true;
}

bool PrefixDecodeIo::residual(ResidualModelRef /*model*/, std::int64_t& r, int /*max_exponent*/,
                              std::uint64_t max_magnitude) {
  const std::size_t d = next_++;
  const int cls = decided_[d];
  std::uint64_t m = 1;
  if (cls == 2) {
    const PrefixCode& code = type_->exponents[d * kResidualContexts + static_cast<std::size_t>(context_)];
    // A field whose residuals are at most one has no code: no sender
    // writes this.
    if (code.size() == 0) return fail("residual larger than its field's range");
    std::uint32_t e = 0;
    std::uint64_t v = 0;
    std::uint64_t window = 0;
    const std::uint32_t hit = in_.peek_wide(window) ? code.read_short(window) : 0U;
    if (hit != 0) {
      // The usual case: the exponent's code, the sign and the lower bits
      // from one window (at most 8 + 1 + 31 bits of its 57).
      const int length = static_cast<int>(hit & 31U);
      e = (hit >> 5) + 1;
      v = (window >> length) & ((std::uint64_t{2} << e) - 1U);
      in_.take_peeked(length + static_cast<int>(e) + 1);
    } else {
      if (!code.read(in_, e)) return fail("snapshot body ended early");
      ++e;
      // The sign, then the lower bits: one read for both.
      v = in_.bits(static_cast<int>(e) + 1);
    }
    m = (std::uint64_t{1} << e) | (v >> 1);
    r = (v & 1U) != 0 ? -static_cast<std::int64_t>(m) : static_cast<std::int64_t>(m);
  } else if (cls == 1) {
    r = in_.bit() ? -1 : 1;
  } else {
    r = 0;
  }
  if (in_.overran()) return fail("snapshot body ended early");
  if (m > max_magnitude && cls != 0) return fail("residual larger than its field's range");
  context_ = std::max(context_, cls);
  return true;
}

bool PrefixDecodeIo::nonzero_value(const ComponentSpec& c, std::uint32_t pred, std::uint32_t& value) {
  std::int64_t r = 0;
  const std::uint64_t limit = max_magnitude(c);
  return residual(ResidualModelRef{nullptr, nullptr}, r, max_exponent_for(limit), limit) &&
         store_decoded(*this, c, pred, r, value);
}

}  // namespace tickwire::snapshot::detail

namespace tickwire::snapshot {

std::shared_ptr<const void> hold_codebook_tables(const std::shared_ptr<const ModelState>& codebook,
                                                 const Schema& schema) {
  if (!codebook) throw std::invalid_argument("hold_codebook_tables: no codebook");
  if (!codebook_fits(*codebook, schema))
    throw std::invalid_argument("hold_codebook_tables: codebook of another schema");
  return detail::prefix_tables(codebook, schema);
}

}  // namespace tickwire::snapshot
