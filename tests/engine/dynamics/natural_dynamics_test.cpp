// The global formulations' ground work (issue 39): the natural-coordinate model's constant mass
// matrix against each body's ½ m v_c² + ½ I ω² from its points' velocities, and the index-1
// formulation's motion against Matrix R's on the same planar models.
#include "dynamics/natural_dynamics.h"
#include "dynamics/natural_tree_map.h"
#include "dynamics/matrix_r.h"
#include "dynamics/recursive_model.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <numbers>
#include <random>

#include <Eigen/QR>

#include "integrators/integrators.h"
#include "io/mechanism_io.h"
#include "simulation/simulation_run.h"
#include "support/samples.h"

namespace lw::dyn {
namespace {

struct Compiled {
  std::shared_ptr<const ResolvedMechanism> resolved;
  kin::NaturalModel model;
  NaturalInertia inertia;  // planar samples, or spatial ones with linear frames
};

Compiled compiled(const char* sample, bool linearFrames = false) {
  Diagnostics d;
  auto r = resolve(test::sampleMechanism(sample), d);
  EXPECT_TRUE(r.has_value());
  Compiled c;
  c.resolved = std::make_shared<const ResolvedMechanism>(*r);
  c.model = kin::compileNaturalModel(*c.resolved, {.linearFrames = linearFrames});
  std::string error;
  if (c.model.dimension == 2 || linearFrames) {
    EXPECT_TRUE(naturalInertia(c.model, c.inertia, error)) << error;
  }
  return c;
}

// the tip of the last body at t_end by Matrix R and RK45 at a tight tolerance (the reference)
Eigen::Vector2d matrixRTip(const Compiled& c, double tEnd) {
  analysis::SimulationSpec spec;
  spec.tEnd = tEnd;
  spec.integrator = analysis::Integrator::RK45;
  spec.tol = 1e-11;
  const analysis::SimulationResult ref = analysis::runSimulation(*c.resolved, spec);
  EXPECT_TRUE(ref.status.ok()) << ref.status.message;
  EXPECT_NEAR(ref.values[(ref.rows() - 1) * ref.columns.size()], tEnd, 1e-12);  // the last row is t_end's
  const auto& last = c.resolved->bodies.back();
  auto column = [&](const std::string& name) {
    const auto it = std::find(ref.columns.begin(), ref.columns.end(), name);
    EXPECT_NE(it, ref.columns.end()) << name;
    return ref.values[(ref.rows() - 1) * ref.columns.size() + static_cast<std::size_t>(it - ref.columns.begin())];
  };
  return {column(last.name + "." + last.pointNames[1] + ".x"), column(last.name + "." + last.pointNames[1] + ".y")};
}

// a velocity the constraints allow (Φ_q q̇ = 0): a random vector projected on Φ_q's null space
Eigen::VectorXd consistentVelocity(const kin::NaturalModel& m, std::mt19937& rng) {
  Eigen::MatrixXd J;
  kin::evaluateJacobianDense(m, m.q0, 0, J);
  std::normal_distribution<double> normal;
  Eigen::VectorXd v(m.nq);
  for (int i = 0; i < m.nq; ++i) v[i] = normal(rng);
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(J);
  return v - cod.solve(J * v);
}

TEST(NaturalDynamics, TheMassMatrixGivesEachBodysKineticEnergy) {
  std::mt19937 rng(39);
  int bodies = 0;
  for (const char* sample : {"ten-bar-chain", "five-bar", "double-pendulum-wall", "four-bar", "watt-six-bar", "jansen-leg"}) {
    const Compiled c = compiled(sample);
    const NaturalInertia& inertia = c.inertia;
    EXPECT_LT((inertia.M - inertia.M.transpose()).norm(), 1e-12 * inertia.M.norm());
    for (int trial = 0; trial < 3; ++trial) {
      const Eigen::VectorXd qd = consistentVelocity(c.model, rng);
      // each body's energy from two of its points' velocities (ω and v_c), not from the matrix
      double reference = 0;
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(c.model.nq);
      for (std::size_t b = 1; b < c.model.bodies.size(); ++b) {
        const auto& body = c.resolved->bodies[b];
        ASSERT_GE(body.points.size(), 2u) << sample << " " << body.name;
        Eigen::Vector3d p1, v1, p2, v2;
        kin::pointKinematics(c.model, static_cast<int>(b), 0, c.model.q0, qd, zero, &p1, &v1, nullptr);
        kin::pointKinematics(c.model, static_cast<int>(b), 1, c.model.q0, qd, zero, &p2, &v2, nullptr);
        const Eigen::Vector3d r = p2 - p1, dv = v2 - v1;
        const double omega = (r.x() * dv.y() - r.y() * dv.x()) / r.squaredNorm();
        const Eigen::Vector3d com = body.position + body.rotation * body.com;
        const Eigen::Vector3d vc = v1 + omega * Eigen::Vector3d(-(com - p1).y(), (com - p1).x(), 0);
        reference += 0.5 * body.mass * vc.squaredNorm() + 0.5 * body.inertia(2, 2) * omega * omega;
        ++bodies;
      }
      EXPECT_NEAR(0.5 * qd.dot(inertia.M * qd), reference, 1e-10 * std::max(1.0, reference)) << sample;
    }
  }
  EXPECT_GT(bodies, 50);
}

// spatial bodies with linear frames (a third vector each): ½ q̇ᵀ M q̇ is the tree's kinetic energy
// at the same motion (the recursive model's own bodies, through the map of coordinates)
// ½ q̇ᵀ M q̇ against the tree's kinetic energy at three velocities the constraints allow (the same
// motion through the map of coordinates); M symmetric
void expectTheTreesKineticEnergy(const ResolvedMechanism& resolved, std::mt19937& rng) {
  const auto r = std::make_shared<const ResolvedMechanism>(resolved);
  const kin::NaturalModel m = kin::compileNaturalModel(*r, {.linearFrames = true});
  const RecursiveModel tree = compileRecursiveModel(*r);
  NaturalInertia inertia;
  NaturalTreeMap map;
  std::string error;
  ASSERT_TRUE(naturalInertia(m, inertia, error)) << error;
  ASSERT_TRUE(compileNaturalTreeMap(tree, m, map, error)) << error;
  EXPECT_LT((inertia.M - inertia.M.transpose()).norm(), 1e-12 * inertia.M.norm());
  for (int trial = 0; trial < 3; ++trial) {
    const Eigen::VectorXd qd = consistentVelocity(m, rng);
    Eigen::VectorXd z = tree.z0, zd, zdd;
    treeStateOf(tree, m, m.q0, qd, Eigen::VectorXd::Zero(m.nq), z, zd, zdd);
    const double reference = energy(tree, z, zd).kinetic;
    EXPECT_GT(reference, 1e-3);
    EXPECT_NEAR(0.5 * qd.dot(inertia.M * qd), reference, 1e-9 * reference);
  }
}

TEST(NaturalDynamics, TheSpatialMassMatrixGivesTheTreesKineticEnergy) {
  std::mt19937 rng(3);
  for (const char* sample : {"spatial-four-bar", "spatial-four-bar-swing", "four-bar-free", "buggy", "grid-1x15"}) {
    SCOPED_TRACE(sample);
    Diagnostics d;
    expectTheTreesKineticEnergy(*resolve(test::sampleMechanism(sample), d), rng);
  }
}

// A rod between ball joints (the rssr's coupler) has no orientation coordinate: its mass matrix
// on its two points is its kinetic energy without spin — the tree's, with the rod's inertia about
// its line (5e-6 of its others in the sample) made exactly zero; a rod whose centre is off its
// line, or whose inertia is not symmetric about it, is refused with the reason (its spin would move
// the line).
TEST(NaturalDynamics, ARodBetweenBallJointsMovesByItsTwoPoints) {
  std::mt19937 rng(4);
  Diagnostics d;
  Mechanism rssr = test::sampleMechanism("rssr");
  rssr.drivers.clear();  // free to swing: velocities to try
  ResolvedMechanism rod = *resolve(rssr, d);
  std::size_t c = 0;
  while (rod.bodies[c].name != "coupler") ++c;
  auto& body = rod.bodies[c];
  const Eigen::Vector3d u = (body.rotation * (body.points[1] - body.points[0])).normalized();
  const Eigen::Matrix3d Ic = body.rotation * body.inertia * body.rotation.transpose();
  const double Iperp = 0.5 * (Ic.trace() - u.dot(Ic * u));
  body.inertia = body.rotation.transpose() * (Iperp * (Eigen::Matrix3d::Identity() - u * u.transpose())) * body.rotation;
  ASSERT_EQ(kin::compileNaturalModel(rod, {.linearFrames = true}).spinFreeBodies.size(), 1u);
  expectTheTreesKineticEnergy(rod, rng);
  NaturalInertia inertia;
  std::string error;
  ResolvedMechanism off = rod;
  off.bodies[c].com += 0.1 * u.unitOrthogonal();
  EXPECT_FALSE(naturalInertia(kin::compileNaturalModel(off, {.linearFrames = true}), inertia, error));
  EXPECT_NE(error.find("centre of mass is off that line"), std::string::npos) << error;
  ResolvedMechanism lopsided = rod;
  lopsided.bodies[c].inertia(0, 0) += 0.5;
  EXPECT_FALSE(naturalInertia(kin::compileNaturalModel(lopsided, {.linearFrames = true}), inertia, error));
  EXPECT_NE(error.find("not symmetric about that line"), std::string::npos) << error;
  // and a spatial model compiled for kinematics (no third vectors): its mass matrix is not constant
  const auto spatial = std::make_shared<const ResolvedMechanism>(*resolve(test::sampleMechanism("spatial-four-bar"), d));
  EXPECT_FALSE(naturalInertia(kin::compileNaturalModel(*spatial), inertia, error));
  EXPECT_NE(error.find("linear frames"), std::string::npos) << error;
}

// x'' = F(t, x, v): the index-1 formulation (or the penalty one) as the integrators' system
class Index1System final : public integ::SecondOrderSystem {
 public:
  Index1System(const kin::NaturalModel& m, const NaturalInertia& inertia, const GlobalPenalty* penalty = nullptr)
      : m_(m), inertia_(inertia), penalty_(penalty), data_(m) {}
  Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    if (penalty_) return globalPenaltyAcceleration(m_, inertia_, *penalty_, t, x, v, data_, a);
    return index1Acceleration(m_, inertia_, Baumgarte{}, t, x, v, data_, a);
  }

