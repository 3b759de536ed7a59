#include "io/mechanism_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mechanism/generators.h"
#include "mechanism/parameters.h"

namespace lw::io {
namespace {

// A small valid planar four-bar, written inline so the reader sees the whole model.
const std::string kFourBar = R"({
  "format": "linkwright-mechanism",
  "version": 1,
  "name": "Test four-bar",
  "dimension": 2,
  "gravity": [0, -9.81],
  "parameters": [
    {"name": "L", "value": 1, "unit": "m"},
    {"name": "half", "value": "L/2"}
  ],
  "ground": {
    "points": {"A": [0, 0], "D": [3, 0]}
  },
  "bodies": [
    {
      "name": "crank",
      "mass": 1,
      "com": ["half", 0],
      "inertia": 0.08,
      "points": {"A": [0, 0], "B": ["L", 0]}
    },
    {
      "name": "coupler",
      "position": [1, 0],
      "angle": 1.0471975511965976,
      "mass": 3,
      "com": [1.5, 0],
      "inertia": 2.25,
      "points": {"B": [0, 0], "C": [3, 0]}
    },
    {
      "name": "rocker",
      "position": [3, 0],
      "angle": 1.5,
      "mass": 2.5,
      "com": [1.25, 0],
      "inertia": 1.3,
      "points": {"D": [0, 0], "C": [2.5, 0]}
    }
  ],
  "joints": [
    {"name": "A", "type": "pin", "points": ["ground.A", "crank.A"]},
    {"name": "B", "type": "pin", "points": ["crank.B", "coupler.B"]},
    {"name": "C", "type": "pin", "points": ["coupler.C", "rocker.C"]},
    {"name": "D", "type": "pin", "points": ["ground.D", "rocker.D"]}
  ],
  "drivers": [
    {"name": "motor", "type": "joint", "joint": "A", "function": "2*pi*t"}
  ]
}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "fixture has no '" << from << "'";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// line and column (1-based) of the first occurrence of `needle`
std::pair<int, int> whereIs(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  int line = 1, col = 1;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') line++, col = 1;
    else col++;
  }
  return {line, col};
}

// Loads `text`, expects failure with an error at `path` whose message contains `message`;
// when `anchor` is given, the error must point at its line and column.
void expectError(const std::string& text, const std::string& path, const std::string& message,
                 const std::string& anchor = {}) {
  const LoadResult r = loadMechanismFromString(text);
  ASSERT_FALSE(r.ok()) << "expected the load to fail with: " << message;
  for (const auto& d : r.diagnostics) {
    if (!d.isError() || d.path != path || d.message.find(message) == std::string::npos) continue;
    if (!anchor.empty()) {
      const auto [line, col] = whereIs(text, anchor);
      EXPECT_EQ(d.line, line) << d.format();
      EXPECT_EQ(d.column, col) << d.format();
    } else {
      EXPECT_GT(d.line, 0) << d.format();
    }
    return;
  }
  std::string all;
  for (const auto& d : r.diagnostics) all += "\n  " + d.format();
  ADD_FAILURE() << "no error at '" << path << "' containing '" << message << "'; got:" << all;
}

TEST(MechanismIo, FixtureLoads) {
  const LoadResult r = loadMechanismFromString(kFourBar);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.mechanism->bodies.size(), 3u);
  EXPECT_EQ(r.mechanism->joints[2].points[1].str(), "rocker.C");
  EXPECT_EQ(r.mechanism->bodies[0].points[1].value[0].expression.text(), "L");
}

TEST(MalformedFile, NotJson) {
  const LoadResult r = loadMechanismFromString("this is not json");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].message.find("not valid JSON"), std::string::npos);
  EXPECT_EQ(r.diagnostics[0].line, 1);
  EXPECT_EQ(r.diagnostics[0].column, 1);
}

