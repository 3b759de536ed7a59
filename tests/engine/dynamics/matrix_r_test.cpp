// Matrix R: the recursive M^d and Q^d equal R^vᵀ M^v R^v and R^vᵀ(Q^v − M^v Ṙ^v ż) formed
// explicitly; R^Φ satisfies its defining identities; an open double pendulum matches Lagrange's
// equations; energy is conserved with O(h²) drift; trapezoidal and RK45 agree; the benchmark
// energies of seed 004 are reproduced.
#include "dynamics/matrix_r.h"
#include "dynamics/penalty.h"

#include <gtest/gtest.h>

#include <set>

#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <numbers>
#include <random>

#include "simulation/simulation_run.h"
#include "io/mechanism_io.h"
#include "mechanism/generators.h"
#include "support/numeric.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

using test::Loaded;
std::unique_ptr<Loaded> sample(const std::string& name) { return test::loaded(test::sampleMechanism(name)); }
std::unique_ptr<Loaded> fromText(const std::string& text) { return test::loadedFromText(text); }

TEST(MatrixR, RecursiveMassMatrixEqualsExplicitProduct) {
  RecursiveData kd;
  for (const char* name : {"spatial-four-bar-swing", "four-bar-free", "ten-bar-chain", "rssr", "buggy"}) {
    const auto l = sample(name);
    const MatrixRModel m = compileMatrixR(l->resolved);
    MatrixRData d(m);
    ASSERT_TRUE(initialState(m, d).ok()) << name;
    d.zd = Eigen::VectorXd::LinSpaced(m.tree.nz, 0.3, -0.7);  // any velocities
    recursiveMassAndForces(m, d, 0.2);
    // explicit: R^v column j = body velocities for ż = e_j
    const auto nb = static_cast<Eigen::Index>(l->resolved.bodies.size());
    Eigen::MatrixXd Rv(6 * nb, m.tree.nz), Mv = Eigen::MatrixXd::Zero(6 * nb, 6 * nb);
    Eigen::VectorXd V, Vd0;
    for (int j = 0; j < m.tree.nz; ++j) {
      Eigen::VectorXd e = Eigen::VectorXd::Zero(m.tree.nz);
      e[j] = 1;
      bodyVelocities(m.tree, kd, d.z, e, V, Vd0);
      Rv.col(j) = V;
    }
    std::vector<Pose3<double>> poses;
    bodyPoses(m.tree, kd, d.z, poses);
    for (Eigen::Index b = 1; b < nb; ++b) {
      const auto& body = l->resolved.bodies[static_cast<std::size_t>(b)];
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(poses[static_cast<std::size_t>(b)].R);
      Mv.block<3, 3>(6 * b, 6 * b) = body.mass * Eigen::Matrix3d::Identity();
      Mv.block<3, 3>(6 * b + 3, 6 * b + 3) = R * body.inertia * R.transpose();
      if (m.tree.dimension == 2) Mv(6 * b + 5, 6 * b + 5) = body.inertia(2, 2);
    }
    const Eigen::MatrixXd Md = Rv.transpose() * Mv * Rv;
    EXPECT_LT((d.Md - Md).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, Md.cwiseAbs().maxCoeff())) << name;
    Eigen::VectorXd Qv;
    bodyForces(m.tree, d.z, d.zd, 0.2, Qv);
    bodyVelocities(m.tree, kd, d.z, d.zd, V, Vd0);
    const Eigen::VectorXd Qd = Rv.transpose() * (Qv - Mv * Vd0);
    EXPECT_LT((d.Qd - Qd).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, Qd.cwiseAbs().maxCoeff())) << name;
  }
}

