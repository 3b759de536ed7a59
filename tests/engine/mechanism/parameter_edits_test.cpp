// Parameter edits (issue 36): a rename's uses follow and the mechanism evaluates to the same
// numbers; a used parameter is not deleted silently; a field and a link's length become
// parameters that reproduce the drawing and move it when changed.
#include "mechanism/parameter_edits.h"

#include <gtest/gtest.h>

#include "simulation/assembly.h"
#include "io/mechanism_io.h"
#include "mechanism/fields.h"
#include "mechanism/parameters.h"
#include "support/samples.h"
#include "support/sketches.h"

namespace lw::edit {
namespace {

// every numeric field's value, by path (what a rename or replacement must leave unchanged)
std::map<std::string, double> fieldValues(const Mechanism& m) {
  Diagnostics d;
  const auto table = ParameterTable::build(m, d);
  EXPECT_TRUE(table.has_value());
  std::map<std::string, double> out;
  forEachNumber(m, [&](const FieldVisit& v) {
    if (!v.timeAllowed) out[v.path] = table->evaluate(v.number);
  });
  return out;
}

Mechanism drawnFourBar() { return test::drawnFourBar({0.6, 0.8}, {3.5, 2.0}); }

TEST(ExpressionRename, RenamesWholeVariablesOnly) {
  const Expression e = Expression::parseOrThrow("1e5*L1 + L1x - sin(L1)/L1 + P.L1 + initial(L1)");
  EXPECT_EQ(e.renamed("L1", "crank").text(), "1e5*crank + L1x - sin(crank)/crank + P.L1 + initial(crank)");
  // a function of the same name is not a variable
  EXPECT_EQ(Expression::parseOrThrow("sin(x) + x").renamed("sin", "q").text(), "sin(x) + x");
}

TEST(ParameterEdits, RenameCarriesEveryUseAndKeepsTheValues) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  m.study.parameters = {"L1", "L2"};
  m.costs.push_back(m.costs[0]);
  m.costs.back().name = "c2";
  m.costs.back().type = Cost::Type::Terminal;
  m.costs.back().expression = Expression::parseOrThrow("rocker_angle + 2*L1");
  const auto before = fieldValues(m);
  const auto usesBefore = parameterUses(m, "L1");
  ASSERT_GE(usesBefore.size(), 3u);

  Parameter p = m.parameters[0];
  p.name = "crank_length";
  const auto r = changeParameter(m, "L1", p);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.description, "Rename parameter L1 to crank_length");
  EXPECT_TRUE(parameterUses(m, "L1").empty());
  EXPECT_EQ(parameterUses(m, "crank_length"), usesBefore);
  EXPECT_EQ(m.study.parameters, (std::vector<std::string>{"crank_length", "L2"}));
  EXPECT_EQ(m.costs.back().expression.text(), "rocker_angle + 2*crank_length");
  EXPECT_EQ(fieldValues(m), before);
  Diagnostics d;
  EXPECT_TRUE(resolve(m, d).has_value()) << (d.empty() ? "" : d[0].format());
  // and it survives the file
  const auto text = io::mechanismToString(m);
  const auto back = io::loadMechanismFromString(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(fieldValues(*back.mechanism), before);
}

TEST(ParameterEdits, ARenameOrAnAdditionThatClashesIsRefusedWithTheReason) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  Parameter p = m.parameters[0];
  p.name = "L2";
  EXPECT_EQ(changeParameter(m, "L1", p).error, "there is a parameter 'L2' already");
  p.name = "sin";
  EXPECT_NE(changeParameter(m, "L1", p).error.find("reserved"), std::string::npos);
  p.name = "t";
  EXPECT_NE(addParameter(m, p).error.find("reserved"), std::string::npos);
  p.name = "rocker_angle";
  EXPECT_NE(addParameter(m, p).error.find("output"), std::string::npos);
  p.name = "2x";
  EXPECT_NE(addParameter(m, p).error.find("not a name"), std::string::npos);
  p.name = "w";
  p.min = 2, p.max = 1;
  EXPECT_EQ(addParameter(m, p).error, "parameter 'w': its minimum 2 is not below its maximum 1");
  p.min = 0.5, p.max = 1.5;
  p.value = 2;
  EXPECT_EQ(addParameter(m, p).error, "parameter 'w' = 2 m is outside its range 0.5 ... 1.5 m");
  p.value = 1;
  const auto r = addParameter(m, p);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(m.parameters.back().name, "w");
  Parameter fresh;
  fresh.value = 3;
  ASSERT_TRUE(addParameter(m, fresh).ok);
  EXPECT_EQ(m.parameters.back().name, "p1");
}