TEST(MalformedFile, Truncated) {
  const std::string cut = kFourBar.substr(0, kFourBar.find("\"rocker\",") + 4);
  const LoadResult r = loadMechanismFromString(cut);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].message.find("ends too early"), std::string::npos)
      << r.diagnostics[0].message;
  EXPECT_EQ(r.diagnostics[0].path, "bodies[2].name");
  const auto lastLine = std::count(cut.begin(), cut.end(), '\n') + 1;
  EXPECT_EQ(r.diagnostics[0].line, lastLine);
}

TEST(MalformedFile, TruncatedAfterACompleteValueIsNotTrailingText) {
  // the parser's "unexpected end of input; expected '}'" contains "expected end of input", the
  // words of text after the end: a file missing its last braces was told to remove text
  for (const std::string& cut : {kFourBar.substr(0, kFourBar.rfind('}')), kFourBar.substr(0, 500)}) {
    const LoadResult r = loadMechanismFromString(cut);
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("ends too early"), std::string::npos) << r.diagnostics[0].message;
  }
  const LoadResult more = loadMechanismFromString(kFourBar + " x");
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.diagnostics[0].message.find("more text after the end"), std::string::npos) << more.diagnostics[0].message;
}

TEST(MalformedFile, DeepNestingIsRejectedQuickly) {
  const LoadResult r = loadMechanismFromString(std::string(1000000, '['));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].message.find("nested too deeply"), std::string::npos);
  EXPECT_EQ(r.diagnostics[0].column, 65);
}

TEST(MalformedFile, HugeObjectsLoadInLinearTime) {
  std::string many = R"({"format": "linkwright-mechanism", "version": 1, "name": "n", "dimension": 2,
    "ground": {"points": {)";
  for (int i = 0; i < 200000; ++i) many += (i ? ", " : "") + std::string("\"p") + std::to_string(i) + "\": [0, 0]";
  many += R"(}}, "bodies": [{"name": "b", "mass": 1, "com": [0, 0], "inertia": 1, "points": {"P": [0, 0]}}]})";
  const LoadResult r = loadMechanismFromString(many);  // quadratic lookups would take minutes
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.mechanism->ground.points.size(), 200000u);
}

