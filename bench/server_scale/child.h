#pragma once
// A child process of the benchmark: started with fork and exec so that it
// can be pinned to a CPU before it runs (posix_spawn cannot set affinity),
// with its output in a file. The destructor kills what is still running,
// and the child dies with the benchmark if the benchmark is killed.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tickwire::bench {

class Child {
 public:
  // Starts argv[0] with `argv`; `cpu` pins it to that CPU when set.
  Child(const std::vector<std::string>& argv, const std::string& log_path, std::optional<int> cpu);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }
  bool running();
  pid_t pid() const { return pid_; }
  void signal(int sig) const;
  // The exit status (128 + signal when killed) once it ended within `limit`.
  std::optional<int> wait_exit(std::chrono::milliseconds limit);
  // SIGINT, then SIGKILL when it has not left within `grace`.
  int stop(std::chrono::milliseconds grace);
  // User plus system CPU time of the whole process so far, in microseconds;
  // empty once it has ended.
  std::optional<double> cpu_us() const;
  const std::string& log_path() const { return log_; }

 private:
  pid_t pid_ = -1;
  std::string log_;
  std::optional<int> status_;
};

// The last `lines` lines of a text file, for saying why a child failed.
std::string tail_of(const std::string& path, std::size_t lines);

}  // namespace tickwire::bench
