// The penalty tangent J = −∂Q^d/∂[z; ż] (seed 004 §5, checks T5 and T6 of the reading guide):
// dense forward AD equals the complex step to round-off and central differences to their
// truncation error; sparse AD equals dense AD; the structural pattern contains every numeric
// nonzero and the colouring is valid; every tangent gives the same penalty motion. The models
// carry every force element (damped springs, torsion springs on tree and cut joints, body-frame
// forces and torques that depend on time) so every branch of the kernel is differentiated.
#include "dynamics/force_jacobian.h"

#include <gtest/gtest.h>

#include <complex>

#include "simulation/simulation_run.h"
#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "mechanism/generators.h"
#include "numeric/dual.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

struct Case {
  ResolvedMechanism resolved;
  MatrixRModel model;
  Eigen::VectorXd z, zd;
};

// an assembled, moving state of the mechanism (the Matrix R start plus made-up velocities)
// accelerations consistent with unit quaternions: q̈·q = −|q̇|²
Eigen::VectorXd consistentAccelerations(const Case& c, Eigen::VectorXd zdd) {
  for (const Node& n : c.model.tree.nodes) {
    const int q = n.kind == NodeKind::Spherical ? n.z : n.kind == NodeKind::FreeSpatial ? n.z + 3 : -1;
    if (q < 0) continue;
    const Eigen::Vector4d u = c.z.segment<4>(q);
    zdd.segment<4>(q) -= u * (u.dot(zdd.segment<4>(q)) + c.zd.segment<4>(q).squaredNorm());
  }
  return zdd;
}

std::unique_ptr<Case> movingState(const Mechanism& mech) {
  auto c = std::make_unique<Case>();
  Diagnostics d;
  c->resolved = *resolve(mech, d);
  c->model = compileMatrixR(c->resolved);
  MatrixRData data(c->model);
  if (!initialState(c->model, data).ok()) throw std::runtime_error("no initial state");
  c->z = data.z;
  // velocities and a small position perturbation off the assembly: the tangent is evaluated at
  // Newton iterates too
  c->zd = Eigen::VectorXd::LinSpaced(c->model.tree.nz, 0.8, -1.3);
  c->z += 0.01 * Eigen::VectorXd::LinSpaced(c->model.tree.nz, -1, 1);
  // quaternions stay unit (rotations): the kernel's ω̇ is the skew part of R̈Rᵀ, exact on rotations
  for (const Node& n : c->model.tree.nodes) {
    const int q = n.kind == NodeKind::Spherical ? n.z : n.kind == NodeKind::FreeSpatial ? n.z + 3 : -1;
    if (q < 0) continue;
    c->z.segment<4>(q).normalize();
    const Eigen::Vector4d u = c->z.segment<4>(q);
    c->zd.segment<4>(q) -= u * u.dot(c->zd.segment<4>(q));  // q̇ ⟂ q
  }
  return c;
}

std::vector<std::pair<std::string, Mechanism>> models() {
  return {{"five-bar", test::withEveryForce(test::sampleMechanism("five-bar"))},
          {"four-bar-free", test::withEveryForce(test::sampleMechanism("four-bar-free"))},
          {"spatial-four-bar-swing", test::withEveryForce(test::sampleMechanism("spatial-four-bar-swing"))},
          {"rssr", test::withEveryForce(test::sampleMechanism("rssr"))},
          {"grid-2x3", test::withEveryForce(generate::grid(2, 3))},
          {"buggy", test::sampleMechanism("buggy")}};  // a free body with a subtree; tyres in contact
}

double relativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