TEST(MalformedFile, EmptyFile) {
  const LoadResult r = loadMechanismFromString("  \n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics[0].message, "the file is empty");
}

TEST(MalformedFile, WrongTypes) {
  expectError(replaced(kFourBar, "\"mass\": 3", "\"mass\": [3]"), "bodies[1].mass",
              "expected a number or an expression string, found an array", "[3]");
  expectError(replaced(kFourBar, "\"dimension\": 2", "\"dimension\": \"2\""), "dimension",
              "the dimension must be 2 or 3, found a string", "\"2\"");
  expectError(replaced(kFourBar, "\"points\": [\"ground.A\", \"crank.A\"]", "\"points\": \"ground.A\""),
              "joints[0].points", "expected two point references", "\"ground.A\"}");
  expectError(replaced(kFourBar, "\"com\": [1.5, 0]", "\"com\": {\"x\": 1.5}"), "bodies[1].com",
              "expected an array of numbers, found an object", "{\"x\": 1.5}");
  expectError(replaced(kFourBar, "\"type\": \"pin\"", "\"type\": \"hinge\""), "joints[0].type",
              "unknown value \"hinge\"; expected one of: pin, slider", "\"hinge\"");
}

TEST(MalformedFile, MissingRequiredFields) {
  expectError(replaced(kFourBar, "\"mass\": 3,", ""), "bodies[1]", "the required key \"mass\" is missing");
  expectError(replaced(kFourBar, "\"name\": \"Test four-bar\",", ""), "",
              "the required key \"name\" is missing");
}

TEST(MalformedFile, AnalysisDefaultsThatMakeNoRun) {
  // a 0 end time ran 1 s (0 meant "not given"); an end that is not a whole number of steps made
  // every fixed-step run refuse a file `check` passed
  const std::string withAnalysis = replaced(kFourBar, "\"drivers\": [", "\"analysis\": {\"t_end\": 1, \"dt\": 0.01},\n  \"drivers\": [");
  expectError(replaced(withAnalysis, "\"t_end\": 1", "\"t_end\": 0"), "analysis.t_end", "the end time must be positive");
  expectError(replaced(withAnalysis, "\"dt\": 0.01", "\"dt\": 0"), "analysis.dt", "the time step must be positive");
  expectError(replaced(withAnalysis, "\"dt\": 0.01", "\"dt\": 0.3"), "analysis.dt", "is not a whole number of steps of 0.3 s");
  EXPECT_TRUE(loadMechanismFromString(withAnalysis).ok());
}

TEST(MalformedFile, AStudyNamesItsAnalysisAndFormulation) {
  const std::string withStudy = replaced(kFourBar, "\"drivers\": [", "\"study\": {\"analysis\": \"dynamics\", \"formulation\": \"index1\"},\n  \"drivers\": [");
  EXPECT_TRUE(loadMechanismFromString(withStudy).ok());
  expectError(replaced(withStudy, "\"index1\"", "\"lagrange\""), "study.formulation",
              "the dynamics' formulation is matrix-r, penalty, index3, index1 or penalty-global, not 'lagrange'");
  expectError(replaced(withStudy, "\"dynamics\"", "\"statics\""), "study.analysis", "the analysis is dynamics or kinematics, not 'statics'");
}

TEST(MalformedFile, UnknownKeysAreReportedWithASuggestion) {
  expectError(replaced(kFourBar, "\"mass\": 3", "\"masss\": 3, \"mass\": 3"), "bodies[1].masss",
              "unknown key \"masss\"; did you mean \"mass\"?", "\"masss\"");
}

// a typed item has its type's keys only (the item schema): axes on a pin were silently ignored,
// and an energy output's "point" too
TEST(MalformedFile, AFieldOfAnotherTypeIsAnUnknownKey) {
  expectError(replaced(kFourBar, R"({"name": "A", "type": "pin", "points": ["ground.A", "crank.A"]})",
                       R"({"name": "A", "type": "pin", "points": ["ground.A", "crank.A"], "axes": ["ground.x", "crank.x"]})"),
              "joints[0].axes", "unknown key \"axes\"");
  expectError(replaced(kFourBar, R"("type": "pin", "points": ["ground.A")", R"("type": "hinge", "points": ["ground.A")"), "joints[0].type",
              "unknown value \"hinge\"; expected one of: pin, slider, revolute");
}

// an initial velocity's type is the key it has (the item schema's implied type): none of them is
// named, and a key of another type is unknown
TEST(MalformedFile, AnInitialVelocityNamesAJointAPointOrABody) {
  auto withVelocities = [](const std::string& v) {
    return replaced(kFourBar, "\"drivers\": [", "\"initial_velocities\": [" + v + "],\n  \"drivers\": [");
  };
  expectError(withVelocities(R"({"value": 1})"), "initial_velocities[0]", "an initial velocity names a \"joint\", a \"point\" or a \"body\"");
  expectError(withVelocities(R"({"body": "crank", "value": 1})"), "initial_velocities[0].value", "unknown key \"value\"");
  expectError(withVelocities(R"({"joint": "A"})"), "initial_velocities[0]", "the required key \"value\" is missing");
}

// joint reactions and driver efforts: each mistake named at its field; a good pair survives a
// save and a load
TEST(MalformedFile, ReactionAndEffortOutputsNameTheirMistakes) {
  auto withOutputs = [](const std::string& outputs) {
    return replaced(kFourBar, "\"drivers\": [", "\"outputs\": [" + outputs + "],\n  \"drivers\": [");
  };
  expectError(withOutputs(R"({"name": "RB", "type": "joint_reaction", "joint": "B", "on": "rocker"})"), "outputs[0].on",
              "'rocker' is not one of joint 'B''s two bodies (crank, coupler)");
  expectError(withOutputs(R"({"name": "RX", "type": "joint_reaction", "joint": "X", "on": "crank"})"), "outputs[0].joint", "X");
  expectError(withOutputs(R"({"name": "RB", "type": "joint_reaction", "joint": "B"})"), "outputs[0]", "on");
  expectError(withOutputs(R"({"name": "tau", "type": "driver_effort", "driver": "engine"})"), "outputs[0].driver", "'engine' is not a driver");
  expectError(withOutputs(R"({"name": "tau", "type": "driver_effort", "joint": "A"})"), "outputs[0]", "driver");
  const LoadResult good = loadMechanismFromString(withOutputs(
      R"({"name": "RB", "type": "joint_reaction", "joint": "B", "on": "coupler"}, {"name": "tau", "type": "driver_effort", "driver": "motor"})"));
  ASSERT_TRUE(good.ok());
  const LoadResult again = loadMechanismFromString(mechanismToString(*good.mechanism));
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again.mechanism->outputs.size(), 2u);
  EXPECT_EQ(again.mechanism->outputs[0].type, Output::Type::JointReaction);
  EXPECT_EQ(again.mechanism->outputs[0].on, "coupler");
  EXPECT_EQ(again.mechanism->outputs[1].driver, "motor");
}

