#include "tools/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace vtsim::tools {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& file) {
  throw std::runtime_error(what + " " + file + ": " + std::strerror(errno));
}

}  // namespace

AtomicOutput::AtomicOutput(std::string file)
    : file_(std::move(file)), temporary_(file_ + ".tmp-" + std::to_string(::getpid())) {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create", temporary_);
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temporary_.c_str());
  }
}

void AtomicOutput::write(const std::string& text) {
  buffer_ += text;
  if (buffer_.size() >= (1U << 20)) flush();
}

void AtomicOutput::flush() {
  std::size_t written = 0;
  while (written < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", temporary_);
    written += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void AtomicOutput::commit() {
  flush();
  if (::fsync(fd_) != 0) fail("cannot sync", temporary_);
  if (::close(fd_) != 0) fail("cannot close", temporary_);
  fd_ = -1;
  if (std::rename(temporary_.c_str(), file_.c_str()) != 0) fail("cannot rename to", file_);
}

void write_file_atomically(const std::string& file, const std::string& content) {
  AtomicOutput output(file);
  output.write(content);
  output.commit();
}

}  // namespace vtsim::tools
