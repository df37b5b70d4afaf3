#include "tickwire/prediction/input_packet.h"

#include "tickwire/core/serialize.h"

namespace tickwire::prediction {

Result<std::vector<std::uint8_t>> encode_input_packet(const InputPacket& packet, const snapshot::Schema& schema,
                                                      snapshot::TypeId input_type, std::size_t max_bytes) {
  InputPacket copy = packet;
  BitWriter writer(max_bytes);
  if (!serialize_input_packet(writer, copy, schema, input_type) || writer.error()) {
    return tickwire::detail::stream_error(writer, "input packet rejected");
  }
  return writer.take();
}

Result<InputPacket> decode_input_packet(std::span<const std::uint8_t> bytes, const snapshot::Schema& schema,
                                        snapshot::TypeId input_type) {
  InputPacket packet;
  BitReader reader(bytes);
  if (!serialize_input_packet(reader, packet, schema, input_type) || reader.error()) {
    return tickwire::detail::stream_error(reader, "input packet rejected");
  }
  if (!reader.finish()) return *reader.error();
  return packet;
}

}  // namespace tickwire::prediction
