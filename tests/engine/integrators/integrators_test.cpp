// The trapezoidal rule against its closed-form solution of the linear oscillator x'' = −ω²x: the
// rule is the Cayley transform of (x, v), a rotation of (ωx, v) by θ with tan(θ/2) = ωh/2 per step.
// Its predictor (acceleration extrapolated from the last step) must leave the solution unchanged,
// take about one evaluation per step, and fall back when the state was changed between steps.
#include "integrators/integrators.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lw::integ {
namespace {

struct Oscillator : SecondOrderSystem {
  double omega2 = 0;
  long calls = 0;
  Status acceleration(double, const Eigen::VectorXd& x, const Eigen::VectorXd&, Eigen::VectorXd& a) override {
    ++calls;
    a = -omega2 * x;
    return {};
  }
};

// the trapezoidal rule's exact discrete solution from (x0, v0) after n steps
std::pair<double, double> cayley(double omega, double h, double x0, double v0, int n) {
  const double theta = 2 * std::atan(omega * h / 2);
  const double c = std::cos(n * theta), s = std::sin(n * theta);
  return {x0 * c + v0 / omega * s, -omega * x0 * s + v0 * c};
}

TEST(Trapezoidal, MatchesTheCayleyRotationWithAboutOneEvaluationPerStep) {
  // ω = 1 rad/s: the constant-acceleration guess is off by h³ω³/4 ≈ 2.5e-10 > tolerance (two
  // evaluations a step), the extrapolated one by h⁴ω⁴/4 ≈ 2.5e-13 (one)
  const double omega = 1.0, h = 1e-3;
  Oscillator sys;
  sys.omega2 = omega * omega;
  State s{0.0, Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, -omega * omega)};
  Trapezoidal trap(1);
  const int steps = 7000;  // past one period
  for (int k = 1; k <= steps; ++k) {
    ASSERT_TRUE(trap.step(sys, s, h).ok()) << "step " << k;
    const auto [x, v] = cayley(omega, h, 1.0, 0.0, k);
    ASSERT_NEAR(s.x[0], x, 1e-9) << "step " << k;
    ASSERT_NEAR(s.v[0], v, 1e-6) << "step " << k;
  }
  // Newton's evaluations plus the tangent's (one per column, and one back at the point)
  const double perStep = static_cast<double>(sys.calls - 2L * trap.jacobians()) / steps;
  EXPECT_LT(perStep, 1.1) << "the predictor should meet the tolerance after one correction";
  // a state changed between steps (a new choice of coordinates, a projection): the predictor
  // falls back to constant acceleration and the rule goes on from the new state
  s.v[0] = 3.0;
  s.a[0] = -omega * omega * s.x[0];
  const double x0 = s.x[0];
  for (int k = 1; k <= 100; ++k) {
    ASSERT_TRUE(trap.step(sys, s, h).ok());
    const auto [x, v] = cayley(omega, h, x0, 3.0, k);
    ASSERT_NEAR(s.x[0], x, 1e-9) << "step " << k << " after the change";
  }
}

// A system restarted in new coordinates may iterate with −I, the tangent's limit for short steps:
// no tangent is built while −I contracts fast, and one is as soon as it does not (here a stiff
// oscillator, where −I diverges); the steps land on the rule's solution either way.
TEST(Trapezoidal, StartsWithMinusIdentityAndBuildsATangentWhenItContractsTooSlowly) {
  for (const double omega : {1.0, 100.0}) {
    const double h = omega == 1.0 ? 1e-3 : 0.05;  // (hω)²/4: 2.5e-7, then 6.25
    Oscillator sys;
    sys.omega2 = omega * omega;
    State s{0.0, Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, -omega * omega)};
    TrapezoidalOptions o;
    o.startWithMinusIdentity = true;
    Trapezoidal trap(1, o);
    for (int k = 1; k <= 200; ++k) {
      ASSERT_TRUE(trap.step(sys, s, h).ok()) << "step " << k;
      const auto [x, v] = cayley(omega, h, 1.0, 0.0, k);
      ASSERT_NEAR(s.x[0], x, 1e-9) << "ω = " << omega << ", step " << k;
    }
    if (omega == 1.0) {
      EXPECT_EQ(trap.jacobians(), 0);
      EXPECT_TRUE(trap.nearMinusIdentity());
    } else {
      EXPECT_EQ(trap.jacobians(), 1);  // built once, then kept (the system is linear)
      EXPECT_FALSE(trap.nearMinusIdentity());
    }
  }
}

