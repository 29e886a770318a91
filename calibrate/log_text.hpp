#pragma once
// A tool's log read as numbered lines, with strict number parsing whose every failure names the file and the line:
// InputError "FILE:LINE: what is wrong". Shared by the importers of nccl-tests, perftest and nvidia-smi output.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vtsim::calibrate {

/// The lines of one log, with the file name errors carry.
class LogText {
 public:
  /// Splits `text` into lines (LF or CRLF); `file` names it in errors.
  LogText(std::string file, std::string_view text);

  /// The file name given at construction.
  const std::string& file() const { return file_; }
  /// Number of lines.
  std::size_t size() const { return lines_.size(); }
  /// Line `index` (0-based) without its end of line.
  const std::string& line(std::size_t index) const { return lines_[index]; }

  /// Throws InputError "FILE:LINE: message" for line `index` (0-based; printed 1-based).
  [[noreturn]] void fail(std::size_t index, std::string_view message) const;
  /// Throws InputError "FILE: message" about the log as a whole.
  [[noreturn]] void fail(std::string_view message) const;

  /// `token` as an integer in [min, max]; otherwise fails on line `index`, naming `what`.
  std::int64_t integer(std::size_t index, std::string_view token, std::string_view what, std::int64_t min,
                       std::int64_t max = INT64_MAX) const;
  /// `token` as a finite number >= min; otherwise fails on line `index`, naming `what`.
  double number(std::size_t index, std::string_view token, std::string_view what, double min) const;

 private:
  std::string file_;
  std::vector<std::string> lines_;
};

/// Reads a whole log file; a missing or unreadable file is InputError "FILE: cannot open file".
LogText read_log_file(const std::string& file);

/// The whitespace-separated tokens of `line`.
std::vector<std::string_view> split_tokens(std::string_view line);

/// `line` without ANSI terminal escapes (nvidia-smi underlines headers on a terminal) and surrounding blanks.
std::string strip_terminal_escapes(std::string_view line);

/// True when `token` is a decimal integer (digits only).
bool is_unsigned_integer(std::string_view token);

}  // namespace vtsim::calibrate
