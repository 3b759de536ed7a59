// The penalty step's projection partials on doubles (penaltyProjectionPartials: the projections
// are linear in the trapezoidal velocities and accelerations) against forward AD of the
// projections themselves (penaltyProjectOn on dual numbers), and M against the residual's z̈
// columns: the five-bar's loops (no driver) and the slider-crank (a driver's Φ_t, Φ̇_t).
#include "dynamics/penalty_derivatives.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <tuple>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/loop_jacobian_rates.h"
#include "dynamics/matrix_r.h"
#include "mechanism/parameters.h"
#include "numeric/dual.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

using D = num::Dual8;

// a mechanism compiled, its numbers on dual numbers (nothing seeded), and a state off the
// constraints (a step's end mid-iteration): z, and rates and accelerations made up
struct OffState {
  Mechanism mechanism;  // kept: the numbers' time functions are bound to its expressions
  std::optional<ResolvedMechanism> resolved;
  MatrixRModel model;
  TreeNumbers<D> p8;
  Eigen::VectorXd z, zd, zdd;
};
std::unique_ptr<OffState> offState(const Mechanism& mech) {
  auto c = std::make_unique<OffState>();
  c->mechanism = mech;
  Diagnostics diag;
  auto resolved = resolve(c->mechanism, diag);
  if (!resolved) return nullptr;
  c->resolved = *resolved;
  c->model = compileMatrixR(*c->resolved);
  const RecursiveModel& tree = c->model.tree;
  const std::vector<D> values(c->resolved->parameters->values().begin(), c->resolved->parameters->values().end());
  c->p8 = treeNumbers<D>(tree, numbersOn<D>(c->mechanism, *c->resolved, values));
  const int nz = tree.nz;
  c->z.resize(nz);
  c->zd.resize(nz);
  c->zdd.resize(nz);
  for (int i = 0; i < nz; ++i) {
    c->z[i] = tree.z0[i] + 0.02 * i - 0.01;
    c->zd[i] = 0.7 - 0.3 * i;
    c->zdd[i] = -1.5 + 0.4 * i;
  }
  return c;
}

