#pragma once
// CSV as RFC 4180 writes it and pandas reads it: comma-separated, a field quoted (with "" for a quote) only when it
// holds a comma, a quote or a line break; "\n" line ends.

#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// One CSV line (with its "\n") of `fields`.
std::string csv_line(const std::vector<std::string>& fields);

/// Parses CSV text into rows of fields. Throws InputError naming `file` and the line of an unterminated quote.
std::vector<std::vector<std::string>> parse_csv(std::string_view text, const std::string& file);

}  // namespace vtsim
