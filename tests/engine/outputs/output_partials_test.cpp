// The outputs' exact partials from the jet-free pass (outputPartials) against the complex step of
// outputsOn, which on complex numbers still goes through the jet kernels (kinematicsOn): every
// kind of output it covers, column by column, to 1e-10 relative.
#include <gtest/gtest.h>

#include "dynamics/inverse_dynamics_derivatives.h"

#include <complex>

#include "dynamics/matrix_r.h"
#include "outputs/outputs.h"
#include "support/samples.h"

namespace lw::analysis {
namespace {

using C = std::complex<double>;

TEST(OutputPartials, EqualTheComplexStepOfTheJetKernels) {
  int checked = 0;
  for (const char* name : {"ten-bar-chain", "five-bar", "slider-crank", "four-bar-free", "spatial-four-bar"}) {
    SCOPED_TRACE(name);
    Mechanism mech = test::sampleMechanism(name);
    // every kind: the velocity and acceleration of each point output, the rate of each joint
    // output, and a spring's length where there is one
    const auto outputs = mech.outputs;
    for (const Output& o : outputs) {
      if (o.type == Output::Type::PointPosition) {
        mech.outputs.push_back({o.name + "_v", Output::Type::PointVelocity, o.point, "", "", Output::Energy::Total, "", ""});
        mech.outputs.push_back({o.name + "_a", Output::Type::PointAcceleration, o.point, "", "", Output::Energy::Total, "", ""});
      }
      if (o.type == Output::Type::JointCoordinate) mech.outputs.push_back({o.name + "_rate", Output::Type::JointRate, {}, o.joint, "", Output::Energy::Total, "", ""});
    }
    for (const Force& f : mech.forces)
      if (f.type == Force::Type::Spring) mech.outputs.push_back({f.name + "_length", Output::Type::SpringLength, {}, "", f.name, Output::Energy::Total, "", ""});
    Diagnostics d;
    const auto r = resolve(mech, d);
    ASSERT_TRUE(r);
    const dyn::MatrixRModel model = dyn::compileMatrixR(*r);
    const dyn::RecursiveModel& tree = model.tree;
    const OutputComponents o = compileOutputs(mech, *r, tree);
    const int nz = tree.nz;
    const Eigen::VectorXd z = tree.z0 + Eigen::VectorXd::LinSpaced(nz, 0.3, -0.4);
    const Eigen::VectorXd zd = Eigen::VectorXd::LinSpaced(nz, 0.8, -1.3);
    const Eigen::VectorXd zdd = Eigen::VectorXd::LinSpaced(nz, -2.1, 1.7);
    Eigen::VectorXd out;
    Eigen::MatrixXd Oz, Ozd, Ozdd;
    if (!outputPartials(o, tree, tree.numbers, z, zd, zdd, 0.2, out, Oz, Ozd, Ozdd)) {
      std::cout << name << ": not covered (a joint output that closes a loop)\n";
      continue;
    }
    {  // the same on a state's motion computed already, moved to its accelerations as a run's point does
      dyn::MotionAtState state;
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nz);
      state.compute(tree, tree.numbers, z.data(), zd.data(), zero.data(), 0.2);
      state.setAccelerations(tree, tree.numbers, zdd.data());
      Eigen::VectorXd out2;
      Eigen::MatrixXd Oz2, Ozd2, Ozdd2;
      ASSERT_TRUE(outputPartials(o, tree, tree.numbers, z, zd, zdd, 0.2, out2, Oz2, Ozd2, Ozdd2, &state));
      EXPECT_LT((Oz2 - Oz).norm(), 1e-12 * std::max(1.0, Oz.norm()));
      EXPECT_LT((Ozd2 - Ozd).norm(), 1e-12 * std::max(1.0, Ozd.norm()));
      EXPECT_LT((Ozdd2 - Ozdd).norm(), 1e-12 * std::max(1.0, Ozdd.norm()));
    }
    ++checked;
    const auto no = static_cast<Eigen::Index>(o.components.size());
    dyn::TreeNumbers<C> numbers = dyn::treeNumbers<C>(tree, numbersOn<C>(mech, *r, std::vector<C>(r->parameters->values().begin(), r->parameters->values().end())));
    Eigen::VectorXd plain(no);
    outputsOn<double>(o, tree, tree.numbers, z, zd, zdd, 0.2, plain.data());
    EXPECT_LT((out - plain).cwiseAbs().maxCoeff(), 1e-12);
    const double h = 1e-30;
    for (int which = 0; which < 3; ++which)
      for (int j = 0; j < nz; ++j) {
        Eigen::VectorX<C> zc = z.cast<C>(), zdc = zd.cast<C>(), zddc = zdd.cast<C>();
        (which == 0 ? zc : which == 1 ? zdc : zddc)[j] += C(0, h);
        std::vector<C> oc(static_cast<std::size_t>(no));
        outputsOn<C>(o, tree, numbers, zc, zdc, zddc, 0.2, oc.data());
        const Eigen::MatrixXd& mine = which == 0 ? Oz : which == 1 ? Ozd : Ozdd;
        for (Eigen::Index i = 0; i < no; ++i) {
          const double ref = oc[static_cast<std::size_t>(i)].imag() / h;
          EXPECT_NEAR(mine(i, j), ref, 1e-10 * std::max(1.0, std::abs(ref))) << o.names[static_cast<std::size_t>(i)] << " column " << which << "," << j;
        }
      }
  }
  EXPECT_GE(checked, 4);
}

}  // namespace
}  // namespace lw::analysis