TEST(PenaltyDerivatives, TheProjectionsPartialsAreTheirDualNumberColumns) {
  // slider-crank: its motor's row (c_ż on dual numbers, no z columns); the others in closed form,
  // the z columns and the bodies' masses' lanes too: pins with springs, a spatial revolute cut
  // after a ball joint, a free body
  const std::pair<const char*, Mechanism> models[] = {{"five-bar", test::withEveryForce(test::sampleMechanism("five-bar"))},
                                                      {"slider-crank", test::sampleMechanism("slider-crank")},
                                                      {"rssr, a revolute at C", test::rssrRevoluteAtC()},
                                                      {"buggy", test::sampleMechanism("buggy")}};
  for (const auto& [name, mech] : models) {
    SCOPED_TRACE(name);
    const auto c = offState(mech);
    ASSERT_TRUE(c);
    const RecursiveModel& tree = c->model.tree;
    const TreeNumbers<D>& p8 = c->p8;
    const int nz = tree.nz;
    ASSERT_GT(tree.nrows, 0);
    // a state off the constraints (a step's end mid-iteration) and trapezoidal values
    const Eigen::VectorXd &z = c->z, &zdS = c->zd, &zddS = c->zdd;
    const double alpha = 1e6, t = 0.3, h = 2e-3;
    PenaltyProjectionPartials linear;
    ASSERT_TRUE(penaltyProjectionPartials(tree, tree.numbers, p8, alpha, t, h, z, zdS, linear, nullptr, nullptr, &zddS).ok());
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
    // by z (ż*, z̈* held)
    const bool driven = std::string(name) == "slider-crank";
    ASSERT_EQ(linear.Pz.size() == 0, driven);
    if (driven) continue;
    Eigen::MatrixXd Z(2 * nz, nz);
    for (int first = 0; first < nz; first += num::kChunk) {
      VectorOn<D> z8 = z.cast<D>(), zd1, zdd1;
      for (int j = first; j < std::min(nz, first + num::kChunk); ++j) z8[j].g[j - first] = 1;
      ASSERT_TRUE(penaltyProjectOn<D>(tree, p8, alpha, t, h, z8, zdS.cast<D>(), zddS.cast<D>(), zd1, zdd1).ok());
      for (int j = first; j < std::min(nz, first + num::kChunk); ++j)
        for (int i = 0; i < nz; ++i) {
          Z(i, j) = zd1[i].g[j - first];
          Z(nz + i, j) = zdd1[i].g[j - first];
        }
    }
    expectColumns(linear.Pz, Z.topRows(nz), "dzd/dz");
    expectColumns(linear.Qz, Z.bottomRows(nz), "dzdd/dz");
    // along every body's mass, each a lane (they change M alone): the inertial lanes (not the
    // buggy's: its one row, its quaternion's, leaves the projections all but independent of them)
    if (std::string(name) == "buggy") continue;
    const MechanismNumbers<D>& mech = p8.mech;
    TreeNumbers<D> masses = p8;
    const int lanes = std::min<int>(num::kChunk, static_cast<int>(mech.bodies.size()) - 1);
    for (int l = 0; l < lanes; ++l) masses.mech.bodies[static_cast<std::size_t>(l + 1)].mass.g[l] = 1;
    const NumbersLanes inertial = inertialLanes(tree, masses, std::vector<bool>(num::kChunk, true));
    Eigen::MatrixXd Pp, Qp;
    ASSERT_TRUE(penaltyProjectionNumbersLanes(tree, tree.numbers, linear, inertial, masses, Pp, Qp)) << inertial.uncovered;
    VectorOn<D> zd1, zdd1;
    ASSERT_TRUE(penaltyProjectOn<D>(tree, masses, alpha, t, h, z.cast<D>(), zdS.cast<D>(), zddS.cast<D>(), zd1, zdd1).ok());
    Eigen::MatrixXd Rp(nz, lanes), Rq(nz, lanes);
    for (int i = 0; i < nz; ++i)
      for (int l = 0; l < lanes; ++l) {
        Rp(i, l) = zd1[i].g[l];
        Rq(i, l) = zdd1[i].g[l];
      }
    expectColumns(Pp.leftCols(lanes), Rp, "dzd/dmass");
    expectColumns(Qp.leftCols(lanes), Rq, "dzdd/dmass");
  }
}

