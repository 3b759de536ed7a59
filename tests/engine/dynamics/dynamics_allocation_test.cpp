// No heap allocation per step of the dynamics after the first (issue 4 target): Matrix R with the
// trapezoidal rule and with Runge–Kutta, and the penalty formulation with each tangent.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simulation/simulation_run.h"
#include "dynamics/matrix_r.h"
#include "dynamics/penalty.h"
#include "integrators/integrators.h"
#include "support/allocation_counter.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

class MatrixRSystem : public integ::SecondOrderSystem {
 public:
  MatrixRSystem(const MatrixRModel& m, MatrixRData& d) : m_(m), d_(d) {}
  lw::Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    const lw::Status s = evaluate(m_, d_, t, x, v);
    if (s.ok()) a = d_.zidd;
    return s;
  }

 private:
  const MatrixRModel& m_;
  MatrixRData& d_;
};

// the grid takes the sparse (KLU) factorisation of Θ_z: refactorisations in place
const char* kMatrixRSamples[] = {"five-bar", "four-bar-free", "spatial-four-bar-swing", "rssr", "ten-bar-chain", "grid-1x15"};

TEST(DynamicsAllocations, NoneInTheMatrixRStepLoop) {
  {
    test::CountAllocations probe;  // the counter sees allocations (a zero below means something)
    std::vector<double> v(16);
    EXPECT_GE(probe.count(), 1u);
  }
  for (const char* name : kMatrixRSamples) {
    const ResolvedMechanism r = test::sampleResolved(name);
    const MatrixRModel m = compileMatrixR(r);
    if (std::string(name) == "grid-1x15") {
      ASSERT_TRUE(m.sparseTheta);
    }
    for (bool rk : {false, true}) {
      MatrixRData d(m);
      ASSERT_TRUE(initialState(m, d).ok()) << name;
      MatrixRSystem sys(m, d);
      const int n = static_cast<int>(d.dofs.size());
      integ::State s{0.0, d.zi, d.zid, d.zidd};
      integ::Trapezoidal trap(n);
      integ::DormandPrince dp(n);
      // a half step among the counted ones: the trapezoidal rule changes its iteration matrix and
      // back (to −I: every sample's tangent at 1 ms is within 1 % of it)
      auto step = [&](int k) { return rk ? dp.advance(sys, s, 1e-3 * k) : trap.step(sys, s, k == 30 ? 5e-4 : 1e-3); };
      for (int k = 1; k <= 3; ++k) ASSERT_TRUE(step(k).ok()) << name;  // first steps: buffers settle
      test::CountAllocations count;
      for (int k = 4; k < 60; ++k) ASSERT_TRUE(step(k).ok()) << name;
      EXPECT_EQ(count.count(), 0u) << name << (rk ? " rk45" : " trapezoidal");
    }
  }
}

TEST(DynamicsAllocations, NoneInThePenaltyStepLoop) {
  for (const char* name : {"five-bar", "four-bar-free", "spatial-four-bar-swing"}) {
    const ResolvedMechanism r = test::sampleResolved(name);
    const MatrixRModel m = compileMatrixR(r);
    MatrixRData start(m);
    ASSERT_TRUE(initialState(m, start).ok()) << name;
    for (auto tangent : {TangentMethod::CentralDifferences, TangentMethod::DenseAD, TangentMethod::SparseAD}) {
      PenaltyOptions o;
      o.tangent = tangent;
      PenaltyData d(m.tree, o);
      d.z = start.z;
      d.zd = start.zd;
      ASSERT_TRUE(penaltyStart(m.tree, d, 0).ok());
      for (int k = 0; k < 3; ++k) ASSERT_TRUE(penaltyStep(m.tree, d, 1e-3).ok()) << name;
      test::CountAllocations count;
      for (int k = 3; k < 60; ++k) ASSERT_TRUE(penaltyStep(m.tree, d, 1e-3).ok()) << name;
      EXPECT_EQ(count.count(), 0u) << name << " " << tangentMethodName(tangent);
    }
  }
}

// A whole run, rows and energy bookkeeping included: its allocations do not grow with the number of
// steps (the rows are reserved up front). The driven four-bar's rows include the drivers' power,
// the five-bar's the springs' and dampers' powers.
TEST(DynamicsAllocations, ARunAllocatesTheSameWhateverItsLength) {
  for (const char* name : {"four-bar", "five-bar"}) {
    const ResolvedMechanism r = test::sampleResolved(name);
    for (auto f : {analysis::Formulation::MatrixR, analysis::Formulation::Penalty}) {
      auto allocations = [&](double tEnd) {
        analysis::SimulationSpec spec;
        spec.formulation = f;
        spec.tEnd = tEnd;
        spec.dt = 1e-3;
        test::CountAllocations count;
        const auto res = analysis::runSimulation(r, spec);
        EXPECT_TRUE(res.status.ok()) << name << ": " << res.status.message;
        EXPECT_EQ(res.rows(), static_cast<std::size_t>(std::lround(tEnd / spec.dt)) + 1) << name;
        return count.count();
      };
      (void)allocations(0.01);  // per-thread scratch sized
      const std::size_t shortRun = allocations(0.02), longRun = allocations(0.2);
      EXPECT_GT(shortRun, 0u);  // the counter sees the run's set-up
      EXPECT_EQ(longRun, shortRun) << name << (f == analysis::Formulation::MatrixR ? " Matrix R" : " penalty");
    }
  }
}

}  // namespace
}  // namespace lw::dyn
