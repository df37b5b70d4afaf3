#pragma once
// A UDP relay on loopback that sits between a client and a server and
// keeps a copy of every datagram it forwards: what a capture on the path
// would see, and a place from which to inject forged or replayed copies,
// as someone on the path could. The client dials the tap's front address;
// the server sees every client through the tap's back socket.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/transport/address.h"

namespace tickwire::transport::enet_testing {

class UdpTap {
 public:
  struct Datagram {
    bool to_server = false;
    std::vector<std::uint8_t> bytes;
  };

  explicit UdpTap(const Address& server) {
    server_ = endpoint(server.host, server.port);
    front_ = open_socket();
    back_ = open_socket();
  }
  ~UdpTap() {
    ::close(front_);
    ::close(back_);
  }
  UdpTap(const UdpTap&) = delete;
  UdpTap& operator=(const UdpTap&) = delete;

  Address front() const { return Address{"127.0.0.1", port_of(front_)}; }

  // Forwards whatever has arrived, both ways, keeping copies.
  void pump() {
    std::uint8_t buffer[65536];
    sockaddr_in from{};
    socklen_t length = sizeof(from);
    while (true) {
      const ssize_t n = recvfrom(front_, buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &length);
      if (n < 0) break;
      client_ = from;
      seen.push_back({true, std::vector<std::uint8_t>(buffer, buffer + n)});
      sendto(back_, buffer, static_cast<std::size_t>(n), 0, reinterpret_cast<const sockaddr*>(&server_),
             sizeof(server_));
      length = sizeof(from);
    }
    while (true) {
      const ssize_t n = recv(back_, buffer, sizeof(buffer), 0);
      if (n < 0) break;
      seen.push_back({false, std::vector<std::uint8_t>(buffer, buffer + n)});
      if (client_) {
        sendto(front_, buffer, static_cast<std::size_t>(n), 0, reinterpret_cast<const sockaddr*>(&*client_),
               sizeof(*client_));
      }
    }
  }

  // Sends bytes as if from the client (to the server) or from the server
  // (to the client), from the addresses the other side knows them by.
  void inject(bool to_server, std::span<const std::uint8_t> bytes) {
    if (to_server) {
      sendto(back_, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&server_), sizeof(server_));
    } else if (client_) {
      sendto(front_, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&*client_), sizeof(*client_));
    }
  }

  std::vector<Datagram> seen;

 private:
  static sockaddr_in endpoint(const std::string& host, std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    return a;
  }
  static int open_socket() {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    const sockaddr_in any = endpoint("127.0.0.1", 0);
    bind(fd, reinterpret_cast<const sockaddr*>(&any), sizeof(any));
    return fd;
  }
  static std::uint16_t port_of(int fd) {
    sockaddr_in a{};
    socklen_t length = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length);
    return ntohs(a.sin_port);
  }

  int front_ = -1;
  int back_ = -1;
  sockaddr_in server_{};
  std::optional<sockaddr_in> client_;
};

}  // namespace tickwire::transport::enet_testing
