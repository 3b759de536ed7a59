// Global kinematics against closed forms (four-bar, slider-crank), dense against sparse, and the
// documented failures (not driven, unreachable position).
#include "kinematics/global_solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "io/mechanism_io.h"
#include "support/samples.h"
#include "numeric/jet.h"
#include "mechanism/generators.h"
#include "support/numeric.h"

namespace lw::kin {
namespace {

constexpr double kPi = std::numbers::pi;

using test::Loaded;
std::unique_ptr<Loaded> load(const std::string& text) { return test::loadedFromText(text); }

// Crank A–B (L1) at θ0 = 60°, coupler B–C (L2), rocker D–C (L3), A = (0, 0), D = (4, 0), crank
// driven at ω: the planar four-bar of the samples.
const double L1 = 1, L2 = 3.5, L3 = 3, Dx = 4, theta0 = kPi / 3, omega = 2.5;

std::string fourBarText() {
  // stored configuration from the closed form below at θ0 (upper branch)
  const double bx = L1 * std::cos(theta0), by = L1 * std::sin(theta0);
  const double dx = Dx - bx, dy = -by, d = std::hypot(dx, dy);
  const double a = (L2 * L2 - L3 * L3 + d * d) / (2 * d), h = std::sqrt(L2 * L2 - a * a);
  const double cx = bx + a * dx / d - h * dy / d, cy = by + a * dy / d + h * dx / d;
  char buf[2048];
  std::snprintf(buf, sizeof buf, R"({"format": "linkwright-mechanism", "version": 1, "name": "4bar", "dimension": 2,
    "ground": {"points": {"A": [0, 0], "D": [%.17g, 0]}},
    "bodies": [
      {"name": "crank", "mass": 1, "com": [0, 0], "inertia": 1, "points": {"A": [0, 0], "B": [%.17g, %.17g]}},
      {"name": "coupler", "mass": 1, "com": [0, 0], "inertia": 1, "points": {"B": [%.17g, %.17g], "C": [%.17g, %.17g]}},
      {"name": "rocker", "mass": 1, "com": [0, 0], "inertia": 1, "points": {"D": [%.17g, 0], "C": [%.17g, %.17g]}}],
    "joints": [
      {"name": "A", "type": "pin", "points": ["ground.A", "crank.A"]},
      {"name": "B", "type": "pin", "points": ["crank.B", "coupler.B"]},
      {"name": "C", "type": "pin", "points": ["coupler.C", "rocker.C"]},
      {"name": "D", "type": "pin", "points": ["ground.D", "rocker.D"]}],
    "drivers": [{"name": "motor", "type": "joint", "joint": "A", "function": "%.17g*t"}]})",
                Dx, bx, by, bx, by, cx, cy, Dx, cx, cy, omega);
  return buf;
}

// C(t) of the four-bar in closed form, on jets: value, velocity, acceleration
std::array<Jet, 2> fourBarC(double t) {
  const Jet th = Jet(theta0 + omega * t, omega, 0);
  const Jet bx = L1 * cos(th), by = L1 * sin(th);
  const Jet dx = Jet(Dx) - bx, dy = -by;
  const Jet d = sqrt(dx * dx + dy * dy);
  const Jet a = (Jet(L2 * L2 - L3 * L3) + d * d) / (2.0 * d);
  const Jet h = sqrt(Jet(L2 * L2) - a * a);
  return {bx + a * dx / d - h * dy / d, by + a * dy / d + h * dx / d};
}

void checkFourBar(LinearSolverKind kind) {
  const auto l = load(fourBarText());
  const NaturalModel m = compileNaturalModel(l->resolved);
  GlobalData d(m, KinematicsOptions{kind});
  ASSERT_TRUE(assemble(m, d, 0).ok());
  const int coupler = l->resolved.findBody("coupler");
  for (int k = 0; k <= 40; ++k) {
    const double t = 0.06 * k;  // 2.4 s: almost a full turn in 40 steps of 8.6°
    if (k > 0) {
      const Status s = solveStep(m, d, t);
      ASSERT_TRUE(s.ok()) << s.message;
    }
    Eigen::Vector3d r, v, a;
    pointKinematics(m, coupler, 1, d.q, d.qd, d.qdd, &r, &v, &a);
    const auto C = fourBarC(t);
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(test::near(r[i], C[static_cast<std::size_t>(i)].v, 1e-10, 0)) << "position at t = " << t;
      EXPECT_TRUE(test::near(v[i], C[static_cast<std::size_t>(i)].d, 1e-9, 1e-10)) << "velocity at t = " << t;
      EXPECT_TRUE(test::near(a[i], C[static_cast<std::size_t>(i)].dd, 1e-8, 1e-10)) << "acceleration at t = " << t;
    }
  }
}

