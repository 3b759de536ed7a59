// Design sweeps: the designs (full factorial order, the Latin hypercube's strata), each row equal
// to a run of its own (the mechanism set to the row's values, run alone), the gradients against the
// differences of neighbouring rows, the rows the same bit for bit whatever the number of jobs, a
// failing variant kept with its reason, refusals that name the problem, and cancel.
#include "sweep/sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "analysis/run.h"
#include "optimize/optimize.h"
#include "support/samples.h"

namespace lw::sweep {
namespace {

SweepSpec kinematicSpec(double tEnd = 1, double dt = 0.01) {
  SweepSpec s;
  s.study.analysis = sens::Analysis::Kinematics;
  s.study.run.tEnd = tEnd;
  s.study.run.dt = dt;
  return s;
}

// bit for bit, NaN included
bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(SweepDesign, FullFactorialVariesTheLastParameterFastest) {
  const Design d = fullFactorial({{"a", {1, 2}}, {"b", evenlySpaced(0, 1, 3)}});
  ASSERT_EQ(d.count(), 6u);
  const std::vector<double> expected = {1, 0, 1, 0.5, 1, 1, 2, 0, 2, 0.5, 2, 1};
  EXPECT_EQ(d.points, expected);
  EXPECT_EQ(evenlySpaced(0.3, 0.7, 5).back(), 0.7);  // the end exactly, not 0.3 + 4 · 0.1
  EXPECT_EQ(evenlySpaced(2, 5, 1), std::vector<double>{2});
  const Design s = d.slice(4, 10);
  EXPECT_EQ(s.count(), 2u);
  EXPECT_EQ(s.points, std::vector<double>(expected.begin() + 8, expected.end()));
}

TEST(SweepDesign, LatinHypercubeUsesEveryStratumOncePerParameter) {
  const int n = 37;
  const Design d = latinHypercube({{"a", -1, 3}, {"b", 10, 10.5}, {"c", 0, 1}}, n, 42);
  ASSERT_EQ(d.count(), static_cast<std::size_t>(n));
  const double lo[] = {-1, 10, 0}, hi[] = {3, 10.5, 1};
  for (int k = 0; k < 3; ++k) {
    std::set<int> strata;
    for (int i = 0; i < n; ++i) {
      const double u = (d.points[static_cast<std::size_t>(i * 3 + k)] - lo[k]) / (hi[k] - lo[k]);
      ASSERT_GE(u, 0);
      ASSERT_LT(u, 1);
      strata.insert(static_cast<int>(std::floor(u * n)));
    }
    EXPECT_EQ(strata.size(), static_cast<std::size_t>(n)) << "parameter " << k;
  }
  // the same seed, the same design; another seed, another
  EXPECT_EQ(latinHypercube({{"a", -1, 3}, {"b", 10, 10.5}, {"c", 0, 1}}, n, 42).points, d.points);
  EXPECT_NE(latinHypercube({{"a", -1, 3}, {"b", 10, 10.5}, {"c", 0, 1}}, n, 43).points, d.points);
  // the columns are not in stratum order (the permutation is random): a sorted column is 1/37!
  std::vector<double> a;
  for (int i = 0; i < n; ++i) a.push_back(d.points[static_cast<std::size_t>(i * 3)]);
  EXPECT_FALSE(std::is_sorted(a.begin(), a.end()));
}

// every row is what a run of the mechanism at that row's values gives, alone; the gradient rows
// what a sensitivity study of it gives, and close to the costs' differences between rows
TEST(Sweep, EachRowIsTheRunOfItsVariantAlone) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  SweepSpec spec = kinematicSpec();
  spec.gradients = true;
  spec.jobs = 2;
  const double h = 1e-5;
  const Design d = fullFactorial({{"L1", {0.8 - h, 0.8, 0.8 + h}}, {"L3", {3.4}}});
  const SweepResult r = runSweep(m, d, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  ASSERT_EQ(r.rows(), 3u);
  ASSERT_EQ(r.failed(), 0u) << r.errors[0];
  const std::vector<std::string> columns = {"L1", "L3", "target_error", "dtarget_error/dL1", "dtarget_error/dL3"};
  EXPECT_EQ(r.columns, columns);
  for (std::size_t i = 0; i < 3; ++i) {
    Mechanism v = m;
    ASSERT_TRUE(opt::setParameters(v, {"L1", "L3"}, {d.points[2 * i], d.points[2 * i + 1]}).ok());
    sens::SensitivitySpec s = spec.study;
    s.parameters = {"L1", "L3"};
    const auto alone = sens::runSensitivity(v, s);
    ASSERT_TRUE(alone.status.ok()) << alone.status.message;
    EXPECT_EQ(r.table[i * 5 + 2], alone.methods.front().values[0]);
    EXPECT_EQ(r.table[i * 5 + 3], alone.methods.front().gradient(0, 0));
    EXPECT_EQ(r.table[i * 5 + 4], alone.methods.front().gradient(0, 1));
  }
  // the gradient against the central difference of the neighbouring rows
  const double fd = (r.table[2 * 5 + 2] - r.table[0 * 5 + 2]) / (2 * h);
  EXPECT_NEAR(r.table[1 * 5 + 3], fd, 1e-6 * std::abs(fd) + 1e-8);
  EXPECT_GT(std::abs(fd), 0.1);  // a gradient worth comparing

  // without gradients: the costs of the plain kinematic run of each variant
  spec.gradients = false;
  const SweepResult plain = runSweep(m, d, spec);
  ASSERT_EQ(plain.columns.size(), 3u);
  Mechanism v = m;
  ASSERT_TRUE(opt::setParameters(v, {"L1", "L3"}, {d.points[2], d.points[3]}).ok());
  analysis::KinematicsSpec k;
  k.tEnd = 1;
  k.dt = 0.01;
  const auto run = analysis::run(v, {k});
  ASSERT_TRUE(run.status().ok());
  EXPECT_EQ(plain.table[1 * 3 + 2], run.table()->costValues.at(0));
  EXPECT_NEAR(plain.table[1 * 3 + 2], r.table[1 * 5 + 2], 1e-9);
}

TEST(Sweep, TheRowsAreTheSameBitForBitWhateverTheJobs) {
  const Mechanism m = test::sampleMechanism("five-bar");
  SweepSpec spec;
  spec.study.run.tEnd = 0.3;
  spec.study.run.dt = 1e-3;
  spec.gradients = true;
  const Design d = latinHypercube({{"L_s1", 2.0, 2.4}, {"m_A1", 0.8, 1.2}}, 6, 7);
  spec.jobs = 1;
  const SweepResult one = runSweep(m, d, spec);
  spec.jobs = 2;
  const SweepResult two = runSweep(m, d, spec);
  ASSERT_TRUE(one.status.ok() && two.status.ok());
  EXPECT_EQ(one.failed(), 0u);
  EXPECT_TRUE(sameBits(one.table, two.table));
  EXPECT_EQ(one.errors, two.errors);
  // and as slices run apart then put together (a Dask cluster's tasks)
  const SweepResult joined = concatenate({runSweep(m, d.slice(0, 4), spec), runSweep(m, d.slice(4, 2), spec)});
  EXPECT_TRUE(sameBits(one.table, joined.table));
  EXPECT_EQ(toCsv(one), toCsv(joined));
}

TEST(Sweep, AVariantThatFailsKeepsItsRowAndReason) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  SweepSpec spec = kinematicSpec();
  // L1 = 1.5 with L3 = 2: the crank cannot turn (the run stops at a dead point)
  const SweepResult r = runSweep(m, fullFactorial({{"L1", {0.8, 1.5}}, {"L3", {2.0}}}), spec);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.rows(), 2u);
  EXPECT_TRUE(r.errors[0].empty());
  EXPECT_TRUE(std::isfinite(r.table[2]));
  EXPECT_NE(r.errors[1].find("cannot close at t = "), std::string::npos) << r.errors[1];
  EXPECT_EQ(r.table[3], 1.5);  // its values stay
  EXPECT_TRUE(std::isnan(r.table[5]));
  const std::string csv = toCsv(r);
  EXPECT_NE(csv.find("1.5,2,,"), std::string::npos) << csv;
}

