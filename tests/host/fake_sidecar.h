#pragma once
// A local stand-in for the Agones SDK sidecar's REST interface: it
// records each call and answers as the sidecar documents (200 with {}),
// optionally refusing the first few calls to /ready as a sidecar that is
// still starting would. Counters and Lists (beta) are recorded and kept;
// GET /watch/gameserver streams the state as JSON lines, and /allocate
// makes it Allocated.

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <set>
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
    server_.Patch(R"(/v1beta1/counters/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      record(req);
      update_counter(req.matches[1], req.body, res);
    });
    server_.Patch(R"(/v1beta1/lists/([^/:]+))", [this](const httplib::Request& req, httplib::Response& res) {
      record(req);
      update_list_capacity(req.matches[1], req.body, res);
    });
    server_.Post(R"(/v1beta1/lists/([^/:]+):(addValue|removeValue))",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   record(req);
                   update_list(req.matches[1], req.matches[2] == "addValue", req.body, res);
                 });
    server_.Get("/watch/gameserver", [this](const httplib::Request& req, httplib::Response& res) {
      record(req);
      // Every state since the stream opened, in order, one line each.
      res.set_chunked_content_provider(
          "application/json", [this, sent = std::size_t{0}](std::size_t, httplib::DataSink& sink) mutable {
            std::unique_lock lock(mutex_);
            if (sent == 0) sent = states_.size() - 1;  // a new stream starts at the current state
            changed_.wait_for(lock, std::chrono::milliseconds(20), [&] { return stopping_ || sent < states_.size(); });
            if (stopping_) return false;
            std::string lines;
            for (; sent < states_.size(); ++sent) {
              lines += R"({"result":{"object_meta":{"name":"tickwire-x7k2p"},"status":{"state":")" + states_[sent] +
                       R"(","address":"10.0.0.7"}}})" + std::string("\n");
            }
            lock.unlock();
            return lines.empty() || sink.write(lines.data(), lines.size());
          });
    });
    server_.Get("/gameserver", [this](const httplib::Request& req, httplib::Response& res) {
      record(req);
      res.set_content(R"({"object_meta":{"name":"tickwire-x7k2p","namespace":"default"},)"
                      R"("status":{"state":"Ready","address":"10.0.0.7","ports":[{"name":"game","port":7777}]}})",
                      "application/json");
    });
    // The library's default also sets SO_REUSEPORT, which lets a second
    // listener share a port and take half its connections: tests running
    // side by side would then answer each other's calls. Exclusive here.
    server_.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
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
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
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
  // Counters and Lists must be declared, as in a GameServer spec.
  void declare_counter(const std::string& key) {
    const std::lock_guard lock(mutex_);
    counters_[key];
  }
  void declare_list(const std::string& key) {
    const std::lock_guard lock(mutex_);
    lists_[key];
    list_capacities_.emplace(key, 1000);  // Agones' largest
  }
  // A value whose addValue is answered 400, as an invalid one would be.
  void refuse_value(const std::string& value) {
    const std::lock_guard lock(mutex_);
    refused_values_.insert(value);
  }
  long list_capacity(const std::string& key) const {
    const std::lock_guard lock(mutex_);
    const auto it = list_capacities_.find(key);
    return it == list_capacities_.end() ? -1 : it->second;
  }
  std::pair<long, long> counter(const std::string& key) const {  // count, capacity
    const std::lock_guard lock(mutex_);
    const auto it = counters_.find(key);
    return it == counters_.end() ? std::pair<long, long>{-1, -1} : it->second;
  }
  std::set<std::string> list(const std::string& key) const {
    const std::lock_guard lock(mutex_);
    const auto it = lists_.find(key);
    return it == lists_.end() ? std::set<std::string>{} : it->second;
  }
  void set_state(const std::string& state) {
    {
      const std::lock_guard lock(mutex_);
      states_.push_back(state);
    }
    changed_.notify_all();
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
  // The number after `"key":` in a small JSON body, or -1.
  static long number_of(const std::string& body, const std::string& key) {
    const auto at = body.find("\"" + key + "\":");
    if (at == std::string::npos) return -1;
    std::size_t i = at + key.size() + 3;
    if (i < body.size() && body[i] == '"') ++i;  // int64 may come as a string
    return std::strtol(body.c_str() + i, nullptr, 10);
  }
  static std::string value_of(const std::string& body) {
    const std::string key = "\"value\":\"";
    const auto at = body.find(key);
    if (at == std::string::npos) return {};
    const auto end = body.find('"', at + key.size());
    return body.substr(at + key.size(), end - at - key.size());
  }
  void update_counter(const std::string& key, const std::string& body, httplib::Response& res) {
    const std::lock_guard lock(mutex_);
    const auto it = counters_.find(key);
    if (it == counters_.end()) {
      res.status = 404;
      return;
    }
    if (const long count = number_of(body, "count"); count >= 0) it->second.first = count;
    if (const long capacity = number_of(body, "capacity"); capacity >= 0) it->second.second = capacity;
    res.set_content("{}", "application/json");
  }
  void update_list_capacity(const std::string& key, const std::string& body, httplib::Response& res) {
    const std::lock_guard lock(mutex_);
    const auto it = list_capacities_.find(key);
    const long capacity = number_of(body, "capacity");
    if (it == list_capacities_.end() || capacity < 0 || capacity > 1000) {
      res.status = it == list_capacities_.end() ? 404 : 400;
      return;
    }
    it->second = capacity;
    res.set_content("{}", "application/json");
  }
  void update_list(const std::string& key, bool add, const std::string& body, httplib::Response& res) {
    const std::lock_guard lock(mutex_);
    const auto it = lists_.find(key);
    const std::string value = value_of(body);
    if (it == lists_.end() || value.empty()) {
      res.status = it == lists_.end() ? 404 : 400;
      return;
    }
    const bool present = it->second.count(value) > 0;
    if (add == present) {
      res.status = add ? 409 : 404;  // ALREADY_EXISTS, NOT_FOUND
      return;
    }
    // OUT_OF_RANGE: a full List, or a value refused outright.
    if (add && (refused_values_.count(value) > 0 || static_cast<long>(it->second.size()) >= list_capacities_[key])) {
      res.status = 400;
      return;
    }
    if (add) {
      it->second.insert(value);
    } else {
      it->second.erase(value);
    }
    res.set_content("{}", "application/json");
  }
  void answer(const httplib::Request& req, httplib::Response& res) {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    record(req);
    if (req.path == "/allocate") set_state("Allocated");
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
  std::condition_variable changed_;
  bool stopping_ = false;
  std::vector<std::string> states_{"Scheduled"};
  std::map<std::string, std::pair<long, long>> counters_;
  std::map<std::string, std::set<std::string>> lists_;
  std::map<std::string, long> list_capacities_;
  std::set<std::string> refused_values_;
  std::vector<SidecarCall> calls_;
  std::thread thread_;
};

// A loopback TCP port that refuses connections and that no other socket
// can take while this is held: bound, never listening. A port merely
// freed could be handed to a test running alongside.
class HeldPort {
 public:
  HeldPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      release();
      return;
    }
    port_ = ntohs(addr.sin_port);
  }
  ~HeldPort() { release(); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;

  int port() const { return port_; }
  // Frees the port for a listener to bind at once.
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  int port_ = -1;
};

}  // namespace tickwire::testing
