#include "integrators/integrators.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace lw::integ {

ExplicitResidual::ExplicitResidual(int n, const TrapezoidalOptions& o)
    : useMinusIdentity(o.startWithMinusIdentity), reuse_(o.reuseJacobian), F_(n), Fp_(n), xp_(n), vp_(n), J_(n, n), lu_(n) {}

void ExplicitResidual::beginStep(const State& s, double h, int /*lastIterations*/) {
  system->beginStep(s);
  start_ = &s;
  h_ = h;
  if (std::abs(jacobianH_ - h) > 1e-9 * h) haveJacobian_ = false;  // not on round-off of t
  if (!haveJacobian_ && useMinusIdentity && J_.rows() > 0) {
    J_ = -Eigen::MatrixXd::Identity(J_.rows(), J_.cols());
    lu_.compute(J_);
    haveJacobian_ = true;
    minusIdentity_ = true;
    jacobianH_ = h;
  }
}

Status ExplicitResidual::residual(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a, Eigen::VectorXd& r) {
  t_ = t;
  x_ = &x;
  if (const Status st = system->acceleration(t, x, v, F_); !st.ok()) return st;
  r = (h_ * h_ / 4) * (F_ - a);
  return {};
}

// tangent of r(x) = (h²/4)(F(x, v(x)) − a(x)): (h²/4)(F_x + (2/h) F_v) − I, the system's exact
// Jacobians at the last residual's point, else by forward differences
Status ExplicitResidual::tangent() {
  const double h = h_;
  const Eigen::VectorXd& x = *x_;
  if (system->jacobians(Fx_, Fv_) && Fx_.rows() == x.size() && Fx_.cols() == x.size() && Fv_.rows() == x.size() && Fv_.cols() == x.size()) {
    J_ = (h * h / 4) * Fx_;
    J_.noalias() += (h / 2) * Fv_;
    ++exactJacobians;
  } else {
    xp_ = x;
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      const double dx = 1e-7 * std::max(1.0, std::abs(x[j]));
      xp_[j] += dx;
      vp_ = (2 / h) * (xp_ - start_->x) - start_->v;
      Status st = system->acceleration(t_, xp_, vp_, Fp_);
      xp_[j] = x[j];
      if (!st.ok()) return st;
      J_.col(j) = (h * h / 4) * (Fp_ - F_) / dx;
    }
    // the v(x) dependence is inside Fp_ − F_ (v moved with x); back to the unperturbed point, so
    // that the system's dependent state is not left at the last perturbation
    vp_ = (2 / h) * (x - start_->x) - start_->v;
    if (const Status back = system->acceleration(t_, x, vp_, Fp_); !back.ok()) return back;
  }
  J_.diagonal().array() -= 1;  // the −a(x) term: ∂a/∂x = 4/h², scaled by h²/4
  haveJacobian_ = true;
  minusIdentity_ = false;
  // near −I (short steps, soft systems) the next system in new coordinates may start with −I:
  // ‖J + I‖∞ < 0.01, row by row without forming J + I
  double deviation = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) deviation = std::max(deviation, J_.row(i).cwiseAbs().sum() - std::abs(J_(i, i)) + std::abs(J_(i, i) + 1));
  useMinusIdentity = deviation < 0.01;
  jacobianH_ = h;
  ++jacobians;
  lu_.compute(J_);  // kept with the tangent: the steps that reuse it reuse its factorisation
  return {};
}

Status ExplicitResidual::solve(int iteration, const Eigen::VectorXd& r, Eigen::VectorXd& dx) {
  if (!haveJacobian_ || (iteration > 0 && iteration % reuse_ == 0))
    if (const Status st = tangent(); !st.ok()) return st;
  dx = lu_.solve(r);
  return {};
}

bool ExplicitResidual::resolveSlowContraction(double theta, const Eigen::VectorXd& r, Eigen::VectorXd& dx, Status& status) {
  // −I contracts too slowly here (or not at all): the tangent at this point, and the update again
  if (!minusIdentity_ || theta <= 0.1) return false;
  status = tangent();
  if (status.ok()) dx = lu_.solve(r);
  return true;
}

Status ExplicitResidual::acceptStep(const State& from, State& to, int iterations) {
  if (const Status accepted = system->acceptStep(from, to); !accepted.ok()) return accepted;
  // a slow convergence says the kept tangent has aged: refresh it at the next step's start
  if (iterations > 5) haveJacobian_ = useMinusIdentity = false;
  return {};
}

Trapezoidal::Trapezoidal(int n, TrapezoidalOptions o) : newmark_(n, NewmarkOptions{o.tolerance, o.maxIterations}), residual_(n, o) {}

Status Trapezoidal::step(SecondOrderSystem& sys, State& s, double h) {
  residual_.system = &sys;
  return newmark_.step(residual_, s, h);
}

// ---- Dormand–Prince 5(4) ----
namespace {
using namespace dopri;
constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525,
                 e7 = -1.0 / 40;
// the continuous extension of order 4 (Hairer, Nørsett & Wanner's DOPRI5, CONTD5)
constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0, d4 = -10690763975.0 / 1880347072.0,
                 d5 = 701980252875.0 / 199316789632.0, d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
}  // namespace