struct Pendulum : SecondOrderSystem {
  long calls = 0;
  Status acceleration(double, const Eigen::VectorXd& x, const Eigen::VectorXd&, Eigen::VectorXd& a) override {
    ++calls;
    a = -x.array().sin().matrix();
    return {};
  }
};

// A nonlinear pendulum at a long step: the tangent is kept from the first step and ages, so the
// Newton iteration converges linearly. It stops when the update, or the distance left to the root
// estimated from the contraction rate, is below the tolerance (1e-10 × max(1, |x|)); each step
// must then land within that tolerance of the fully converged step from the same state.
TEST(Trapezoidal, StopsOnTheContractionEstimateWithinTheTolerance) {
  const double h = 0.05;
  Pendulum sys, tight;
  State s{0.0, Eigen::VectorXd::Constant(1, 2.0), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, -std::sin(2.0))};
  Trapezoidal trap(1);
  Trapezoidal converged(1, TrapezoidalOptions{1e-15, 50, 1});  // a fresh tangent every iteration
  const int steps = 250;  // about 1.6 periods
  for (int k = 1; k <= steps; ++k) {
    State c = s;
    ASSERT_TRUE(converged.step(tight, c, h).ok()) << "step " << k;
    ASSERT_TRUE(trap.step(sys, s, h).ok()) << "step " << k;
    ASSERT_NEAR(s.x[0], c.x[0], 1e-10 * std::max(1.0, std::abs(c.x[0]))) << "step " << k;
  }
  // after the first correction the update is still above the tolerance, but it contracts
  // ~1000-fold: the root is well within the tolerance after two evaluations a step, not three
  const double perStep = static_cast<double>(sys.calls - 2L * trap.jacobians()) / steps;
  EXPECT_LT(perStep, 2.2);
}

// Dormand–Prince one step at a time on the oscillator x'' = −x: the steps follow the tolerance (a
// hundredfold tighter one takes about 2.5 times the steps: the error per step goes as h⁵), the
// end of each lands within the tolerance of the exact solution, and the dense output between
// steps is as accurate (order 4); a run stopped at a given time lands on it exactly.
// The oscillator posed as the penalty formulation poses its step: a mass-matrix residual
// r = (h²/4)(M a + K x) with its exact iteration matrix M + (h²/4) K, and an acceptStep that may
// refuse. The shared Newmark loop must give the same Cayley rotation, and a refusal must leave
// the state and the predictor's memory as they were.
struct MassSpring : NewmarkSystem {
  Eigen::Matrix2d M, K;
  double h = 0;
  int refuseAt = -1, accepted = 0;
  void beginStep(const State&, double stepSize, int) override { h = stepSize; }
  Status residual(double, const Eigen::VectorXd& x, const Eigen::VectorXd&, const Eigen::VectorXd& a, Eigen::VectorXd& r) override {
    r = (h * h / 4) * (M * a + K * x);
    return {};
  }
  Status solve(int, const Eigen::VectorXd& r, Eigen::VectorXd& dx) override {
    dx = (M + (h * h / 4) * K).partialPivLu().solve(r);
    return {};
  }
  Status acceptStep(const State&, State&, int) override {
    if (accepted == refuseAt) {
      refuseAt = -1;
      return lw::failure(Status::Code::LeftBranch, 0, "refused once");
    }
    ++accepted;
    return {};
  }
};