// The projections' lanes along every kind of parameter by the lanes kernel (geometry too: the
// rows' points' lanes and the multipliers' loads) against penaltyProjectOn on dual numbers, to
// 1e-10 relative: the five-bar's parameters (spring lengths, a mass, a centre, a bar's length) and
// a lane on each cut joint's second point; the grid 1×15's (spatial revolutes, their axis rows)
TEST(PenaltyDerivatives, TheProjectionsParameterLanesAreTheirDualNumberColumns) {
  for (const char* name : {"five-bar", "grid-1x15-parameters"}) {
    SCOPED_TRACE(name);
    const auto c = offState(test::sampleMechanism(name));
    ASSERT_TRUE(c);
    const RecursiveModel& tree = c->model.tree;
    const int nz = tree.nz;
    std::vector<D> seeded(c->resolved->parameters->values().begin(), c->resolved->parameters->values().end());
    const std::size_t np = std::min<std::size_t>(seeded.size(), num::kChunk - 1);
    for (std::size_t l = 0; l < np; ++l) seeded[l].g[l] = 1;
    TreeNumbers<D> p = treeNumbers<D>(tree, numbersOn<D>(c->mechanism, *c->resolved, seeded));
    for (const LoopConstraint& con : tree.constraints)
      if (con.kind == LoopConstraint::Kind::CutJoint) {
        const ItemIndex q = c->resolved->joints[static_cast<std::size_t>(con.index)].points[1];
        auto& x = p.mech.bodies[static_cast<std::size_t>(q.body)].points[static_cast<std::size_t>(q.index)];
        x[0].g[num::kChunk - 1] = 0.3;
        x[1].g[num::kChunk - 1] = -0.2;
      }
    const NumbersLanes lanes = numbersLanes(tree, p);
    ASSERT_TRUE(numbersLanesCovered(tree, lanes, p)) << lanes.uncovered;
    const double alpha = 1e6, t = 0.3, h = 2e-3;
    PenaltyProjectionPartials linear;
    ASSERT_TRUE(penaltyProjectionPartials(tree, tree.numbers, c->p8, alpha, t, h, c->z, c->zd, linear, nullptr, nullptr, &c->zdd).ok());
    Eigen::MatrixXd Pp, Qp;
    ASSERT_TRUE(penaltyProjectionNumbersLanes(tree, tree.numbers, linear, lanes, p, Pp, Qp));
    VectorOn<D> zd1, zdd1;
    ASSERT_TRUE(penaltyProjectOn<D>(tree, p, alpha, t, h, c->z.cast<D>(), c->zd.cast<D>(), c->zdd.cast<D>(), zd1, zdd1).ok());
    Eigen::MatrixXd Rp(nz, num::kChunk), Rq(nz, num::kChunk);
    for (int i = 0; i < nz; ++i)
      for (int l = 0; l < num::kChunk; ++l) {
        Rp(i, l) = zd1[i].g[l];
        Rq(i, l) = zdd1[i].g[l];
      }
    for (const auto& [mine, reference, what] : {std::tuple{&Pp, &Rp, "dzd/drho"}, std::tuple{&Qp, &Rq, "dzdd/drho"}}) {
      const double scale = reference->cwiseAbs().maxCoeff();
      EXPECT_GT(scale, 1e-3) << what;
      for (Eigen::Index i = 0; i < nz; ++i)
        for (int l = 0; l < num::kChunk; ++l)
          EXPECT_TRUE(test::near((*mine)(i, l), (*reference)(i, l), 1e-10 * scale, 1e-10)) << what << " " << i << " lane " << l;
    }
  }
}

