#include "models/core/json_reader.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "models/core/error.hpp"

namespace vtsim {
namespace {

/// The message of the InputError `action` throws, or "" when it throws none.
template <typename Action>
std::string thrown_message_of(Action&& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(JsonReader, IntegerBoundsNameThePathAndTheValue) {
  const nlohmann::json doc = {{"racks", -2}, {"gpus", 8.0}, {"half", 2.5}};
  JsonObject root = JsonValue(doc, "a.json", "").as_object();
  EXPECT_EQ(thrown_message_of([&] { root.require("racks").as_int(1); }),
            "a.json: racks: expected an integer >= 1, got -2");
  EXPECT_EQ(root.require("gpus").as_int(1, 16), 8);  // 8.0 is accepted as 8
  EXPECT_EQ(thrown_message_of([&] { root.require("half").as_int(1, 16); }),
            "a.json: half: expected an integer from 1 to 16, got 2.5");
}

TEST(JsonReader, AValueAboveALargeBoundNamesTheBound) {
  // Issue 31: 2^31 against int's range was refused as "expected an integer >= 1".
  const nlohmann::json doc = {{"global_batch", 2147483648LL}, {"as_float", 3e9}};
  JsonObject root = JsonValue(doc, "a.json", "").as_object();
  EXPECT_EQ(thrown_message_of([&] { root.require("global_batch").as_int(1, 2147483647); }),
            "a.json: global_batch: expected an integer from 1 to 2147483647, got 2147483648");
  EXPECT_EQ(thrown_message_of([&] { root.require("as_float").as_int(1, 2147483647); }),
            "a.json: as_float: expected an integer from 1 to 2147483647, got 3000000000.0");
}

TEST(JsonReader, UnknownKeySuggestsTheNearestAskedKey) {
  const nlohmann::json doc = {{"cluster", {{"rakcs", 2}}}};
  JsonObject root = JsonValue(doc, "a.json", "").as_object();
  JsonObject cluster = root.require("cluster").as_object();
  (void)cluster.get("racks");
  (void)cluster.get("hosts_per_rack");
  EXPECT_EQ(thrown_message_of([&] { cluster.finish(); }), "a.json: cluster.rakcs: unknown key; did you mean 'racks'?");
}

TEST(JsonReader, UnknownKeyWithoutNearNameListsTheValidOnes) {
  const nlohmann::json doc = {{"colour", "red"}};
  JsonObject root = JsonValue(doc, "a.json", "").as_object();
  (void)root.get("name");
  (void)root.get("jobs");
  EXPECT_EQ(thrown_message_of([&] { root.finish(); }),
            "a.json: colour: unknown key; valid keys here: 'name' or 'jobs'");
}

TEST(JsonReader, ChoiceSuggestsAndListsShortChoiceSets) {
  const nlohmann::json doc = {{"fidelity", "flwo"}, {"other", 3}};
  JsonObject root = JsonValue(doc, "a.json", "").as_object();
  const std::array<std::string, 3> choices = {"step", "flow", "analytic"};
  EXPECT_EQ(thrown_message_of([&] { root.require("fidelity").as_choice(choices); }),
            "a.json: fidelity: expected one of 'step', 'flow' or 'analytic', got 'flwo'; did you mean 'flow'?");
  EXPECT_EQ(thrown_message_of([&] { root.require("other").as_choice(choices); }),
            "a.json: other: expected one of 'step', 'flow' or 'analytic', got 3");
}

TEST(JsonReader, ArrayElementsCarryTheirIndexInThePath) {
  const nlohmann::json doc = {{"jobs", {{{"batch_per_gpu", 1}}, {{"batch_per_gpu", 0}}}}};
  JsonObject root = JsonValue(doc, "a.json", "").as_object();
  const auto jobs = root.require("jobs").as_array(1);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(thrown_message_of([&] { jobs[1].as_object().require("batch_per_gpu").as_int(1); }),
            "a.json: jobs[1].batch_per_gpu: expected an integer >= 1, got 0");
}

// A trace's events one at a time: each element of the streamed array reaches the callback in order, with its index,
// and none is kept; everything else is the document parse_json_text gives; and its errors are parse_json_text's.
TEST(JsonReader, AStreamedArrayHandsOverEachElementAndKeepsNone) {
  const std::string text = R"({"schemaVersion": 1, "traceEvents": [{"a": 1}, [2, 3], "x", {"b": {"c": [4]}}],
                               "deviceProperties": [{"id": 0}], "nested": {"traceEvents": [5]}})";
  std::vector<std::pair<std::size_t, nlohmann::json>> seen;
  const auto keep = [&](std::size_t i, const nlohmann::json& element) { seen.emplace_back(i, element); };
  const nlohmann::json document = parse_json_streaming(text, "t.json", "traceEvents", keep);
  const nlohmann::json whole = parse_json_text(text, "t.json");
  ASSERT_EQ(seen.size(), 4u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].first, i);
    EXPECT_EQ(seen[i].second, whole["traceEvents"][i]);
  }
  nlohmann::json expected = whole;
  expected["traceEvents"] = nlohmann::json::array();  // only the top level's array is streamed
  EXPECT_EQ(document, expected);
  EXPECT_EQ(document["nested"]["traceEvents"], nlohmann::json::array({5}));
  // The same messages as parse_json_text, for a duplicate inside an element, a syntax error, a tiny number.
  const auto streamed_message = [](const std::string& bad) {
    return thrown_message_of([&] {
      parse_json_streaming(bad, "t.json", "traceEvents", [](std::size_t, const nlohmann::json&) {});
    });
  };
  for (const std::string bad : {R"({"traceEvents": [{"ts": 1}, {"ts": 2, "ts": 3}]})",
                                "{\n  \"traceEvents\": [\n {\"a\": }]}", R"({"traceEvents": [{"dur": 1e-400}]})",
                                R"({"traceEvents": [1e400]})"}) {
    const std::string message = streamed_message(bad);
    EXPECT_FALSE(message.empty()) << bad;
    EXPECT_EQ(message, thrown_message_of([&] { parse_json_text(bad, "t.json"); })) << bad;
  }
  EXPECT_EQ(streamed_message(R"({"traceEvents": [{"ts": 1}, {"ts": 2, "ts": 3}]})"),
            "t.json: traceEvents[1].ts: duplicate key (the later value would silently replace the earlier one)");
}