// The independent loop rows are chosen among the nonzero rows only (a planar grid drawn in 3D has
// 3 of every cut joint's 5 rows zero); the choice is the column-pivoted QR's over all rows
TEST(MatrixR, RowChoiceLeavesOutOnlyZeroRows) {
  RecursiveData kd;
  for (const char* name : {"grid-1x15", "five-bar", "spatial-four-bar", "rssr", "buggy"}) {
    const auto l = sample(name);
    const MatrixRModel m = compileMatrixR(l->resolved);
    Eigen::MatrixXd J;
    loopJacobian(m.tree, kd, m.tree.z0, 0.0, J);
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J.cols(), J.rows());
    qr.setThreshold(1e-9);
    qr.compute(J.transpose());
    std::vector<int> all(qr.colsPermutation().indices().data(), qr.colsPermutation().indices().data() + qr.rank());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(m.rows, all) << name;
    // the mobility: the rank of the rows of the loops (drivers left out), over all of them
    Eigen::MatrixXd loops(0, J.cols());
    for (const LoopConstraint& c : m.tree.constraints)
      if (c.kind != LoopConstraint::Kind::Driver) {
        loops.conservativeResize(loops.rows() + c.rows, Eigen::NoChange);
        loops.bottomRows(c.rows) = J.middleRows(c.row, c.rows);
      }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> loopQr(loops);
    loopQr.setThreshold(1e-9);
    EXPECT_EQ(loopMobility(m.tree, kd, m.tree.z0), m.tree.nz - (loops.rows() > 0 ? loopQr.rank() : 0)) << name;
  }
  const auto grid = sample("grid-1x15");
  const MatrixRModel m = compileMatrixR(grid->resolved);
  Eigen::MatrixXd J;
  loopJacobian(m.tree, kd, m.tree.z0, 0.0, J);
  EXPECT_EQ(nonzeroRows(J, 0, static_cast<int>(J.rows())).size(), 2u * 15u);  // 15 cut joints, 2 in-plane rows each
  EXPECT_EQ(m.rows.size(), 30u);
}

// evaluate() accumulates M̄ = R^Φᵀ M^d R^Φ and M^d a down and up the tree without M^d: they equal
// the products with the recursive M^d (itself checked against R^vᵀ M^v R^v above), on trees with
// revolute, quaternion and free-body nodes, planar and spatial, one or many independent coordinates
TEST(MatrixR, ReducedMassMatrixEqualsProductWithMd) {
  for (const char* name : {"five-bar", "spatial-four-bar-swing", "four-bar-free", "ten-bar-chain", "rssr", "buggy", "grid-1x15"}) {
    const auto l = sample(name);
    const MatrixRModel m = compileMatrixR(l->resolved);
    MatrixRData d(m);
    ASSERT_TRUE(initialState(m, d).ok()) << name;
    const Eigen::VectorXd zid = Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(d.dofs.size()), 0.4, -0.6);
    ASSERT_TRUE(evaluate(m, d, 0.01, d.zi, zid).ok()) << name;
    const Eigen::MatrixXd Mbar = d.Mbar;
    const Eigen::VectorXd Qbar = d.Qbar;
    ASSERT_GT(Mbar.rows(), 0) << name;
    recursiveMassAndForces(m, d, 0.01);
    const Eigen::MatrixXd expected = d.R.transpose() * d.Md * d.R;
    const Eigen::VectorXd expectedQ = d.R.transpose() * (d.Qd - d.Md * d.a);
    // relative to the terms summed (the RSSR's only free motion is the coupler's spin, of ~0 inertia)
    const double scale = d.Md.cwiseAbs().maxCoeff() * d.R.cwiseAbs().maxCoeff() * d.R.cwiseAbs().maxCoeff();
    EXPECT_LT((Mbar - expected).cwiseAbs().maxCoeff(), 1e-12 * scale) << name;
    EXPECT_LT((Qbar - expectedQ).cwiseAbs().maxCoeff(), 1e-10 * std::max(1.0, expectedQ.cwiseAbs().maxCoeff())) << name;
  }
}

TEST(MatrixR, ProjectionIdentities) {
  RecursiveData kd;
  const auto l = sample("spatial-four-bar-swing");
  const MatrixRModel m = compileMatrixR(l->resolved);
  MatrixRData d(m);
  ASSERT_TRUE(initialState(m, d).ok());
  Eigen::MatrixXd J;
  loopJacobian(m.tree, kd, d.z, d.t, J);
  EXPECT_LT((J * d.R).cwiseAbs().maxCoeff(), 1e-12);  // Φ_z R^Φ = 0
  for (std::size_t k = 0; k < d.dofs.size(); ++k)   // B R^Φ = I
    EXPECT_NEAR(d.R(d.dofs[k].z, static_cast<Eigen::Index>(k)), 1.0, 1e-12);
  EXPECT_EQ(d.dofs.size(), 1u);
}

