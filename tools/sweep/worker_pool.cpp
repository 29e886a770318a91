#include "tools/sweep/worker_pool.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>

namespace vtsim::tools {
namespace {

struct Worker {
  pid_t pid = -1;
  int socket = -1;                  // this process's end
  std::optional<std::size_t> task;  // the task it runs, if any
  std::string received;             // bytes of an answer not yet complete
};

bool send_all(int socket, const std::string& text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = ::send(socket, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// The worker's loop: read a task index per line, answer with one line. Never returns.
[[noreturn]] void worker_main(int socket, const WorkerPoolTasks& tasks) {
  std::string buffer;
  char chunk[256];
  while (true) {
    const std::size_t newline = buffer.find('\n');
    if (newline == std::string::npos) {
      const ssize_t n = ::recv(socket, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(0);  // the pool closed our socket: no more tasks
      buffer.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    const std::size_t index = std::stoul(buffer.substr(0, newline));
    buffer.erase(0, newline + 1);
    std::string answer;
    try {
      answer = tasks.work(index);
    } catch (const std::exception& error) {
      answer = tasks.on_worker_death(index, std::string("the worker failed: ") + error.what());
    }
    std::cout.flush();
    std::cerr.flush();
    if (!send_all(socket, answer + "\n")) ::_exit(0);
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "the worker process died from signal " + std::to_string(WTERMSIG(status));
  return "the worker process exited with status " + std::to_string(WEXITSTATUS(status));
}

class Pool {
 public:
  Pool(int size, const WorkerPoolTasks& tasks) : size_(size), tasks_(tasks), parent_(::getpid()) {}
  ~Pool() {
    for (Worker& worker : workers_) {  // normal end: closing the socket makes an idle worker exit
      if (worker.task) ::kill(worker.pid, SIGKILL);
      ::close(worker.socket);
    }
    for (Worker& worker : workers_) reap(worker);
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void run(const std::vector<std::size_t>& indices) {
    std::size_t next = 0;
    while (true) {
      for (std::size_t w = 0; w < workers_.size();) {
        if (!workers_[w].task && next < indices.size()) {
          if (!assign(workers_[w], indices[next])) {  // it died while idle: replace it below
            remove(w);
            continue;
          }
          ++next;
        }
        ++w;
      }
      while (next < indices.size() && static_cast<int>(workers_.size()) < size_) {
        spawn();
        if (!assign(workers_.back(), indices[next])) throw std::runtime_error("a new worker process died at once");
        ++next;
      }
      if (busy() == 0) return;
      wait_for_answers();
    }
  }

 private:
  std::size_t busy() const {
    std::size_t count = 0;
    for (const Worker& worker : workers_) count += worker.task ? 1 : 0;
    return count;
  }

  void spawn() {
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent_) ::_exit(0);  // the pool died before the line above
      ::close(sockets[0]);
      for (const Worker& other : workers_) ::close(other.socket);
      for (const int fd : tasks_.close_in_workers) ::close(fd);
      worker_main(sockets[1], tasks_);
    }
    ::close(sockets[1]);
    workers_.push_back({pid, sockets[0], std::nullopt, {}});
  }

  // Sends task `index` to an idle worker; false when the worker is gone.
  bool assign(Worker& worker, std::size_t index) {
    if (!send_all(worker.socket, std::to_string(index) + "\n")) return false;
    worker.task = index;
    return true;
  }

  // Waits for a worker's process and returns its wait status.
  static int reap(Worker& worker) {
    int status = 0;
    if (worker.pid < 0) return status;
    while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
    }
    worker.pid = -1;
    return status;
  }

  // Forgets worker `w` after its end.
  int remove(std::size_t w) {
    ::close(workers_[w].socket);
    const int status = reap(workers_[w]);
    workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(w));
    return status;
  }

  void wait_for_answers() {
    std::vector<pollfd> fds;
    for (const Worker& worker : workers_) fds.push_back({worker.socket, POLLIN, 0});
    const int timeout_ms = tasks_.on_tick ? 1000 : -1;
    int ready = 0;
    while ((ready = ::poll(fds.data(), fds.size(), timeout_ms)) < 0) {
      if (errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    if (ready == 0) {
      tasks_.on_tick();
      return;
    }
    std::vector<std::pair<std::size_t, std::string>> answers;
    std::vector<std::size_t> dead;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (fds[w].revents == 0) continue;
      Worker& worker = workers_[w];
      char chunk[65536];
      const ssize_t n = ::recv(worker.socket, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        dead.push_back(w);
        continue;
      }
      worker.received.append(chunk, static_cast<std::size_t>(n));
      const std::size_t newline = worker.received.find('\n');
      if (newline == std::string::npos) continue;
      answers.emplace_back(*worker.task, worker.received.substr(0, newline));
      worker.received.erase(0, newline + 1);
      worker.task.reset();
    }
    for (auto it = dead.rbegin(); it != dead.rend(); ++it) {
      const std::optional<std::size_t> task = workers_[*it].task;
      const int status = remove(*it);
      if (task) answers.emplace_back(*task, tasks_.on_worker_death(*task, describe_exit(status)));
    }
    if (!answers.empty()) tasks_.on_answers(answers);
  }

  int size_;
  const WorkerPoolTasks& tasks_;
  pid_t parent_;
  std::vector<Worker> workers_;
};

}  // namespace

void run_worker_pool(const std::vector<std::size_t>& indices, int workers, const WorkerPoolTasks& tasks) {
  if (indices.empty()) return;
  Pool pool(workers < 1 ? 1 : workers, tasks);
  pool.run(indices);
}

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

}  // namespace vtsim::tools
