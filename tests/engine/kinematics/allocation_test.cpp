// No heap allocation inside the step loop of any kinematic method (after the first step).
#include <gtest/gtest.h>

#include "kinematics/modular_solver.h"
#include "mechanism/generators.h"
#include "support/allocation_counter.h"

namespace lw::kin {
namespace {

TEST(Allocations, NoneInTheStepLoopOfAnyMethod) {
  for (const Mechanism& mech : {generate::fourBarChain(20), generate::crankSlider3d(4)}) {
    Diagnostics diag;
    const auto res = resolve(mech, diag);
    const NaturalModel m = compileNaturalModel(*res);
    for (auto kind : {LinearSolverKind::Dense, LinearSolverKind::Sparse}) {
      GlobalData g(m, KinematicsOptions{kind});
      ASSERT_TRUE(assemble(m, g, 0).ok());
      ASSERT_TRUE(solveStep(m, g, 0.005).ok());  // first step: factorisations settle
      test::CountAllocations count;
      for (int k = 2; k < 50; ++k) ASSERT_TRUE(solveStep(m, g, 0.005 * k).ok());
      EXPECT_EQ(count.count(), 0u) << mech.name << (kind == LinearSolverKind::Dense ? " dense" : " sparse");
    }
    GlobalData g(m);
    ASSERT_TRUE(assemble(m, g, 0).ok());
    const ModularModel mm = compileModularModel(m, kin::decompose(m), g.q);
    ASSERT_TRUE(mm.ok()) << mm.error;
    for (auto method : {AccelerationMethod::TD, AccelerationMethod::ThirdOrderTensor}) {
      ModularData md(mm);
      md.acceleration = method;
      startModular(mm, md, g.q, g.qd, g.qdd, 0);
      ASSERT_TRUE(modularStep(mm, md, 0.005).ok());
      test::CountAllocations count;
      for (int k = 2; k < 50; ++k) ASSERT_TRUE(modularStep(mm, md, 0.005 * k).ok());
      EXPECT_EQ(count.count(), 0u) << mech.name << (method == AccelerationMethod::TD ? " modular TD" : " modular 3OT");
    }
  }
}

}  // namespace
}  // namespace lw::kin
