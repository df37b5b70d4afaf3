// The sealed-session micro-benchmark: what the encryption of every datagram
// after the handshake costs (docs/security.md, docs/wire-format.md "Sealed
// datagrams").
//
// For each cipher a session can seal with on this CPU (ChaCha20-Poly1305;
// AES-256-GCM where the CPU has AES instructions) and each payload size (16,
// 64, 200, 600, 1200 bytes: a keep-alive, an input, small and large
// snapshots, the largest unreliable payload), one end of a session seals a
// batch of datagrams and the other opens them, as the two ends of a
// connection would. Timed per datagram:
//   - seal: header, encryption and tag;
//   - open: packet number rebuilt, replay window checked, tag verified,
//     payload decrypted, window moved;
//   - forged: a datagram with the right connection id and a fresh packet
//     number whose tag does not verify, what each datagram of a flood of
//     forgeries costs the server (nothing else is touched);
//   - replayed: a datagram already opened, turned away by the window before
//     any cryptography;
//   - window: the replay window's question alone.
// Then the handshake's public-key and hashing costs, one operation at a
// time, and what each end spends on one handshake.
//
// Figures are medians over trials of a batch's mean; the benchmark stops if
// a datagram fails to open, or a forged or replayed one opens.
//
//   bench_session_crypto [--json FILE] [--trials N]

#include <sodium.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "channel_adapter.h"
#include "handshake_costs.h"
#include "timing.h"