TEST(ForceJacobian, DenseADEqualsComplexStepAndDifferences) {
  for (const auto& [name, mech] : models()) {
    const auto c = movingState(mech);
    const RecursiveModel& tree = c->model.tree;
    const int n = tree.nz;
    const double t = 0.37;
    Eigen::MatrixXd K, C, Kfd, Cfd;
    ForceJacobian(tree, TangentMethod::DenseAD).compute(c->z, c->zd, t, K, C);
    ForceJacobian(tree, TangentMethod::CentralDifferences).compute(c->z, c->zd, t, Kfd, Cfd);
    // complex step, column by column: exact to round-off with h = 1e-30
    GeneralizedForces<std::complex<double>> forces(tree);
    std::vector<std::complex<double>> z(static_cast<std::size_t>(n)), zd(z.size()), Q(z.size());
    Eigen::MatrixXd Kcs(n, n), Ccs(n, n);
    for (int j = 0; j < 2 * n; ++j) {
      for (int i = 0; i < n; ++i) {
        z[static_cast<std::size_t>(i)] = {c->z[i], j == i ? 1e-30 : 0.0};
        zd[static_cast<std::size_t>(i)] = {c->zd[i], j == n + i ? 1e-30 : 0.0};
      }
      forces(z.data(), zd.data(), t, Q.data());
      for (int i = 0; i < n; ++i) (j < n ? Kcs(i, j) : Ccs(i, j - n)) = -Q[static_cast<std::size_t>(i)].imag() / 1e-30;
    }
    EXPECT_LT(relativeError(K, Kcs), 1e-12) << name;
    EXPECT_LT(relativeError(C, Ccs), 1e-12) << name;
    EXPECT_LT(relativeError(K, Kfd), 1e-6) << name;
    EXPECT_LT(relativeError(C, Cfd), 1e-6) << name;
    EXPECT_GT(K.cwiseAbs().maxCoeff(), 0) << name;
    EXPECT_GT(C.cwiseAbs().maxCoeff(), 0) << name;
    // with accelerations: the residual Q^d − M^d z̈, whose z-derivative holds ∂M^d/∂z z̈
    const Eigen::VectorXd zdd = consistentAccelerations(*c, Eigen::VectorXd::LinSpaced(n, -2.0, 3.0));
    Eigen::MatrixXd Ka, Ca, Kafd, Cafd;
    ForceJacobian(tree, TangentMethod::DenseAD).compute(c->z, c->zd, t, Ka, Ca, &zdd);
    ForceJacobian(tree, TangentMethod::CentralDifferences).compute(c->z, c->zd, t, Kafd, Cafd, &zdd);
    EXPECT_LT(relativeError(Ka, Kafd), 1e-6) << name;
    EXPECT_LT(relativeError(Ca, C), 1e-12) << name;  // M^d does not depend on ż
    EXPECT_GT((Ka - K).cwiseAbs().maxCoeff(), 1e-6 * K.cwiseAbs().maxCoeff()) << name;
    {
      Eigen::MatrixXd Md;
      Eigen::VectorXd Qd;
      massAndForces(tree, c->z, c->zd, t, Md, Qd);
      GeneralizedForces<double> residual(tree);
      Eigen::VectorXd r(n);
      residual(c->z.data(), c->zd.data(), t, r.data(), zdd.data());
      EXPECT_LT((r - (Qd - Md * zdd)).cwiseAbs().maxCoeff(), 1e-11 * std::max(1.0, Qd.cwiseAbs().maxCoeff())) << name;
    }
    // the value part of the AD pass is Q^d itself
    Eigen::MatrixXd Md;
    Eigen::VectorXd Qd;
    massAndForces(tree, c->z, c->zd, t, Md, Qd);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(Q[static_cast<std::size_t>(i)].real(), Qd[i], 1e-12 * std::max(1.0, Qd.cwiseAbs().maxCoeff()));
  }
}

TEST(ForceJacobian, SparseADEqualsDenseADAndThePatternHoldsEveryNonzero) {
  for (const auto& [name, mech] : models()) {
    const auto c = movingState(mech);
    const RecursiveModel& tree = c->model.tree;
    const int n = tree.nz;
    Eigen::MatrixXd K, C, Ks, Cs;
    ForceJacobian(tree, TangentMethod::DenseAD).compute(c->z, c->zd, 0.37, K, C);
    ForceJacobian sparse(tree, TangentMethod::SparseAD);
    sparse.compute(c->z, c->zd, 0.37, Ks, Cs);
    EXPECT_LT(relativeError(Ks, K), 1e-13) << name;
    EXPECT_LT(relativeError(Cs, C), 1e-13) << name;
    // every numeric nonzero is in the structural pattern
    const auto& pattern = sparse.pattern();
    ASSERT_EQ(static_cast<int>(pattern.size()), n);
    std::size_t maxRow = 0;
    for (int i = 0; i < n; ++i) {
      const auto& row = pattern[static_cast<std::size_t>(i)];
      maxRow = std::max(maxRow, row.size());
      for (int j = 0; j < 2 * n; ++j) {
        const double v = j < n ? K(i, j) : C(i, j - n);
        if (v != 0) {
          EXPECT_TRUE(std::binary_search(row.begin(), row.end(), j)) << name << " (" << i << ", " << j << ") = " << v;
        }
      }
    }
    // a valid colouring needs at least a row's count of colours, and no more than the columns
    EXPECT_GE(sparse.colours(), static_cast<int>(maxRow)) << name;
    EXPECT_LE(sparse.colours(), 2 * n) << name;
  }
}

