// Cost of the wire basics every packet pays: the header and a mixed
// payload written, read and measured through one serialize function.
#include <benchmark/benchmark.h>

#include <vector>

#include "tickwire/core/packet_header.h"
#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

struct Mixed {
  std::uint32_t a = 123456;
  std::int32_t b = -77;
  bool c = true;
  float d = 12.34f;
  std::uint64_t e = 987654321;
};

template <class Stream>
bool serialize(Stream& s, Mixed& m) {
  return s.integer(m.a, std::uint32_t{0}, std::uint32_t{1'000'000}) && s.integer(m.b, -1000, 1000) && s.boolean(m.c) &&
         s.bounded_float(m.d, -100.0f, 100.0f, 0.01f) && s.varint(m.e);
}

PacketHeader header() {
  PacketHeader h;
  h.prefix.type = PacketType::kSnapshot;
  h.sequence = Sequence(1234);
  h.ack = Sequence(1200);
  h.ack_bits = 0xF0F0F0F0u;
  h.hold = Hold{678u};
  return h;
}

void BM_WriteHeaderAnd16Fields(benchmark::State& state) {
  PacketHeader h = header();
  Mixed m;
  for (auto _ : state) {
    BitWriter w(1200);
    bool ok = serialize(w, h);
    for (int i = 0; i < 16; ++i) ok = ok && serialize(w, m);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(w.data().data());
  }
}
BENCHMARK(BM_WriteHeaderAnd16Fields);

void BM_ReadHeaderAnd16Fields(benchmark::State& state) {
  PacketHeader h = header();
  Mixed m;
  BitWriter w(1200);
  bool ok = serialize(w, h);
  for (int i = 0; i < 16; ++i) ok = ok && serialize(w, m);
  const std::vector<std::uint8_t> bytes(w.data().begin(), w.data().end());
  for (auto _ : state) {
    BitReader r(bytes);
    PacketHeader out;
    Mixed mo;
    bool rok = serialize(r, out);
    for (int i = 0; i < 16; ++i) rok = rok && serialize(r, mo);
    benchmark::DoNotOptimize(rok);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes.size()));
}
BENCHMARK(BM_ReadHeaderAnd16Fields);

void BM_MeasureHeader(benchmark::State& state) {
  PacketHeader h = header();
  for (auto _ : state) {
    BitMeasurer m;
    benchmark::DoNotOptimize(serialize(m, h));
    benchmark::DoNotOptimize(m.bits());
  }
}
BENCHMARK(BM_MeasureHeader);

}  // namespace
}  // namespace tickwire

BENCHMARK_MAIN();