TEST(JsonReader, SyntaxErrorsGiveLineAndColumn) {
  const std::string text = "{\n  \"a\": 1,\n  \"b\": }\n";
  const std::string message = thrown_message_of([&] { parse_json_text(text, "bad.json"); });
  EXPECT_EQ(message.rfind("bad.json: line 3, column 8: invalid JSON: ", 0), 0u) << message;
}

TEST(JsonReader, ANumberBeyondADoubleIsAnInputErrorWithItsPosition) {
  // 1e400 overflows a double (largest ~1.8e308); nlohmann throws out_of_range for it, which used to abort vtsim.
  const std::string text = "{\n  \"racks\": 1e400\n}\n";
  EXPECT_EQ(thrown_message_of([&] { parse_json_text(text, "big.json"); }),
            "big.json: line 2, column 12: invalid JSON: the number 1e400 is beyond the range of a double");
}

TEST(JsonReader, ANumberBelowTheSmallestDoubleIsRefusedNotReadAsZero) {
  // strtod gives 0 for 1e-400 (the smallest double is ~4.9e-324): a stated value would silently vanish (issue 31).
  EXPECT_EQ(thrown_message_of([] { parse_json_text(R"({"jobs": [{"cv": 1e-400}]})", "tiny.json"); }),
            "tiny.json: jobs[0].cv: the number 1e-400 is below the smallest double: it would read as 0");
  EXPECT_EQ(thrown_message_of([] { parse_json_text("2.5E-999", "t.json"); }),
            "t.json: the document: the number 2.5E-999 is below the smallest double: it would read as 0");
  // Zero written any way, and a subnormal that a double holds, are numbers like any other.
  EXPECT_EQ(parse_json_text(R"([0.0, 0e-400, -0.0e5, 1e-310])", "ok.json")[1].get<double>(), 0.0);
  EXPECT_GT(parse_json_text(R"([1e-310])", "ok.json")[0].get<double>(), 0.0);
}

TEST(JsonReader, NestingDeeperThan256LevelsIsRefusedBeforeParsing) {
  // 70,000 levels used to overflow the stack; 256 still parse, 257 do not. Brackets inside strings do not count.
  const std::string deep = std::string(257, '[') + std::string(257, ']');
  EXPECT_EQ(thrown_message_of([&] { parse_json_text(deep, "deep.json"); }),
            "deep.json: line 1, column 257: invalid JSON: nested deeper than 256 levels");
  EXPECT_EQ(thrown_message_of([] { parse_json_text(std::string(70000, '[') + std::string(70000, ']'), "d.json"); }),
            "d.json: line 1, column 257: invalid JSON: nested deeper than 256 levels");
  const std::string fits = std::string(256, '[') + std::string(256, ']');
  EXPECT_NO_THROW(parse_json_text(fits, "ok.json"));
  EXPECT_NO_THROW(parse_json_text("{\"a\": \"" + std::string(1000, '[') + "\\\"\"}", "s.json"));
}

TEST(JsonReader, AKeyGivenTwiceInOneObjectIsRefusedWithItsPath) {
  EXPECT_EQ(thrown_message_of([] { parse_json_text(R"({"jobs": [{"a": 1}, {"b": 2, "b": 3}]})", "dup.json"); }),
            "dup.json: jobs[1].b: duplicate key (the later value would silently replace the earlier one)");
  EXPECT_EQ(thrown_message_of([] { parse_json_text(R"({"x": {"y": [1, {"z": 0}]}, "x": 2})", "dup.json"); }),
            "dup.json: x: duplicate key (the later value would silently replace the earlier one)");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 1}, "c": [{"k": 1}, {"k": 2}]})", "ok.json"));
}

TEST(JsonReader, MissingFileIsAnInputError) {
  EXPECT_EQ(thrown_message_of([] { read_json_file("/nonexistent/x.json"); }), "/nonexistent/x.json: cannot open file");
}

}  // namespace
}  // namespace vtsim
