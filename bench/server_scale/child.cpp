#include "child.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

namespace tickwire::bench {

Child::Child(const std::vector<std::string>& argv, const std::string& log_path, std::optional<int> cpu)
    : log_(log_path) {
  // Everything the child needs is prepared before the fork: between fork
  // and exec only async-signal-safe calls are allowed.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));  // NOLINT: execv's signature
  args.push_back(nullptr);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu) CPU_SET(static_cast<std::size_t>(*cpu), &set);
  const pid_t parent = ::getpid();

  pid_ = ::fork();
  if (pid_ != 0) return;  // the parent, or a failed fork (-1)

  // The benchmark may die without running its destructors (SIGKILL); its
  // children must not outlive it and hold the port or the CPU.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  if (cpu && ::sched_setaffinity(0, sizeof set, &set) != 0) ::_exit(126);
  ::execv(args[0], args.data());
  ::_exit(127);
}

Child::~Child() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    (void)wait_exit(std::chrono::seconds(5));
  }
}

bool Child::running() {
  if (pid_ <= 0 || status_) return false;
  (void)wait_exit(std::chrono::milliseconds(0));
  return !status_;
}

void Child::signal(int sig) const {
  if (pid_ > 0 && !status_) ::kill(pid_, sig);
}

std::optional<int> Child::wait_exit(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!status_ && pid_ > 0) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status_;
}

int Child::stop(std::chrono::milliseconds grace) {
  signal(SIGINT);
  if (const auto code = wait_exit(grace)) return *code;
  signal(SIGKILL);
  return wait_exit(std::chrono::seconds(5)).value_or(-1);
}

std::optional<double> Child::cpu_us() const {
  if (pid_ <= 0 || status_) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string text;
  std::getline(in, text);
  // The command name in parentheses may hold spaces; the fields after it
  // are "state ppid ..." with utime and stime the 12th and 13th of them.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  for (int i = 1; i <= 13 && fields >> field; ++i) {
    if (i == 12) utime = std::stoull(field);
    if (i == 13) stime = std::stoull(field);
  }
  if (!fields) return std::nullopt;
  const long hz = ::sysconf(_SC_CLK_TCK);
  return static_cast<double>(utime + stime) * 1e6 / static_cast<double>(hz > 0 ? hz : 100);
}

std::string tail_of(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& line : last) out += "    " + line + "\n";
  return out;
}

}  // namespace tickwire::bench