double dopri::quadratureAt(double theta, double h, double q0, const double g[7]) {
  const double q1 = q0 + h * (b1 * g[0] + b3 * g[2] + b4 * g[3] + b5 * g[4] + b6 * g[5]);
  const double k1 = q1 - q0, k2 = h * g[0] - k1, k3 = k1 - h * g[6] - k2;
  const double k4 = h * (d1 * g[0] + d3 * g[2] + d4 * g[3] + d5 * g[4] + d6 * g[5] + d7 * g[6]);
  const double t1 = 1 - theta;
  return q0 + theta * (k1 + t1 * (k2 + theta * (k3 + t1 * k4)));
}

DormandPrince::DormandPrince(int n, RungeKuttaOptions o)
    : options_(o), n_(n), y_(2 * n), ytmp_(2 * n), ynew_(2 * n), err_(2 * n), a_(n), x_(n), v_(n) {
  for (auto& k : k_) k.resize(2 * n);
  for (auto& d : dense_) d.setZero(2 * n);
}

Status DormandPrince::f(SecondOrderSystem& sys, double t, const Eigen::VectorXd& y, Eigen::VectorXd& dy) {
  x_ = y.head(n_);
  v_ = y.tail(n_);
  const Status s = sys.acceleration(t, x_, v_, a_);
  if (!s.ok()) return s;
  dy.head(n_) = y.tail(n_);
  dy.tail(n_) = a_;
  return {};
}

// Hairer, Nørsett & Wanner's starting step (HINIT): the first-order terms' size against the
// state's, then the second derivative's from one explicit Euler step
double DormandPrince::initialStep(SecondOrderSystem& sys, const State& s, double tStop) {
  const double span = tStop - s.t;
  double d0 = 0, d1 = 0;
  for (Eigen::Index i = 0; i < y_.size(); ++i) {
    const double sc = options_.atol + options_.rtol * std::abs(y_[i]);
    d0 = std::max(d0, std::abs(y_[i]) / sc);
    d1 = std::max(d1, std::abs(k_[0][i]) / sc);
  }
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, span);
  ytmp_ = y_ + h0 * k_[0];
  double d2 = 0;
  if (f(sys, s.t + h0, ytmp_, k_[1]).ok()) {
    for (Eigen::Index i = 0; i < y_.size(); ++i)
      d2 = std::max(d2, std::abs(k_[1][i] - k_[0][i]) / (options_.atol + options_.rtol * std::abs(y_[i])));
    d2 /= h0;
  }
  sys.beginStep(s);  // the probe moved the system's own state
  const double h1 = std::max(d1, d2) <= 1e-15 ? std::max(1e-6, 1e-3 * h0) : std::pow(0.01 / std::max(d1, d2), 0.2);
  return std::min({100 * h0, h1, span});
}