TEST(ParameterEdits, AUsedParameterIsDeletedOnlyWithItsUsesReplacedByItsValue) {
  Mechanism m = test::sampleMechanism("four-bar-synthesis");
  m.study.parameters = {"L1", "L3"};
  const auto before = fieldValues(m);
  Mechanism refused = m;
  const auto no = deleteParameter(refused, "L1", false);
  ASSERT_FALSE(no.ok);
  EXPECT_NE(no.error.find("parameter 'L1' is used by bodies["), std::string::npos) << no.error;
  EXPECT_EQ(refused.parameters.size(), m.parameters.size());

  const auto yes = deleteParameter(m, "L1", true);
  ASSERT_TRUE(yes.ok) << yes.error;
  EXPECT_EQ(m.parameters.size(), 4u);
  EXPECT_EQ(m.study.parameters, std::vector<std::string>{"L3"});
  auto after = fieldValues(m);
  for (const auto& [path, v] : before) EXPECT_NEAR(after.at(path), v, 1e-15) << path;
  Diagnostics d;
  EXPECT_TRUE(resolve(m, d).has_value());
  // an unused parameter goes without asking
  Parameter lone;
  lone.name = "lone";
  lone.value = 1;
  ASSERT_TRUE(addParameter(m, lone).ok);
  EXPECT_TRUE(deleteParameter(m, "lone", false).ok);
}

TEST(ParameterEdits, MakeDesignParameterKeepsTheValueAndGivesARange) {
  Mechanism m = test::sampleMechanism("five-bar");
  const auto before = fieldValues(m);
  std::string path;
  for (std::size_t i = 0; i < m.forces.size() && path.empty(); ++i)
    if (m.forces[i].type == Force::Type::Spring && m.forces[i].stiffness.isLiteral()) path = "forces[" + std::to_string(i) + "].stiffness";
  ASSERT_FALSE(path.empty());
  const double k = numberAt(m, path)->value;
  const auto r = makeDesignParameter(m, path);
  ASSERT_TRUE(r.ok) << r.error;
  const Parameter& p = m.parameters.back();
  EXPECT_EQ(p.name, r.item);
  EXPECT_EQ(p.unit, "N/m");
  EXPECT_DOUBLE_EQ(p.value.value, k);
  EXPECT_DOUBLE_EQ(p.min, 0.5 * k);
  EXPECT_DOUBLE_EQ(p.max, 1.5 * k);
  EXPECT_EQ(numberAt(m, path)->expression.text(), p.name);
  EXPECT_EQ(fieldValues(m), before);
  // a second time: it is an expression already
  EXPECT_NE(makeDesignParameter(m, path).error.find("an expression already"), std::string::npos);
  // the parameter moves the field
  Parameter q = p;
  q.value = 1.2 * k;
  ASSERT_TRUE(changeParameter(m, q.name, q).ok);
  EXPECT_DOUBLE_EQ(fieldValues(m).at(path), 1.2 * k);
  EXPECT_EQ(parameterNameFor(m, "bodies[0].points.P2[1]"), m.bodies[0].name + "_P2_y");
  EXPECT_EQ(parameterNameFor(m, "gravity[1]"), "gravity_y");
}