TEST(MechanismIo, AVersionWrittenAsAWholeFloatLoads) {
  // JSON does not tell 1.0 from 1: it was "must be a whole number, found a number"
  EXPECT_TRUE(loadMechanismFromString(replaced(kFourBar, "\"version\": 1", "\"version\": 1.0")).ok());
  expectError(replaced(kFourBar, "\"version\": 1", "\"version\": 1.5"), "version", "must be a whole number, found 1.5");
}

TEST(MalformedFile, KeysOfAnotherDimensionOrShapeAreErrors) {
  // they were ignored, and dropped by `format`
  expectError(replaced(kFourBar, "\"mass\": 3", "\"rotation\": {\"axis\": [0, 0, 1], \"angle\": 1}, \"mass\": 3"), "bodies[1].rotation",
              "a planar body turns by \"angle\"");
  expectError(replaced(kFourBar, "\"mass\": 3", "\"shape\": {\"type\": \"none\", \"radius\": 1}, \"mass\": 3"), "bodies[1].shape.radius",
              "a shape of type \"none\" takes no size, not \"radius\"");
  expectError(replaced(kFourBar, "\"mass\": 3", "\"shape\": {\"type\": \"sphere\", \"radius\": 1, \"width\": 2}, \"mass\": 3"),
              "bodies[1].shape.width", "a shape of type \"sphere\" takes \"radius\", not \"width\"");
}

TEST(MalformedFile, UnknownReferences) {
  expectError(replaced(kFourBar, "\"coupler.C\", \"rocker.C\"", "\"coupler.C\", \"rocker.X\""),
              "joints[2].points[1]", "body 'rocker' has no point named 'X'", "\"rocker.X\"");
  expectError(replaced(kFourBar, "\"crank.B\", \"coupler.B\"", "\"crank.B\", \"cupler.B\""),
              "joints[1].points[1]", "unknown body 'cupler' in 'cupler.B'", "\"cupler.B\"");
  expectError(replaced(kFourBar, "\"joint\": \"A\"", "\"joint\": \"Z\""), "drivers[0].joint",
              "unknown joint 'Z'", "\"Z\"");
  expectError(replaced(kFourBar, "[\"half\", 0]", "[\"halff\", 0]"), "bodies[0].com[0]",
              "unknown parameter 'halff'", "\"halff\"");
  expectError(replaced(kFourBar, "\"ground.A\", \"crank.A\"", "\"groundA\", \"crank.A\""),
              "joints[0].points[0]", "'groundA' is not a point reference", "\"groundA\"");
}