TEST(ForceJacobian, GridColoursDoNotGrowWithTheNumberOfRows) {
  // seed 004 §6.5: the colour count is bounded by the largest chain with its attached bodies, so
  // it stays the same from 1×15 to 7×15 while the columns grow with the grid
  std::vector<int> colours;
  for (int rows : {1, 4, 7}) {
    Diagnostics d;
    const ResolvedMechanism r = *resolve(generate::grid(rows, 15), d);
    const MatrixRModel m = compileMatrixR(r);
    ForceJacobian sparse(m.tree, TangentMethod::SparseAD);
    colours.push_back(sparse.colours());
    EXPECT_LT(sparse.colours(), 2 * m.tree.nz) << rows << "x15";
    RecordProperty("colours_" + std::to_string(rows) + "x15", sparse.colours());
    RecordProperty("columns_" + std::to_string(rows) + "x15", 2 * m.tree.nz);
  }
  EXPECT_EQ(colours[0], colours[1]);
  EXPECT_EQ(colours[1], colours[2]);
}

TEST(ForceJacobian, EveryTangentGivesTheSamePenaltyMotion) {
  const Mechanism mech = test::withEveryForce(test::sampleMechanism("four-bar-free"));
  Diagnostics d;
  const ResolvedMechanism r = *resolve(mech, d);
  std::vector<analysis::SimulationResult> runs;
  for (TangentMethod t : {TangentMethod::CentralDifferences, TangentMethod::DenseAD, TangentMethod::SparseAD}) {
    analysis::SimulationSpec spec;
    spec.formulation = analysis::Formulation::Penalty;
    spec.tEnd = 0.3;
    spec.dt = 1e-3;
    spec.tangent = t;
    runs.push_back(analysis::runSimulation(r, spec));
    ASSERT_TRUE(runs.back().status.ok()) << tangentMethodName(t) << ": " << runs.back().status.message;
  }
  for (std::size_t k = 1; k < runs.size(); ++k) {
    ASSERT_EQ(runs[k].values.size(), runs[0].values.size());
    double worst = 0;
    for (std::size_t i = 0; i < runs[0].values.size(); ++i)
      worst = std::max(worst, std::abs(runs[k].values[i] - runs[0].values[i]) / std::max(1.0, std::abs(runs[0].values[i])));
    EXPECT_LT(worst, 1e-7) << k;
  }
}

TEST(ForceJacobian, MethodNamesRoundTrip) {
  for (TangentMethod t : {TangentMethod::CentralDifferences, TangentMethod::DenseAD, TangentMethod::SparseAD}) {
    TangentMethod back{};
    ASSERT_TRUE(parseTangentMethod(tangentMethodName(t), back));
    EXPECT_EQ(back, t);
  }
  TangentMethod x{};
  EXPECT_FALSE(parseTangentMethod("forward", x));
}

}  // namespace
}  // namespace lw::dyn

