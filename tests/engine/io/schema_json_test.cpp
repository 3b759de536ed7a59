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
        << kind->list << " should read:\n" << generated.dump(1);
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