TEST(Newmark, AMassMatrixResidualGivesTheSameRotationAndARefusalChangesNothing) {
  // two uncoupled oscillators with masses 2 and 0.5 and stiffnesses 8 and 0.5: ω = 2 and 1
  MassSpring sys;
  sys.M << 2, 0, 0, 0.5;
  sys.K << 8, 0, 0, 0.5;
  const double h = 1e-2;
  State s{0.0, Eigen::Vector2d(1.0, -0.5), Eigen::Vector2d(0.0, 2.0), Eigen::Vector2d(-4.0, 0.5)};
  Newmark newmark(2);
  sys.refuseAt = 40;
  int k = 0;
  for (int attempt = 0; k < 300; ++attempt) {
    const State before = s;
    const Status st = newmark.step(sys, s, h);
    if (!st.ok()) {
      // the refusal: nothing moved, and the next attempt gives the same step as if none happened
      ASSERT_EQ(st.code, Status::Code::LeftBranch);
      ASSERT_EQ(k, 40);
      EXPECT_EQ(s.t, before.t);
      EXPECT_EQ(s.x, before.x);
      EXPECT_EQ(s.v, before.v);
      EXPECT_EQ(s.a, before.a);
      continue;
    }
    ++k;
    const auto [x1, v1] = cayley(2.0, h, 1.0, 0.0, k);
    const auto [x2, v2] = cayley(1.0, h, -0.5, 2.0, k);
    ASSERT_NEAR(s.x[0], x1, 1e-9) << "step " << k;
    ASSERT_NEAR(s.x[1], x2, 1e-9) << "step " << k;
    ASSERT_NEAR(s.v[0], v1, 1e-7) << "step " << k;
    ASSERT_NEAR(s.v[1], v2, 1e-7) << "step " << k;
  }
  EXPECT_EQ(sys.accepted, 300);
  // the exact iteration matrix and the extrapolating predictor: one or two iterations a step
  EXPECT_LE(newmark.iterations, 2 * 301);
}

TEST(DormandPrince, StepsFollowTheToleranceAndTheDenseOutputIsAsAccurate) {
  std::vector<long> steps;
  for (const double tol : {1e-6, 1e-8}) {
    Oscillator sys;
    sys.omega2 = 1;
    State s{0.0, Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, -1.0)};
    DormandPrince rk(1, RungeKuttaOptions{tol, tol * 1e-2, 0});
    Eigen::VectorXd x, v;
    double worstDense = 0, worstEnd = 0;
    while (s.t < 10) {
      ASSERT_TRUE(rk.step(sys, s, 10).ok());
      EXPECT_DOUBLE_EQ(rk.stepEnd(), s.t);
      worstEnd = std::max(worstEnd, std::abs(s.x[0] - std::cos(s.t)));
      for (double f : {0.25, 0.5, 0.75}) {
        const double t = rk.stepStart() + f * (rk.stepEnd() - rk.stepStart());
        rk.interpolate(t, x, v);
        worstDense = std::max({worstDense, std::abs(x[0] - std::cos(t)), std::abs(v[0] + std::sin(t))});
      }
    }
    EXPECT_DOUBLE_EQ(s.t, 10.0);  // the last step stretched or cut to end there
    EXPECT_LT(worstEnd, 100 * tol);
    EXPECT_LT(worstDense, 100 * tol);
    EXPECT_GT(worstDense, 1e-3 * tol);  // the interpolant's own error, not the steps' ends
    steps.push_back(rk.acceptedSteps);
  }
  EXPECT_GT(steps[1], 2 * steps[0]);
  EXPECT_LT(steps[1], 4 * steps[0]);
}

// a system that refuses a step's end (Matrix R's check that the motion kept its branch): the step
// is retried shorter, and the state is never advanced to a refused end
struct RefusesLongSteps : Oscillator {
  double longest = 0.05;
  int refusals = 0;
  Status acceptStep(const State& from, const State& to) override {
    if (to.t - from.t <= longest) return {};
    ++refusals;
    return lw::failure(lw::Status::Code::LeftBranch, to.t, "refused");
  }
};