TEST(Sweep, RefusesWhatCannotBeSweptNamingIt) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  const SweepSpec spec = kinematicSpec();
  auto why = [&](const Design& d, const SweepSpec& s) { return runSweep(m, d, s).status.message; };
  EXPECT_NE(why(fullFactorial({{"L9", {1}}}), spec).find("unknown parameter 'L9'"), std::string::npos);
  // outside the parameter's range 0.5 ... 1.5
  const std::string range = why(fullFactorial({{"L1", {1.0, 2.0}}}), spec);
  EXPECT_NE(range.find("'L1'"), std::string::npos) << range;
  EXPECT_NE(range.find("1.5"), std::string::npos) << range;
  SweepSpec unknownCost = spec;
  unknownCost.study.costs = {"nothing"};
  EXPECT_NE(why(fullFactorial({{"L1", {1}}}), unknownCost).find("unknown cost 'nothing'"), std::string::npos);
  EXPECT_NE(why(fullFactorial({{"L1", {1}}, {"L1", {1}}}), spec).find("varied twice"), std::string::npos);
  const Mechanism fiveBar = test::sampleMechanism("five-bar");
  EXPECT_NE(runSweep(fiveBar, fullFactorial({{"xG_A1", {1}}}), spec).status.message.find("expression"), std::string::npos);
  Mechanism noCosts = m;
  noCosts.costs.clear();
  EXPECT_NE(runSweep(noCosts, fullFactorial({{"L1", {1}}}), spec).status.message.find("no costs"), std::string::npos);
}

TEST(Sweep, CancelStopsTheVariantsNotYetRun) {
  const Mechanism m = test::sampleMechanism("four-bar-synthesis");
  SweepSpec spec = kinematicSpec();
  spec.jobs = 1;
  std::atomic<bool> cancel{false};
  const SweepResult r = runSweep(m, fullFactorial({{"L1", evenlySpaced(0.6, 1.0, 6)}}), spec,
                                 [&](std::size_t done, std::size_t) { if (done == 2) cancel = true; }, &cancel);
  EXPECT_EQ(r.status.code, Status::Code::Cancelled);
  ASSERT_EQ(r.rows(), 6u);
  EXPECT_TRUE(r.errors[0].empty() && r.errors[1].empty());
  for (std::size_t i = 2; i < 6; ++i) EXPECT_EQ(r.errors[i], "cancelled");
}

TEST(Sweep, TheMethodOfTheGradientsFollowsTheCounts) {
  EXPECT_EQ(gradientMethod(2, 5), sens::Method::Direct);
  EXPECT_EQ(gradientMethod(8, 1), sens::Method::Direct);   // one pass of eight
  EXPECT_EQ(gradientMethod(20, 1), sens::Method::Adjoint);  // three passes against one sweep
  EXPECT_EQ(gradientMethod(20, 5), sens::Method::Direct);
}

}  // namespace
}  // namespace lw::sweep