// the same on a grid, where Θ_z is sparse: R^Φ from KLU's factors, the right-hand sides as rows
TEST(MatrixR, ProjectionIdentitiesWithSparseTheta) {
  RecursiveData kd;
  Diagnostics diag;
  const auto res = resolve(generate::grid(4, 15), diag);
  ASSERT_TRUE(res.has_value());
  const MatrixRModel m = compileMatrixR(*res);
  ASSERT_TRUE(m.sparseTheta);
  MatrixRData d(m);
  ASSERT_TRUE(initialState(m, d).ok());
  const Eigen::VectorXd zid = Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(d.dofs.size()), 0.4, -0.6);
  ASSERT_TRUE(evaluate(m, d, 0.01, d.zi, zid).ok());
  Eigen::MatrixXd J;
  loopJacobian(m.tree, kd, d.z, d.t, J);
  EXPECT_LT((J * d.R).cwiseAbs().maxCoeff(), 1e-12);  // Φ_z R^Φ = 0
  ASSERT_EQ(d.dofs.size(), 15u);
  for (std::size_t k = 0; k < d.dofs.size(); ++k)  // B R^Φ = I
    for (std::size_t j = 0; j < d.dofs.size(); ++j)
      EXPECT_NEAR(d.R(d.dofs[k].z, static_cast<Eigen::Index>(j)), k == j ? 1.0 : 0.0, 1e-12);
}

// open double pendulum in the plane: two bars pinned in series, released from an angle
const char* kDoublePendulum = R"({"format": "linkwright-mechanism", "version": 1, "name": "double pendulum",
  "dimension": 2, "gravity": [0, -9.81],
  "ground": {"points": {"O": [0, 0]}},
  "bodies": [
    {"name": "a", "angle": -0.5, "mass": 2, "com": [0.5, 0], "inertia": 0.1, "points": {"O": [0, 0], "P": [1, 0]}},
    {"name": "b", "position": [0.8775825618903728, -0.479425538604203], "angle": 0.3, "mass": 1.5, "com": [0.4, 0],
     "inertia": 0.05, "points": {"P": [0, 0], "Q": [0.8, 0]}}],
  "joints": [{"name": "O", "type": "pin", "points": ["ground.O", "a.O"]},
             {"name": "P", "type": "pin", "points": ["a.P", "b.P"]}],
  "initial_velocities": [{"joint": "O", "value": 1.2}, {"joint": "P", "value": -0.4}]})";

TEST(MatrixR, OpenDoublePendulumMatchesLagrange) {
  const auto l = fromText(kDoublePendulum);
  const MatrixRModel m = compileMatrixR(l->resolved);
  MatrixRData d(m);
  ASSERT_TRUE(initialState(m, d).ok());
  ASSERT_EQ(d.dofs.size(), 2u);
  // absolute angles φ1 = −0.5 + z1, φ2 = φ1 + 0.8 + z2 (bar b starts at 0.3 absolute)
  const double m1 = 2, m2 = 1.5, c1 = 0.5, c2 = 0.4, I1 = 0.1, I2 = 0.05, L1 = 1, g = 9.81;
  const double p1 = -0.5 + d.z[0], p2 = 0.3 + d.z[0] + d.z[1];
  const double w1 = d.zd[0], w2 = d.zd[0] + d.zd[1];
  // Lagrange in absolute angles: M(φ) φ̈ = f
  Eigen::Matrix2d M;
  M << m1 * c1 * c1 + I1 + m2 * L1 * L1, m2 * L1 * c2 * std::cos(p1 - p2),
       m2 * L1 * c2 * std::cos(p1 - p2), m2 * c2 * c2 + I2;
  const Eigen::Vector2d f(-m2 * L1 * c2 * std::sin(p1 - p2) * w2 * w2 - (m1 * c1 + m2 * L1) * g * std::cos(p1),
                          m2 * L1 * c2 * std::sin(p1 - p2) * w1 * w1 - m2 * c2 * g * std::cos(p2));
  const Eigen::Vector2d acc = M.lu().solve(f);
  EXPECT_TRUE(test::near(d.zdd[0], acc[0], 1e-10, 1e-10));
  EXPECT_TRUE(test::near(d.zdd[0] + d.zdd[1], acc[1], 1e-10, 1e-10));
}