TEST(MalformedFile, DuplicateNames) {
  expectError(replaced(kFourBar, "\"name\": \"rocker\"", "\"name\": \"crank\""), "bodies[2].name",
              "there is already a body named 'crank'", "\"crank\",\n      \"position\": [3, 0]");
  expectError(replaced(kFourBar, "{\"name\": \"D\", \"type\"", "{\"name\": \"C\", \"type\""),
              "joints[3].name", "there is already a joint named 'C'");
  expectError(replaced(kFourBar, "\"D\": [3, 0]}", "\"D\": [3, 0], \"A\": [1, 1]}"), "ground.points.A",
              "the key \"A\" appears twice");
}

TEST(MalformedFile, NonFiniteNumbers) {
  expectError(replaced(kFourBar, "\"inertia\": 2.25", "\"inertia\": 1e999"), "bodies[1].inertia",
              "not finite", "1e999");
  expectError(replaced(kFourBar, "\"inertia\": 2.25", "\"inertia\": \"1/0\""), "bodies[1].inertia",
              "does not evaluate to a finite number", "\"1/0\"");
  expectError(replaced(kFourBar, "\"inertia\": 2.25", "\"inertia\": NaN"), "bodies[1].inertia",
              "not valid JSON", "NaN");
}

TEST(MalformedFile, NegativeMass) {
  expectError(replaced(kFourBar, "\"mass\": 3", "\"mass\": -3"), "bodies[1].mass",
              "the mass is negative (-3 kg)", "-3");
}

TEST(MalformedFile, InertiaNotPositiveDefinite) {
  expectError(replaced(kFourBar, "\"inertia\": 2.25", "\"inertia\": 0"), "bodies[1].inertia",
              "not positive definite", "0,\n      \"points\": {\"B\"");
  const std::string spatial = R"({
  "format": "linkwright-mechanism", "version": 1, "name": "rod", "dimension": 3,
  "ground": {"points": {"O": [0, 0, 0]}, "vectors": {"z": [0, 0, 1]}},
  "bodies": [
    {"name": "rod", "mass": 1, "com": [0.5, 0, 0], "inertia": [0, 0.08, 0.08],
     "points": {"O": [0, 0, 0]}, "vectors": {"z": [0, 0, 1]}}
  ],
  "joints": [{"name": "R", "type": "revolute", "points": ["ground.O", "rod.O"], "axes": ["ground.z", "rod.z"]}]
})";
  expectError(spatial, "bodies[0].inertia", "not positive definite", "[0, 0.08, 0.08]");
  expectError(replaced(spatial, "[0, 0.08, 0.08]", "[1, 1, 3]"), "bodies[0].inertia",
              "violate the triangle inequality", "[1, 1, 3]");
  expectError(replaced(spatial, "[0, 0.08, 0.08]", "[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]"),
              "bodies[0].inertia", "not symmetric");
  EXPECT_TRUE(loadMechanismFromString(replaced(spatial, "[0, 0.08, 0.08]", "[1e-6, 0.08, 0.08]")).ok());
}

TEST(MalformedFile, ZeroLengthAxis) {
  const std::string slider = replaced(
      replaced(kFourBar, "\"points\": {\"A\": [0, 0], \"D\": [3, 0]}",
               "\"points\": {\"A\": [0, 0], \"D\": [3, 0]}, \"vectors\": {\"x\": [0, 0]}"),
      "\"points\": {\"D\": [0, 0], \"C\": [2.5, 0]}",
      "\"points\": {\"D\": [0, 0], \"C\": [2.5, 0]}, \"vectors\": {\"u\": [1, 0]}");
  expectError(slider, "ground.vectors.x", "a direction cannot have zero length", "[0, 0]}\n");
}

TEST(MalformedFile, JointJoiningABodyToItself) {
  expectError(replaced(kFourBar, "\"crank.B\", \"coupler.B\"", "\"crank.B\", \"crank.A\""),
              "joints[1].points", "the joint connects body 'crank' to itself");
}

TEST(MalformedFile, EmptyModel) {
  const LoadResult r = loadMechanismFromString("{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics[0].message.find("not a Linkwright mechanism file"), std::string::npos);
  const std::string noBodies = R"({"format": "linkwright-mechanism", "version": 1, "name": "empty",
    "dimension": 2, "bodies": []})";
  expectError(noBodies, "bodies", "the model has no bodies", "[]");
}