Status DormandPrince::step(SecondOrderSystem& sys, State& s, double tStop, double tryStep) {
  const double span = tStop - s.t;
  if (span <= 0) return lw::failure(lw::Status::Code::BadRequest, s.t, "no time left to step over");
  if (n_ == 0) {  // no freedom: the drivers set everything, stepped at most maxStep at a time
    double h = tryStep > 0 ? std::min(tryStep, span) : span;
    if (options_.maxStep > 0 && tryStep <= 0) h = std::min(h, options_.maxStep);
    const Status st = sys.acceleration(s.t + h, s.x, s.v, a_);
    if (!st.ok()) return st;
    t0_ = s.t;
    hDone_ = h;
    s.t += h;
    s.a = a_;
    ++acceptedSteps;
    return {};
  }
  y_ << s.x, s.v;
  k_[0] << s.v, s.a;
  const double t = s.t;
  if (h_ <= 0 && tryStep <= 0) h_ = initialStep(sys, s, tStop);
  double h = tryStep > 0 ? tryStep : h_;
  if (options_.maxStep > 0) h = std::min(h, options_.maxStep);
  if (stepLimit_ > 0 && tryStep <= 0) h = std::min(h, stepLimit_);
  for (int attempt = 0;; ++attempt) {
    // the last step before tStop is stretched to reach it rather than leave a sliver
    if (h >= span || (tryStep <= 0 && h > 0.99 * span)) h = span;
    if (attempt > 60 || h < 1e-14 * std::max(1.0, std::abs(t)))
      return lw::failure(lw::Status::Code::NotConverged, t, "the Runge–Kutta step size fell to " + lw::shortNumber(h) + " s at t = " + lw::shortNumber(t) +
                            ": the solution changes too fast (a singular position, or the simulation is diverging)");
    sys.beginStep(s);
    // the stages (a failure of the system inside them shrinks the step)
    bool ok = true;
    auto stage = [&](int i, double tt) {
      if (!ok) return;
      ok = f(sys, tt, ytmp_, k_[i - 1]).ok();
      if (ok && i >= 3) sys.stageEvaluated(i);
    };
    stagePoint(2, h, ytmp_);
    stage(2, t + c2 * h);
    stagePoint(3, h, ytmp_);
    stage(3, t + c3 * h);
    stagePoint(4, h, ytmp_);
    stage(4, t + c4 * h);
    stagePoint(5, h, ytmp_);
    stage(5, t + c5 * h);
    stagePoint(6, h, ytmp_);
    stage(6, t + h);
    if (ok) {
      ynew_ = y_ + h * (b1 * k_[0] + b3 * k_[2] + b4 * k_[3] + b5 * k_[4] + b6 * k_[5]);
      ok = f(sys, t + h, ynew_, k_[6]).ok();
      if (ok) sys.stageEvaluated(7);
    }
    double errNorm = 1e300;
    if (ok && ynew_.allFinite()) {
      err_ = h * (e1 * k_[0] + e3 * k_[2] + e4 * k_[3] + e5 * k_[4] + e6 * k_[5] + e7 * k_[6]);
      errNorm = 0;
      for (Eigen::Index i = 0; i < err_.size(); ++i)
        errNorm = std::max(errNorm, std::abs(err_[i]) / (options_.atol + options_.rtol * std::max(std::abs(y_[i]), std::abs(ynew_[i]))));
    }
    bool branchLost = false;
    if (errNorm <= 1) {
      stepEndState_.t = t + h;
      stepEndState_.x = ynew_.head(n_);
      stepEndState_.v = ynew_.tail(n_);
      stepEndState_.a = k_[6].tail(n_);
      const Status accepted = sys.acceptStep(s, stepEndState_);
      if (accepted.ok()) {
        // the continuous extension's coefficients (before y_ moves on)
        dense_[0] = y_;
        dense_[1] = ynew_ - y_;
        dense_[2] = h * k_[0] - dense_[1];
        dense_[3] = dense_[1] - h * k_[6] - dense_[2];
        dense_[4] = h * (d1 * k_[0] + d3 * k_[2] + d4 * k_[3] + d5 * k_[4] + d6 * k_[5] + d7 * k_[6]);
        t0_ = t;
        hDone_ = h;
        lastStep = h;
        ++acceptedSteps;
        // no growth right after a rejection (Hairer & Wanner's DOPRI5): it would be rejected again
        const double grow = std::clamp(0.9 * std::pow(std::max(errNorm, 1e-10), -0.2), 0.2, attempt > 0 ? 1.0 : 5.0);
        if (tryStep <= 0 || h < span) h_ = h * grow;  // not from a step cut short by tStop
        s.t = stepEndState_.t;
        s.x = stepEndState_.x;
        s.v = stepEndState_.v;
        s.a = stepEndState_.a;
        return {};
      }
      if (accepted.code != lw::Status::Code::LeftBranch) return accepted;
      branchLost = true;
    }
    ++rejectedSteps;
    if (tryStep > 0) {
      sys.beginStep(s);
      if (ok && !branchLost) h_ = h * std::clamp(0.9 * std::pow(errNorm, -0.2), 0.1, 0.5);
      return lw::failure(lw::Status::Code::Rejected, t, "the step of " + lw::shortNumber(h) + " s was rejected", errNorm);
    }
    h *= branchLost ? 0.5 : ok ? std::clamp(0.9 * std::pow(errNorm, -0.2), 0.1, 0.5) : 0.25;
  }
}

void DormandPrince::stagePoint(int stage, double h, Eigen::VectorXd& y) const {
  switch (stage) {
    case 2: y = y_ + h * a21 * k_[0]; break;
    case 3: y = y_ + h * (a31 * k_[0] + a32 * k_[1]); break;
    case 4: y = y_ + h * (a41 * k_[0] + a42 * k_[1] + a43 * k_[2]); break;
    case 5: y = y_ + h * (a51 * k_[0] + a52 * k_[1] + a53 * k_[2] + a54 * k_[3]); break;
    default: y = y_ + h * (a61 * k_[0] + a62 * k_[1] + a63 * k_[2] + a64 * k_[3] + a65 * k_[4]); break;
  }
}

void DormandPrince::stageState(int stage, State& out) const {
  static constexpr double c[6] = {0, c2, c3, c4, c5, 1.0};  // by stage − 1
  stagePoint(stage, hDone_, yDense_);
  out.t = t0_ + c[stage - 1] * hDone_;
  out.x = yDense_.head(n_);
  out.v = yDense_.tail(n_);
  out.a = k_[stage - 1].tail(n_);
}

void DormandPrince::interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& v) const {
  const double theta = hDone_ > 0 ? std::clamp((t - t0_) / hDone_, 0.0, 1.0) : 1.0;
  const double t1 = 1 - theta;
  yDense_ = dense_[0] + theta * (dense_[1] + t1 * (dense_[2] + theta * (dense_[3] + t1 * dense_[4])));
  x = yDense_.head(n_);
  v = yDense_.tail(n_);
}

Status DormandPrince::advance(SecondOrderSystem& sys, State& s, double tEnd) {
  while (s.t < tEnd - 1e-14 * std::max(1.0, std::abs(tEnd))) {
    const Status st = step(sys, s, tEnd);
    if (!st.ok()) return st;
  }
  return {};
}

}  // namespace lw::integ