double energyDrift(const std::string& name, analysis::Integrator integ, double dt, double tEnd) {
  const auto l = sample(name);
  analysis::SimulationSpec spec;
  spec.integrator = integ;
  spec.dt = dt;
  spec.tEnd = tEnd;
  spec.tol = 1e-10;
  const auto r = analysis::runSimulation(l->resolved, spec);
  EXPECT_TRUE(r.status.ok()) << r.status.message;
  const std::size_t n = r.columns.size();
  const auto col = static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), "energy.total") - r.columns.begin());
  double lo = 1e300, hi = -1e300;
  for (std::size_t i = 0; i < r.rows(); ++i) {
    lo = std::min(lo, r.values[i * n + col]);
    hi = std::max(hi, r.values[i * n + col]);
  }
  return hi - lo;
}

TEST(MatrixR, EnergyIsConservedWithSecondOrderDrift) {
  // the free four-bar of benchmark-mechanisms.md turns fully: E0 = 141.128 J
  const double coarse = energyDrift("four-bar-free", analysis::Integrator::Trapezoidal, 4e-3, 0.8);
  const double fine = energyDrift("four-bar-free", analysis::Integrator::Trapezoidal, 2e-3, 0.8);
  EXPECT_GT(coarse / fine, 3.0) << coarse << " vs " << fine;  // O(h²): ratio 4
  EXPECT_LT(coarse / fine, 5.5) << coarse << " vs " << fine;
  EXPECT_LT(energyDrift("four-bar-free", analysis::Integrator::RK45, 0.01, 0.8), 1e-6);
}

TEST(MatrixR, BenchmarkInitialEnergies) {
  auto e0 = [](const Mechanism& mech) {
    Diagnostics d;
    const auto res = resolve(mech, d);
    const MatrixRModel m = compileMatrixR(*res);
    MatrixRData data(m);
    EXPECT_TRUE(initialState(m, data).ok());
    return energy(m, data).total();
  };
  EXPECT_NEAR(e0(sample("four-bar-free")->mechanism), 141.128, 1e-3);      // benchmark-mechanisms.md
  EXPECT_NEAR(e0(sample("grid-1x15")->mechanism), -1470.8433689, 1e-6);
  EXPECT_NEAR(e0(generate::grid(4, 15)), -4423.0493008, 1e-6);
  EXPECT_NEAR(e0(sample("spatial-four-bar")->mechanism) + 14.2876151, 0, 1e-6);
}

TEST(MatrixR, TrapezoidalAndRungeKuttaAgree) {
  const auto l = sample("spatial-four-bar-swing");
  analysis::SimulationSpec a, b;
  a.tEnd = b.tEnd = 1;
  a.dt = 5e-4;
  b.dt = 0.01;
  b.integrator = analysis::Integrator::RK45;
  b.tol = 1e-10;
  const auto ra = analysis::runSimulation(l->resolved, a), rb = analysis::runSimulation(l->resolved, b);
  ASSERT_TRUE(ra.status.ok() && rb.status.ok());
  const std::size_t n = ra.columns.size();
  // the independent coordinate at t = 1 (the last row of each)
  EXPECT_NEAR(ra.values[(ra.rows() - 1) * n + 1], rb.values[(rb.rows() - 1) * n + 1], 1e-5);
}

