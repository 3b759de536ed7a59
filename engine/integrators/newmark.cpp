#include "integrators/newmark.h"

#include <algorithm>
#include <cmath>

namespace lw::integ {

std::string NewmarkSystem::failureHint(double h) const {
  return "the motion is too fast for the step " + lw::shortNumber(h) + " s, or the simulation is diverging";
}

Newmark::Newmark(int n, NewmarkOptions o) : options(o), x_(n), v_(n), a_(n), r_(n), dx_(n) {}

Status Newmark::step(NewmarkSystem& sys, State& s, double h) {
  const double t0 = s.t, t = s.t + h;
  const Eigen::VectorXd &x0 = s.x, &v0 = s.v, &a0 = s.a;
  sys.beginStep(s, h, lastIterations);
  if (x_.size() == 0) {  // no freedom (everything driven): the system only follows its drivers
    const Status st = sys.residual(t, x0, v0, a0, r_);
    if (!st.ok()) return st;
    start_.t = t0;
    s.t = last_.t = t;
    return {};
  }
  // predictor: x from the rule with the acceleration extrapolated linearly from the last step,
  // when the state is where that step ended (not after a change of coordinates, a jump or a
  // retake); constant acceleration otherwise
  if (haveLast_ && t0 == last_.t && x0 == last_.x && v0 == last_.v && a0 == last_.a) {
    a_ = a0 + (h / lastH_) * (a0 - lastStartA_);
    x_ = x0 + h * v0 + (h * h / 4) * (a0 + a_);
  } else {
    x_ = x0 + h * v0 + 0.5 * h * h * a0;
  }
  double lastNorm = 0;  // the previous update's size: the iteration's contraction rate
  for (lastIterations = 0; lastIterations < options.maxIterations; ++lastIterations) {
    ++iterations;
    v_ = (2 / h) * (x_ - x0) - v0;
    a_ = (4 / (h * h)) * (x_ - x0) - (4 / h) * v0 - a0;
    Status st = sys.residual(t, x_, v_, a_, r_);
    if (!st.ok()) return st;
    st = sys.solve(lastIterations, r_, dx_);
    if (!st.ok()) return st;
    double norm = dx_.cwiseAbs().maxCoeff();
    double theta = lastIterations > 0 && lastNorm > 0 ? norm / lastNorm : 1;
    if (lastIterations > 0 && sys.resolveSlowContraction(theta, r_, dx_, st)) {
      norm = dx_.cwiseAbs().maxCoeff();
      theta = 1;
    }
    if (!st.ok()) return st;
    x_ -= dx_;
    const double scale = std::max(1.0, x_.cwiseAbs().maxCoeff());
    if (!dx_.allFinite() || !x_.allFinite())
      return lw::failure(lw::Status::Code::NotConverged, t, "the simulation diverged at t = " + lw::shortNumber(t) +
                                                                ": the trapezoidal rule's Newton iteration produced non-finite values (" + sys.failureHint(h) + ")");
    // converged when the update is below the tolerance, or when the distance left to the root,
    // estimated from the contraction rate θ as θ/(1 − θ) |dx| (Hairer & Wanner, IV.8), is: a
    // linearly converging (modified) Newton iteration then stops an iteration earlier, which
    // at 10 ms steps is one evaluation in three
    lastNorm = norm;
    if (norm < options.tolerance * scale || (theta < 0.5 && theta / (1 - theta) * norm < options.tolerance * scale)) {
      // accepted without another evaluation: what the system computed is that of one update
      // earlier, a lag far below the step's truncation error
      end_.t = t;  // a member: its buffers are reused, no allocation per step
      end_.x = x_;
      end_.v = (2 / h) * (x_ - x0) - v0;
      end_.a = (4 / (h * h)) * (x_ - x0) - (4 / h) * v0 - a0;
      if (const Status accepted = sys.acceptStep(s, end_, lastIterations + 1); !accepted.ok()) return accepted;
      start_ = s;
      lastStartA_ = s.a;
      lastH_ = h;
      s = end_;
      last_ = end_;
      haveLast_ = true;
      ++lastIterations;
      return {};
    }
  }
  return lw::failure(lw::Status::Code::NotConverged, t, "the trapezoidal rule's Newton iteration did not converge at t = " + lw::shortNumber(t) + " (step " +
                                                            lw::shortNumber(h) + " s): " + sys.failureHint(h));
}

void Newmark::interpolate(double t, Eigen::VectorXd& x, Eigen::VectorXd& v) const {
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

}  // namespace lw::integ