TEST(MalformedFile, UnknownFormatVersion) {
  expectError(replaced(kFourBar, "\"version\": 1", "\"version\": 7"), "version",
              "this file uses format version 7, but this Linkwright reads version 1", "7");
  expectError(replaced(kFourBar, "\"version\": 1", "\"version\": 0"), "version",
              "unknown format version 0", "0,");
  expectError(replaced(kFourBar, "\"linkwright-mechanism\"", "\"something-else\""), "format",
              "this is not a Linkwright mechanism file");
}

TEST(MalformedFile, ParameterCycle) {
  const std::string cyclic = replaced(
      replaced(kFourBar, "{\"name\": \"L\", \"value\": 1, \"unit\": \"m\"}",
               "{\"name\": \"L\", \"value\": \"2*half\", \"unit\": \"m\"}"),
      "\"value\": \"L/2\"", "\"value\": \"L/2\"");
  expectError(cyclic, "parameters[0].value", "cycle: L -> half -> L", "\"2*half\"");
}

TEST(MalformedFile, PlanarJointInSpatialModelAndTheReverse) {
  expectError(replaced(kFourBar, "{\"name\": \"A\", \"type\": \"pin\"", "{\"name\": \"A\", \"type\": \"spherical\""),
              "joints[0].type", "a spherical joint is not allowed in a planar model");
}

TEST(MalformedFile, TimeOutsideFunctionsOfTime) {
  expectError(replaced(kFourBar, "\"mass\": 3", "\"mass\": \"3 + t\""), "bodies[1].mass",
              "the time t can only be used in functions of time");
}

TEST(MalformedFile, DiagnosticFormatNamesFileLineAndPath) {
  const LoadResult r = loadMechanismFromString(replaced(kFourBar, "\"mass\": 3", "\"mass\": -3"));
  ASSERT_FALSE(r.diagnostics.empty());
  const auto [line, col] = whereIs(replaced(kFourBar, "\"mass\": 3", "\"mass\": -3"), "-3");
  EXPECT_EQ(r.diagnostics[0].format("m.json"),
            "m.json:" + std::to_string(line) + ":" + std::to_string(col) +
                ": bodies[1].mass: the mass is negative (-3 kg); a mass must be zero or positive");
}

TEST(Warnings, UnassembledStoredConfigurationIsAWarningNotAnError) {
  const LoadResult r = loadMechanismFromString(replaced(kFourBar, "\"position\": [3, 0]", "\"position\": [3.5, 0]"));
  ASSERT_TRUE(r.ok());
  bool found = false;
  for (const auto& d : r.diagnostics)
    found |= !d.isError() && d.path == "joints[3].points" && d.message.find("0.5 m apart") != std::string::npos;
  EXPECT_TRUE(found);
}

// ---- round trips and saving ----

TEST(RoundTrip, SaveThenLoadGivesTheSameMechanismText) {
  const LoadResult first = loadMechanismFromString(kFourBar);
  ASSERT_TRUE(first.ok());
  const std::string saved = mechanismToString(*first.mechanism);
  const LoadResult second = loadMechanismFromString(saved);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(mechanismToString(*second.mechanism), saved);
  // expressions are kept as written, not replaced by their values
  EXPECT_NE(saved.find("\"com\": [\"half\", 0]"), std::string::npos);
}

TEST(RoundTrip, EverySampleIsCanonical) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LW_SAMPLES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    std::string text, err;
    ASSERT_TRUE(readFile(entry.path().string(), text, err)) << err;
    const LoadResult r = loadMechanismFromString(text);
    ASSERT_TRUE(r.ok()) << entry.path() << ": " << (r.diagnostics.empty() ? "" : r.diagnostics[0].format());
    EXPECT_EQ(mechanismToString(*r.mechanism), text)
        << entry.path() << " is not in canonical layout: run linkwright-cli format on it";
  }
  EXPECT_GE(count, 13);
}

