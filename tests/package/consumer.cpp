// A game's smallest use of an installed or vendored Tickwire: the client
// runtime's headers compile and its libraries (with ENet) link.
#include <cstdio>
#include <exception>

#include "tickwire/client/client.h"
#include "tickwire/transport/enet_transport.h"

int main() {
  tickwire::client::ClientConfig config;
  config.name = "package-test";
  try {
    config.validate();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  // Reading the address through a volatile keeps the reference, so the
  // link has to resolve the ENet transport and with it ENet itself.
  decltype(&tickwire::transport::EnetTransport::create) volatile create = &tickwire::transport::EnetTransport::create;
  if (create == nullptr) return 1;
  std::printf("consumer: client config '%s' ok\n", config.name.c_str());
  return 0;
}