TEST(GlobalKinematics, FourBarMatchesClosedFormDense) { checkFourBar(LinearSolverKind::Dense); }
TEST(GlobalKinematics, FourBarMatchesClosedFormSparse) { checkFourBar(LinearSolverKind::Sparse); }

TEST(GlobalKinematics, SliderCrankMatchesClosedForm) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/slider-crank.json");
  ASSERT_TRUE(r.ok());
  Diagnostics diag;
  const auto res = resolve(*r.mechanism, diag);
  const NaturalModel m = compileNaturalModel(*res);
  GlobalData d(m, KinematicsOptions{LinearSolverKind::Sparse});
  ASSERT_TRUE(assemble(m, d, 0).ok());
  const int slider = res->findBody("slider");
  const double rc = 0.5, lr = 2, th0 = kPi / 3, w = 2 * kPi;  // the sample: 0.5 m crank, 2 m rod, 60°, 1 rev/s
  for (int k = 1; k <= 50; ++k) {
    const double t = 0.02 * k;
    ASSERT_TRUE(solveStep(m, d, t).ok());
    const Jet th(th0 + w * t, w, 0);
    const Jet x = rc * cos(th) + sqrt(Jet(lr * lr) - rc * rc * sin(th) * sin(th));
    Eigen::Vector3d p, v, a;
    pointKinematics(m, slider, 0, d.q, d.qd, d.qdd, &p, &v, &a);
    EXPECT_TRUE(test::near(p.x(), x.v, 1e-10, 0)) << t;
    EXPECT_TRUE(test::near(v.x(), x.d, 1e-9, 1e-10)) << t;
    EXPECT_TRUE(test::near(a.x(), x.dd, 1e-8, 1e-10)) << t;
    EXPECT_NEAR(p.y(), 0, 1e-12);
  }
}

TEST(GlobalKinematics, DenseAndSparseAgreeOnAChain) {
  const Mechanism chain = generate::fourBarChain(20);
  Diagnostics diag;
  const auto res = resolve(chain, diag);
  const NaturalModel m = compileNaturalModel(*res);
  EXPECT_EQ(m.nq, 2 * 20 + 2);  // seed 002: nEq = 2k + 2 dependent coordinates
  GlobalData dense(m, KinematicsOptions{LinearSolverKind::Dense});
  GlobalData sparse(m, KinematicsOptions{LinearSolverKind::Sparse});
  ASSERT_TRUE(assemble(m, dense, 0).ok());
  ASSERT_TRUE(assemble(m, sparse, 0).ok());
  for (int k = 1; k <= 72; ++k) {  // 10° steps, two turns
    const double t = 0.005 * k;
    ASSERT_TRUE(solveStep(m, dense, t).ok());
    ASSERT_TRUE(solveStep(m, sparse, t).ok());
    EXPECT_LT((dense.q - sparse.q).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((dense.qd - sparse.qd).cwiseAbs().maxCoeff(), 1e-8);
    EXPECT_LT((dense.qdd - sparse.qdd).cwiseAbs().maxCoeff(), 1e-5);
  }
}

TEST(GlobalKinematics, MobilityNamesRedundantConstraintsAndPassiveSpins) {
  auto free4 = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/four-bar-free.json");
  ASSERT_TRUE(free4.ok());
  Diagnostics diag;
  auto res = resolve(*free4.mechanism, diag);
  NaturalModel m = compileNaturalModel(*res);
  NumericalMobility mob = numericalMobility(m, m.q0);
  // Grübler–Kutzbach says −2; in natural coordinates the shared axis leaves one redundant
  // in-plane condition (the third bar's, once two bars and the ground are in the plane)
  EXPECT_EQ(mob.dof, 1);
  EXPECT_EQ(mob.equations - mob.rank, 1);
  ASSERT_EQ(mob.redundant.size(), 1u);
  EXPECT_NE(mob.redundant[0].find("body '"), std::string::npos) << mob.redundant[0];

  const Mechanism cs = generate::crankSlider3d(2);
  res = resolve(cs, diag);
  m = compileNaturalModel(*res);
  mob = numericalMobility(m, m.q0);
  EXPECT_EQ(mob.passive, (std::vector<std::string>{"rod_1", "rod_2"}));
  EXPECT_EQ(mob.dof, 1);  // the rods' spins are locked
  EXPECT_EQ(mob.freeDof, 0);
}

TEST(GlobalKinematics, UndrivenMechanismIsReported) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/five-bar.json");
  Diagnostics diag;
  const auto res = resolve(*r.mechanism, diag);
  const NaturalModel m = compileNaturalModel(*res);
  GlobalData d(m);
  const Status s = assemble(m, d, 0);
  EXPECT_EQ(s.code, Status::Code::NotDriven);
  EXPECT_EQ(s.message, "the drivers leave 2 freedoms undetermined (2 DOF, 0 drivers): kinematics needs one driver per degree of freedom");
}