// `generate grid` of 470 × 470 squares took 2.4 GB to write 240 MB (the whole JSON tree, then the
// whole text): the text now leaves in pieces of about 64 kB, the bodies and joints one at a
// time, in the same layout (the samples above: canonical to the byte)
TEST(RoundTrip, ALargeMechanismIsWrittenInPieces) {
  const Mechanism m = lw::generate::grid(30, 30);
  std::vector<std::size_t> pieces;
  std::string joined;
  ASSERT_TRUE(writeMechanism(m, [&](std::string_view piece) {
    pieces.push_back(piece.size());
    joined += piece;
    return true;
  }));
  EXPECT_GT(pieces.size(), 10u);
  for (std::size_t p : pieces) EXPECT_LT(p, 70000u);
  EXPECT_EQ(joined, mechanismToString(m));
  const LoadResult back = loadMechanismFromString(joined);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.mechanism->bodies.size(), m.bodies.size());
  EXPECT_EQ(back.mechanism->joints.size(), m.joints.size());
  EXPECT_EQ(mechanismToString(*back.mechanism), joined);
  // a sink that refuses (a full disk) stops the writing
  int calls = 0;
  EXPECT_FALSE(writeMechanism(m, [&](std::string_view) { return ++calls < 3; }));
  EXPECT_EQ(calls, 3);
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("lw_io_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

using AtomicSave = TempDir;

TEST_F(AtomicSave, WritesTheFileAndLeavesNoTemporary) {
  const LoadResult r = loadMechanismFromString(kFourBar);
  ASSERT_TRUE(r.ok());
  const std::string path = (dir_ / "m.json").string();
  std::string err;
  ASSERT_TRUE(saveMechanismFile(*r.mechanism, path, err)) << err;
  ASSERT_TRUE(saveMechanismFile(*r.mechanism, path, err)) << err;  // over an existing file
  const LoadResult back = loadMechanismFile(path);
  ASSERT_TRUE(back.ok());
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(AtomicSave, FailureKeepsTheOldFileAndSaysWhy) {
  const std::string path = (dir_ / "m.json").string();
  std::string err;
  ASSERT_TRUE(writeFileAtomically(path, "old", err));
  // a folder where the file should be: refused before anything is written
  const std::string blocked = (dir_ / "folder").string();
  std::filesystem::create_directories(dir_ / "folder" / "inside");
  EXPECT_FALSE(writeFileAtomically(blocked, "new", err));
  EXPECT_NE(err.find("is a folder"), std::string::npos) << err;
  EXPECT_FALSE(writeFileAtomically((dir_ / "missing" / "m.json").string(), "new", err));
  EXPECT_NE(err.find("cannot write to the folder"), std::string::npos) << err;
  std::string content;
  ASSERT_TRUE(readFile(path, content, err));
  EXPECT_EQ(content, "old");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 2);  // m.json and the folder: no temporary left behind
}

TEST(LoadFile, MissingFileIsAnIoError) {
  const LoadResult r = loadMechanismFile("/nonexistent/dir/m.json");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.ioError);
  EXPECT_NE(r.diagnostics[0].message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace lw::io

namespace lw::io {
namespace {

// the complete example of samples/FORMAT.md loads (documentation that cannot rot)
TEST(FormatDocumentation, CompleteExampleLoads) {
  std::string doc, err;
  ASSERT_TRUE(readFile(std::string(LW_SAMPLES_DIR) + "/FORMAT.md", doc, err)) << err;
  const auto section = doc.find("## A complete example");
  ASSERT_NE(section, std::string::npos);
  const auto begin = doc.find("```json\n", section) + 8;
  const auto end = doc.find("```", begin);
  const LoadResult r = loadMechanismFromString(doc.substr(begin, end - begin));
  for (const auto& d : r.diagnostics) EXPECT_FALSE(d.isError()) << d.format("FORMAT.md example");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.mechanism->outputs.size(), 2u);
}

}  // namespace
}  // namespace lw::io