 private:
  const kin::NaturalModel& m_;
  const NaturalInertia& inertia_;
  const GlobalPenalty* penalty_;
  GlobalOdeData data_;
};

// the ten-bar chain falling from rest for 0.5 s: the last bar's tip where Matrix R puts it (both
// with RK45 at tight tolerances), the constraints held by the stabilisation
TEST(NaturalDynamics, TheIndex1TenBarChainFollowsMatrixR) {
  const Compiled c = compiled("ten-bar-chain");
  Index1System system(c.model, c.inertia);
  integ::State s;
  s.x = c.model.q0;
  s.v = Eigen::VectorXd::Zero(c.model.nq);
  ASSERT_TRUE(system.acceleration(0, s.x, s.v, s.a).ok());
  integ::DormandPrince rk(c.model.nq, {1e-11, 1e-13, 0});
  const double tEnd = 0.5;
  ASSERT_TRUE(rk.advance(system, s, tEnd).ok());
  const int last = static_cast<int>(c.model.bodies.size()) - 1;
  Eigen::Vector3d tip, start;
  kin::pointKinematics(c.model, last, 1, s.x, s.v, s.a, &tip, nullptr, nullptr);
  kin::pointKinematics(c.model, last, 1, c.model.q0, s.v, s.a, &start, nullptr, nullptr);
  Eigen::VectorXd phi(c.model.nrows);
  kin::evaluateConstraints(c.model, s.x, tEnd, phi);
  EXPECT_LT(phi.cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_GT((tip - start).norm(), 0.1);  // the chain has fallen a long way: the comparison means something
  EXPECT_LT((tip.head<2>() - matrixRTip(c, tEnd)).norm(), 1e-6);
}

struct Index3Run {
  Eigen::Vector2d tip;
  double energyDrift = 0;   // max |E − E0| over the steps
  double worstResidual = 0; // max over the steps of |Φ|, |Φ̇|, |Φ̈| after the projections
  int steps = 0;
};

Index3Run runIndex3(const Compiled& c, const NaturalInertia& inertia, double h, double tEnd) {
  Index3State s;
  s.q = c.model.q0;
  s.qd = Eigen::VectorXd::Zero(c.model.nq);
  EXPECT_TRUE(index3Start(c.model, inertia, Index3Options{}, s).ok());
  Index3Data d(c.model);
  auto energy = [&](const Index3State& x) { return 0.5 * x.qd.dot(inertia.M * x.qd) - inertia.gravity.dot(x.q); };
  const double e0 = energy(s);
  Index3Run run;
  Eigen::VectorXd phi(c.model.nrows), phiT(c.model.nrows), gamma(c.model.nrows);
  Eigen::MatrixXd J;
  while (s.t < tEnd - h / 2) {
    const Status st = index3Step(c.model, inertia, Index3Options{}, h, d, s);
    EXPECT_TRUE(st.ok()) << st.message;
    if (!st.ok()) break;
    ++run.steps;
    run.energyDrift = std::max(run.energyDrift, std::abs(energy(s) - e0));
    kin::evaluateConstraints(c.model, s.q, s.t, phi);
    kin::evaluateJacobianDense(c.model, s.q, s.t, J);
    kin::evaluatePhiT(c.model, s.q, s.t, phiT);
    kin::evaluateGamma(c.model, s.q, s.qd, s.t, gamma);
    run.worstResidual = std::max({run.worstResidual, phi.cwiseAbs().maxCoeff(), (J * s.qd + phiT).cwiseAbs().maxCoeff(),
                                  (J * s.qdd + gamma).cwiseAbs().maxCoeff()});
  }
  Eigen::Vector3d tip;
  kin::pointKinematics(c.model, static_cast<int>(c.model.bodies.size()) - 1, 1, s.q, s.qd, s.qdd, &tip, nullptr, nullptr);
  run.tip = tip.head<2>();
  return run;
}

// the index-3 augmented Lagrangian with projections on the ten-bar chain: second order in h
// towards Matrix R's motion, its energy drift O(h²), its constraints held to 1e-10 after every
// step's projections
TEST(NaturalDynamics, TheIndex3TenBarChainConvergesToMatrixRAtSecondOrder) {
  const Compiled c = compiled("ten-bar-chain");
  const NaturalInertia& inertia = c.inertia;
  const double tEnd = 0.5;
  const Eigen::Vector2d reference = matrixRTip(c, tEnd);
  const Index3Run coarse = runIndex3(c, inertia, 2e-3, tEnd), fine = runIndex3(c, inertia, 1e-3, tEnd);
  EXPECT_EQ(fine.steps, 500);
  const double coarseError = (coarse.tip - reference).norm(), fineError = (fine.tip - reference).norm();
  EXPECT_LT(fineError, 1e-3);
  EXPECT_NEAR(coarseError / fineError, 4, 0.8) << coarseError << " " << fineError;
  EXPECT_GT(fine.energyDrift, 0);
  EXPECT_NEAR(coarse.energyDrift / fine.energyDrift, 4, 1.2) << coarse.energyDrift << " " << fine.energyDrift;
  EXPECT_LT(fine.worstResidual, 1e-10);
  EXPECT_LT(coarse.worstResidual, 1e-10);
}

// the penalty formulation of seed 001 §3.5 on the ten-bar chain: its constraints held to O(1/α)
// (a hundred times closer for a hundred times the penalty), its motion Matrix R's
TEST(NaturalDynamics, TheGlobalPenaltyTenBarChainTendsToMatrixRAsThePenaltyGrows) {
  const Compiled c = compiled("ten-bar-chain");
  const NaturalInertia& inertia = c.inertia;
  const double tEnd = 0.5;
  const Eigen::Vector2d reference = matrixRTip(c, tEnd);
  auto run = [&](double alpha, double& residual) {
    GlobalPenalty penalty;
    penalty.alpha = alpha;
    Index1System system(c.model, inertia, &penalty);
    integ::State s;
    s.x = c.model.q0;
    s.v = Eigen::VectorXd::Zero(c.model.nq);
    s.a.resize(c.model.nq);
    EXPECT_TRUE(system.acceleration(0, s.x, s.v, s.a).ok());
    integ::DormandPrince rk(c.model.nq, {1e-10, 1e-12, 0});
    EXPECT_TRUE(rk.advance(system, s, tEnd).ok());
    Eigen::VectorXd phi(c.model.nrows);
    kin::evaluateConstraints(c.model, s.x, tEnd, phi);
    residual = phi.cwiseAbs().maxCoeff();
    Eigen::Vector3d tip;
    kin::pointKinematics(c.model, static_cast<int>(c.model.bodies.size()) - 1, 1, s.x, s.v, s.a, &tip, nullptr, nullptr);
    return (tip.head<2>() - reference).norm();
  };
  double softResidual = 0, stiffResidual = 0;
  const double soft = run(1e4, softResidual), stiff = run(1e6, stiffResidual);
  EXPECT_LT(soft, 1e-8);
  EXPECT_LT(stiff, 1e-8);
  EXPECT_NEAR(std::log10(softResidual / stiffResidual), 2, 0.3) << softResidual << " " << stiffResidual;
  EXPECT_GT(softResidual, 1e-12);  // the spring-damper, not an exact constraint, holds the bars
  EXPECT_LT(stiffResidual, 1e-8);
}

// the index-3 matrices on their pattern (KLU, the constraints' Hessians on jets) step as the dense
// ones (Eigen LU, Hessians by differences of the Jacobian): planar, and spatial with linear frames
TEST(NaturalDynamics, TheSparseIndex3StepsAreTheDenseOnes) {
  for (const char* sample : {"ten-bar-chain", "spatial-four-bar-swing"}) {
    SCOPED_TRACE(sample);
    const Compiled c = compiled(sample, true);
    const kin::NaturalModel& m = c.model;
    NaturalInertia inertia = c.inertia;
    Index3State states[2];
    int tangents[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      Index3Options o;
      o.matrices = k == 0 ? Index3Options::Matrices::Dense : Index3Options::Matrices::Sparse;
      Index3State& s = states[k];
      s.q = m.q0;
      s.qd = Eigen::VectorXd::Zero(m.nq);
      ASSERT_TRUE(index3Start(m, inertia, o, s).ok());
      Index3Data data(m);
      for (int step = 0; step < 200; ++step) ASSERT_TRUE(index3Step(m, inertia, o, 1e-3, data, s).ok()) << step;
      EXPECT_EQ(data.sparse != nullptr, k == 1);
      tangents[k] = static_cast<int>(data.tangents);
    }
    EXPECT_GT((states[0].q - m.q0).norm(), 0.01);  // it moved
    // the sparse path projects with the Newton tangent (an augmented Lagrangian iteration to the
    // same mass-orthogonal projection), the dense one with P: equal to round-off over 200 steps
    // (4e-12, 1e-10, 4e-9 here; a tangent-weighted projection instead is 3e-10, 7e-9, 1e-7)
    EXPECT_LT((states[1].q - states[0].q).cwiseAbs().maxCoeff(), 5e-11);
    EXPECT_LT((states[1].qd - states[0].qd).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((states[1].qdd - states[0].qdd).cwiseAbs().maxCoeff(), 3e-8);
    EXPECT_LE(tangents[1], tangents[0] + 10);  // the exact Hessians converge as fast
  }
}

// the index-3 step's Newton tangent is ∂f/∂q: against central differences of the residual on
// the ten-bar chain off its constraints, with multipliers large enough that the constraints'
// Hessian term (dropping it fails this) is a thousand times the differences' error
TEST(NaturalDynamics, TheIndex3TangentIsTheResidualsDerivative) {
  const Compiled c = compiled("ten-bar-chain");
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  Index3Data d(c.model);
  const double alpha = 1e3, h = 1e-2, t = 0;
  Eigen::VectorXd q = c.model.q0, lambda(c.model.nrows);
  for (int i = 0; i < c.model.nq; ++i) q[i] += 1e-2 * normal(rng), d.qddHat[i] = normal(rng);
  for (int i = 0; i < c.model.nrows; ++i) lambda[i] = 100 * normal(rng);
  index3Tangent(c.model, c.inertia, alpha, h, t, q, lambda, d);
  const Eigen::MatrixXd tangent = d.tangent;
  Eigen::MatrixXd differences(c.model.nq, c.model.nq);
  const double delta = 1e-5;
  for (int j = 0; j < c.model.nq; ++j) {
    Eigen::VectorXd plus = q, minus = q;
    plus[j] += delta, minus[j] -= delta;
    index3Residual(c.model, c.inertia, alpha, h, t, plus, lambda, d);
    const Eigen::VectorXd fPlus = d.residual;
    index3Residual(c.model, c.inertia, alpha, h, t, minus, lambda, d);
    differences.col(j) = (fPlus - d.residual) / (2 * delta);
  }
  Eigen::MatrixXd withoutHessian = c.inertia.M;
  kin::evaluateJacobianDense(c.model, q, t, d.J);
  withoutHessian += (h * h / 4) * alpha * d.J.transpose() * d.J;
  const double error = (tangent - differences).cwiseAbs().maxCoeff();
  EXPECT_LT(error, 1e-7);
  EXPECT_GT((tangent - withoutHessian).cwiseAbs().maxCoeff(), 1e3 * error);
}

// the global ODEs' state partials (the sensitivities' tangent linear model) are their accelerations'
// derivatives: against central differences of q̈ = f(q, q̇) at a state off the constraints with
// velocities, index-1 and penalty, planar and spatial, with force elements (the five-bar's springs);
// the differences' own error is what limits the agreement (index-1: 2e-10 relative)
TEST(NaturalDynamics, TheGlobalOdeJacobianIsTheAccelerationsDerivative) {
  for (const char* sample : {"ten-bar-chain", "five-bar", "spatial-four-bar-swing"})
    for (bool penalty : {false, true}) {
      SCOPED_TRACE(std::string(sample) + (penalty ? " penalty" : " index-1"));
      const Compiled c = compiled(sample, true);
      const kin::NaturalModel& m = c.model;
      NaturalInertia inertia = c.inertia;
      const auto tree = compileMatrixR(*c.resolved);
      NaturalForceElements elements(tree.tree, tree.tree.numbers, m);
      inertia.elements = &elements;
      std::mt19937 rng(5);
      std::normal_distribution<double> normal;
      Eigen::VectorXd q = m.q0, qd = consistentVelocity(m, rng);
      for (int i = 0; i < m.nq; ++i) q[i] += 1e-4 * normal(rng);
      GlobalOdeData d(m);
      Eigen::VectorXd f, fp, fm;
      Eigen::MatrixXd Fq, Fv;
      ASSERT_TRUE(globalOdeJacobian(m, inertia, penalty, 0.1, q, qd, d, f, Fq, Fv).ok());
      double largest = 0, worst = 0;
      for (int which = 0; which < 2; ++which)
        for (int j = 0; j < m.nq; ++j) {
          Eigen::VectorXd x = q, v = qd;
          Eigen::VectorXd& y = which ? v : x;
          // the penalty's α makes f's rounding large: a longer step (its truncation then shows)
          const double eps = penalty ? 1e-3 : 1e-6;
          y[j] += eps;
          ASSERT_TRUE(globalOdeAcceleration(m, inertia, penalty, 0.1, x, v, d, fp).ok());
          y[j] -= 2 * eps;
          ASSERT_TRUE(globalOdeAcceleration(m, inertia, penalty, 0.1, x, v, d, fm).ok());
          const Eigen::VectorXd column = (fp - fm) / (2 * eps), exact = which ? Fv.col(j) : Fq.col(j);
          largest = std::max(largest, exact.cwiseAbs().maxCoeff());
          worst = std::max(worst, (column - exact).cwiseAbs().maxCoeff());
        }
      EXPECT_GT(largest, 1.0);
      EXPECT_LT(worst, (penalty ? 1e-5 : 1e-8) * largest);
    }
}

// the sparse iteration matrix (constraints' Hessians on jets) is the dense tangent (differences
// of the Jacobian) at a state off the constraints with large multipliers: the same solves, where
// leaving the Hessians out changes them a thousandfold more
TEST(NaturalDynamics, TheSparseIterationMatrixIsTheDenseTangent) {
  for (const char* sample : {"ten-bar-chain", "spatial-four-bar-swing"}) {
    SCOPED_TRACE(sample);
    const Compiled c = compiled(sample, true);
    const kin::NaturalModel& m = c.model;
    NaturalInertia inertia = c.inertia;
    std::mt19937 rng(5);
    std::normal_distribution<double> normal;
    const double alpha = 1e3, h = 1e-2, t = 0, s4 = h * h / 4;
    Eigen::VectorXd q = m.q0, lambda(m.nrows), rhs(m.nq), phi(m.nrows);
    for (int i = 0; i < m.nq; ++i) q[i] += 1e-2 * normal(rng), rhs[i] = normal(rng);
    for (int i = 0; i < m.nrows; ++i) lambda[i] = 100 * normal(rng);
    Index3Data d(m);
    index3Tangent(m, inertia, alpha, h, t, q, lambda, d);
    const Eigen::VectorXd dense = d.tangent.partialPivLu().solve(rhs);
    kin::evaluateConstraints(m, q, t, phi);
    const Eigen::VectorXd w = alpha * phi + lambda;
    Index3Sparse sparse(m, inertia.M);
    ASSERT_TRUE(sparse.factor(m, s4, alpha, t, q, &w));
    Eigen::VectorXd x = rhs;
    ASSERT_TRUE(sparse.solve(true, x));
    const double apart = (x - dense).cwiseAbs().maxCoeff() / dense.cwiseAbs().maxCoeff();
    EXPECT_LT(apart, 1e-8);
    // the projections' matrix leaves the Hessians out: its solve is far from the tangent's
    ASSERT_TRUE(sparse.factor(m, s4, alpha, t, q, nullptr));
    Eigen::VectorXd y = rhs;
    ASSERT_TRUE(sparse.solve(false, y));
    EXPECT_GT((y - dense).cwiseAbs().maxCoeff() / dense.cwiseAbs().maxCoeff(), 1e3 * apart);
  }
}

// with force elements (damped springs, torsion springs, a point force, a torque) the tangent adds
// their stiffness and the rule's damping: against central differences of the residual
TEST(NaturalDynamics, TheIndex3TangentTakesTheForcesStiffnessAndDamping) {
  Mechanism mech = test::sampleMechanism("ten-bar-chain");
  const auto loaded = test::loaded(test::withEveryForce(mech));
  const RecursiveModel tree = compileRecursiveModel(loaded->resolved);
  const kin::NaturalModel m = kin::compileNaturalModel(loaded->resolved);
  NaturalInertia inertia;
  std::string error;
  ASSERT_TRUE(naturalInertia(m, inertia, error)) << error;
  const NaturalForceElements elements(tree, tree.numbers, m);
  std::mt19937 rng(11);
  std::normal_distribution<double> normal;
  const double alpha = 1e3, h = 1e-2, t = 0.3;
  Eigen::VectorXd q = m.q0, lambda(m.nrows);
  Index3Data d(m);
  for (int i = 0; i < m.nq; ++i) q[i] += 1e-2 * normal(rng), d.qddHat[i] = normal(rng), d.qdHat[i] = 10 * normal(rng);
  for (int i = 0; i < m.nrows; ++i) lambda[i] = normal(rng);
  const Eigen::MatrixXd withoutForces = [&] {
    index3Tangent(m, inertia, alpha, h, t, q, lambda, d);
    return Eigen::MatrixXd(d.tangent);
  }();
  inertia.elements = &elements;
  index3Tangent(m, inertia, alpha, h, t, q, lambda, d);
  const Eigen::MatrixXd tangent = d.tangent;
  Eigen::MatrixXd differences(m.nq, m.nq);
  const double delta = 1e-5;
  for (int j = 0; j < m.nq; ++j) {
    Eigen::VectorXd plus = q, minus = q;
    plus[j] += delta, minus[j] -= delta;
    index3Residual(m, inertia, alpha, h, t, plus, lambda, d);
    const Eigen::VectorXd fPlus = d.residual;
    index3Residual(m, inertia, alpha, h, t, minus, lambda, d);
    differences.col(j) = (fPlus - d.residual) / (2 * delta);
  }
  const double apart = (tangent - differences).cwiseAbs().maxCoeff();
  EXPECT_LT(apart, 1e-7);
  EXPECT_GT((tangent - withoutForces).cwiseAbs().maxCoeff(), 1e2 * apart);
}

// three parallel bars (1 m, 1 kg) between the ground and a 2 kg coupler: six pins, Grübler's count
// 0, one freedom — a redundant constraint. The index-1 matrix is singular and says so; the index-3
// formulation runs through it, its bars' angle θ that of the one-freedom pendulum the parallelogram
// is: T = ½ (3·⅓ + 2) θ̇², V = (3·½ + 2) g sin θ, so 3 θ̈ = −3.5 g cos θ
TEST(NaturalDynamics, ARedundantParallelogramRunsByIndex3AndIsRefusedByIndex1) {
  const auto loaded = io::loadMechanismFromString(R"json({
    "format": "linkwright-mechanism", "version": 1, "name": "triple parallelogram", "dimension": 2, "gravity": [0, -9.81],
    "ground": {"points": {"A": [0, 0], "B": [1, 0], "C": [2, 0]}},
    "bodies": [
      {"name": "bar1", "angle": "pi/3", "mass": 1, "com": [0.5, 0], "inertia": 0.0833333333333333, "points": {"A": [0, 0], "B": [1, 0]}},
      {"name": "bar2", "position": [1, 0], "angle": "pi/3", "mass": 1, "com": [0.5, 0], "inertia": 0.0833333333333333, "points": {"A": [0, 0], "B": [1, 0]}},
      {"name": "bar3", "position": [2, 0], "angle": "pi/3", "mass": 1, "com": [0.5, 0], "inertia": 0.0833333333333333, "points": {"A": [0, 0], "B": [1, 0]}},
      {"name": "coupler", "position": ["cos(pi/3)", "sin(pi/3)"], "mass": 2, "com": [1, 0], "inertia": 0.6666666666666666,
       "points": {"P1": [0, 0], "P2": [1, 0], "P3": [2, 0]}}],
    "joints": [
      {"name": "J1", "type": "pin", "points": ["ground.A", "bar1.A"]}, {"name": "J2", "type": "pin", "points": ["ground.B", "bar2.A"]},
      {"name": "J3", "type": "pin", "points": ["ground.C", "bar3.A"]}, {"name": "K1", "type": "pin", "points": ["bar1.B", "coupler.P1"]},
      {"name": "K2", "type": "pin", "points": ["bar2.B", "coupler.P2"]}, {"name": "K3", "type": "pin", "points": ["bar3.B", "coupler.P3"]}]})json");
  ASSERT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? "" : loaded.diagnostics[0].format());
  Diagnostics d;
  const auto r = resolve(*loaded.mechanism, d);
  ASSERT_TRUE(r.has_value()) << (d.empty() ? "" : d[0].format());
  const auto resolved = std::make_shared<const ResolvedMechanism>(*r);
  const kin::NaturalModel model = kin::compileNaturalModel(*resolved);
  NaturalInertia inertia;
  std::string error;
  ASSERT_TRUE(naturalInertia(model, inertia, error)) << error;
  // index-1: singular, with the reason
  GlobalOdeData ode(model);
  Eigen::VectorXd qdd(model.nq);
  const Status singular = index1Acceleration(model, inertia, Baumgarte{}, 0, model.q0, Eigen::VectorXd::Zero(model.nq), ode, qdd);
  EXPECT_EQ(singular.code, Status::Code::Singular);
  EXPECT_NE(singular.message.find("redundant constraint"), std::string::npos) << singular.message;
  // index-3 through 1 s against the one-freedom pendulum (RK45 at 1e-12)
  struct Pendulum final : integ::SecondOrderSystem {
    Status acceleration(double, const Eigen::VectorXd& x, const Eigen::VectorXd&, Eigen::VectorXd& a) override {
      a.resize(1);
      a[0] = -3.5 * 9.81 * std::cos(x[0]) / 3;
      return {};
    }
  } pendulum;
  integ::State p;
  p.x = Eigen::VectorXd::Constant(1, std::numbers::pi / 3);
  p.v = Eigen::VectorXd::Zero(1);
  ASSERT_TRUE(pendulum.acceleration(0, p.x, p.v, p.a).ok());
  integ::DormandPrince rk(1, {1e-12, 1e-14, 0});
  const double tEnd = 1;
  ASSERT_TRUE(rk.advance(pendulum, p, tEnd).ok());
  auto thetaAt = [&](double h, double& residual) {
    Index3State s;
    s.q = model.q0;
    s.qd = Eigen::VectorXd::Zero(model.nq);
    const Status start = index3Start(model, inertia, Index3Options{}, s);  // where the index-1 system is singular
    EXPECT_TRUE(start.ok()) << start.message;
    Index3Data data(model);
    Eigen::VectorXd phi(model.nrows);
    residual = 0;
    while (s.t < tEnd - h / 2) {
      const Status st = index3Step(model, inertia, Index3Options{}, h, data, s);
      EXPECT_TRUE(st.ok()) << st.message;
      if (!st.ok()) break;
      kin::evaluateConstraints(model, s.q, s.t, phi);
      residual = std::max(residual, phi.cwiseAbs().maxCoeff());
    }
    Eigen::Vector3d a, b;
    kin::pointKinematics(model, 1, 0, s.q, s.qd, s.qdd, &a, nullptr, nullptr);
    kin::pointKinematics(model, 1, 1, s.q, s.qd, s.qdd, &b, nullptr, nullptr);
    return std::atan2(b.y() - a.y(), b.x() - a.x());
  };
  double coarseResidual = 0, fineResidual = 0;
  const double coarse = thetaAt(2e-3, coarseResidual) - p.x[0], fine = thetaAt(1e-3, fineResidual) - p.x[0];
  EXPECT_GT(std::abs(p.x[0] - std::numbers::pi / 3), 1.0);  // it swung far
  EXPECT_LT(std::abs(fine), 1e-4);
  EXPECT_NEAR(coarse / fine, 4, 0.8) << coarse << " " << fine;
  EXPECT_LT(fineResidual, 1e-10);
}

}  // namespace
}  // namespace lw::dyn
