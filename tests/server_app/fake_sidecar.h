#pragma once
// A local stand-in for the Agones SDK sidecar's REST interface: it
// records each call and answers as the sidecar documents (200 with {}),
// optionally refusing the first few calls to /ready as a sidecar that is
// still starting would.

#include <httplib.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tickwire::testing {

struct SidecarCall {
  std::string method;
  std::string path;
  std::string body;
  std::string content_type;
};

class FakeSidecar {
 public:
  // Port 0 picks a free port.
  explicit FakeSidecar(int port = 0, int refuse_ready = 0, std::chrono::milliseconds delay = {})
      : refuse_ready_(refuse_ready), delay_(delay) {
    std::signal(SIGPIPE, SIG_IGN);  // a client hanging up must not end the test
    for (const char* path : {"/ready", "/health", "/allocate", "/shutdown"}) {
      server_.Post(path, [this](const httplib::Request& req, httplib::Response& res) { answer(req, res); });
    }
    server_.Get("/gameserver", [this](const httplib::Request& req, httplib::Response& res) {
      record(req);
      res.set_content(R"({"object_meta":{"name":"tickwire-x7k2p","namespace":"default"},)"
                      R"("status":{"state":"Ready","address":"10.0.0.7","ports":[{"name":"game","port":7777}]}})",
                      "application/json");
    });
    if (port == 0) {
      port_ = server_.bind_to_any_port("127.0.0.1");
    } else {
      port_ = server_.bind_to_port("127.0.0.1", port) ? port : -1;
    }
    if (port_ <= 0) return;
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op until the listen loop runs, so a sidecar stopped
    // right away would otherwise never let its thread end.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeSidecar() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  FakeSidecar(const FakeSidecar&) = delete;
  FakeSidecar& operator=(const FakeSidecar&) = delete;

  int port() const { return port_; }
  std::vector<SidecarCall> calls() const {
    const std::lock_guard lock(mutex_);
    return calls_;
  }
  std::size_t count(const std::string& path) const {
    std::size_t n = 0;
    for (const auto& c : calls()) n += c.path == path ? 1U : 0U;
    return n;
  }
  bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

 private:
  void record(const httplib::Request& req) {
    const std::lock_guard lock(mutex_);
    calls_.push_back({req.method, req.path, req.body, req.get_header_value("Content-Type")});
  }
  bool take_refusal() {
    const std::lock_guard lock(mutex_);
    if (refuse_ready_ == 0) return false;
    --refuse_ready_;
    return true;
  }
  void answer(const httplib::Request& req, httplib::Response& res) {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    record(req);
    if (req.path == "/ready" && take_refusal()) {
      res.status = 503;
      res.set_content(R"({"error":"not ready"})", "application/json");
      return;
    }
    res.set_content("{}", "application/json");
  }

  httplib::Server server_;
  int port_ = -1;
  int refuse_ready_;  // guarded by mutex_: handlers run on a pool
  std::chrono::milliseconds delay_;
  mutable std::mutex mutex_;
  std::vector<SidecarCall> calls_;
  std::thread thread_;
};

}  // namespace tickwire::testing