TEST(ParameterEdits, AParameterisedLinkStaysALinkOfThatLength) {
  Mechanism m = drawnFourBar();
  const auto before = fieldValues(m);
  const auto r = parameteriseLength(m, "link2");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.item, "link2_length");
  const Parameter& p = m.parameters.back();
  const double L = std::hypot(3.5 - 0.6, 2.0 - 0.8);
  EXPECT_NEAR(p.value.value, L, 1e-12);
  // its range: half to one and a half times it (1.569 ... 4.708), two digits rounded outwards
  EXPECT_EQ(p.min, 1.5);
  EXPECT_EQ(p.max, 4.8);
  EXPECT_EQ(m.bodies[1].points[1].value[0].expression.text(), "link2_length");
  EXPECT_EQ(m.bodies[1].com[0].expression.text(), "link2_length/2");
  auto after = fieldValues(m);
  for (const auto& [path, v] : before) EXPECT_NEAR(after.at(path), v, 1e-12) << path;

  // longer by 10 %: the stored drawing opens at C and assembles again with the coupler that long
  Mechanism longer = m;
  Parameter q = p;
  q.value = 1.1 * L;
  ASSERT_TRUE(changeParameter(longer, "link2_length", q).ok);
  const auto closed = analysis::closeOpenedJoints(m, longer);
  ASSERT_TRUE(closed.ok) << closed.error;
  Diagnostics d;
  const auto res = resolve(longer, d);
  ASSERT_TRUE(res.has_value());
  const int link2 = res->findBody("link2");
  const Eigen::Vector3d b = res->pointWorld({link2, 0}), c = res->pointWorld({link2, 1});
  EXPECT_NEAR((c - b).norm(), 1.1 * L, 1e-9);
  for (const auto& j : res->joints) EXPECT_LT(res->storedJointGap(j), 1e-8) << j.name;
  // a link whose end is an expression already is refused
  EXPECT_FALSE(parameteriseLength(m, "link2").ok);
  EXPECT_FALSE(parameteriseLength(m, "nothing").ok);
}

// the ground's link (issue 36): the distance between two ground pivots as a parameter, the
// moved pivot along their line, the rocker pinned there following it
TEST(ParameterEdits, TheGroundLinksLengthIsAParameter) {
  Mechanism m = drawnFourBar();
  ASSERT_EQ(m.ground.points.size(), 2u);
  const std::string a = m.ground.points[0].name, dName = m.ground.points[1].name;
  const auto before = fieldValues(m);
  const auto r = parameteriseGroundDistance(m, a, dName);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.item, "ground_" + a + "_" + dName);
  const Parameter& p = m.parameters.back();
  EXPECT_NEAR(p.value.value, 4.0, 1e-12);
  EXPECT_EQ(p.min, 2.0);
  EXPECT_EQ(p.max, 6.0);
  EXPECT_EQ(m.ground.points[1].value[0].expression.text(), r.item);
  auto after = fieldValues(m);
  for (const auto& [path, v] : before) EXPECT_NEAR(after.at(path), v, 1e-12) << path;
  // 4.4 m: the pivot at (4.4, 0), the rocker reassembled onto it
  Mechanism wider = m;
  Parameter q = p;
  q.value = 4.4;
  ASSERT_TRUE(changeParameter(wider, r.item, q).ok);
  const auto closed = analysis::closeOpenedJoints(m, wider);
  ASSERT_TRUE(closed.ok) << closed.error;
  Diagnostics d;
  const auto res = resolve(wider, d);
  ASSERT_TRUE(res.has_value());
  EXPECT_NEAR(res->bodies[0].points[1].x(), 4.4, 1e-12);  // the ground's points, in world
  EXPECT_NEAR(res->bodies[0].points[1].y(), 0.0, 1e-12);
  for (const auto& j : res->joints) EXPECT_LT(res->storedJointGap(j), 1e-8) << j.name;
  // refusals: an expression already, itself, an unknown point
  auto refusal = [&](const std::string& from, const std::string& to) {
    Mechanism copy = m;
    const auto e = parameteriseGroundDistance(copy, from, to);
    EXPECT_FALSE(e.ok);
    EXPECT_EQ(io::mechanismToString(copy), io::mechanismToString(m)) << "nothing changed";
    return e.error;
  };
  EXPECT_EQ(refusal(a, dName), "ground points '" + a + "' and '" + dName + "': one of them is an expression already; edit its parameters");
  EXPECT_EQ(refusal(a, a), "ground point '" + a + "' has no distance to itself");
  EXPECT_EQ(refusal(a, "nothing"), "there is no ground point 'nothing'");
}

}  // namespace
}  // namespace lw::edit
