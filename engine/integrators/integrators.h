// Time integrators for second-order systems x'' = F(t, x, x'): the implicit trapezoidal rule
// (Newmark β = 1/4, γ = 1/2, the Newton loop of newmark.h), and an adaptive Dormand–Prince 5(4) Runge–Kutta
// with error control and dense output. Both take one step at a time and keep that step's interpolant,
// so that a driver can write rows at any time, stop at a given time and restart from a new state (a
// new choice of coordinates, later a jump at an impact). The system is a plug-in point: the Matrix R
// ODE implements it.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>

#include "core/status.h"
#include "integrators/newmark.h"

namespace lw::integ {

class SecondOrderSystem {
 public:
  virtual ~SecondOrderSystem() = default;
  /// a = F(t, x, v). May keep internal state (the dependent coordinates of the last call).
  virtual Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) = 0;
  /// Called before each attempt of a step from s: a system with internal state (Matrix R's
  /// dependent coordinates, warm starts) returns to that of s, so that an attempt does not depend
  /// on what a rejected one evaluated.
  virtual void beginStep(const State& /*s*/) {}
  /// Called when an attempt passed the integrator's own tests, the system having just evaluated
  /// the step's end: a failure rejects the step (Matrix R: the motion left its assembly branch).
  virtual Status acceptStep(const State& /*from*/, const State& /*to*/) { return {}; }
  /// Called by Dormand–Prince right after it evaluated stage `stage` (3–7; 7 is the step's end)
  /// of an attempt: a run that integrates quadratures beside the state (its integral costs) reads
  /// its outputs there, while the system holds that evaluation.
  virtual void stageEvaluated(int /*stage*/) {}
  /// F's exact state Jacobians F_x, F_v at the point of the last acceleration call (the system's
  /// derivative kernels): the trapezoidal rule's Newton matrix then, instead of differences (n
  /// evaluations). False where the system has none there.
  virtual bool jacobians(Eigen::MatrixXd& /*Fx*/, Eigen::MatrixXd& /*Fv*/) { return false; }
};

// ---- implicit trapezoidal rule ----
struct TrapezoidalOptions {
  double tolerance = 1e-10;  // on the Newton update of x (scaled by max(1, |x|))
  int maxIterations = 25;
  int reuseJacobian = 8;     // iterations before the tangent is rebuilt (modified Newton)
  // iterate with −I, the tangent's limit for short steps, until a step shows it contracts too
  // slowly: for a system that starts over in new coordinates where the old tangent was near −I
  // (building one costs n + 1 evaluations)
  bool startWithMinusIdentity = false;
};

/// x'' = F(t, x, v) as the Newmark loop's residual r(x) = (h²/4)(F(x, v(x)) − a(x)), solved with
/// a tangent kept across steps of one size (modified Newton), or −I: the system's exact one where
/// it has it (SecondOrderSystem::jacobians), else by forward differences.
class ExplicitResidual final : public NewmarkSystem {
 public:
  ExplicitResidual(int n, const TrapezoidalOptions& o);
  SecondOrderSystem* system = nullptr;  // set for each step
  int jacobians = 0;                    // tangents built so far
  int exactJacobians = 0;               // of them, the system's exact ones
  bool useMinusIdentity = false;        // when a new iteration matrix is needed, try −I first

  void beginStep(const State& s, double h, int lastIterations) override;
  Status residual(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::VectorXd& r) override;
  Status solve(int iteration, const Eigen::VectorXd& r, Eigen::VectorXd& dx) override;
  bool resolveSlowContraction(double theta, const Eigen::VectorXd& r, Eigen::VectorXd& dx, Status& status) override;
  Status acceptStep(const State& from, State& to, int iterations) override;

 private:
  Status tangent();
  int reuse_;
  const State* start_ = nullptr;  // the step's start
  double h_ = 0, t_ = 0;
  const Eigen::VectorXd* x_ = nullptr;  // the last residual's point
  Eigen::VectorXd F_, Fp_, xp_, vp_;
  Eigen::MatrixXd J_, Fx_, Fv_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  bool haveJacobian_ = false;
  bool minusIdentity_ = false;  // J_ is −I, not a tangent
  double jacobianH_ = 0;
};