namespace lw::dyn {
namespace {

TEST(GeneralizedForces, NumbersOtherThanTheModelsOwnAreUsedWithAndWithoutAccelerations) {
  // the plain forces of a state share the model's frames; numbers of another design (a
  // semi-analytical partial's moved ones) must not: with z̈ = 0 given or not, the same Q^d, and
  // not the model's own
  const Mechanism m = test::sampleMechanism("five-bar");
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r);
  const MatrixRModel model = compileMatrixR(*r);
  std::vector<double> values(r->parameters->values().begin(), r->parameters->values().end());
  const int k = r->parameters->find("L_A1");
  ASSERT_GE(k, 0);
  values[static_cast<std::size_t>(k)] *= 1.2;
  const TreeNumbers<double> moved = treeNumbers<double>(model.tree, numbersOn<double>(m, *r, std::span<const double>(values)));
  const Eigen::VectorXd z = model.tree.z0, zd = Eigen::VectorXd::Constant(model.tree.nz, 0.3), zero = Eigen::VectorXd::Zero(model.tree.nz);
  Eigen::VectorXd plain(model.tree.nz), withZero(model.tree.nz), own(model.tree.nz);
  GeneralizedForces<double, double> forces(model.tree, moved), ownForces(model.tree);
  forces(z.data(), zd.data(), 0.0, plain.data());
  forces(z.data(), zd.data(), 0.0, withZero.data(), zero.data());
  ownForces(z.data(), zd.data(), 0.0, own.data());
  EXPECT_LT((plain - withZero).cwiseAbs().maxCoeff(), 1e-12 * (1 + withZero.cwiseAbs().maxCoeff()));
  EXPECT_GT((plain - own).cwiseAbs().maxCoeff(), 1e-3 * own.cwiseAbs().maxCoeff()) << "a 20 % longer link changes the forces";
}

TEST(GeneralizedForces, MassTimesIsTheMassMatrixAndTheInverseDynamicsDifference) {
  // M^d v three ways: massTimes after one evaluation, the composite-rigid-body M^d (massMatrix),
  // and the residual's difference Q(z̈ = 0) − Q(z̈ = v); quaternions, free bodies, planar and
  // spatial, every force element (which must not enter M^d v)
  for (const auto& [name, mech] : models()) {
    const auto c = movingState(mech);
    const RecursiveModel& tree = c->model.tree;
    Eigen::MatrixXd Md;
    RecursiveData kd;
    massMatrix(tree, kd, c->z, Md);
    GeneralizedForces<double> forces(tree);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(tree.nz);
    Eigen::VectorXd Q0(tree.nz), Qv(tree.nz), Mv(tree.nz);
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(tree.nz, -1.0 + trial, 2.0 - 0.7 * trial);
      forces(c->z.data(), c->zd.data(), 0.3, Q0.data(), zero.data());
      forces(c->z.data(), c->zd.data(), 0.3, Qv.data(), v.data());
      forces.massTimes(v.data(), Mv.data());
      const double scale = std::max(1.0, (Md * v).cwiseAbs().maxCoeff());
      EXPECT_LT((Mv - Md * v).cwiseAbs().maxCoeff(), 1e-12 * scale) << name;
      EXPECT_LT((Mv - (Q0 - Qv)).cwiseAbs().maxCoeff(), 1e-11 * scale) << name;
    }
    // on dual numbers: the derivative parts are those of M^d(z) v along a direction of z
    using D = num::Dual<kForceChunk>;
    GeneralizedForces<D> dual(tree);
    std::vector<D> z(static_cast<std::size_t>(tree.nz)), zd(z.size()), v(z.size()), out(z.size()), zeroD(z.size(), D(0.0));
    const Eigen::VectorXd dir = Eigen::VectorXd::LinSpaced(tree.nz, 0.5, -0.25), vv = Eigen::VectorXd::Constant(tree.nz, 0.7);
    for (int i = 0; i < tree.nz; ++i) {
      z[static_cast<std::size_t>(i)] = D(c->z[i]);
      z[static_cast<std::size_t>(i)].g[0] = dir[i];
      zd[static_cast<std::size_t>(i)] = D(c->zd[i]);
      v[static_cast<std::size_t>(i)] = D(vv[i]);
    }
    std::vector<D> q(z.size());
    dual(z.data(), zd.data(), 0.3, q.data(), zeroD.data());
    dual.massTimes(v.data(), out.data());
    const double h = 1e-6;
    Eigen::MatrixXd Mp, Mm;
    massMatrix(tree, kd, c->z + h * dir, Mp);
    massMatrix(tree, kd, c->z - h * dir, Mm);
    const Eigen::VectorXd slope = (Mp - Mm) * vv / (2 * h);
    for (int i = 0; i < tree.nz; ++i)
      EXPECT_NEAR(out[static_cast<std::size_t>(i)].g[0], slope[i], 1e-6 * std::max(1.0, slope.cwiseAbs().maxCoeff())) << name;
  }
}

}  // namespace
}  // namespace lw::dyn
