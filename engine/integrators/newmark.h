// The implicit trapezoidal rule (Newmark β = 1/4, γ = 1/2) as one Newton loop, whatever the
// equations: the rule ties the step's end velocities and accelerations to its end positions x,
//   v(x) = (2/h)(x − x₀) − v₀,   a(x) = (4/h²)(x − x₀) − (4/h)v₀ − a₀,
// and a system supplies the residual r(x) whose root is the step's end and solves with its
// iteration matrix ≈ ∂r/∂x. The Matrix R ODE (r = (h²/4)(F(x, v) − a), integrators.h) and the
// penalty formulation (r = (h²/4)(M a + Φ_zᵀαΦ − Q), dynamics/penalty.h) are two such systems:
// the predictor, the convergence test, the divergence checks and the interpolant are shared.
#pragma once

#include <Eigen/Core>
#include <string>

#include "core/status.h"

namespace lw::integ {

struct State {
  double t = 0;
  Eigen::VectorXd x, v, a;
};

class NewmarkSystem {
 public:
  virtual ~NewmarkSystem() = default;
  /// Before each attempt of a step of size h from s; `lastIterations`: the Newton iterations the
  /// previous step took (a system keeps or rebuilds its iteration matrix on it).
  virtual void beginStep(const State& /*s*/, double /*h*/, int /*lastIterations*/) {}
  /// r(x) at the trial end x at time t, with v and a given by the rule.
  virtual Status residual(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::VectorXd& r) = 0;
  /// dx = J⁻¹ r with the system's iteration matrix J ≈ ∂r/∂x at the last residual's point; the
  /// loop moves x by −dx. `iteration` counts from 0 within the step.
  virtual Status solve(int iteration, const Eigen::VectorXd& r, Eigen::VectorXd& dx) = 0;
  /// The update just computed shrank by θ = |dx_k|/|dx_{k−1}| only: a system iterating with a
  /// cheap approximate matrix may rebuild it and solve again (true: dx replaced).
  virtual bool resolveSlowContraction(double /*theta*/, const Eigen::VectorXd& /*r*/, Eigen::VectorXd& /*dx*/, Status& /*status*/) { return false; }
  /// The converged end `to` (x from Newton, v and a by the rule): the system may refine v and a
  /// (the penalty formulation's projections) or refuse the step (s then stays unchanged).
  virtual Status acceptStep(const State& /*from*/, State& /*to*/, int /*iterations*/) { return {}; }
  /// What a failure message adds: why the iteration may fail for this system and what to try.
  virtual std::string failureHint(double h) const;
};

struct NewmarkOptions {
  double tolerance = 1e-10;  // on the Newton update of x (scaled by max(1, |x|))
  int maxIterations = 25;
};

class Newmark {
 public:
  explicit Newmark(int n, NewmarkOptions o = {});
  /// One step of size h from s (s.a consistent with s.x, s.v). On success s advances; on failure
  /// it is unchanged.
  Status step(NewmarkSystem& sys, State& s, double h);
  /// The rule's own polynomial over the last step (constant average acceleration (a₀ + a₁)/2):
  /// x and v at t in [stepStart(), stepEnd()], second order like the rule.
  void interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& v) const;
  double stepStart() const { return start_.t; }
  double stepEnd() const { return last_.t; }
  /// The next step starts from a constant-acceleration predictor (after a jump or a restart).
  void forgetHistory() { haveLast_ = false; }
  int lastIterations = 0;  // Newton iterations the last step took
  long iterations = 0;     // all of them so far (a reported metric)
  NewmarkOptions options;

 private:
  Eigen::VectorXd x_, v_, a_, r_, dx_;
  // the previous step, for a predictor that extrapolates the acceleration linearly (the first
  // Newton update then usually meets the tolerance: one evaluation per step instead of two)
  State last_;                  // what the last step returned
  State start_;                 // where it started (for interpolate)
  State end_;                   // a converged step's end, offered to the system's acceptStep
  Eigen::VectorXd lastStartA_;  // the acceleration it started from
  double lastH_ = 0;
  bool haveLast_ = false;
};

}  // namespace lw::integ
