// Expected decompositions (seed 002 §2.2 and the prototype results of shared/reference 002).
#include "kinematics/structural_groups.h"

#include <gtest/gtest.h>

#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/samples.h"

namespace lw::kin {
namespace {

struct Case {
  Mechanism mechanism;
  ResolvedMechanism resolved;
  kin::NaturalModel model;
  Decomposition d;
};

std::unique_ptr<Case> run(const Mechanism& m) {
  auto c = std::make_unique<Case>();
  c->mechanism = m;
  Diagnostics diag;
  c->resolved = *resolve(c->mechanism, diag);
  c->model = kin::compileNaturalModel(c->resolved);
  c->d = decompose(c->model);
  return c;
}

std::unique_ptr<Case> sample(const std::string& name) { return run(test::sampleMechanism(name)); }

std::vector<std::string> names(const Decomposition& d) {
  std::vector<std::string> out;
  for (const auto& g : d.groups) out.push_back(g.name);
  return out;
}

TEST(StructuralGroups, FourBarIsACrankThenAnRRRDyad) {
  const auto c = sample("four-bar");
  ASSERT_TRUE(c->d.ok) << c->d.error;
  EXPECT_EQ(describe(c->d, c->resolved), "{crank} {coupler, rocker}");
  EXPECT_EQ(names(c->d), (std::vector<std::string>{"crank", "RRR dyad"}));
  EXPECT_EQ(c->d.groups[1].inputs, (std::vector<int>{-1, 0}));  // frame and the crank
  EXPECT_EQ(c->d.groups[0].kind, "primary element");
  EXPECT_EQ(c->d.groups[1].kind, "Assur group class II");
}

TEST(StructuralGroups, SliderCrankEndsInAnRRPDyad) {
  const auto c = sample("slider-crank");
  ASSERT_TRUE(c->d.ok);
  EXPECT_EQ(names(c->d), (std::vector<std::string>{"crank", "RRP dyad"}));
}

TEST(StructuralGroups, WattSixBarHasThreeGroups) {
  const auto c = sample("watt-six-bar");
  ASSERT_TRUE(c->d.ok);
  EXPECT_EQ(names(c->d), (std::vector<std::string>{"crank", "RRR dyad", "RRR dyad"}));
  EXPECT_EQ(c->d.groups[2].inputs, (std::vector<int>{-1, 1}));
}

TEST(StructuralGroups, ClassIITriadIsOneGroup) {
  const auto c = sample("stephenson-six-bar");
  ASSERT_TRUE(c->d.ok);
  ASSERT_EQ(c->d.groups.size(), 2u);
  EXPECT_EQ(c->d.groups[1].bodies.size(), 4u);
  EXPECT_EQ(c->d.groups[1].name, "triad");
  EXPECT_EQ(c->d.groups[1].kind, "Assur group class III");
  EXPECT_EQ(c->d.groups[1].pairs, 6);
}

TEST(StructuralGroups, FloatingDriverMakesOneGroupOfThree) {
  // the four-bar driven at the coupler–crank joint B instead of at the ground
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/four-bar.json");
  Mechanism m = *r.mechanism;
  m.drivers[0].joint = "B";
  const auto c = run(m);
  ASSERT_TRUE(c->d.ok) << c->d.error;
  ASSERT_EQ(c->d.groups.size(), 1u);
  EXPECT_EQ(c->d.groups[0].bodies.size(), 3u);
  EXPECT_EQ(c->d.groups[0].drivenInputs, 1);
  EXPECT_EQ(c->d.groups[0].kind, "driven group");
}

TEST(StructuralGroups, TwoDofFiveBarWithTwoDrivers) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/five-bar.json");
  Mechanism m = *r.mechanism;
  for (const char* j : {"A", "B"}) {
    Driver d;
    d.name = std::string("motor_") + j;
    d.joint = j;
    d.function = Number::expr("t");
    m.drivers.push_back(d);
  }
  const auto c = run(m);
  ASSERT_TRUE(c->d.ok) << c->d.error;
  EXPECT_EQ(describe(c->d, c->resolved), "{bar_A1} {bar_3B} {bar_12, bar_23}");
  EXPECT_EQ(names(c->d), (std::vector<std::string>{"crank", "crank", "RRR dyad"}));
}

TEST(StructuralGroups, SpatialCrankSliderWithTheRodSpinHandled) {
  const auto c = run(generate::crankSlider3d(4));
  ASSERT_TRUE(c->d.ok) << c->d.error;
  EXPECT_EQ(c->model.passiveSpins.size(), 4u);
  EXPECT_EQ(names(c->d), (std::vector<std::string>{"1R3D", "2E1P", "2E1P", "2E1P", "2E1P"}));
  EXPECT_EQ(describe(c->d, c->resolved), "{crank} {rod_1, slider_1} {rod_2, slider_2} {rod_3, slider_3} {rod_4, slider_4}");
}

TEST(StructuralGroups, ScalableFourBarChainIsACrankAndDyads) {
  const auto c = run(generate::fourBarChain(4));
  ASSERT_TRUE(c->d.ok);
  EXPECT_EQ(describe(c->d, c->resolved), "{crank} {rod_1, rocker_1} {rod_2, rocker_2} {rod_3, rocker_3} {rod_4, rocker_4}");
  EXPECT_EQ(c->d.groups[3].inputs, (std::vector<int>{-1, 2}));
}

TEST(StructuralGroups, JansenLegIsACrankAndThreeDyads) {
  const auto c = sample("jansen-leg");
  ASSERT_TRUE(c->d.ok);
  EXPECT_EQ(names(c->d), (std::vector<std::string>{"crank", "RRR dyad", "RRR dyad", "RRR dyad"}));
}

TEST(StructuralGroups, FailuresSayWhyAndNameTheBodies) {
  const auto undriven = sample("five-bar");
  EXPECT_FALSE(undriven.get()->d.ok);
  EXPECT_EQ(undriven->d.error, "bodies 'bar_A1', 'bar_12', 'bar_23', 'bar_3B' cannot be decomposed into structural "
                               "groups: it is under-driven: the drivers leave 2 freedoms undetermined");
  // a planar four-bar of spatial revolute joints, driven: the pair count sees an over-constrained chain
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/four-bar-free.json");
  Mechanism m = *r.mechanism;
  Driver d;
  d.name = "motor";
  d.joint = "A";
  d.function = Number::expr("t");
  m.drivers.push_back(d);
  const auto c = run(m);
  EXPECT_FALSE(c->d.ok);
  EXPECT_NE(c->d.error.find("over-constrained: redundant constraints in body 'rocker'"), std::string::npos)
      << c->d.error;
  EXPECT_NE(c->d.error.find("'coupler'"), std::string::npos);
}

}  // namespace
}  // namespace lw::kin
