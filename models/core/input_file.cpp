#include "models/core/input_file.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "models/core/error.hpp"

namespace vtsim {

std::string read_input_file(const std::string& file, std::size_t max_bytes) {
  const std::string too_large =
      file + ": larger than " + std::to_string(max_bytes / (1024 * 1024)) + " MiB: not an input vtsim reads";
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(file, error);
  if (error || !std::filesystem::exists(status)) throw InputError(file + ": cannot open file");
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(file + ": not a regular file (a device, FIFO or folder)");
  }
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (!error && size > max_bytes) throw InputError(too_large);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open file");
  // Read in chunks and stop one past the limit: a file that grows while it is read is bounded too.
  std::string text;
  if (!error) text.reserve(static_cast<std::size_t>(size));  // one allocation for a file of hundreds of MB
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw InputError(too_large);
  }
  return text;
}

}  // namespace vtsim
