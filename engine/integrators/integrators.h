// Time integrators for second-order systems x'' = F(t, x, x'): the implicit trapezoidal rule
// (Newmark β = 1/4, γ = 1/2) with Newton–Raphson, and an adaptive Dormand–Prince 5(4) Runge–Kutta
// with error control and dense output. The system is a plug-in point: the Matrix R ODE, later the
// penalty formulation, implement it.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>

#include "kinematics/global_solver.h"

namespace lw::integ {

using Status = kin::KinStatus;

class SecondOrderSystem {
 public:
  virtual ~SecondOrderSystem() = default;
  /// a = F(t, x, v). May keep internal state (the dependent coordinates of the last call).
  virtual Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) = 0;
};

struct State {
  double t = 0;
  Eigen::VectorXd x, v, a;
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

class Trapezoidal {
 public:
  explicit Trapezoidal(int n, TrapezoidalOptions o = {});
  /// One step of size h from s (s.a consistent with s.x, s.v). On success s advances.
  Status step(SecondOrderSystem& sys, State& s, double h);
  int lastIterations = 0;
  int jacobians = 0;  // tangents built so far
  /// The iteration matrix is −I, or the last tangent was within 1 % of it (‖J + I‖∞ < 0.01): the
  /// same system in other coordinates may start with −I (startWithMinusIdentity).
  bool nearMinusIdentity() const { return useMinusIdentity_; }

 private:
  TrapezoidalOptions options_;
  Eigen::VectorXd x_, v_, a_, F_, Fp_, r_, dx_;
  Eigen::MatrixXd J_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  bool haveJacobian_ = false;
  bool minusIdentity_ = false;     // J_ is −I, not a tangent
  bool useMinusIdentity_ = false;  // when a new iteration matrix is needed, try −I first
  double jacobianH_ = 0;
  // the previous step, for a predictor that extrapolates the acceleration linearly (the first
  // Newton update then usually meets the tolerance: one evaluation per step instead of two)
  State last_;                    // what the last step returned
  Eigen::VectorXd lastStartA_;    // the acceleration it started from
  double lastH_ = 0;
  bool haveLast_ = false;
  Status tangent(SecondOrderSystem& sys, const State& s0, double t, double h);
};

// ---- Dormand–Prince 5(4) ----
struct RungeKuttaOptions {
  double rtol = 1e-8, atol = 1e-10;
  double maxStep = 0;  // 0: no limit
};

class DormandPrince {
 public:
  explicit DormandPrince(int n, RungeKuttaOptions o = {});
  /// Advances s to tEnd with adaptive internal steps (dense output between them).
  Status advance(SecondOrderSystem& sys, State& s, double tEnd);
  int acceptedSteps = 0, rejectedSteps = 0;
  double lastStep = 0;

 private:
  Status f(SecondOrderSystem& sys, double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy);
  RungeKuttaOptions options_;
  int n_;
  double h_ = 0;
  Eigen::VectorXd y_, k_[7], ytmp_, ynew_, err_, a_, x_, v_;  // x_, v_: the halves of a stage's y
};

}  // namespace lw::integ
