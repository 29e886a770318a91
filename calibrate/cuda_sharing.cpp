#include "calibrate/cuda_sharing.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "calibrate/cuda_support.hpp"

namespace vtsim::calibrate::cuda {
namespace {

struct Request {
  SharingPlan plan;
  int workers = 1;
};

// What a worker reports, followed by `intervals` doubles.
struct WorkerReport {
  int ok = 0;
  double start_s = 0;
  double end_s = 0;
  int intervals = 0;
  char error[240] = {};
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t count = write(fd, bytes, size);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    bytes += count;
    size -= static_cast<std::size_t>(count);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t size) {
  char* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t count = read(fd, bytes, size);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    bytes += count;
    size -= static_cast<std::size_t>(count);
  }
  return true;
}

double monotonic_s() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// A worker: set up, say ready, wait for go, run the GEMM loop, report. Runs in a fresh process (never initialised
// CUDA before), and leaves with _exit so that nothing of the parent's state is torn down twice.
[[noreturn]] void run_worker(const SharingPlan& plan, int report_fd, int go_fd) {
  WorkerReport report;
  std::vector<double> intervals;
  try {
    check(cudaSetDevice(plan.device), "cudaSetDevice");
    Stream stream;
    Cublas blas(stream.get());
    const std::size_t bytes = static_cast<std::size_t>(plan.n * plan.n) * sizeof(float);
    DeviceBuffer a(bytes), b(bytes), c(bytes);
    check(cudaMemset(a.get(), 0x3c, bytes), "cudaMemset");  // 0x3c3c3c3c: ~0.0115, a non-zero operand
    check(cudaMemset(b.get(), 0x3c, bytes), "cudaMemset");
    for (int i = 0; i < 5; ++i) sgemm(blas.get(), plan.n, a.get(), b.get(), c.get());
    stream.synchronize();
    std::vector<Event> ends(static_cast<std::size_t>(plan.kernels));
    const char ready = 'r';
    char go = 0;
    if (!write_all(report_fd, &ready, 1) || !read_all(go_fd, &go, 1)) _exit(1);
    report.start_s = monotonic_s();
    for (Event& end : ends) {
      sgemm(blas.get(), plan.n, a.get(), b.get(), c.get());
      end.record(stream.get());
    }
    stream.synchronize();
    report.end_s = monotonic_s();
    for (std::size_t i = 1; i < ends.size(); ++i) intervals.push_back(ends[i].seconds_since(ends[i - 1]));
    report.ok = 1;
  } catch (const std::exception& error) {
    std::snprintf(report.error, sizeof report.error, "%s", error.what());
    const char ready = 'e';
    write_all(report_fd, &ready, 1);
  }
  report.intervals = static_cast<int>(intervals.size());
  write_all(report_fd, &report, sizeof report);
  write_all(report_fd, intervals.data(), intervals.size() * sizeof(double));
  _exit(0);
}

// The helper: for each request, fork the workers, start them together, relay their reports.
[[noreturn]] void run_helper(int request_fd, int response_fd) {
  Request request;
  while (read_all(request_fd, &request, sizeof request)) {
    std::vector<pid_t> pids;
    std::vector<int> report_fds;
    std::vector<int> go_fds;
    for (int w = 0; w < request.workers; ++w) {
      int report[2];
      int go[2];
      if (pipe(report) != 0 || pipe(go) != 0) _exit(1);
      const pid_t pid = fork();
      if (pid == 0) {
        close(report[0]);
        close(go[1]);
        run_worker(request.plan, report[1], go[0]);
      }
      close(report[1]);
      close(go[0]);
      if (pid < 0) _exit(1);
      pids.push_back(pid);
      report_fds.push_back(report[0]);
      go_fds.push_back(go[1]);
    }
    for (int fd : report_fds) {
      char ready = 0;
      read_all(fd, &ready, 1);  // 'r' ready, 'e' failed (its report follows), nothing if it died
    }
    for (int fd : go_fds) {
      const char go = 'g';
      write_all(fd, &go, 1);
      close(fd);
    }
    for (int fd : report_fds) {
      WorkerReport report;
      std::vector<double> intervals;
      if (!read_all(fd, &report, sizeof report)) {
        report = WorkerReport{};
        std::snprintf(report.error, sizeof report.error, "a sharing test process died");
      } else {
        intervals.resize(static_cast<std::size_t>(report.intervals));
        if (!read_all(fd, intervals.data(), intervals.size() * sizeof(double))) report.ok = 0;
      }
      report.intervals = static_cast<int>(intervals.size());
      write_all(response_fd, &report, sizeof report);
      write_all(response_fd, intervals.data(), intervals.size() * sizeof(double));
      close(fd);
    }
    for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  }
  _exit(0);
}

}  // namespace

SharingHelper::SharingHelper() {
  int request[2];
  int response[2];
  if (pipe(request) != 0) return;
  if (pipe(response) != 0) {
    close(request[0]);
    close(request[1]);
    return;
  }
  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_ = fork();
  if (pid_ == 0) {
    close(request[1]);
    close(response[0]);
    run_helper(request[0], response[1]);
  }
  close(request[0]);
  close(response[1]);
  if (pid_ < 0) {
    close(request[1]);
    close(response[0]);
    return;
  }
  request_fd_ = request[1];
  response_fd_ = response[0];
}

SharingHelper::~SharingHelper() {
  if (pid_ <= 0) return;
  close(request_fd_);  // the helper reads end-of-file and leaves
  close(response_fd_);
  waitpid(pid_, nullptr, 0);
}

std::optional<SharingSample> SharingHelper::run(const SharingPlan& plan) {
  if (pid_ <= 0) return std::nullopt;
  SharingSample sample;
  for (const int workers : {1, 2}) {
    const Request request{plan, workers};
    if (!write_all(request_fd_, &request, sizeof request)) return std::nullopt;
    for (int w = 0; w < workers; ++w) {
      WorkerReport report;
      if (!read_all(response_fd_, &report, sizeof report)) return std::nullopt;
      SharingProcess process;
      process.intervals_s.resize(static_cast<std::size_t>(report.intervals));
      if (!read_all(response_fd_, process.intervals_s.data(), process.intervals_s.size() * sizeof(double))) {
        return std::nullopt;
      }
      if (!report.ok) throw ProbeFailed(std::string("GPU sharing test: ") + report.error);
      process.start_s = report.start_s;
      process.end_s = report.end_s;
      if (workers == 1) {
        sample.alone = process;
      } else {
        sample.together.push_back(process);
      }
    }
  }
  return sample;
}

}  // namespace vtsim::calibrate::cuda
