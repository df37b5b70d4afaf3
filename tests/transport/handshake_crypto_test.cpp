// The handshake's cryptography on its own: key pairs rotating with the
// cookie buckets, both sides' keys, the token mix, the signature and the
// confirmation tag.

#include "handshake_crypto.h"

#include <gtest/gtest.h>

#include <utility>

namespace tickwire::transport::handshake {
namespace {

using Key = std::array<std::uint8_t, kSessionKeySize>;

TEST(HandshakeCrypto, KeyPairsRotateWithTheBucketAndKeepOnlyThePreviousOne) {
  RotatingKxKeys keys;
  EXPECT_EQ(keys.pair_of(10), nullptr);
  keys.rotate_to(10);
  const KxKeyPair* first = keys.pair_of(10);
  ASSERT_NE(first, nullptr);
  const challenge::PublicKey first_key = first->public_key();
  keys.rotate_to(10);  // same bucket: same pair, no new key
  EXPECT_EQ(keys.pair_of(10)->public_key(), first_key);
  keys.rotate_to(11);
  ASSERT_NE(keys.pair_of(10), nullptr);
  EXPECT_EQ(keys.pair_of(10)->public_key(), first_key);
  EXPECT_NE(keys.pair_of(11)->public_key(), first_key);
  keys.rotate_to(12);
  EXPECT_EQ(keys.pair_of(10), nullptr);
  EXPECT_NE(keys.pair_of(11), nullptr);
  // A gap of more than a bucket leaves nothing older than the current one.
  keys.rotate_to(20);
  EXPECT_EQ(keys.pair_of(11), nullptr);
  EXPECT_EQ(keys.pair_of(12), nullptr);
  EXPECT_NE(keys.pair_of(20), nullptr);
}

TEST(HandshakeCrypto, BothSidesDeriveMirroredKeysAndTheTokenMixChangesThem) {
  const KxKeyPair server = KxKeyPair::generate();
  const KxKeyPair client = KxKeyPair::generate();
  SessionKeys on_server;
  SessionKeys on_client;
  ASSERT_TRUE(server.server_keys(client.public_key(), std::nullopt, on_server));
  ASSERT_TRUE(client.client_keys(server.public_key(), std::nullopt, on_client));
  EXPECT_EQ(on_server.send, on_client.receive);
  EXPECT_EQ(on_server.receive, on_client.send);
  EXPECT_NE(on_client.send, on_client.receive);

  const TokenKey token_key = TokenKey::generate();
  SessionKeys mixed_server;
  SessionKeys mixed_client;
  ASSERT_TRUE(server.server_keys(client.public_key(), token_key, mixed_server));
  ASSERT_TRUE(client.client_keys(server.public_key(), token_key, mixed_client));
  EXPECT_EQ(mixed_server.send, mixed_client.receive);
  EXPECT_EQ(mixed_server.receive, mixed_client.send);
  EXPECT_NE(mixed_client.send, on_client.send);
  EXPECT_NE(mixed_client.receive, on_client.receive);
}

TEST(HandshakeCrypto, AKeyOfSmallOrderGivesNoKeys) {
  const KxKeyPair server = KxKeyPair::generate();
  SessionKeys keys;
  keys.send.fill(1);
  EXPECT_FALSE(server.server_keys(challenge::PublicKey{}, std::nullopt, keys));
  EXPECT_EQ(keys.send, Key{});  // wiped, not half-derived
}

TEST(HandshakeCrypto, MovingAKeyPairKeepsItsKeys) {
  KxKeyPair a = KxKeyPair::generate();
  const KxKeyPair peer = KxKeyPair::generate();
  SessionKeys before;
  ASSERT_TRUE(a.client_keys(peer.public_key(), std::nullopt, before));
  const KxKeyPair b = std::move(a);
  SessionKeys after;
  ASSERT_TRUE(b.client_keys(peer.public_key(), std::nullopt, after));
  EXPECT_EQ(before.send, after.send);
}

TEST(HandshakeCrypto, TheSignatureCoversTheWholeTranscript) {
  const ServerIdentity identity = ServerIdentity::generate();
  const Signer signer(identity);
  EXPECT_EQ(signer.public_key(), identity.public_key());
  const Transcript transcript{42, 0, KxKeyPair::generate().public_key(), KxKeyPair::generate().public_key(), 7, 0};
  const challenge::Signature signature = signer.sign(transcript);
  EXPECT_TRUE(signature_valid(identity.public_key(), transcript, signature));
  EXPECT_FALSE(signature_valid(ServerIdentity::generate().public_key(), transcript, signature));
  for (int field = 0; field < 7; ++field) {
    Transcript altered = transcript;
    switch (field) {
      case 0: altered.nonce += 1; break;
      case 1: altered.flags = challenge::kFlagPlaintext; break;
      case 2: altered.flags = challenge::kFlagAes256Gcm; break;
      case 3: altered.client_key[0] ^= 1U; break;
      case 4: altered.server_key[31] ^= 1U; break;
      case 5: altered.connection_id += 1; break;
      default: altered.accepted_flags = challenge::kFlagAes256Gcm; break;
    }
    EXPECT_FALSE(signature_valid(identity.public_key(), altered, signature)) << "field " << field;
  }
}

TEST(HandshakeCrypto, TheConfirmationNeedsTheKeyTheNonceTheIdAndTheFlags) {
  Key key{};
  key[0] = 5;
  const challenge::Confirmation tag = confirmation(key, 9, 3, challenge::kFlagAes256Gcm);
  EXPECT_TRUE(confirmation_valid(key, 9, 3, challenge::kFlagAes256Gcm, tag));
  EXPECT_FALSE(confirmation_valid(key, 10, 3, challenge::kFlagAes256Gcm, tag));
  EXPECT_FALSE(confirmation_valid(key, 9, 4, challenge::kFlagAes256Gcm, tag));
  EXPECT_FALSE(confirmation_valid(key, 9, 3, 0, tag));  // the cipher choice changed on the way
  Key other = key;
  other[31] = 1;
  EXPECT_FALSE(confirmation_valid(other, 9, 3, challenge::kFlagAes256Gcm, tag));
}

}  // namespace
}  // namespace tickwire::transport::handshake