// The residual's state partials by the analytic kernels (penaltyResidualJacobians: τ's, and the
// rows' α Φ_zᵀΦ_z + H with H the multipliers' turn at λ = αΦ) against its dual-number columns,
// at a state off the constraints (a step's end mid-iteration), to 1e-10 relative: pins (the
// five-bar) with every force element, open chains, spatial revolutes cut (their axis rows: the
// free four-bar, the grid), the buggy's free chassis (a quaternion and its unit row); refused
// where the kernels do not cover the rows (a driver's)
TEST(PenaltyDerivatives, TheResidualsStateJacobiansByTheKernelsAreItsDualNumberColumns) {
  struct Model {
    const char* name;
    Mechanism mechanism;
    bool covered;
  };
  auto withoutLoopTorsion = [](Mechanism m) {  // a loop's torsion spring is not τ's kernel's
    std::erase_if(m.forces, [](const Force& f) { return f.type == Force::Type::TorsionSpring; });
    return m;
  };
  const Model models[] = {{"five-bar", withoutLoopTorsion(test::withEveryForce(test::sampleMechanism("five-bar"))), true},
                          {"double-pendulum-wall", test::sampleMechanism("double-pendulum-wall"), true},
                          // its cut revolute's axis rows (the penalty enforces every row)
                          {"four-bar-free", test::sampleMechanism("four-bar-free"), true},
                          {"ten-bar-chain", test::withEveryForce(test::sampleMechanism("ten-bar-chain")), true},
                          {"grid-1x15", test::sampleMechanism("grid-1x15"), true},
                          {"rssr", test::sampleMechanism("rssr"), true},  // its motor: a tree joint's driver
                          // drivers of a tree joint and of a point's component; a distance's refused
                          {"five-bar, its crank driven", withoutLoopTorsion(test::withEveryForce(test::fiveBarDriven("joint"))), true},
                          {"five-bar, a point's height driven", withoutLoopTorsion(test::withEveryForce(test::fiveBarDriven("coordinate"))), true},
                          {"five-bar, a distance driven", test::fiveBarDriven("distance"), false},
                          // a spatial revolute cut (its axis rows violated) after a ball joint
                          {"rssr, a revolute at C", test::rssrRevoluteAtC(), true},
                          // a free body: its quaternion's columns and unit row, tyres
                          {"buggy", test::sampleMechanism("buggy"), true},
                          // ball joints in the tree, one cut: the rows' points turn with quaternions
                          {"rssr, its last joint a ball", test::rssrBallAtD(), true}};
  for (const auto& [name, mech, covered] : models) {
    SCOPED_TRACE(name);
    const auto c = offState(mech);
    ASSERT_TRUE(c);
    const RecursiveModel& tree = c->model.tree;
    const TreeNumbers<D>& p8 = c->p8;
    const int nz = tree.nz;
    const Eigen::VectorXd &z = c->z, &zd = c->zd, &zdd = c->zdd;
    for (const double alpha : {0.0, 1.0, 1e6}) {
    SCOPED_TRACE(alpha);
    const double t = 0.3;
    Eigen::MatrixXd Fz, Fzd, M;
    std::vector<int> allRows;
    for (int i = 0; i < tree.nrows; ++i) allRows.push_back(i);
    ASSERT_EQ(penaltyResidualJacobians(tree, tree.numbers, alpha, t, z, zd, zdd, Fz, Fzd, M), covered)
        << loopJacobianRatesUnsupported(tree, allRows);
    if (!covered) break;
    Eigen::MatrixXd ad(nz, 3 * nz);
    for (int first = 0; first < 3 * nz; first += num::kChunk) {
      VectorOn<D> z8 = z.cast<D>(), zd8 = zd.cast<D>(), zdd8 = zdd.cast<D>(), F;
      for (int j = first; j < std::min(3 * nz, first + num::kChunk); ++j) (j < nz ? z8[j] : j < 2 * nz ? zd8[j - nz] : zdd8[j - 2 * nz]).g[j - first] = 1;
      penaltyResidualOn<D>(tree, p8, alpha, t, z8, zd8, zdd8, F);
      for (int j = first; j < std::min(3 * nz, first + num::kChunk); ++j)
        for (int i = 0; i < nz; ++i) ad(i, j) = F[i].g[j - first];
    }
    auto expectColumns = [&](const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& reference, const char* what) {
      const double scale = reference.cwiseAbs().maxCoeff();
      EXPECT_GT(scale, 1e-3) << what;
      for (Eigen::Index i = 0; i < reference.rows(); ++i)
        for (Eigen::Index j = 0; j < reference.cols(); ++j)
          EXPECT_TRUE(test::near(analytic(i, j), reference(i, j), 1e-10 * scale, 1e-10)) << what << " " << i << "," << j;
    };
    expectColumns(Fz, ad.leftCols(nz), "dF/dz");
    expectColumns(Fzd, ad.middleCols(nz, nz), "dF/dzd");
    expectColumns(M, ad.rightCols(nz), "dF/dzdd");
    }
  }
}

