#pragma once
// The record of finished points: DIR/records.jsonl, an append-only log with one JSON line per finished point,
//   {"point": INDEX, "id": "16 hex digits", "set": {PATH: VALUE, ...}, "result": {...}}   or   ..., "error": "..."}
// Only the sweep's parent process appends, one whole line per write, then syncs. A crash or SIGKILL can at worst
// leave a torn last line (no newline, or not JSON): it is ignored and cut off before the next append. When a point
// has several records (a failed point rerun with --retry-failed), the last one counts.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vtsim::tools {

/// Where a point's record lies in a records file.
struct RecordRef {
  std::int64_t offset = -1;  ///< byte offset of the line; -1 when the point has no record
  std::size_t length = 0;    ///< without the newline
  bool failed = false;       ///< the record holds an "error"

  /// Whether the point has a record.
  bool present() const { return offset >= 0; }
};

/// What scanning a records file found.
struct RecordScan {
  std::vector<RecordRef> records;  ///< per point index
  std::int64_t valid_bytes = 0;    ///< the length of the whole lines; anything after is a torn tail
  std::size_t lines = 0;           ///< whole record lines, counting superseded ones
};

/// Scans the open records file `fd` (named `file` in messages) of a sweep of `point_count` points. When `ids` is not
/// empty, each record's id must equal ids[point]. Throws InputError on a corrupt line other than the last.
RecordScan scan_records(int fd, const std::string& file, std::size_t point_count, const std::vector<std::string>& ids);

/// Reads the record line at `ref` from `fd`. Throws std::runtime_error on an I/O failure.
std::string read_record(int fd, const RecordRef& ref);

/// The writable records file of one sweep output folder, locked against a second writer.
class RecordLog {
 public:
  /// Opens or creates `file`, takes an exclusive lock (InputError when another process holds it), cuts off a torn
  /// last line and indexes the records of a sweep whose point ids are `ids`.
  RecordLog(const std::string& file, const std::vector<std::string>& ids);
  ~RecordLog();
  RecordLog(const RecordLog&) = delete;
  RecordLog& operator=(const RecordLog&) = delete;

  /// Appends records (each one line of JSON without a newline, with its "point") and syncs them to disk.
  void append(const std::vector<std::string>& lines);
  /// The latest record of every point.
  const std::vector<RecordRef>& records() const { return scan_.records; }
  /// The record line of `point`. REQUIRES: records()[point].present().
  std::string read(std::size_t point) const { return read_record(fd_, scan_.records[point]); }
  /// The file descriptor (worker processes close it).
  int fd() const { return fd_; }

 private:
  std::string file_;
  int fd_ = -1;
  RecordScan scan_;
};

}  // namespace vtsim::tools