TEST(MatrixR, TheFilesIndependentCoordinatesNameTheColumns) {
  const auto l = sample("five-bar");
  analysis::SimulationSpec spec;
  spec.tEnd = 0.01;
  const auto r = analysis::runSimulation(l->resolved, spec);
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.columns[1], "dof.bar_12.P2.x");  // the file's independent coordinates
  EXPECT_EQ(r.columns[2], "dof.bar_12.P2.y");
  // every column name is unique (a plot's legend listed bar_12.P2.x twice)
  std::set<std::string> unique(r.columns.begin(), r.columns.end());
  EXPECT_EQ(unique.size(), r.columns.size());
}

}  // namespace
}  // namespace lw::dyn

namespace lw::dyn {
namespace {

// seed 004's grids swing through a flat-parallelogram position near t = 1.5 s, where the loops
// turn singular whatever the choice of independent coordinates: Matrix R keeps its choice through
// it (a new one would be no better conditioned) and stays on the parallelogram branch (every
// horizontal bar keeps translating).
TEST(MatrixR, GridPassesTheFlatParallelogramOnItsBranch) {
  const auto l = sample("grid-1x15");
  analysis::SimulationSpec spec;
  spec.tEnd = 2.0;
  spec.dt = 2e-3;
  const auto r = analysis::runSimulation(l->resolved, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_EQ(r.dofSwitches, 0);
  const std::size_t n = r.columns.size();
  auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), name) - r.columns.begin());
  };
  const std::size_t ly = col("h_0_15.left.y"), lz = col("h_0_15.left.z"), ry = col("h_0_15.right.y"), rz = col("h_0_15.right.z");
  const std::size_t e = col("energy.total");
  ASSERT_LT(ry, n);
  for (std::size_t i = 0; i < r.rows(); ++i) {
    const double* row = &r.values[i * n];
    EXPECT_NEAR(row[ry] - row[ly], 1.0, 1e-6) << "t = " << row[0];  // the bottom bar stays horizontal
    EXPECT_NEAR(row[rz] - row[lz], 0.0, 1e-6) << "t = " << row[0];
    EXPECT_NEAR(row[e], -1470.8433689, 0.05) << "t = " << row[0];
  }
}

// seed 004's grids swing through flat-parallelogram (singular) positions at about t = 1.5 s: both
// formulations must stay on the parallelogram branch (every horizontal bar stays horizontal and
// 1 m long) with the energy kept; Matrix R switches its independent coordinates there
void expectGridStaysOnItsBranch(int columns, analysis::Formulation formulation, double E0) {
  Diagnostics d;
  const auto res = resolve(generate::grid(columns, 15), d);
  ASSERT_TRUE(res.has_value());
  analysis::SimulationSpec spec;
  spec.formulation = formulation;
  spec.tEnd = 2.0;
  spec.dt = 2e-3;
  const auto r = analysis::runSimulation(*res, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  const bool matrixR = formulation == analysis::Formulation::MatrixR;
  if (matrixR) {
    EXPECT_GE(r.dofSwitches, 1);
  }
  const std::size_t n = r.columns.size();
  double worst = 0, energy = 0;
  int bars = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const std::string& name = r.columns[c];
    if (name.rfind("h_", 0) != 0 || name.size() < 7 || name.substr(name.size() - 7) != ".left.y") continue;
    const std::string bar = name.substr(0, name.size() - 7);
    const auto at = [&](const std::string& k) { return static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), bar + k) - r.columns.begin()); };
    const std::size_t ly = c, lz = at(".left.z"), ry = at(".right.y"), rz = at(".right.z");
    ASSERT_LT(rz, n);
    ++bars;
    for (std::size_t i = 0; i < r.rows(); ++i) {
      const double* row = &r.values[i * n];
      worst = std::max({worst, std::abs(row[ry] - row[ly] - 1.0), std::abs(row[rz] - row[lz])});
    }
  }
  const std::size_t e = static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), "energy.total") - r.columns.begin());
  for (std::size_t i = 0; i < r.rows(); ++i) energy = std::max(energy, std::abs(r.values[i * n + e] - E0));
  EXPECT_EQ(bars, 15 * columns);
  // the penalty closes loops only to force/α (about 1e-4 m here); a wrong branch would be metres off
  EXPECT_LT(worst, matrixR ? 1e-6 : 1e-3) << columns << "x15";
  EXPECT_LT(energy, 0.05) << columns << "x15";
}

