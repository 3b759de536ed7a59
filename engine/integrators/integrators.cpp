#include "integrators/integrators.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <sstream>

namespace lw::integ {
namespace {

}  // namespace

Trapezoidal::Trapezoidal(int n, TrapezoidalOptions o)
    : options_(o), x_(n), v_(n), a_(n), F_(n), Fp_(n), r_(n), dx_(n), J_(n, n), lu_(n), useMinusIdentity_(o.startWithMinusIdentity) {}

// tangent of r(x) = (h²/4)(F(x, v(x)) − a(x)): (h²/4)(F_x + (2/h) F_v) − I, by forward differences
Status Trapezoidal::tangent(SecondOrderSystem& sys, const State& s0, double t, double h) {
  const auto n = x_.size();
  for (Eigen::Index j = 0; j < n; ++j) {
    const double dx = 1e-7 * std::max(1.0, std::abs(x_[j]));
    const double keep = x_[j];
    x_[j] += dx;
    v_ = (2 / h) * (x_ - s0.x) - s0.v;
    Status st = sys.acceleration(t, x_, v_, Fp_);
    x_[j] = keep;
    if (!st.ok()) return st;
    J_.col(j) = (h * h / 4) * (Fp_ - F_) / dx;
  }
  J_.diagonal().array() -= 1;  // the −a(x) term: ∂a/∂x = 4/h², scaled by h²/4
  // the v(x) dependence is inside Fp_ − F_ (v moved with x); back to the unperturbed point, so
  // that the system's dependent state is not left at the last perturbation
  v_ = (2 / h) * (x_ - s0.x) - s0.v;
  const Status back = sys.acceleration(t, x_, v_, Fp_);
  if (!back.ok()) return back;
  haveJacobian_ = true;
  minusIdentity_ = false;
  // near −I (short steps, soft systems) the next system in new coordinates may start with −I:
  // ‖J + I‖∞ < 0.01, row by row without forming J + I
  double deviation = 0;
  for (Eigen::Index i = 0; i < n; ++i) deviation = std::max(deviation, J_.row(i).cwiseAbs().sum() - std::abs(J_(i, i)) + std::abs(J_(i, i) + 1));
  useMinusIdentity_ = deviation < 0.01;
  jacobianH_ = h;
  ++jacobians;
  return {};
}

Status Trapezoidal::step(SecondOrderSystem& sys, State& s, double h) {
  const double t = s.t + h;
  sys.beginStep(s);
  if (x_.size() == 0) {  // no freedom (everything driven): the system only follows its drivers
    const Status st = sys.acceleration(t, s.x, s.v, a_);
    if (!st.ok()) return st;
    start_ = s;
    s.t = t;
    s.a = a_;
    last_ = s;
    return {};
  }
  // predictor: x from the trapezoidal rule with the acceleration extrapolated linearly from the
  // last step, when s is where that step ended (not after a change of coordinates or a reset);
  // constant acceleration otherwise
  if (haveLast_ && s.t == last_.t && s.x == last_.x && s.v == last_.v && s.a == last_.a) {
    a_ = s.a + (h / lastH_) * (s.a - lastStartA_);
    x_ = s.x + h * s.v + (h * h / 4) * (s.a + a_);
  } else {
    x_ = s.x + h * s.v + 0.5 * h * h * s.a;
  }
  if (std::abs(jacobianH_ - h) > 1e-9 * h) haveJacobian_ = false;  // not on round-off of t
  auto& lu = lu_;
  if (!haveJacobian_ && useMinusIdentity_) {
    J_ = -Eigen::MatrixXd::Identity(J_.rows(), J_.cols());
    lu.compute(J_);
    haveJacobian_ = true;
    minusIdentity_ = true;
    jacobianH_ = h;
  }
  double lastNorm = 0;  // the previous update's size: the iteration's contraction rate
  for (lastIterations = 0; lastIterations < options_.maxIterations; ++lastIterations) {
    v_ = (2 / h) * (x_ - s.x) - s.v;
    a_ = (4 / (h * h)) * (x_ - s.x) - (4 / h) * s.v - s.a;
    Status st = sys.acceleration(t, x_, v_, F_);
    if (!st.ok()) return st;
    r_ = (h * h / 4) * (F_ - a_);
    if (!haveJacobian_ || (lastIterations > 0 && lastIterations % options_.reuseJacobian == 0)) {
      st = tangent(sys, s, t, h);
      if (!st.ok()) return st;
      lu.compute(J_);  // kept with the tangent: the steps that reuse it reuse its factorisation
    }
    dx_ = lu.solve(r_);
    dx_ = -dx_;
    double norm = dx_.cwiseAbs().maxCoeff();
    double theta = lastIterations > 0 && lastNorm > 0 ? norm / lastNorm : 1;
    if (minusIdentity_ && lastIterations > 0 && theta > 0.1) {
      // −I contracts too slowly here (or not at all): the tangent at this point, and the update again
      st = tangent(sys, s, t, h);
      if (!st.ok()) return st;
      lu.compute(J_);
      dx_ = lu.solve(r_);
      dx_ = -dx_;
      norm = dx_.cwiseAbs().maxCoeff();
      theta = 1;
    }
    x_ += dx_;
    const double scale = std::max(1.0, x_.cwiseAbs().maxCoeff());
    if (!dx_.allFinite() || !x_.allFinite())
      return lw::failure(lw::Status::Code::NotConverged, t, "the simulation diverged at t = " + lw::shortNumber(t) + ": the Newton iteration of the trapezoidal rule produced non-finite values (step " + lw::shortNumber(h) + " s too large, or the model is unstable)");
    // converged when the update is below the tolerance, or when the distance left to the root,
    // estimated from the contraction rate θ as θ/(1 − θ) |dx| (Hairer & Wanner, IV.8), is: a
    // linearly converging (modified) Newton iteration then stops an iteration earlier, which
    // at 10 ms steps is one evaluation in three
    lastNorm = norm;
    if (norm < options_.tolerance * scale || (theta < 0.5 && theta / (1 - theta) * norm < options_.tolerance * scale)) {
      // accepted without another evaluation: the system's dependent state (Matrix R's z) is
      // that of one update earlier, a lag far below the step's truncation error
      v_ = (2 / h) * (x_ - s.x) - s.v;
      a_ = (4 / (h * h)) * (x_ - s.x) - (4 / h) * s.v - s.a;
      end_.t = t;  // a member: its buffers are reused, no allocation per step
      end_.x = x_;
      end_.v = v_;
      end_.a = a_;
      if (const Status accepted = sys.acceptStep(s, end_); !accepted.ok()) return accepted;
      start_ = s;
      lastStartA_ = s.a;
      lastH_ = h;
      s.t = t;
      s.x = x_;
      s.v = v_;
      s.a = a_;
      last_ = s;
      haveLast_ = true;
      // a slow convergence says the kept tangent has aged: refresh it at the next step's start
      if (lastIterations > 4) haveJacobian_ = useMinusIdentity_ = false;
      return {};
    }
    if (lastIterations > 2 && lastIterations % options_.reuseJacobian == options_.reuseJacobian - 1) haveJacobian_ = false;
  }
  return lw::failure(lw::Status::Code::NotConverged, t, "the trapezoidal rule's Newton iteration did not converge at t = " + lw::shortNumber(t) + " (step " + lw::shortNumber(h) +
                        " s): the motion is too fast for this step, or the simulation is diverging");
}

void Trapezoidal::interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& v) const {
  const double tau = t - start_.t;
  if (start_.x.size() == 0 || tau <= 0) {
    x = start_.x;
    v = start_.v;
    return;
  }
  // Newmark β = 1/4, γ = 1/2: the acceleration over the step is the average of its ends
  x = start_.x + tau * start_.v + (tau * tau / 4) * (start_.a + last_.a);
  v = start_.v + (tau / 2) * (start_.a + last_.a);
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
  if (n_ == 0) {  // no freedom: evaluate at the end (the drivers set everything)
    const double h = tryStep > 0 ? std::min(tryStep, span) : span;
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
  for (int attempt = 0;; ++attempt) {
    // the last step before tStop is stretched to reach it rather than leave a sliver
    if (h >= span || (tryStep <= 0 && h > 0.99 * span)) h = span;
    if (attempt > 60 || h < 1e-14 * std::max(1.0, std::abs(t)))
      return lw::failure(lw::Status::Code::NotConverged, t, "the Runge–Kutta step size fell to " + lw::shortNumber(h) + " s at t = " + lw::shortNumber(t) +
                            ": the solution changes too fast (a singular position, or the simulation is diverging)");
    sys.beginStep(s);
    // the stages (a failure of the system inside them shrinks the step)
    bool ok = true;
    auto stage = [&](Eigen::VectorXd& k, double tt) {
      if (!ok) return;
      ok = f(sys, tt, ytmp_, k).ok();
    };
    ytmp_ = y_ + h * a21 * k_[0];
    stage(k_[1], t + c2 * h);
    ytmp_ = y_ + h * (a31 * k_[0] + a32 * k_[1]);
    stage(k_[2], t + c3 * h);
    ytmp_ = y_ + h * (a41 * k_[0] + a42 * k_[1] + a43 * k_[2]);
    stage(k_[3], t + c4 * h);
    ytmp_ = y_ + h * (a51 * k_[0] + a52 * k_[1] + a53 * k_[2] + a54 * k_[3]);
    stage(k_[4], t + c5 * h);
    ytmp_ = y_ + h * (a61 * k_[0] + a62 * k_[1] + a63 * k_[2] + a64 * k_[3] + a65 * k_[4]);
    stage(k_[5], t + h);
    if (ok) {
      ynew_ = y_ + h * (b1 * k_[0] + b3 * k_[2] + b4 * k_[3] + b5 * k_[4] + b6 * k_[5]);
      ok = f(sys, t + h, ynew_, k_[6]).ok();
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
