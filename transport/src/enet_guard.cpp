#include "enet_guard.h"

#include <enet/enet.h>

namespace tickwire::transport {
namespace {

std::uint32_t read_be(std::span<const std::uint8_t> d, std::size_t at, std::size_t width) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value = (value << 8) | d[at + i];
  return value;
}

// Where each command keeps the length of the data that follows it.
std::size_t data_length_offset(std::uint8_t command) {
  switch (command) {
    case ENET_PROTOCOL_COMMAND_SEND_RELIABLE: return offsetof(ENetProtocolSendReliable, dataLength);
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE: return offsetof(ENetProtocolSendUnreliable, dataLength);
    case ENET_PROTOCOL_COMMAND_SEND_UNSEQUENCED: return offsetof(ENetProtocolSendUnsequenced, dataLength);
    case ENET_PROTOCOL_COMMAND_SEND_FRAGMENT:
    case ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT: return offsetof(ENetProtocolSendFragment, dataLength);
    default: return 0;  // carries no data
  }
}

bool fragment_is_honest(std::span<const std::uint8_t> d, std::size_t at, std::uint32_t fragment_length) {
  const std::uint32_t length = read_be(d, at + offsetof(ENetProtocolSendFragment, dataLength), 2);
  const std::uint32_t count = read_be(d, at + offsetof(ENetProtocolSendFragment, fragmentCount), 4);
  const std::uint32_t number = read_be(d, at + offsetof(ENetProtocolSendFragment, fragmentNumber), 4);
  const std::uint32_t total = read_be(d, at + offsetof(ENetProtocolSendFragment, totalLength), 4);
  const std::uint32_t offset = read_be(d, at + offsetof(ENetProtocolSendFragment, fragmentOffset), 4);
  if (fragment_length == 0 || length == 0 || total == 0) return false;
  // 64-bit: a hostile count or number must not wrap the arithmetic.
  const std::uint64_t expected_count = (std::uint64_t{total} + fragment_length - 1) / fragment_length;
  if (count != expected_count || number >= count) return false;
  const std::uint64_t expected_offset = std::uint64_t{number} * fragment_length;
  const std::uint64_t expected_length = number + 1 < count ? fragment_length : total - expected_offset;
  return offset == expected_offset && length == expected_length;
}

}  // namespace

std::uint32_t enet_fragment_length(std::uint32_t mtu) {
  constexpr std::uint32_t kOverhead = sizeof(ENetProtocolHeader) + sizeof(ENetProtocolSendFragment);
  return mtu > kOverhead ? mtu - kOverhead : 0;
}

bool fragments_are_honest(std::span<const std::uint8_t> d, std::uint32_t peer_mtu) {
  if (d.size() < 2) return true;
  const std::uint32_t flags = read_be(d, 0, 2) & ENET_PROTOCOL_HEADER_FLAG_MASK;
  // Compressed datagrams are dropped whole by ENet: no compressor is set.
  if ((flags & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED) != 0) return true;
  std::size_t at = (flags & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME) != 0 ? sizeof(ENetProtocolHeader) : 2;
  const std::uint32_t fragment_length = enet_fragment_length(peer_mtu);
  while (at + sizeof(ENetProtocolCommandHeader) <= d.size()) {
    const auto command = static_cast<std::uint8_t>(d[at] & ENET_PROTOCOL_COMMAND_MASK);
    if (command == ENET_PROTOCOL_COMMAND_NONE || command >= ENET_PROTOCOL_COMMAND_COUNT) return true;
    const std::size_t size = enet_protocol_command_size(command);
    if (size == 0 || at + size > d.size()) return true;
    if ((command == ENET_PROTOCOL_COMMAND_SEND_FRAGMENT || command == ENET_PROTOCOL_COMMAND_SEND_UNRELIABLE_FRAGMENT) &&
        !fragment_is_honest(d, at, fragment_length)) {
      return false;
    }
    const std::size_t length_at = data_length_offset(command);
    const std::size_t data = length_at == 0 ? 0 : read_be(d, at + length_at, 2);
    at += size + data;
  }
  return true;
}

}  // namespace tickwire::transport