// large trees factorise Θ_z with KLU on a pattern built from the tree: any entry missing from the
// pattern would change the answers, so sparse and dense must agree on every output of evaluate()
TEST(MatrixR, SparseAndDenseThetaGiveTheSameEvaluation) {
  Diagnostics diag;
  const auto res = resolve(generate::grid(2, 15), diag);
  ASSERT_TRUE(res.has_value());
  MatrixRModel sparse = compileMatrixR(*res);
  ASSERT_TRUE(sparse.sparseTheta);  // chosen for this size
  MatrixRModel dense = sparse;
  dense.sparseTheta = false;
  MatrixRData ds(sparse), dd(dense);
  ASSERT_TRUE(initialState(sparse, ds).ok());
  ASSERT_TRUE(initialState(dense, dd).ok());
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  Eigen::VectorXd zi = ds.zi, zid = ds.zid;
  for (int k = 0; k < 5; ++k) {
    for (Eigen::Index i = 0; i < zi.size(); ++i) zi[i] += u(rng), zid[i] += 10 * u(rng);
    ASSERT_TRUE(evaluate(sparse, ds, 0.1 * k, zi, zid).ok());
    ASSERT_TRUE(evaluate(dense, dd, 0.1 * k, zi, zid).ok());
    EXPECT_LT((ds.z - dd.z).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((ds.zd - dd.zd).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((ds.R - dd.R).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((ds.zdd - dd.zdd).cwiseAbs().maxCoeff(), 1e-8 * (1 + dd.zdd.cwiseAbs().maxCoeff()));
    // KLU's pivot ratio (an overestimate) while well conditioned, the 1-norm estimate below 1e-2
    EXPECT_GT(ds.rcond, dd.rcond / 10);
    if (ds.rcond < 1e-2) {
      EXPECT_LT(ds.rcond, dd.rcond * 10);
    }
  }
}

TEST(MatrixR, Grids4x15And7x15PassTheFlatParallelogramOnTheirBranch) {
  expectGridStaysOnItsBranch(4, analysis::Formulation::MatrixR, -4423.0493008);
  expectGridStaysOnItsBranch(7, analysis::Formulation::MatrixR, -7375.254);
}

// Through the flat parallelograms Φ_z itself nearly loses rank: no choice of independent
// coordinates is well conditioned for a few steps, and a new choice at every step of it (a QR and
// the integrator's tangent each) cost a fifth of the run at 1 ms. A few changes are enough.
TEST(MatrixR, ASingularPassageChangesTheChoiceAFewTimesNotAtEveryStep) {
  Diagnostics d;
  const auto res = resolve(generate::grid(4, 15), d);
  ASSERT_TRUE(res.has_value());
  analysis::SimulationSpec spec;
  spec.tEnd = 2.0;
  spec.dt = 1e-3;
  spec.outputDt = 0.1;
  const auto r = analysis::runSimulation(*res, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_GE(r.dofSwitches, 1);
  EXPECT_LE(r.dofSwitches, 8);
  const auto e = static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), "energy.total") - r.columns.begin());
  for (std::size_t i = 0; i < r.rows(); ++i) EXPECT_NEAR(r.values[i * r.columns.size() + e], -4423.0493008, 0.01) << "row " << i;
}

TEST(Penalty, GridsPassTheFlatParallelogramOnTheirBranch) {
  expectGridStaysOnItsBranch(1, analysis::Formulation::Penalty, -1470.8433689);
  expectGridStaysOnItsBranch(4, analysis::Formulation::Penalty, -4423.0493008);
}

// K and C only shape the penalty Newton iteration (its residual is exact): kept across steps while
// it converges fast, they give the same motion as a tangent at every step, for a twentieth of the
// tangents (issue 19: 5000 tangents in 5000 steps made the penalty formulation 23–28 times Matrix
// R per step on the grids)
TEST(Penalty, KeepsItsTangentAcrossStepsWithoutChangingTheMotion) {
  for (const char* name : {"grid-1x15", "spatial-four-bar-swing", "buggy"}) {
    const auto l = sample(name);
    const MatrixRModel model = compileMatrixR(l->resolved);
    MatrixRData start(model);
    ASSERT_TRUE(initialState(model, start).ok());
    PenaltyOptions every, kept;
    every.maxTangentAge = 0;  // a tangent at every step, as before
    PenaltyData a(model.tree, every), b(model.tree, kept);
    for (PenaltyData* d : {&a, &b}) {
      d->z = start.z;
      d->zd = start.zd;
      ASSERT_TRUE(penaltyStart(model.tree, *d, 0).ok());
      for (int k = 0; k < 500; ++k) ASSERT_TRUE(penaltyStep(model.tree, *d, 1e-3).ok()) << name << " step " << k;
    }
    EXPECT_GE(a.jacobians, 500) << name;
    EXPECT_LE(b.jacobians, 30) << name;
    EXPECT_LT((a.z - b.z).cwiseAbs().maxCoeff(), 1e-7) << name;  // the step's own error is ~1e-5
    EXPECT_LT((a.zd - b.zd).cwiseAbs().maxCoeff(), 1e-5) << name;
  }
}

// The trapezoidal rule's Newton matrix from the derivative kernels (f_x, f_v by
// MatrixRTangent::stateJacobians), not n + 1 evaluations of differences: on the buggy at 10 ms
// steps (stiff tyres, a tangent now and then) every tangent is the exact one and the steps take
// fewer evaluations (489 with differences over 3 s, 414 exact; a wrong matrix converges slower)
TEST(MatrixR, TrapezoidalNewtonMatrixIsTheKernelsExactTangent) {
  const auto buggy = sample("buggy");
  analysis::SimulationSpec spec;
  spec.tEnd = 3;
  spec.dt = 0.01;
  const auto r = analysis::runSimulation(buggy->resolved, spec);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  EXPECT_GT(r.tangents, 0);
  EXPECT_EQ(r.exactTangents, r.tangents);
  EXPECT_LE(r.evaluations, 1.45 * static_cast<double>(r.steps));
}

TEST(MatrixR, DivergingSimulationStopsWithTimeAndCause) {
  // a stiff spring with a huge step: the trapezoidal Newton iteration cannot follow
  auto l = fromText(kDoublePendulum);
  Mechanism m = l->mechanism;
  Force spring;
  spring.name = "stiff";
  spring.type = Force::Type::Spring;
  spring.points[0] = {"ground", "O"};
  spring.points[1] = {"b", "Q"};
  spring.stiffness = 1e9;
  m.forces.push_back(spring);
  Diagnostics d;
  const auto res = resolve(m, d);
  analysis::SimulationSpec spec;
  spec.tEnd = 1;
  spec.dt = 0.1;
  const auto r = analysis::runSimulation(*res, spec);
  // (with the exact Newton matrix the iteration converges longer and the run leaves its branch:
  // either way it stops, saying when and why)
  ASSERT_FALSE(r.status.ok());
  EXPECT_GT(r.status.time, 0);
  EXPECT_NE(r.status.message.find("t = "), std::string::npos) << r.status.message;
}

}  // namespace
}  // namespace lw::dyn