// Θ̇ and Θ̈ of every row (loopJacobianRates) against central differences of Φ_z along the motion
// z(t) = z + t ż + t²/2 z̈ (error O(h²), h = 1e-4): points' rows, spatial revolutes' axis rows
// (the RSSR with a revolute at C, its coupler on a ball joint), quaternions' unit rows and points
// on quaternion nodes (the RSSR with a ball at D, the buggy)
TEST(PenaltyDerivatives, TheRowsRatesAreTheirJacobiansDerivativesAlongTheMotion) {
  const std::pair<const char*, Mechanism> models[] = {{"five-bar", test::sampleMechanism("five-bar")},
                                                      {"five-bar, a point's height driven", test::fiveBarDriven("coordinate")},
                                                      {"rssr, a revolute at C", test::rssrRevoluteAtC()},
                                                      {"rssr, a ball at D", test::rssrBallAtD()},
                                                      {"buggy", test::sampleMechanism("buggy")}};
  for (const auto& [name, mech] : models) {
    SCOPED_TRACE(name);
    const auto c = offState(mech);
    ASSERT_TRUE(c);
    const RecursiveModel& tree = c->model.tree;
    std::vector<int> rows;
    for (int i = 0; i < tree.nrows; ++i) rows.push_back(i);
    ASSERT_EQ(loopJacobianRatesUnsupported(tree, rows), "");
    const Eigen::VectorXd &z = c->z, &zd = c->zd, &zdd = c->zdd;
    const double t = 0.3, h = 1e-4;
    MotionAtState state;
    state.compute(tree, tree.numbers, z.data(), zd.data(), zdd.data(), t);
    Eigen::MatrixXd rates, secondRates, H;
    loopJacobianRates(tree, tree.numbers, state, rows, {}, Eigen::VectorXd::Zero(tree.nrows), rates, secondRates, H);
    RecursiveData data;
    Eigen::MatrixXd Jm, J0, Jp;
    loopJacobian(tree, data, Eigen::VectorXd(z - h * zd + 0.5 * h * h * zdd), t, Jm);
    loopJacobian(tree, data, z, t, J0);
    loopJacobian(tree, data, Eigen::VectorXd(z + h * zd + 0.5 * h * h * zdd), t, Jp);
    const Eigen::MatrixXd d1 = (Jp - Jm) / (2 * h), d2 = (Jp - 2 * J0 + Jm) / (h * h);
    EXPECT_GT(d2.cwiseAbs().maxCoeff(), 1e-2);
    EXPECT_LT((rates - d1).cwiseAbs().maxCoeff(), 1e-6 * std::max(1.0, d1.cwiseAbs().maxCoeff())) << "Θ̇\n" << rates << "\ndifferences\n" << d1;
    EXPECT_LT((secondRates - d2).cwiseAbs().maxCoeff(), 1e-5 * std::max(1.0, d2.cwiseAbs().maxCoeff()))
        << "Θ̈\n" << secondRates << "\ndifferences\n" << d2;
  }
}

