// The penalty step's projection partials on doubles (penaltyProjectionPartials: the projections
// are linear in the trapezoidal velocities and accelerations) against forward AD of the
// projections themselves (penaltyProjectOn on dual numbers), and M against the residual's z̈
// columns: the five-bar's loops (no driver) and the slider-crank (a driver's Φ_t, Φ̇_t).
#include "dynamics/penalty_derivatives.h"

#include <gtest/gtest.h>

#include "dynamics/matrix_r.h"
#include "mechanism/parameters.h"
#include "numeric/dual.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

using D = num::Dual8;

TEST(PenaltyDerivatives, TheProjectionsPartialsAreTheirDualNumberColumns) {
  for (const char* name : {"five-bar", "slider-crank"}) {
    SCOPED_TRACE(name);
    const Mechanism mech = test::sampleMechanism(name);
    Diagnostics diag;
    const auto resolved = resolve(mech, diag);
    ASSERT_TRUE(resolved);
    const MatrixRModel model = compileMatrixR(*resolved);
    const RecursiveModel& tree = model.tree;
    const std::vector<D> values(resolved->parameters->values().begin(), resolved->parameters->values().end());
    const TreeNumbers<D> p8 = treeNumbers<D>(tree, numbersOn<D>(mech, *resolved, values));
    const int nz = tree.nz;
    ASSERT_GT(tree.nrows, 0);
    // a state off the constraints (a step's end mid-iteration) and trapezoidal values
    Eigen::VectorXd z(nz), zdS(nz), zddS(nz);
    for (int i = 0; i < nz; ++i) {
      z[i] = tree.z0[i] + 0.02 * i - 0.01;
      zdS[i] = 0.7 - 0.3 * i;
      zddS[i] = -1.5 + 0.4 * i;
    }
    const double alpha = 1e6, t = 0.3, h = 2e-3;
    PenaltyProjectionPartials linear;
    ASSERT_TRUE(penaltyProjectionPartials(tree, tree.numbers, p8, alpha, t, h, z, zdS, linear).ok());
    // AD: [ż₁; z̈₁] by ż* (columns 0 … nz − 1) and z̈* (nz … 2nz − 1), eight a pass
    Eigen::MatrixXd P(2 * nz, 2 * nz), Fzdd(nz, nz);
    for (int first = 0; first < 2 * nz; first += num::kChunk) {
      VectorOn<D> z8 = z.cast<D>(), zd8 = zdS.cast<D>(), zdd8 = zddS.cast<D>(), zd1, zdd1, F;
      for (int j = first; j < std::min(2 * nz, first + num::kChunk); ++j) (j < nz ? zd8[j] : zdd8[j - nz]).g[j - first] = 1;
      ASSERT_TRUE(penaltyProjectOn<D>(tree, p8, alpha, t, h, z8, zd8, zdd8, zd1, zdd1).ok());
      penaltyResidualOn<D>(tree, p8, alpha, t, z8, zd8, zdd8, F);
      for (int j = first; j < std::min(2 * nz, first + num::kChunk); ++j) {
        for (int i = 0; i < nz; ++i) {
          P(i, j) = zd1[i].g[j - first];
          P(nz + i, j) = zdd1[i].g[j - first];
          if (j >= nz) Fzdd(i, j - nz) = F[i].g[j - first];
        }
      }
    }
    auto expectColumns = [&](const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& ad, const char* what) {
      const double scale = ad.cwiseAbs().maxCoeff();
      EXPECT_GT(scale, 1e-3) << what;
      for (Eigen::Index i = 0; i < ad.rows(); ++i)
        for (Eigen::Index j = 0; j < ad.cols(); ++j) EXPECT_TRUE(test::near(analytic(i, j), ad(i, j), 1e-10 * scale, 1e-10)) << what << " " << i << "," << j;
    };
    expectColumns(linear.Pd, P.topLeftCorner(nz, nz), "dzd/dzd*");
    EXPECT_LT(P.topRightCorner(nz, nz).cwiseAbs().maxCoeff(), 1e-14);  // ż₁ does not see z̈*
    expectColumns(linear.Qd, P.bottomLeftCorner(nz, nz), "dzdd/dzd*");
    expectColumns(linear.Qdd, P.bottomRightCorner(nz, nz), "dzdd/dzdd*");
    expectColumns(linear.M, Fzdd, "dF/dzdd");
  }
}

}  // namespace
}  // namespace lw::dyn
