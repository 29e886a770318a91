#include "models/scenario/overrides.hpp"

#include <gtest/gtest.h>

#include "models/core/error.hpp"

namespace vtsim {
namespace {

std::string error_of_override(nlohmann::json& document, const std::string& assignment) {
  try {
    apply_override(document, assignment);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(OverridePath, SplitsKeysAndIndices) {
  const std::vector<PathStep> steps = parse_override_path("jobs[0].horovod.fusion_threshold_mib");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(std::get<std::string>(steps[0]), "jobs");
  EXPECT_EQ(std::get<std::size_t>(steps[1]), 0u);
  EXPECT_EQ(std::get<std::string>(steps[2]), "horovod");
  EXPECT_EQ(std::get<std::string>(steps[3]), "fusion_threshold_mib");
}

TEST(OverrideValue, ParsesJsonAndFallsBackToPlainText) {
  EXPECT_EQ(parse_override_value("8"), nlohmann::json(8));
  EXPECT_EQ(parse_override_value("2.5"), nlohmann::json(2.5));
  EXPECT_EQ(parse_override_value("false"), nlohmann::json(false));
  EXPECT_EQ(parse_override_value("[0,1]"), nlohmann::json::array({0, 1}));
  EXPECT_EQ(parse_override_value("t4"), nlohmann::json("t4"));         // bare word: a string
  EXPECT_EQ(parse_override_value("\"8\""), nlohmann::json("8"));       // quoted: a string even if numeric
}

TEST(OverrideValue, JsonIsReadAsStrictlyAsAFile) {
  // A key given twice inside a --set value (or a sweep's set string) used to keep the last one silently (issue 31).
  try {
    parse_override_value(R"({"policy": "equal_share", "policy": "fixed_share"})");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("policy: duplicate key"), std::string::npos) << error.what();
  }
  EXPECT_THROW(parse_override_value("1e-400"), InputError);
}

TEST(ApplyOverride, SetsNestedFieldsCreatingMissingObjects) {
  nlohmann::json document = {{"jobs", {{{"batch_per_gpu", 32}}}}};
  apply_override(document, "jobs[0].batch_per_gpu=64");
  apply_override(document, "cluster.host.nvlink.enabled=false");
  EXPECT_EQ(document["jobs"][0]["batch_per_gpu"], 64);
  EXPECT_EQ(document["cluster"]["host"]["nvlink"]["enabled"], false);
}

TEST(ApplyOverride, RejectsMalformedAssignments) {
  nlohmann::json document = {{"jobs", {{{"batch_per_gpu", 32}}}}, {"name", "x"}};
  EXPECT_EQ(error_of_override(document, "jobs[0].batch_per_gpu"),
            "--set jobs[0].batch_per_gpu: expected PATH=VALUE, e.g. jobs[0].batch_per_gpu=32");
  EXPECT_EQ(error_of_override(document, "jobs[2].batch_per_gpu=1"), "--set jobs[2].batch_per_gpu: jobs has 1 element");
  EXPECT_EQ(error_of_override(document, "name.first=y"), "--set name.first: name is not an object");
  EXPECT_EQ(error_of_override(document, "jobs.x=1"), "--set jobs.x: jobs is not an object");
  EXPECT_EQ(error_of_override(document, "jobs[a]=1"), "--set jobs[a]: array index must be a whole number");
  EXPECT_EQ(error_of_override(document, "cluster.=1"), "--set cluster.: path ends with '.'");
}

TEST(SplitAssignments, SeveralKeysPerVariantSplitOnlyBeforeAnotherPath) {
  using List = std::vector<std::string>;
  EXPECT_EQ(split_assignments("a=1"), List{"a=1"});
  EXPECT_EQ(split_assignments("cluster.hosts_per_rack=2,jobs[0].gpus=8"),
            (List{"cluster.hosts_per_rack=2", "jobs[0].gpus=8"}));
  // Commas inside a JSON array or object, inside quotes, or not followed by PATH= belong to the value.
  EXPECT_EQ(split_assignments("jobs[0].gpu_ids=[0,1],name=x"), (List{"jobs[0].gpu_ids=[0,1]", "name=x"}));
  EXPECT_EQ(split_assignments("set={\"a\": 1, \"b\": 2}"), List{"set={\"a\": 1, \"b\": 2}"});
  EXPECT_EQ(split_assignments("name=\"a,b=c\""), List{"name=\"a,b=c\""});
  EXPECT_EQ(split_assignments("description=one, two"), List{"description=one, two"});
}

}  // namespace
}  // namespace vtsim
