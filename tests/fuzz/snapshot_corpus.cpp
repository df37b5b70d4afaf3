// Writes the seed corpus of snapshot_decode: snapshots the fuzz fixture's
// client has not seen yet, so each decodes against the states it holds
// (deltas with references, spawns, despawns), plus a full snapshot. With
// --codebook, those of snapshot_codebook_decode, coded with the fixture's
// trained codebook.
//
//   snapshot_corpus DIR [--codebook]

#include <cstdio>
#include <fstream>
#include <string>

#include "snapshot_fuzz_fixture.h"

int main(int argc, char** argv) {
  const bool codebook = argc == 3 && std::string(argv[2]) == "--codebook";
  if (argc != 2 && !codebook) {
    std::fprintf(stderr, "usage: snapshot_corpus DIR [--codebook]\n");
    return 2;
  }
  using tickwire::snapshot::fuzz::Fixture;
  Fixture f(codebook ? Fixture::trained_codebook() : nullptr);
  int written = 0;
  bool all_decode = true;
  auto write = [&](const std::vector<std::uint8_t>& bytes) {
    // A seed the fixture's client cannot decode would start the fuzzer
    // at the first check instead of deep in a body.
    auto receiver = f.receiver;
    all_decode = receiver.receive(bytes).ok() && all_decode;
    const std::string path = std::string(argv[1]) + "/seed-" + std::to_string(written++);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  // The next snapshots, each a delta against what the client holds.
  for (int i = 0; i < 24; ++i) {
    const auto bytes = f.next();
    if (i % 2 == 0) write(bytes);
  }
  // And a full snapshot.
  f.sender.reset();
  write(f.next());
  std::printf("wrote %d seeds to %s\n", written, argv[1]);
  if (!all_decode) {
    std::fprintf(stderr, "snapshot_corpus: a seed does not decode against the fixture's client\n");
    return 1;
  }
  return 0;
}