TEST(GlobalKinematics, UnreachablePositionStopsWithTimeAndPlace) {
  // a non-Grashof four-bar (crank 2.5 > what the loop allows): the crank cannot turn fully
  std::string text = fourBarText();
  const auto l = load(text);
  Mechanism m2 = l->mechanism;
  // lengthen the crank drawing: the coupler can no longer close past some angle
  m2.bodies[0].points[1].value = {2.9 * std::cos(theta0), 2.9 * std::sin(theta0)};
  Diagnostics diag;
  const auto res = resolve(m2, diag);
  const NaturalModel m = compileNaturalModel(*res);
  GlobalData d(m);
  ASSERT_TRUE(assemble(m, d, 0).ok());
  Status s;
  double t = 0;
  for (int k = 1; k <= 200 && s.ok(); ++k) s = solveStep(m, d, t = 0.01 * k);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("t = "), std::string::npos) << s.message;
  EXPECT_GT(s.time, 0);
  EXPECT_TRUE(s.code == Status::Code::Singular || s.code == Status::Code::NotConverged) << s.message;
}

}  // namespace
}  // namespace lw::kin

namespace lw::kin {
namespace {

// A spherical–spherical rod has no orientation coordinate; a point off its axis follows it by the
// smallest rotation: rigid (constant distances to both ends) and with consistent derivatives.
TEST(GlobalKinematics, SpinFreeRodPointsAreRigidWithConsistentRates) {
  Mechanism cs = generate::crankSlider3d(2);
  cs.bodies[1].points.push_back({"P", {0.1, 0.7, -0.3}});  // rod_1, off its axis
  Diagnostics diag;
  const auto res = resolve(cs, diag);
  ASSERT_TRUE(res);
  const NaturalModel m = compileNaturalModel(*res);
  ASSERT_EQ(m.spinFreeBodies.size(), 2u);
  GlobalData d(m);
  ASSERT_TRUE(assemble(m, d, 0).ok());
  const int rod = res->findBody("rod_1");
  ASSERT_EQ(res->bodies[static_cast<std::size_t>(rod)].points.size(), 3u);
  const double h = 1e-5;  // FD truncation ~ h²·|r'''|: 1e-10·1e5 for this fast crank
  std::vector<Eigen::Vector3d> pos, vel, acc;
  Eigen::Vector3d B0, C0, P0;
  pointKinematics(m, rod, 0, d.q, d.qd, d.qdd, &B0, nullptr, nullptr);
  pointKinematics(m, rod, 1, d.q, d.qd, d.qdd, &C0, nullptr, nullptr);
  pointKinematics(m, rod, 2, d.q, d.qd, d.qdd, &P0, nullptr, nullptr);
  EXPECT_TRUE(P0.isApprox(Eigen::Vector3d(2.1, 0.7, -0.3))) << P0.transpose() << " B " << B0.transpose();
  for (int k = 1; k <= 100; ++k) {
    ASSERT_TRUE(solveStep(m, d, k * h).ok());
    Eigen::Vector3d B, C, P, v, a;
    pointKinematics(m, rod, 0, d.q, d.qd, d.qdd, &B, nullptr, nullptr);
    pointKinematics(m, rod, 1, d.q, d.qd, d.qdd, &C, nullptr, nullptr);
    pointKinematics(m, rod, 2, d.q, d.qd, d.qdd, &P, &v, &a);
    EXPECT_NEAR((P - B).norm(), (P0 - B0).norm(), 1e-12);
    EXPECT_NEAR((P - C).norm(), (P0 - C0).norm(), 1e-12);
    pos.push_back(P);
    vel.push_back(v);
    acc.push_back(a);
  }
  for (std::size_t k = 1; k + 1 < pos.size(); ++k) {
    const Eigen::Vector3d fdv = (pos[k + 1] - pos[k - 1]) / (2 * h);
    const Eigen::Vector3d fda = (vel[k + 1] - vel[k - 1]) / (2 * h);
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(test::near(vel[k][i], fdv[i], 1e-5, 1e-6)) << "velocity, step " << k;
      EXPECT_TRUE(test::near(acc[k][i], fda[i], 1e-3, 1e-5)) << "acceleration, step " << k;
    }
  }
}

}  // namespace
}  // namespace lw::kin
