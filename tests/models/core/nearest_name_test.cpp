#include "models/core/nearest_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vtsim {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("racks", "racks"), 0u);
  EXPECT_EQ(edit_distance("rack", "racks"), 1u);        // one insertion
  EXPECT_EQ(edit_distance("raks", "racks"), 1u);        // one insertion
  EXPECT_EQ(edit_distance("rakcs", "racks"), 1u);       // one swap
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);    // textbook Levenshtein example
  EXPECT_EQ(edit_distance("GPU_MODEL", "gpu_model"), 0u);  // case-insensitive
}

TEST(NearestName, SuggestsTheClosestPlausibleKey) {
  const std::vector<std::string> keys = {"gpus", "gpu_model", "nvlink", "pcie_gen", "nics", "nic_model"};
  EXPECT_EQ(nearest_name("gpu_modle", keys), "gpu_model");
  EXPECT_EQ(nearest_name("nic_modl", keys), "nic_model");
  EXPECT_EQ(nearest_name("nvlnk", keys), "nvlink");
  EXPECT_EQ(nearest_name("memory", keys), std::nullopt);  // nothing plausible: no suggestion
  const std::vector<std::string> gpus = {"a100-40gb-sxm4", "a100-80gb-sxm4", "h100-sxm5"};
  EXPECT_EQ(nearest_name("a100-40gb", gpus), "a100-40gb-sxm4");  // truncated: 5 edits, still plausible
  EXPECT_EQ(nearest_name("h1", gpus), std::nullopt);              // too short to count as a truncation
}

TEST(NearestName, DidYouMeanIsEmptyWithoutACandidate) {
  const std::vector<std::string> keys = {"racks"};
  EXPECT_EQ(did_you_mean("rakcs", keys), "; did you mean 'racks'?");
  EXPECT_EQ(did_you_mean("transport", keys), "");
}

}  // namespace
}  // namespace vtsim
