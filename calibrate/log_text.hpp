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

/// Reads one line left to right, for matching a log's fixed words by hand. The importers do not use std::regex on
/// logs: libstdc++'s matcher recurses once per character it matches, and a line of a few hundred thousand digits or
/// blanks overflows the stack (a crash found on 2026-12-04 in the nccl-tests importer).
class LineCursor {
 public:
  explicit LineCursor(std::string_view line) : rest_(line) {}

  /// Skips whitespace (std::isspace); returns how many characters it skipped.
  std::size_t skip_spaces();
  /// Skips one whitespace character, if the rest starts with one.
  void skip_one_space();
  /// Consumes `word` when the rest starts with it.
  bool take(std::string_view word);
  /// Consumes the decimal digits the rest starts with; empty when there are none.
  std::string_view take_digits();
  /// Consumes the non-whitespace characters the rest starts with; empty when there are none.
  std::string_view take_token();
  /// Consumes everything up to and including the first `end`; false (and nothing consumed) when there is none.
  bool take_through(char end);
  /// What is left of the line.
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

}  // namespace vtsim::calibrate