/// The trapezoidal rule for x'' = F(t, x, v): the Newmark loop over ExplicitResidual.
class Trapezoidal {
 public:
  explicit Trapezoidal(int n, TrapezoidalOptions o = {});
  /// One step of size h from s (s.a consistent with s.x, s.v). On success s advances; on failure
  /// s is unchanged.
  Status step(SecondOrderSystem& sys, State& s, double h);
  /// The rule's own polynomial over the last step (Newmark::interpolate).
  void interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& v) const { newmark_.interpolate(t, x, v); }
  double stepStart() const { return newmark_.stepStart(); }
  double stepEnd() const { return newmark_.stepEnd(); }
  int jacobians() const { return residual_.jacobians; }
  int exactJacobians() const { return residual_.exactJacobians; }
  /// The iteration matrix is −I, or the last tangent was within 1 % of it (‖J + I‖∞ < 0.01): the
  /// same system in other coordinates may start with −I (startWithMinusIdentity).
  bool nearMinusIdentity() const { return residual_.useMinusIdentity; }

 private:
  Newmark newmark_;
  ExplicitResidual residual_;
};

// ---- Dormand–Prince 5(4) ----
/// The method's coefficients (Dormand & Prince 1980): what DormandPrince steps with, and what a
/// sensitivity analysis differentiates its steps with (sensitivity/).
namespace dopri {
inline constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
inline constexpr double a21 = 1.0 / 5;
inline constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
inline constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
inline constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
inline constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
inline constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
/// A quadrature beside the state (an integral cost, CVODES' quadrature variables) takes the same
/// weights: Q₁ = Q₀ + h (b₁ g₁ + b₃ g₃ + b₄ g₄ + b₅ g₅ + b₆ g₆), fifth order like the state. Stage 1
/// is the step's start, stages 2 and 7 weigh nothing: the integrands at stages 3–6 are what a
/// step adds to those at its ends. Their times (× h) and weights:
inline constexpr double quadratureC[4] = {c3, c4, c5, 1.0};
inline constexpr double quadratureB[4] = {b3, b4, b5, b6};
/// Such a quadrature inside its step, at t₀ + θh: the state's continuous extension applied to it,
/// from its start value q0 and its integrand g at stages 1, 3–7 (g[1], stage 2's, is not read).
double quadratureAt(double theta, double h, double q0, const double g[7]);
}  // namespace dopri
struct RungeKuttaOptions {
  double rtol = 1e-8, atol = 1e-10;
  double maxStep = 0;  // 0: no limit
};

class DormandPrince {
 public:
  explicit DormandPrince(int n, RungeKuttaOptions o = {});
  /// One accepted step from s (s.a = F(s.t, s.x, s.v)), its size chosen by the error control and
  /// not past tStop. On success s advances to the step's end; on failure s is unchanged.
  /// `tryStep` > 0: a single attempt of exactly that size (not past tStop); when the error test
  /// rejects it the result is Code::Rejected and s is unchanged (a driver placing a step across a
  /// singular position).
  Status step(SecondOrderSystem& sys, State& s, double tStop, double tryStep = 0);
  /// The step's continuous extension (order 4, Dormand–Prince/Shampine) at t in [stepStart(),
  /// stepEnd()]: x and v.
  void interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& v) const;
  double stepStart() const { return t0_; }
  double stepEnd() const { return t0_ + hDone_; }
  /// The size the error control proposes for the next step (0 before the first).
  double proposedStep() const { return h_; }
  /// A limit on the steps besides the options' maxStep, for as long as it is set (0: none): a
  /// stiff part of the motion whose error is zero (a contact held at rest by its stabilisation)
  /// is stable only for short enough steps.
  void setStepLimit(double h) { stepLimit_ = h; }
  /// Stage `stage` (3–6) of the last accepted step: its time, positions, velocities and the
  /// accelerations evaluated there (valid until the next step).
  void stageState(int stage, State& out) const;
  /// Advances s to tEnd with as many steps as needed.
  Status advance(SecondOrderSystem& sys, State& s, double tEnd);
  long acceptedSteps = 0, rejectedSteps = 0;
  double lastStep = 0;

 private:
  Status f(SecondOrderSystem& sys, double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy);
  double initialStep(SecondOrderSystem& sys, const State& s, double tStop);
  // y at stage `stage` (2–6) of a step of size h from y_ (the same sums the stages evaluate)
  void stagePoint(int stage, double h, Eigen::VectorXd& y) const;
  RungeKuttaOptions options_;
  int n_;
  double h_ = 0;
  double t0_ = 0, hDone_ = 0;  // the last accepted step
  double stepLimit_ = 0;
  Eigen::VectorXd y_, k_[7], ytmp_, ynew_, err_, a_, x_, v_;  // x_, v_: the halves of a stage's y
  Eigen::VectorXd dense_[5];   // the continuous extension's coefficients of the last step
  State stepEndState_;
  mutable Eigen::VectorXd yDense_;  // interpolate's buffer
};

}  // namespace lw::integ