namespace lw::dyn {
namespace {

// the two formulations on the same models: same motion, penalty loops closed to ~1e-7
TEST(Penalty, AgreesWithMatrixR) {
  // rssr: a rod with almost no spin inertia between ball joints (needs the unit-quaternion
  // stiffness in the penalty tangent); buggy: a free body with tyres
  for (const char* name : {"four-bar-free", "spatial-four-bar-swing", "rssr", "buggy"}) {
    const auto l = sample(name);
    analysis::SimulationSpec a, b;
    a.tEnd = b.tEnd = 0.5;
    a.dt = b.dt = 1e-3;
    b.formulation = analysis::Formulation::Penalty;
    const auto ra = analysis::runSimulation(l->resolved, a), rb = analysis::runSimulation(l->resolved, b);
    ASSERT_TRUE(ra.status.ok() && rb.status.ok()) << ra.status.message << rb.status.message;
    ASSERT_EQ(ra.columns, rb.columns);
    const std::size_t n = ra.columns.size();
    const auto cpos = static_cast<std::size_t>(std::find(ra.columns.begin(), ra.columns.end(), "constraint.position") - ra.columns.begin());
    for (std::size_t i = 0; i < ra.rows(); ++i) {
      for (std::size_t c = 1; c < n; ++c) {
        if (ra.columns[c].rfind("energy", 0) == 0 || ra.columns[c].rfind("constraint", 0) == 0) continue;
        // the points, not the coordinates: a rod's free spin (rssr) is hardly determined by either
        if (std::count(ra.columns[c].begin(), ra.columns[c].end(), '.') < 2) continue;
        ASSERT_NEAR(ra.values[i * n + c], rb.values[i * n + c], 1e-4) << name << " " << ra.columns[c] << " row " << i;
      }
      EXPECT_LT(rb.values[i * n + cpos], 1e-5) << name << ": penalty residual at row " << i;
    }
    EXPECT_GT(rb.tangents, 0);
  }
}

}  // namespace
}  // namespace lw::dyn

