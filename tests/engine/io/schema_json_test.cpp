// The item schema (issue 36) is the one description of its kinds: the shipped JSON Schema says of
// their lists what the schema generates, and an item read back from its texts is the same item.
#include "io/schema_json.h"

#include <gtest/gtest.h>

#include <fstream>

#include "mechanism/parameter_edits.h"
#include "support/samples.h"

namespace lw {
namespace {

TEST(ItemSchema, TheShippedJsonSchemaIsTheGeneratedOne) {
  std::ifstream in(std::string(LW_RESOURCES_DIR) + "/mechanism.schema.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json shipped = nlohmann::json::parse(in);
  for (const schema::Kind* kind : schema::kinds()) {
    // compared as unordered JSON: the key order of the file is free
    const nlohmann::json generated = nlohmann::json::parse(io::jsonSchemaOfList(*kind).dump());
    EXPECT_EQ(shipped["properties"][kind->list], generated)
        << kind->list << " should read:\n" << io::jsonSchemaOfList(*kind).dump(1);
  }
}

TEST(ItemSchema, ParametersGoThroughTheirTextsUnchanged) {
  for (const char* sample : {"four-bar-synthesis", "grid-1x15-parameters", "five-bar"}) {
    for (const Parameter& p : test::sampleMechanism(sample).parameters) {
      Parameter back;
      std::string why;
      ASSERT_TRUE(schema::parameterFrom(schema::textsOf(p), back, why)) << why;
      EXPECT_EQ(back.name, p.name);
      EXPECT_EQ(back.value.isLiteral(), p.value.isLiteral());
      EXPECT_EQ(back.value.value, p.value.value);
      EXPECT_EQ(back.value.expression.text(), p.value.expression.text());
      EXPECT_EQ(back.unit, p.unit);
      EXPECT_EQ(back.hasMin, p.hasMin);
      EXPECT_EQ(back.min, p.min);
      EXPECT_EQ(back.hasMax, p.hasMax);
      EXPECT_EQ(back.max, p.max);
      EXPECT_EQ(back.description, p.description);
    }
  }
}

TEST(ItemSchema, AFieldThatDoesNotReadIsNamed) {
  schema::Texts t = schema::textsOf(test::sampleMechanism("four-bar-synthesis").parameters[0]);
  Parameter p;
  std::string why;
  t["min"] = "abc";
  EXPECT_FALSE(schema::parameterFrom(t, p, why));
  EXPECT_EQ(why, "Minimum: 'abc' is not a number");
  t["min"] = "";
  t["value"] = "2*(";
  EXPECT_FALSE(schema::parameterFrom(t, p, why));
  EXPECT_EQ(why.rfind("Value: ", 0), 0u) << why;
  t["value"] = "L2/2";
  ASSERT_TRUE(schema::parameterFrom(t, p, why)) << why;
  EXPECT_FALSE(p.hasMin);
  EXPECT_EQ(p.value.expression.text(), "L2/2");
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// every item of every sample read back from its texts gives the same texts (and so the same file)
template <class Item>
void expectTextsRoundTrip(const std::vector<Item>& items, bool (*from)(const schema::Texts&, Item&, std::string&),
                          const std::string& where) {
  for (const Item& x : items) {
    const schema::Texts texts = schema::textsOf(x);
    Item back;
    std::string why;
    ASSERT_TRUE(from(texts, back, why)) << where << ": " << why;
    EXPECT_EQ(schema::textsOf(back), texts) << where;
  }
}

TEST(ItemSchema, EveryTypedItemOfEverySampleGoesThroughItsTexts) {
  int items = 0;
  for (const char* sample : {"bouncing-ball", "buggy", "four-bar-free", "four-bar-synthesis", "four-bar-path", "ten-bar-chain", "spatial-four-bar-swing", "double-pendulum-wall", "five-bar", "four-bar", "four-bar-path",
                             "grid-1x15", "jansen-leg", "rssr", "slider-crank", "slider-crank-end-stop",
                             "spatial-four-bar", "switch-t4", "ten-bar-chain"}) {
    const Mechanism m = test::sampleMechanism(sample);
    expectTextsRoundTrip(m.joints, &schema::jointFrom, sample);
    expectTextsRoundTrip(m.drivers, &schema::driverFrom, sample);
    expectTextsRoundTrip(m.forces, &schema::forceFrom, sample);
    expectTextsRoundTrip(m.limits, &schema::limitFrom, sample);
    expectTextsRoundTrip(m.switches, &schema::switchFrom, sample);
    expectTextsRoundTrip(m.outputs, &schema::outputFrom, sample);
    expectTextsRoundTrip(m.initialVelocities, &schema::initialVelocityFrom, sample);
    expectTextsRoundTrip(m.costs, &schema::costFrom, sample);
    items += static_cast<int>(m.joints.size() + m.drivers.size() + m.forces.size() + m.limits.size() + m.switches.size() +
                              m.outputs.size() + m.initialVelocities.size() + m.costs.size());
  }
  EXPECT_GT(items, 100);  // the loop above saw the samples' items, not empty lists
}

TEST(ItemSchema, ATypedItemNamesTheFieldThatIsMissingOrWrong) {
  Output o;
  std::string why;
  EXPECT_FALSE(schema::outputFrom({{"name", "R"}, {"type", "joint_reaction"}, {"joint", "A"}}, o, why));
  EXPECT_EQ(why, "On body is required");
  EXPECT_FALSE(schema::outputFrom({{"name", "R"}, {"type", "reaction"}}, o, why));
  EXPECT_EQ(why.rfind("the type 'reaction' is not one of: point_position", 0), 0u) << why;
  ASSERT_TRUE(schema::outputFrom({{"name", "tau"}, {"type", "driver_effort"}, {"driver", "motor"}, {"point", "stale.P"}}, o, why));
  EXPECT_EQ(o.driver, "motor");
  EXPECT_TRUE(o.point.empty());  // a field of another type is not read

  Force f;
  EXPECT_FALSE(schema::forceFrom({{"name", "w"}, {"type", "torque"}, {"body", "crank"}, {"value", "1, 2*("}}, f, why));
  EXPECT_EQ(why.rfind("the value '2*(' is not valid", 0), 0u) << why;
  ASSERT_TRUE(schema::forceFrom({{"name", "w"}, {"type", "torque"}, {"body", "crank"}, {"value", "atan2(1, 2), 3"}}, f, why)) << why;
  ASSERT_EQ(f.value.size(), 2u);  // a comma inside parentheses belongs to its part
  EXPECT_EQ(f.value[0].expression.text(), "atan2(1, 2)");

  Driver d;
  EXPECT_FALSE(schema::driverFrom({{"name", "m"}, {"type", "distance"}, {"points", "ground.A"}, {"function", "t"}}, d, why));
  EXPECT_EQ(why, "the points 'ground.A' are not two references: write body.item, body.item");

  Cost c;
  EXPECT_FALSE(schema::costFrom({{"name", "c"}, {"type", "targets"}, {"output", "P"}, {"targets", "0.2: 1, 2; 0.1: 3, 4"}}, c, why));
  EXPECT_EQ(why, "the targets must be in time order (target 2 is earlier than the one before)");
  EXPECT_FALSE(schema::costFrom({{"name", "c"}, {"type", "targets"}, {"output", "P"}, {"targets", "0.2: 1"}}, c, why));
  EXPECT_EQ(why, "the target '0.2: 1' is not a time and a point: write t: x, y");
  ASSERT_TRUE(schema::costFrom({{"name", "c"}, {"type", "targets"}, {"output", "P"}, {"timing", "free"}, {"targets", "0.2: 1, 2; 0.1: 3, 4"}},
                               c, why))
      << why;  // free timing: any order
  ASSERT_EQ(c.targets.size(), 2u);
  EXPECT_EQ(c.targets[1].at, (std::vector<double>{3, 4}));

  Switch s;
  ASSERT_TRUE(schema::switchFrom({{"name", "s"}, {"joint", "B"}, {"value", "0.5"}, {"enable", "a, b"}}, s, why)) << why;
  EXPECT_EQ(s.enable, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(s.disable.empty());
  EXPECT_TRUE(s.falling);
}

}  // namespace
}  // namespace lw
