// `compare` (analysis/compare.h): every formulation and integrator on one model beside the
// reference run — the figures each run's own table gives, the distances within each method's
// integration error, the gradients beside the reference's, what does not apply said with the
// reason, and the JSON a script reads.
#include "analysis/compare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/samples.h"

namespace lw::analysis {
namespace {

const CompareEntry* entry(const CompareResult& r, Formulation f, Integrator i) {
  for (const auto& e : r.entries)
    if (e.formulation == f && e.integrator == i) return &e;
  return nullptr;
}

TEST(Compare, EveryFormulationRunsTheTenBarChainBesideTheReference) {
  const Mechanism m = test::sampleMechanism("ten-bar-chain");
  CompareSpec spec;
  spec.tEnd = 0.1;
  spec.dt = 1e-3;
  spec.gradients = true;
  spec.parameters = {"l_1", "m_10"};
  const CompareResult r = compareFormulations(m, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.entries.size(), 8u);
  for (const auto& e : r.entries) {
    SCOPED_TRACE(std::string(toString(e.formulation)) + (e.integrator == Integrator::RK45 ? " rk45" : " trapezoidal"));
    ASSERT_TRUE(e.status.ok()) << e.status.message;
    EXPECT_GT(e.steps, 0);
    EXPECT_GT(e.seconds, 0);
    EXPECT_LT(e.distance, 1e-4);  // the integration error of 0.1 s at 1 ms
    ASSERT_EQ(e.costs.size(), 1u);
    EXPECT_NEAR(e.costs[0], r.reference.costs[0], 1e-5 * std::abs(r.reference.costs[0]));
  }
  // the reference against itself, and the constrained formulations at round-off
  EXPECT_EQ(r.reference.distance, 0.0);
  EXPECT_LT(entry(r, Formulation::Index3, Integrator::Trapezoidal)->residualPosition, 1e-10);
  EXPECT_LT(entry(r, Formulation::Index1, Integrator::RK45)->distance, 1e-8);
  EXPECT_GT(entry(r, Formulation::Index1, Integrator::Trapezoidal)->residualPosition, 1e-9);  // Baumgarte's drift, seen
  // gradients: every formulation's beside the reference's (the global ones by GSAM)
  ASSERT_EQ(r.parameters, (std::vector<std::string>{"l_1", "m_10"}));
  ASSERT_EQ(r.reference.gradient.rows(), 1);
  EXPECT_GT(r.reference.gradient.cwiseAbs().maxCoeff(), 0.1);
  for (const CompareEntry& e : r.entries) {
    SCOPED_TRACE(std::string(toString(e.formulation)) + (e.integrator == Integrator::RK45 ? " rk45" : " trapezoidal"));
    EXPECT_TRUE(e.gradientStatus.ok()) << e.gradientStatus.message;
    ASSERT_EQ(e.gradient.cols(), 2);
    EXPECT_LT(e.gradientDifference, 1e-4);
    EXPECT_NEAR(e.gradientDifference, (e.gradient - r.reference.gradient).cwiseAbs().maxCoeff() / r.reference.gradient.cwiseAbs().maxCoeff(), 1e-15);
  }
  // the JSON: every entry with its figures
  const auto j = nlohmann::json::parse(compareJson(r, spec));
  ASSERT_EQ(j["formulations"].size(), 8u);
  EXPECT_EQ(j["formulations"][3]["formulation"], "index3");
  EXPECT_EQ(j["formulations"][3]["status"], "ok");
  EXPECT_EQ(j["formulations"][3]["steps"], 100);
  EXPECT_TRUE(j["formulations"][0]["costs"]["psi"]["gradient"].contains("l_1"));
  EXPECT_EQ(j["reference"]["formulation"], "matrix-r");
  // and the table names each
  const std::string table = compareTable(r);
  for (const char* name : {"matrix-r", "penalty", "index3", "index1", "penalty-global", "psi = "}) EXPECT_NE(table.find(name), std::string::npos) << name;
}

TEST(Compare, WhatDoesNotApplyIsSaidWithTheReason) {
  CompareSpec spec;
  spec.tEnd = 0.05;
  spec.dt = 1e-3;
  const CompareResult r = compareFormulations(test::sampleMechanism("five-bar"), spec);  // a floor
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  // every formulation follows the floor's impacts, and a rod between ball joints (its two points);
  // a rod whose centre is off its line the global ones refuse, naming it
  for (const auto& e : r.entries) EXPECT_TRUE(e.status.ok()) << toString(e.formulation) << ": " << e.status.message;
  const CompareResult rod = compareFormulations(test::sampleMechanism("rssr"), spec);
  ASSERT_TRUE(rod.status.ok()) << rod.status.message;
  for (const auto& e : rod.entries) {
    EXPECT_TRUE(e.status.ok()) << toString(e.formulation) << ": " << e.status.message;
    EXPECT_LT(e.distance, 1e-4) << toString(e.formulation);  // the steps' truncation
  }
  Mechanism lopsided = test::sampleMechanism("rssr");
  for (auto& b : lopsided.bodies)
    if (b.name == "coupler") b.com = {Number(0.75), Number(1.2), Number(1.4)};
  const CompareResult spatial = compareFormulations(lopsided, spec);
  ASSERT_TRUE(spatial.status.ok()) << spatial.status.message;
  for (const auto& e : spatial.entries) {
    EXPECT_EQ(e.status.ok(), !isGlobal(e.formulation)) << toString(e.formulation) << ": " << e.status.message;
    if (isGlobal(e.formulation)) {
      EXPECT_NE(e.status.message.find("ball joints"), std::string::npos) << e.status.message;
      EXPECT_EQ(e.steps, 0);
    }
  }
  EXPECT_NE(compareTable(spatial).find("ball joints"), std::string::npos);
}

}  // namespace
}  // namespace lw::analysis