namespace lw::dyn {
namespace {

// the free four-bar of the benchmark (3D, plane XZ, hinges about −Y) and the same linkage drawn as
// a planar model (XY, pins): the same motion, (x, z) ↔ (x, y)
TEST(MatrixR, PlanarAndSpatialModelsOfOneLinkageMoveTheSame) {
  const auto l3 = sample("four-bar-free");
  Mechanism m2 = l3->mechanism;
  m2.dimension = 2;
  auto flat = [](const NumberVector& v) { return NumberVector{v[0], v[2]}; };
  m2.gravity = flat(m2.gravity);
  for (auto& p : m2.ground.points) p.value = flat(p.value);
  m2.ground.vectors.clear();
  for (auto& b : m2.bodies) {
    for (auto& p : b.points) p.value = flat(p.value);
    b.vectors.clear();
    b.com = flat(b.com);
    if (!b.position.empty()) b.position = flat(b.position);
    // the moment about the hinge axis (Y)
    const Number iyy = b.inertia.form == Inertia::Form::Full ? b.inertia.values[4] : b.inertia.values[1];
    b.inertia.form = Inertia::Form::Scalar;
    b.inertia.values = {iyy};
  }
  for (auto& j : m2.joints) {
    j.type = JointType::Pin;
    j.axes.clear();
  }
  Diagnostics d;
  const auto r2 = resolve(m2, d);
  std::string all;
  for (const auto& x : d) all += x.format() + "\n";
  ASSERT_TRUE(r2) << all;
  analysis::SimulationSpec spec;
  spec.tEnd = 0.6;
  spec.dt = 1e-3;
  const auto a = analysis::runSimulation(l3->resolved, spec), b = analysis::runSimulation(*r2, spec);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  auto col = [](const analysis::SimulationResult& r, const std::string& name) {
    return static_cast<std::size_t>(std::find(r.columns.begin(), r.columns.end(), name) - r.columns.begin());
  };
  const std::size_t na = a.columns.size(), nb = b.columns.size();
  for (const char* point : {"crank.B", "coupler.C", "rocker.C"}) {
    const std::size_t ax = col(a, std::string(point) + ".x"), az = col(a, std::string(point) + ".z");
    const std::size_t bx = col(b, std::string(point) + ".x"), by = col(b, std::string(point) + ".y");
    ASSERT_LT(ax, na);
    ASSERT_LT(bx, nb);
    for (std::size_t i = 0; i < a.rows(); ++i) {
      EXPECT_NEAR(a.values[i * na + ax], b.values[i * nb + bx], 1e-9) << point << " row " << i;
      EXPECT_NEAR(a.values[i * na + az], b.values[i * nb + by], 1e-9) << point << " row " << i;
    }
  }
}

}  // namespace
}  // namespace lw::dyn
