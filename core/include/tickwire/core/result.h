#pragma once
// Errors as values. Decoders of network bytes return these instead of
// asserting or throwing: a peer's bytes are hostile and a bad packet is
// counted and dropped, never a crash.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace tickwire {

enum class ErrorCode : std::uint8_t {
  kTruncated,        // the input ended before the value did
  kOutOfRange,       // a value outside its declared range
  kTooLong,          // a length over its declared bound
  kBadProtocolId,    // not our protocol
  kBadVersion,       // our protocol, another version
  kBadPacketType,    // unknown packet type
  kMalformed,        // anything else a decoder rejects
  kTooLarge,         // a send larger than the channel allows
  kNotConnected,     // a send or query for an unknown peer
  kInvalidArgument,  // API misuse that is reported rather than thrown
  kIo,               // the operating system refused (bind, socket)
};

const char* to_string(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kMalformed;
  std::string detail;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error make_error(ErrorCode code, std::string detail = {}) { return Error{code, std::move(detail)}; }

}  // namespace tickwire
