#include "tools/sweep/sweep_records.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "models/core/error.hpp"

namespace vtsim::tools {
namespace {

// A records file that cannot be read or written (a full disk, a read-only folder) is the user's to fix: exit 1, as
// for every output (models/core/atomic_file.cpp), not an internal error.
[[noreturn]] void io_failure(const std::string& what, const std::string& file) {
  throw InputError(what + " " + file + ": " + std::strerror(errno));
}

struct ParsedRecord {
  bool valid = false;
  std::size_t point = 0;
  std::string id;
  bool failed = false;
};

ParsedRecord parse_record(const std::string& line, std::size_t point_count) {
  ParsedRecord record;
  const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("point") || !json["point"].is_number_unsigned() || !json.contains("id") ||
      !json["id"].is_string() || (!json.contains("result") && !json.contains("error"))) {
    return record;
  }
  record.point = json["point"].get<std::size_t>();
  record.id = json["id"].get<std::string>();
  record.failed = json.contains("error");
  record.valid = record.point < point_count;
  return record;
}

}  // namespace

RecordScan scan_records(int fd, const std::string& file, std::size_t point_count, const std::vector<std::string>& ids) {
  RecordScan scan;
  scan.records.resize(point_count);
  std::string pending;  // the current line so far
  std::int64_t line_start = 0;
  std::int64_t offset = 0;
  std::size_t line_number = 0;
  std::string bad_line_message;  // a bad whole line is an error unless it is the last one
  std::vector<char> buffer(1U << 20);
  while (true) {
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_failure("cannot read", file);
    if (n == 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      const char c = buffer[static_cast<std::size_t>(i)];
      if (c != '\n') {
        pending.push_back(c);
        continue;
      }
      ++line_number;
      if (!bad_line_message.empty()) throw InputError(bad_line_message);
      const ParsedRecord record = parse_record(pending, point_count);
      const std::int64_t end = offset + i + 1;
      if (!record.valid) {
        bad_line_message = file + ": line " + std::to_string(line_number) + " is not a record of this sweep: the file is corrupt";
      } else {
        if (!ids.empty() && ids[record.point] != record.id) {
          throw InputError(file + ": line " + std::to_string(line_number) + ": point " + std::to_string(record.point) +
                           " has id " + record.id + " but the sweep's point " + std::to_string(record.point) + " is " +
                           ids[record.point] + ": the folder holds another sweep's results");
        }
        scan.records[record.point] = {line_start, pending.size(), record.failed};
        scan.valid_bytes = end;
        ++scan.lines;
      }
      line_start = end;
      pending.clear();
    }
    offset += n;
  }
  return scan;
}

std::string read_record(int fd, const RecordRef& ref) {
  std::string line(ref.length, '\0');
  std::size_t done = 0;
  while (done < ref.length) {
    const ssize_t n = ::pread(fd, line.data() + done, ref.length - done, ref.offset + static_cast<std::int64_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("cannot read a record: " + std::string(n < 0 ? std::strerror(errno) : "file shrank"));
    done += static_cast<std::size_t>(n);
  }
  return line;
}

RecordLog::RecordLog(const std::string& file, const std::vector<std::string>& ids) : file_(file) {
  // O_NOFOLLOW: a link planted as records.jsonl would have the torn-line repair cut, and appends land in, the file it
  // points to.
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw InputError(file + ": is a symbolic link; vtsim writes no output through a link (remove it)");
  }
  if (fd_ < 0) io_failure("cannot open", file);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd_);
    if (error == EWOULDBLOCK) {
      throw InputError(file + ": another vtsim sweep is writing to this folder; wait for it or choose another --out");
    }
    errno = error;
    io_failure("cannot lock", file);
  }
  try {
    scan_ = scan_records(fd_, file, ids.size(), ids);
    const off_t size = ::lseek(fd_, 0, SEEK_END);
    if (size > scan_.valid_bytes && ::ftruncate(fd_, scan_.valid_bytes) != 0) io_failure("cannot cut the torn tail of", file);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

RecordLog::~RecordLog() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void RecordLog::append(const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  for (const std::string& line : lines) {
    const std::string text = line + "\n";
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_failure("cannot append to", file_);
      written += static_cast<std::size_t>(n);
    }
    const ParsedRecord record = parse_record(line, scan_.records.size());
    if (!record.valid) throw std::logic_error("RecordLog::append: not a record: " + line.substr(0, 200));
    scan_.records[record.point] = {scan_.valid_bytes, line.size(), record.failed};
    scan_.valid_bytes += static_cast<std::int64_t>(text.size());
    ++scan_.lines;
  }
  if (::fdatasync(fd_) != 0) io_failure("cannot sync", file_);
}

}  // namespace vtsim::tools
