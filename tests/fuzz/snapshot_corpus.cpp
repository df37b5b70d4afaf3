// Writes the seed corpus of snapshot_decode: snapshots the fuzz fixture's
// client has not seen yet, so each decodes against the states it holds
// (deltas with references, spawns, despawns), plus a full snapshot.
//
//   snapshot_corpus DIR

#include <cstdio>
#include <fstream>
#include <string>

#include "snapshot_fuzz_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: snapshot_corpus DIR\n");
    return 2;
  }
  tickwire::snapshot::fuzz::Fixture f;
  int written = 0;
  auto write = [&](const std::vector<std::uint8_t>& bytes) {
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
  return 0;
}
