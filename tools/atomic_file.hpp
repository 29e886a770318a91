#pragma once
// Writing a file so that a reader, or a rerun after a crash, sees either the old content or the new, never a part.

#include <string>

namespace vtsim::tools {

/// Writes `content` to `file` through a temporary file in the same folder, synced, then renamed over `file`.
/// Throws std::runtime_error on an I/O failure.
void write_file_atomically(const std::string& file, const std::string& content);

/// An output file written through a temporary that is renamed over the target by commit(); abandoned otherwise.
class AtomicOutput {
 public:
  /// Opens FILE.tmp-PID for writing. Throws std::runtime_error.
  explicit AtomicOutput(std::string file);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  /// Appends `text` (buffered).
  void write(const std::string& text);
  /// Flushes, syncs and renames the temporary over the target.
  void commit();

 private:
  void flush();
  std::string file_;
  std::string temporary_;
  std::string buffer_;
  int fd_ = -1;
};

}  // namespace vtsim::tools