namespace {

using namespace tickwire;
using namespace tickwire::bench;

constexpr std::array<std::size_t, 5> kPayloadSizes = {16, 64, 200, 600, 1200};
constexpr int kBatch = 256;
constexpr std::size_t kSessionDatagramHeader = 2;  // what an unsealed session datagram spent

struct DatagramFigures {
  transport::SessionCipher cipher = transport::SessionCipher::kChaCha20Poly1305;
  std::size_t payload = 0;
  std::size_t datagram = 0;
  double seal_ns = 0;
  double open_ns = 0;
  double forged_ns = 0;
  double replayed_ns = 0;
  double window_ns = 0;
};

void fail(const char* what) {
  (void)std::fprintf(stderr, "bench_session_crypto: %s\n", what);
  std::exit(1);
}

struct Session {
  BenchChannel client;
  BenchChannel server;
  BenchWindow window;  // the server's, mirrored
};

Session make_session(transport::SessionCipher cipher) {
  transport::SessionParams client;
  client.connection_id = 0x5EA1ED01;
  client.cipher = cipher;
  randombytes_buf(client.keys.send.data(), client.keys.send.size());
  randombytes_buf(client.keys.receive.data(), client.keys.receive.size());
  transport::SessionParams server = client;
  server.keys.send = client.keys.receive;
  server.keys.receive = client.keys.send;
  return {BenchChannel(client), BenchChannel(server), BenchWindow{}};
}

using Buffer = std::vector<std::uint8_t>;

double seal_batch_ns(int trials, BenchChannel& sender, const Buffer& payload, std::vector<Buffer>& out,
                     std::vector<std::size_t>& sizes) {
  return median_ns_per_op(trials, kBatch, [&] {
    for (int i = 0; i < kBatch; ++i) {
      const auto k = static_cast<std::size_t>(i);
      sizes[k] = sender.seal(payload, out[k]);
    }
  });
}

DatagramFigures measure_datagrams(transport::SessionCipher cipher, std::size_t payload_size, int trials) {
  Session session = make_session(cipher);
  Buffer payload(payload_size);
  randombytes_buf(payload.data(), payload.size());
  std::vector<Buffer> sealed(kBatch, Buffer(payload_size + kDatagramOverhead));
  std::vector<Buffer> forged = sealed;
  std::vector<std::size_t> sizes(kBatch);
  std::vector<std::size_t> forged_sizes(kBatch);
  Buffer opened(payload_size + kDatagramOverhead);
  std::vector<double> seal_ns;
  std::vector<double> open_ns;
  std::vector<double> forged_ns;
  std::vector<double> replayed_ns;
  std::vector<double> window_ns;
  for (int t = 0; t < trials; ++t) {
    seal_ns.push_back(seal_batch_ns(1, session.client, payload, sealed, sizes));
    // Forgeries under numbers the receiver has not seen: real datagrams
    // with one bit of the tag flipped.
    (void)seal_batch_ns(1, session.client, payload, forged, forged_sizes);
    for (std::size_t k = 0; k < forged.size(); ++k) forged[k][forged_sizes[k] - 1] ^= 0x01;

    forged_ns.push_back(median_ns_per_op(1, kBatch, [&] {
      for (std::size_t k = 0; k < forged.size(); ++k) {
        if (session.server.open({forged[k].data(), forged_sizes[k]}, opened)) fail("a forged datagram opened");
      }
    }));
    open_ns.push_back(median_ns_per_op(1, kBatch, [&] {
      for (std::size_t k = 0; k < sealed.size(); ++k) {
        if (!session.server.open({sealed[k].data(), sizes[k]}, opened)) fail("a sealed datagram did not open");
      }
    }));
    if (std::memcmp(opened.data(), payload.data(), payload.size()) != 0) fail("an opened payload differs");
    for (std::size_t k = 0; k < sealed.size(); ++k) session.window.accept(sealed[k]);
    replayed_ns.push_back(median_ns_per_op(1, kBatch, [&] {
      for (std::size_t k = 0; k < sealed.size(); ++k) {
        if (session.server.open({sealed[k].data(), sizes[k]}, opened)) fail("a replayed datagram opened");
      }
    }));
    // Half the questions answered yes (the forgeries' numbers are still
    // unseen), half no.
    int accepted = 0;
    window_ns.push_back(median_ns_per_op(1, 2 * kBatch, [&] {
      for (std::size_t k = 0; k < sealed.size(); ++k) {
        accepted += session.window.would_accept(forged[k]) ? 1 : 0;
        accepted += session.window.would_accept(sealed[k]) ? 1 : 0;
      }
    }));
    if (accepted != kBatch) fail("the replay window answered wrongly");
  }
  DatagramFigures f;
  f.cipher = cipher;
  f.payload = payload_size;
  f.datagram = sizes[0];
  f.seal_ns = median(seal_ns);
  f.open_ns = median(open_ns);
  f.forged_ns = median(forged_ns);
  f.replayed_ns = median(replayed_ns);
  f.window_ns = median(window_ns);
  return f;
}

void print_datagrams(const std::vector<DatagramFigures>& rows) {
  std::printf("%-17s %8s %9s %6s | %8s %7s | %8s %7s | %9s %9s %9s\n", "cipher", "payload", "datagram", "added",
              "seal ns", "ns/B", "open ns", "ns/B", "forged ns", "replay ns", "window ns");
  for (const DatagramFigures& r : rows) {
    const auto per_byte = [&r](double ns) { return ns / static_cast<double>(r.payload); };
    std::printf("%-17s %8zu %9zu %6zu | %8.0f %7.2f | %8.0f %7.2f | %9.0f %9.1f %9.1f\n", cipher_name(r.cipher),
                r.payload, r.datagram, r.datagram - r.payload, r.seal_ns, per_byte(r.seal_ns), r.open_ns,
                per_byte(r.open_ns), r.forged_ns, r.replayed_ns, r.window_ns);
  }
  std::printf(
      "(libsodium %s; the handshake picks AES-256-GCM when both ends' CPUs have AES instructions, which this one %s. "
      "payload and datagram in bytes; added: header 6 + tag 16, %zu more than an unsealed session datagram's "
      "%zu-byte header; seal, open: ns per datagram and per payload byte; forged: a datagram whose tag fails, the "
      "cost of each datagram of a flood; replay: an opened datagram sent again, turned away by the window; window: "
      "the replay window's check alone)\n",
      sodium_version_string(), available_ciphers().size() > 1 ? "has" : "lacks",
      kDatagramOverhead - kSessionDatagramHeader, kSessionDatagramHeader);
}

// Seal plus open, what a datagram costs its two ends, side by side.
void print_comparison(const std::vector<DatagramFigures>& rows) {
  std::vector<const DatagramFigures*> chacha;
  std::vector<const DatagramFigures*> aes;
  for (const DatagramFigures& r : rows) {
    (r.cipher == transport::SessionCipher::kAes256Gcm ? aes : chacha).push_back(&r);
  }
  if (aes.size() != chacha.size()) return;  // no AES instructions: nothing to compare
  std::printf("\n%8s | %19s %13s | %9s\n", "payload", "ChaCha20-Poly1305", "AES-256-GCM", "ratio");
  for (std::size_t i = 0; i < aes.size(); ++i) {
    const double c = chacha[i]->seal_ns + chacha[i]->open_ns;
    const double a = aes[i]->seal_ns + aes[i]->open_ns;
    std::printf("%8zu | %16.0f ns %10.0f ns | %8.2fx\n", aes[i]->payload, c, a, c / a);
  }
  std::printf("(seal + open of one datagram; ratio: how many times cheaper AES-256-GCM is)\n");
}

void print_handshake(const HandshakeCosts& c) {
  std::printf("\n%-62s %9s\n", "handshake operation", "us");
  const auto row = [](const char* name, double v) { std::printf("%-62s %9.2f\n", name, v); };
  row("cookie (keyed BLAKE2b-128; per HELLO and RESPONSE)", c.cookie_us);
  row("key exchange pair (client per connect, server per 8 s)", c.kx_keypair_us);
  row("server session keys (X25519 + BLAKE2b)", c.server_keys_us);
  row("server session keys, mixed with a token's session key", c.server_keys_token_us);
  row("client session keys", c.client_keys_us);
  row("client session keys, mixed with a token's session key", c.client_keys_token_us);
  row("confirmation (keyed BLAKE2b-128)", c.confirmation_us);
  row("Ed25519 sign (the ACCEPTED's transcript, 99 bytes)", c.sign_us);
  row("Ed25519 verify (a client pinning the server's key)", c.verify_us);
  row("identity key pair from its seed (once per server start)", c.identity_from_seed_us);
  row("server, one accepted RESPONSE, no token", c.server_total_us(false));
  row("server, one accepted RESPONSE, token", c.server_total_us(true));
  row("client, one connect, no token, no pin", c.client_total_us(false, false));
  row("client, one connect, no token, pinned key", c.client_total_us(false, true));
  row("client, one connect, token", c.client_total_us(true, false));
}

bool write_json(const std::string& path, const std::vector<DatagramFigures>& rows, const HandshakeCosts& c) {
  std::ofstream out(path);
  out << "{\"ciphers\":[";
  const std::vector<transport::SessionCipher> ciphers = available_ciphers();
  for (std::size_t i = 0; i < ciphers.size(); ++i) out << (i == 0 ? "\"" : ",\"") << cipher_json_id(ciphers[i]) << '"';
  out << "],\"libsodium\":\"" << sodium_version_string() << "\",\"datagrams\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const DatagramFigures& r = rows[i];
    const double bytes = static_cast<double>(r.payload);
    char line[640];
    (void)std::snprintf(line, sizeof line,
                        "%s{\"cipher\":\"%s\",\"payload_bytes\":%zu,\"datagram_bytes\":%zu,\"bytes_added\":%zu,"
                        "\"bytes_added_over_session_datagram\":%zu,\"seal_ns\":%.1f,\"seal_ns_per_byte\":%.3f,"
                        "\"open_ns\":%.1f,\"open_ns_per_byte\":%.3f,\"forged_ns\":%.1f,\"replayed_ns\":%.2f,"
                        "\"window_check_ns\":%.2f}",
                        i == 0 ? "" : ",", cipher_json_id(r.cipher), r.payload, r.datagram, r.datagram - r.payload,
                        r.datagram - r.payload - kSessionDatagramHeader, r.seal_ns, r.seal_ns / bytes, r.open_ns,
                        r.open_ns / bytes, r.forged_ns, r.replayed_ns, r.window_ns);
    out << line;
  }
  char hs[1024];
  (void)std::snprintf(hs, sizeof hs,
                      "],\"handshake_us\":{\"cookie\":%.3f,\"kx_keypair\":%.3f,\"server_session_keys\":%.3f,"
                      "\"server_session_keys_token\":%.3f,\"client_session_keys\":%.3f,"
                      "\"client_session_keys_token\":%.3f,\"confirmation\":%.3f,\"ed25519_sign\":%.3f,"
                      "\"ed25519_verify\":%.3f,\"identity_from_seed\":%.3f,\"server_accept_no_token\":%.3f,"
                      "\"server_accept_token\":%.3f,\"client_connect_no_pin\":%.3f,\"client_connect_pinned\":%.3f,"
                      "\"client_connect_token\":%.3f}}\n",
                      c.cookie_us, c.kx_keypair_us, c.server_keys_us, c.server_keys_token_us, c.client_keys_us,
                      c.client_keys_token_us, c.confirmation_us, c.sign_us, c.verify_us, c.identity_from_seed_us,
                      c.server_total_us(false), c.server_total_us(true), c.client_total_us(false, false),
                      c.client_total_us(false, true), c.client_total_us(true, false));
  out << hs;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  int trials = 201;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--trials") == 0 && i + 1 < argc) {
      trials = std::atoi(argv[++i]);
      if (trials < 1) trials = 1;
    } else {
      (void)std::fprintf(stderr, "usage: %s [--json FILE] [--trials N]\n", argv[0]);
      return 2;
    }
  }
  if (sodium_init() < 0) fail("libsodium failed to initialise");
  std::vector<DatagramFigures> rows;
  for (const transport::SessionCipher cipher : available_ciphers()) {
    for (const std::size_t size : kPayloadSizes) rows.push_back(measure_datagrams(cipher, size, trials));
  }
  print_datagrams(rows);
  print_comparison(rows);
  (void)std::fflush(stdout);
  const HandshakeCosts handshake = measure_handshake_costs(trials / 5 + 3);
  print_handshake(handshake);
  if (!json_path.empty() && !write_json(json_path, rows, handshake)) {
    (void)std::fprintf(stderr, "could not write %s\n", json_path.c_str());
    return 1;
  }
  return 0;
}
