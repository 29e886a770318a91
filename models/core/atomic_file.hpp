#pragma once
// Writing a file so that a reader, or a rerun after a crash, sees either the old content or the new, never a part.

#include <string>
#include <vector>

namespace vtsim {

/// Throws InputError "OUTPUT: OPTION would overwrite the input INPUT" when `output` is the same file as one of
/// `inputs` (through any path or link); nothing when it does not exist yet.
void refuse_overwriting_inputs(const std::string& output, const std::vector<std::string>& inputs,
                               const std::string& option);

/// Throws InputError "FILE: is a symbolic link ..." when `file` is a symbolic link to a regular file, a folder or
/// nothing: vtsim writes no output through a link, so that a link planted where an output goes cannot redirect it
/// onto another file. A link to a device or a pipe (/dev/stdout) is allowed. Nothing when `file` does not exist.
void refuse_symlinked_output(const std::string& file);

/// Writes `content` to `file` through a temporary file in the same folder, synced, then renamed over `file`; a device
/// or a pipe (/dev/stdout, a FIFO) is written in place.
/// Throws InputError on an I/O failure (the target keeps its old content).
void write_file_atomically(const std::string& file, const std::string& content);

/// An output file written through a temporary that is renamed over the target by commit(); abandoned otherwise.
class AtomicOutput {
 public:
  /// Opens FILE.tmp-PID for writing (FILE itself when it is a device or a pipe), never through a symbolic link
  /// (refuse_symlinked_output; a stale or planted FILE.tmp-PID is removed, not followed). Throws InputError.
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

}  // namespace vtsim
