#include "models/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "models/core/error.hpp"

namespace vtsim {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& file) {
  // A file that cannot be written (a full disk, a read-only folder) is the user's to fix: exit 1, not an internal
  // error.
  throw InputError(what + " " + file + ": " + std::strerror(errno));
}

}  // namespace

void refuse_overwriting_inputs(const std::string& output, const std::vector<std::string>& inputs,
                               const std::string& option) {
  for (const std::string& input : inputs) {
    std::error_code error;  // a file that does not exist (yet) is no input to lose
    if (!output.empty() && !input.empty() && std::filesystem::equivalent(output, input, error)) {
      throw InputError(output + ": " + option + " would overwrite the input " + input);
    }
  }
}

void refuse_symlinked_output(const std::string& file) {
  struct stat link {};
  if (::lstat(file.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return;
  struct stat target {};
  const bool resolves = ::stat(file.c_str(), &target) == 0;
  if (resolves && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode)) return;  // a device or a pipe
  throw InputError(file + ": is a symbolic link; vtsim writes no output through a link (remove it, or name the file "
                          "it points to)");
}

AtomicOutput::AtomicOutput(std::string file) : file_(std::move(file)) {
  refuse_symlinked_output(file_);
  // A device or a pipe (/dev/stdout, /dev/null, a FIFO) is written in place: renaming over it would replace the
  // device node itself.
  struct stat target {};
  if (::stat(file_.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    if (S_ISDIR(target.st_mode)) {
      errno = EISDIR;
      fail("cannot write", file_);
    }
    fd_ = ::open(file_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot write", file_);
    return;
  }
  temporary_ = file_ + ".tmp-" + std::to_string(::getpid());
  // A temporary left by a crashed run of the same process id, or a link planted under its name, is removed (unlink
  // removes a link, not what it points to) and the file created anew: O_EXCL | O_NOFOLLOW never open through a link.
  if (::unlink(temporary_.c_str()) != 0 && errno != ENOENT) fail("cannot remove", temporary_);
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create", temporary_);
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) {
    ::close(fd_);
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
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
    if (n < 0) fail("cannot write", temporary_.empty() ? file_ : temporary_);
    written += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

void AtomicOutput::commit() {
  flush();
  if (temporary_.empty()) {  // a device or a pipe, written in place
    if (::close(fd_) != 0) fail("cannot close", file_);
    fd_ = -1;
    return;
  }
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

}  // namespace vtsim
