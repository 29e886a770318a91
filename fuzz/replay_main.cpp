// Replays inputs through a fuzz target without libFuzzer: `replay_X FILE|DIR...` runs every file given, and every file
// in every folder given, once. A crash, a sanitizer report or an uncaught exception fails the run; CTest replays the
// kept corpus (tests/fuzz/corpus/X/) so that every input the fuzzer once found stays fixed. Files run in name order.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/input_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const std::vector<fs::path> files = vtsim::fuzz::input_files(std::vector<std::string>(argv + 1, argv + argc));
  if (files.empty()) {
    std::fprintf(stderr, "replay: no input files\n");
    return 2;
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