namespace lw::analysis {
namespace {

// A reference RK45 cannot take (here a tolerance below round-off; on the grids, their flat
// singular position at 1e-11) gives way to Matrix R by the trapezoidal rule at a tenth of the
// step, said in the table and the JSON, its rows where the others' are
TEST(Compare, AReferenceRk45CannotTakeIsTheTrapezoidalRuleAtATenthOfTheStep) {
  CompareSpec spec;
  spec.tEnd = 0.02;
  spec.dt = 1e-3;
  spec.referenceTol = 1e-30;
  const CompareResult r = compareFormulations(test::sampleMechanism("ten-bar-chain"), spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.reference.formulation, Formulation::MatrixR);
  EXPECT_EQ(r.reference.integrator, Integrator::Trapezoidal);
  EXPECT_EQ(r.reference.steps, 200);
  EXPECT_NE(r.referenceNote.find("RK45"), std::string::npos) << r.referenceNote;
  const CompareEntry* trapezoidal = entry(r, Formulation::MatrixR, Integrator::Trapezoidal);
  const CompareEntry* rk45 = entry(r, Formulation::MatrixR, Integrator::RK45);
  ASSERT_TRUE(trapezoidal && rk45);
  // distances measured at every shared row: the step's trapezoidal error, a hundred times the
  // reference's (second order), and RK45 at the reference's own error
  EXPECT_GT(trapezoidal->distance, 1e-9);
  EXPECT_LT(trapezoidal->distance, 1e-5);
  EXPECT_LT(rk45->distance, 0.05 * trapezoidal->distance);
  EXPECT_NE(compareTable(r).find("reference: matrix-r trapezoidal, 200 steps"), std::string::npos) << compareTable(r);
  const auto j = nlohmann::json::parse(compareJson(r, spec));
  EXPECT_EQ(j["reference"]["integrator"], "trapezoidal");
  EXPECT_TRUE(j["reference"].contains("note"));
}

}  // namespace
}  // namespace lw::analysis