TEST(DormandPrince, RetriesAStepItsSystemRefuses) {
  RefusesLongSteps sys;
  sys.omega2 = 1;
  State s{0.0, Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, -1.0)};
  DormandPrince rk(1, RungeKuttaOptions{1e-6, 1e-8, 0});
  ASSERT_TRUE(rk.advance(sys, s, 2).ok());
  EXPECT_GT(sys.refusals, 0);
  EXPECT_NEAR(s.x[0], std::cos(2.0), 1e-5);
  // a single attempt of a given size that the system refuses leaves the state where it was
  State before = s;
  sys.longest = 0.01;
  const Status st = rk.step(sys, s, 3, 0.1);
  EXPECT_EQ(st.code, lw::Status::Code::Rejected);
  EXPECT_EQ(s.t, before.t);
  EXPECT_EQ(s.x, before.x);
}

// the trapezoidal rule's own polynomial over a step: constant average acceleration, so that it
// meets both ends of the step exactly
// a stiff damped linear system x'' = −K x − C v that knows its Jacobians (F_x = −K, F_v = −C):
// the Newton matrix (h²/4)(F_x + (2/h) F_v) − I is then exact and the residual linear, so every
// step converges in one update (two evaluations: the update and the check), at steps where −I
// does not contract at all; without them, differences cost n + 1 evaluations a tangent
struct StiffLinear : SecondOrderSystem {
  Eigen::Matrix2d K{{4e4, -1e4}, {-1e4, 2e4}}, C{{20.0, -5.0}, {-5.0, 10.0}};
  bool exact = true;
  long calls = 0;
  Status acceleration(double, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    ++calls;
    a = -K * x - C * v;
    return {};
  }
  bool jacobians(Eigen::MatrixXd& Fx, Eigen::MatrixXd& Fv) override {
    if (!exact) return false;
    Fx = -K;
    Fv = -C;
    return true;
  }
};

TEST(Trapezoidal, TakesTheSystemsExactJacobiansForItsNewtonMatrix) {
  const double h = 0.01;  // h²/4 ‖K‖ ≈ 1: −I would not contract
  std::vector<Eigen::VectorXd> ends[2];
  long calls[2];
  for (const bool exact : {true, false}) {
    StiffLinear sys;
    sys.exact = exact;
    Eigen::VectorXd x0(2), v0 = Eigen::VectorXd::Zero(2), a0(2);
    x0 << 0.01, -0.02;
    sys.acceleration(0, x0, v0, a0);
    sys.calls = 0;
    State s{0.0, x0, v0, a0};
    Trapezoidal trap(2);
    for (int k = 0; k < 50; ++k) {
      ASSERT_TRUE(trap.step(sys, s, h).ok());
      ends[exact].push_back(s.x);
    }
    EXPECT_EQ(trap.exactJacobians(), exact ? trap.jacobians() : 0);
    EXPECT_GE(trap.jacobians(), 1);
    calls[exact] = sys.calls;
    if (exact) EXPECT_EQ(sys.calls, 2 * 50) << "one update and its check a step";
  }
  EXPECT_LT(calls[1], calls[0]);
  for (std::size_t k = 0; k < ends[0].size(); ++k) EXPECT_LT((ends[1][k] - ends[0][k]).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(Trapezoidal, InterpolatesWithTheRulesOwnPolynomial) {
  Pendulum sys;
  State s{0.0, Eigen::VectorXd::Constant(1, 1.0), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, -std::sin(1.0))};
  Trapezoidal trap(1);
  const State start = s;
  ASSERT_TRUE(trap.step(sys, s, 0.1).ok());
  Eigen::VectorXd x, v;
  trap.interpolate(0.0, x, v);
  EXPECT_DOUBLE_EQ(x[0], start.x[0]);
  trap.interpolate(0.1, x, v);
  EXPECT_NEAR(x[0], s.x[0], 1e-15);
  EXPECT_NEAR(v[0], s.v[0], 1e-15);
  trap.interpolate(0.05, x, v);
  const double abar = 0.5 * (start.a[0] + s.a[0]);
  EXPECT_NEAR(x[0], start.x[0] + 0.05 * start.v[0] + 0.5 * 0.05 * 0.05 * abar, 1e-15);
  EXPECT_NEAR(v[0], start.v[0] + 0.05 * abar, 1e-15);
}

}  // namespace
}  // namespace lw::integ
