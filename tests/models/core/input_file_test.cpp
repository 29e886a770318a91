// Reading input files: only regular files, and only up to 64 MiB (issue 11 item 8: /dev/zero, /dev/urandom or a FIFO
// given as an input used to be read without limit).

#include "models/core/input_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/core/error.hpp"

namespace vtsim {
namespace {

std::string read_error_of(const std::string& file) {
  try {
    read_input_file(file);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("vtsim-input-file-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  return folder / name;
}

TEST(InputFile, ReadsARegularFileWhole) {
  const std::filesystem::path file = scratch("small.json");
  std::ofstream(file, std::ios::binary) << "{\"a\": 1}\n" << std::string(100000, ' ');
  EXPECT_EQ(read_input_file(file.string()).size(), 9u + 100000u);
}

TEST(InputFile, RefusesDevicesFifosAndFolders) {
  EXPECT_EQ(read_error_of("/dev/zero"), "/dev/zero: not a regular file (a device, FIFO or folder)");
  EXPECT_EQ(read_error_of("/dev/urandom"), "/dev/urandom: not a regular file (a device, FIFO or folder)");
  const std::filesystem::path fifo = scratch("fifo");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_error_of(fifo.string()), fifo.string() + ": not a regular file (a device, FIFO or folder)");
  EXPECT_EQ(read_error_of(fifo.parent_path().string()),
            fifo.parent_path().string() + ": not a regular file (a device, FIFO or folder)");
  EXPECT_EQ(read_error_of("/nonexistent/x.json"), "/nonexistent/x.json: cannot open file");
}

TEST(InputFile, RefusesAFileLargerThan64MiB) {
  // A sparse file: 64 MiB + 1 byte of size, no disk used.
  const std::filesystem::path file = scratch("huge.csv");
  { std::ofstream(file, std::ios::binary); }
  std::filesystem::resize_file(file, kMaxInputFileBytes + 1);
  EXPECT_EQ(read_error_of(file.string()), file.string() + ": larger than 64 MiB: not an input vtsim reads");
  std::filesystem::resize_file(file, kMaxInputFileBytes);  // exactly the limit is read
  EXPECT_EQ(read_input_file(file.string()).size(), kMaxInputFileBytes);
  std::filesystem::remove_all(file.parent_path());
}

}  // namespace
}  // namespace vtsim