// F's parameters' lanes by the lanes kernel (penaltyResidualAlongNumbers) against the residual on
// dual numbers with the first eight parameters seeded, and its transpose (one reverse pass for
// weights w, then each parameter's fields dotted) against wᵀF_ρ, to 1e-10: pins with springs
// (the five-bar), spatial revolutes' point and axis rows (the grid 1×15), and a lane on the cut
// joints' points, where the multipliers' loads act
TEST(PenaltyDerivatives, TheResidualsParameterLanesAndTheirTransposeAreItsDualNumberColumns) {
  const std::pair<const char*, Mechanism> models[] = {{"five-bar", test::sampleMechanism("five-bar")},
                                                      {"five-bar, a point's height driven", test::fiveBarDriven("coordinate")},
                                                      {"grid-1x15-parameters", test::sampleMechanism("grid-1x15-parameters")}};
  for (const auto& [name, mech] : models) {
    SCOPED_TRACE(name);
    const auto c = offState(mech);
    ASSERT_TRUE(c);
    const RecursiveModel& tree = c->model.tree;
    std::vector<D> seeded(c->resolved->parameters->values().begin(), c->resolved->parameters->values().end());
    const std::size_t np = std::min<std::size_t>(seeded.size(), num::kChunk - 1);
    ASSERT_GE(np, 5u);
    for (std::size_t l = 0; l < np; ++l) seeded[l].g[l] = 1;
    TreeNumbers<D> p = treeNumbers<D>(tree, numbersOn<D>(c->mechanism, *c->resolved, seeded));
    // and the last lane on each cut joint's second point and each driven point (where the
    // multipliers' loads act)
    ASSERT_LT(np, static_cast<std::size_t>(num::kChunk));
    for (const LoopConstraint& con : tree.constraints) {
      ItemIndex q;
      if (con.kind == LoopConstraint::Kind::CutJoint) q = c->resolved->joints[static_cast<std::size_t>(con.index)].points[1];
      else if (con.kind == LoopConstraint::Kind::Driver) q = c->resolved->drivers[static_cast<std::size_t>(con.index)].point;
      else continue;
      auto& x = p.mech.bodies[static_cast<std::size_t>(q.body)].points[static_cast<std::size_t>(q.index)];
      x[0].g[num::kChunk - 1] = 0.3;
      x[1].g[num::kChunk - 1] = -0.2;
    }
    const NumbersLanes lanes = numbersLanes(tree, p);
    ASSERT_TRUE(numbersLanesCovered(tree, lanes, p)) << lanes.uncovered;
    const double t = 0.3;
    for (const double alpha : {1.0, 1e6}) {
      SCOPED_TRACE(alpha);
      MotionAtState state;
      state.compute(tree, tree.numbers, c->z.data(), c->zd.data(), c->zdd.data(), t);
      Eigen::MatrixXd Fp;
      ASSERT_TRUE(penaltyResidualAlongNumbers(tree, tree.numbers, lanes, p, alpha, t, c->z, c->zd, c->zdd, Fp, &state));
      VectorOn<D> F;
      penaltyResidualOn<D>(tree, p, alpha, t, c->z.cast<D>(), c->zd.cast<D>(), c->zdd.cast<D>(), F);
      Eigen::MatrixXd reference(tree.nz, num::kChunk);
      for (Eigen::Index i = 0; i < tree.nz; ++i)
        for (int l = 0; l < num::kChunk; ++l) reference(i, l) = F[i].g[l];
      const double scale = reference.cwiseAbs().maxCoeff();
      EXPECT_GT(scale, 1e-3);
      EXPECT_LT((Fp - reference).cwiseAbs().maxCoeff(), 1e-10 * scale);
      // the transpose for weights on every coordinate
      const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(tree.nz, 1.0, -0.7);
      NumbersAdjoint adjoint;
      std::vector<ItemIndex> points;
      ASSERT_TRUE(penaltyResidualNumbersAdjoint(tree, tree.numbers, alpha, t, c->z, state, w, adjoint, points));
      double products[num::kChunk];
      ASSERT_TRUE(numbersLanesProducts(tree, state, lanes, p, adjoint, w.data(), points, products));
      const Eigen::VectorXd expected = reference.transpose() * w;
      for (int l = 0; l < num::kChunk; ++l) EXPECT_NEAR(products[l], expected[l], 1e-10 * scale * w.cwiseAbs().sum()) << "lane " << l;
    }
  }
  // a parameter in a driver's motion moves its row: refused (the dual numbers take it)
  Mechanism driven = test::fiveBarDriven("coordinate");
  driven.drivers[0].function = Number::expr("-2 + 0.1*L_A1*t");
  const auto c = offState(driven);
  ASSERT_TRUE(c);
  std::vector<D> seeded(c->resolved->parameters->values().begin(), c->resolved->parameters->values().end());
  const int k = c->resolved->parameters->find("L_A1");
  ASSERT_GE(k, 0);
  seeded[static_cast<std::size_t>(k)].g[0] = 1;
  const TreeNumbers<D> p = treeNumbers<D>(c->model.tree, numbersOn<D>(c->mechanism, *c->resolved, seeded));
  const NumbersLanes lanes = numbersLanes(c->model.tree, p);
  EXPECT_FALSE(numbersLanesCovered(c->model.tree, lanes, p));
  EXPECT_NE(lanes.uncovered.find("driver 0"), std::string::npos) << lanes.uncovered;
}

}  // namespace
}  // namespace lw::dyn
