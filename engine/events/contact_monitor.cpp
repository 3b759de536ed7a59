#include "events/contact_monitor.h"

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>

#include "events/contact_gaps.h"

namespace lw::events {

namespace {

// the cubic Hermite interpolant of a gap over [0, h] from its values and rates at both ends
double hermite(double s, double h, double g0, double r0, double g1, double r1) {
  const double u = s / h, u2 = u * u, u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * g0 + (u3 - 2 * u2 + u) * h * r0 + (-2 * u3 + 3 * u2) * g1 + (u3 - u2) * h * r1;
}

// where the interpolant is least (largest when `largest`) strictly inside (0, h), at a root of its
// derivative (a quadratic in u = s/h): NaN when it has no such extremum there
double interiorExtremum(double h, double g0, double r0, double g1, double r1, bool largest) {
  // g'(u)/h... in u: (6u² − 6u)(g0 − g1) + (3u² − 4u + 1) h r0 + (3u² − 2u) h r1
  const double a = 6 * (g0 - g1) + 3 * h * (r0 + r1), b = -6 * (g0 - g1) - h * (4 * r0 + 2 * r1), c = h * r0;
  double best = NAN, bestValue = largest ? -INFINITY : INFINITY;
  auto consider = [&](double u) {
    if (!(u > 0 && u < 1)) return;
    const double v = hermite(u * h, h, g0, r0, g1, r1);
    if (largest ? v > bestValue : v < bestValue) {
      bestValue = v;
      best = u * h;
    }
  };
  if (std::abs(a) < 1e-300) {
    if (b != 0) consider(-c / b);
  } else {
    const double disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
      if (q != 0) consider(c / q);
      consider(q / a);
    }
  }
  return best;
}

// the same over [0, h]: the end (largest: the step's end; least: its start) where no interior
// extremum is more extreme
double extremum(double h, double g0, double r0, double g1, double r1, bool largest) {
  double best = largest ? h : 0;
  const double inside = interiorExtremum(h, g0, r0, g1, r1, largest);
  if (std::isfinite(inside)) {
    const double v = hermite(inside, h, g0, r0, g1, r1), vb = hermite(best, h, g0, r0, g1, r1);
    if (largest ? v > vb : v < vb) best = inside;
  }
  return best;
}

struct CannotEvaluate {};

// The first side of a gap's root between lo (open, glo > 0) and hi (closed), located by TOMS 748
// to `tolerance` on `gapAt`: where a step is cut before the point enters (contacts and switches)
double rootBefore(const std::function<double(double)>& gapAt, double lo, double hi, double glo, double ghi, double tolerance) {
  auto f = [&](double tau) { return tau <= lo ? glo : tau >= hi ? ghi : gapAt(tau); };
  auto close = [&](double a, double b) { return b - a <= tolerance; };
  std::uintmax_t iterations = 100;
  return boost::math::tools::toms748_solve(f, lo, hi, glo, ghi, close, iterations).first;
}

}  // namespace

ContactMonitor::ContactMonitor(const dyn::RecursiveModel& tree)
    : tree_(tree), sources_(gapSources(tree)), count_(static_cast<int>(sources_.size())), gapsOf_(tree) {
  if (tree.mechanism) touching_ = 1e-10 * std::max(1e-3, tree.mechanism->lengthScale());
  side_.assign(static_cast<std::size_t>(count_), 1);
  justFired_.assign(static_cast<std::size_t>(count_), 0);
  held_.assign(static_cast<std::size_t>(count_), 0);
  released_.assign(static_cast<std::size_t>(count_), 0);
  releasedAt_.assign(static_cast<std::size_t>(count_), NAN);
  firings_.assign(static_cast<std::size_t>(count_), {});
}

// a switch that fired comes back to the near side as soon as its coordinate is seen there, by any
// amount, except at the event's own state (where it is within the location's tolerance of its
// value): the first step after the event already counts. A margin (a length band) hid the
// return of a switch whose crossings follow quickly (a chattering pair: the force stayed on).
void ContactMonitor::updateSides(const Eigen::VectorXd& g) {
  for (int j = 0; j < count_; ++j) {
    const auto k = static_cast<std::size_t>(j);
    if (sources_[k].isSwitch() && side_[k] < 0 && !justFired_[k] && g[j] > 0) side_[k] = 1;
  }
}

Status ContactMonitor::fired(const std::vector<int>& closing, double t) {
  for (int j : closing) {
    const auto k = static_cast<std::size_t>(j);
    if (!sources_[k].isSwitch()) continue;
    side_[k] = -1;
    justFired_[k] = 1;
    // crossings that accumulate (a sliding mode: the forces the switch turns on and off each
    // push the coordinate back to its value) would cut the steps ever shorter without end
    auto& times = firings_[k];
    times.push_back(t);
    if (times.size() > kChatterFirings) times.erase(times.begin());
    if (chatterWindow_ > 0 && times.size() == kChatterFirings && t - times.front() <= chatterWindow_)
      return failure(Status::Code::NotConverged, t,
                     sources_[k].label() + " chatters at t = " + shortNumber(t) + " s: it fired " + std::to_string(kChatterFirings) +
                         " times in the last " + shortNumber(t - times.front()) + " s, more often than once a step of " +
                         shortNumber(chatterWindow_ / kChatterFirings) +
                         " s (the forces it switches push its coordinate back to its value from both sides: a sliding mode, whose "
                         "motion on the switching surface is not simulated); the run stops here with the rows so far");
  }
  return {};
}

void ContactMonitor::start(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, std::vector<int>* closingNow) {
  if (!active()) return;
  t0_ = t;
  gapsOf_(z, zd, g0_, r0_);
  g1_ = g0_;
  r1_ = r0_;
  for (int j = 0; j < count_; ++j)
    if (released_[static_cast<std::size_t>(j)] && std::isnan(releasedAt_[static_cast<std::size_t>(j)]))
      releasedAt_[static_cast<std::size_t>(j)] = std::min(g0_[j], 0.0);
  if (!closingNow) {
    updateSides(g0_);
    return;
  }
  closingNow->clear();
  for (int j = 0; j < count_; ++j) {
    // a switch's coordinate past its value waits for the next crossing: only one on it now fires
    const bool isSwitch = sources_[static_cast<std::size_t>(j)].isSwitch();
    if (isSwitch) side_[static_cast<std::size_t>(j)] = g0_[j] < -touching_ ? -1 : 1;
    if (held_[static_cast<std::size_t>(j)]) continue;
    // a contact touching and not leaving (at rest on its plane: r0 = 0) closes now too: its
    // impact (no impulse) decides whether it rests
    if (g0_[j] <= touching_ && (r0_[j] < 0 || (!isSwitch && r0_[j] <= 0)) && side_[static_cast<std::size_t>(j)] > 0)
      closingNow->push_back(j);
  }
}

Status ContactMonitor::closesWithin(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                                    const std::function<bool(double, Eigen::VectorXd&)>& gapsAt, double timeTolerance, bool& found,
                                    double& tEvent, std::vector<int>& closing) {
  found = false;
  closing.clear();
  if (!active()) return {};
  t1_ = t;
  gapsOf_(z, zd, g1_, r1_);
  const double h = t1_ - t0_;
  // on the step's interpolant, or (without one) on the gaps' cubic Hermite interpolant: no
  // evaluation, a start the driver's Newton steps on the step's length refine
  auto gapAt = [&](double tau, int j) {
    if (!gapsAt) return hermite(tau - t0_, h, g0_[j], r0_[j], g1_[j], r1_[j]);
    if (!gapsAt(tau, inside_)) throw CannotEvaluate{};
    return inside_[j];
  };
  // armed: a contact that is not resting on its plane nor inside it
  auto armed = [&](int j) { return g0_[j] > touching_ || r0_[j] > 0; };
  try {
    double first = INFINITY;
    std::vector<double>& roots = roots_;
    roots.assign(static_cast<std::size_t>(count_), INFINITY);
    for (int j = 0; j < count_; ++j) {
      const double g0 = g0_[j], r0 = r0_[j], g1 = g1_[j], r1 = r1_[j];
      if (sources_[static_cast<std::size_t>(j)].isSwitch()) {
        roots[static_cast<std::size_t>(j)] = switchRoot(j, h, gapAt, timeTolerance);
        first = std::min(first, roots[static_cast<std::size_t>(j)]);
        continue;
      }
      if (held_[static_cast<std::size_t>(j)]) continue;
      // a contact let go (released from rest, or at rest at the start with nothing pressing it):
      // watched again once open beyond touching; until then it closes only where it sinks
      // touching below where it was let go
      if (released_[static_cast<std::size_t>(j)]) {
        const double floor = (std::isnan(releasedAt_[static_cast<std::size_t>(j)]) ? 0.0 : releasedAt_[static_cast<std::size_t>(j)]) - touching_;
        if (g1 < floor && r1 < 0 && g0 > floor && h > 0) {
          const double root = rootBefore([&](double tau) { return gapAt(tau, j) - floor; }, t0_, t1_, g0 - floor, g1 - floor, timeTolerance);
          roots[static_cast<std::size_t>(j)] = root;
          first = std::min(first, root);
        }
        continue;
      }
      // a step that ends on the contact (within touching of it) and closing: the impact is at its end
      if (std::abs(g1) <= touching_ && r1 < 0 && armed(j)) {
        roots[static_cast<std::size_t>(j)] = t1_;
        first = std::min(first, t1_);
        continue;
      }
      if (!armed(j) || h <= 0) continue;
      double lo = t0_, hi = t1_, glo = g0, ghi = g1;
      if (g1 < 0) {
        if (g0 <= 0) {  // it has just bounced off: from where the gap is open again
          lo = t0_ + extremum(h, g0, r0, g1, r1, true);
          glo = gapAt(lo, j);
          if (glo <= 0) {  // back at the plane within one step of its last impact, too low to resolve: it rests from its top
            roots[static_cast<std::size_t>(j)] = lo;
            first = std::min(first, lo);
            continue;
          }
        }
      } else if (g0 > 0 && r0 < 0 && r1 > 0) {  // both ends open, moving apart at the end: a dip below zero between them?
        const double s = extremum(h, g0, r0, g1, r1, false);
        if (hermite(s, h, g0, r0, g1, r1) > std::max(g0, g1)) continue;
        hi = t0_ + s;
        ghi = gapAt(hi, j);
        if (ghi >= 0) continue;
      } else {
        continue;
      }
      const double root = rootBefore([&](double tau) { return gapAt(tau, j); }, lo, hi, glo, ghi, timeTolerance);
      roots[static_cast<std::size_t>(j)] = root;
      first = std::min(first, root);
    }
    if (!std::isfinite(first)) return {};
    for (int j = 0; j < count_; ++j)
      if (roots[static_cast<std::size_t>(j)] <= first + timeTolerance) closing.push_back(j);
    tEvent = first;
    found = true;
  } catch (const CannotEvaluate&) {
    return failure(Status::Code::NotConverged, t0_, "the contacts' gaps could not be evaluated inside the step from t = " + shortNumber(t0_));
  }
  return {};
}

double ContactMonitor::switchRoot(int j, double h, const std::function<double(double, int)>& gapAt, double timeTolerance) {
  const auto k = static_cast<std::size_t>(j);
  const double g0 = g0_[j], r0 = r0_[j], g1 = g1_[j], r1 = r1_[j];
  if (h <= 0) return INFINITY;
  // A switch fires where its function falls through zero. Armed, from the step's start when it is
  // above zero there; fired (waiting), or armed but below zero, only after the function has come
  // back above zero inside the step: an interior maximum above zero (and above the start, which
  // may be the event's own state, within the location's tolerance of zero).
  const bool fromStart = side_[k] > 0 && g0 > 0;
  double lo = t0_, glo = g0;
  if (g1 < 0) {
    if (!fromStart) {
      const double inside = interiorExtremum(h, g0, r0, g1, r1, true);
      if (!std::isfinite(inside)) return INFINITY;
      lo = t0_ + inside;
      glo = gapAt(lo, j);
      if (!(glo > 0 && glo > g0)) return INFINITY;  // it did not come back above its value
    }
    return rootBefore([&](double tau) { return gapAt(tau, j); }, lo, t1_, glo, g1, timeTolerance);
  }
  // both ends above zero: a dip below it between them (armed only: waiting, the dip's fall is the
  // crossing it waits beyond, and its rise re-arms it at the end)
  if (!fromStart || !(r0 < 0 && r1 > 0)) return INFINITY;
  const double s = interiorExtremum(h, g0, r0, g1, r1, false);
  if (!std::isfinite(s)) return INFINITY;
  const double hi = t0_ + s, ghi = gapAt(hi, j);
  if (ghi >= 0) return INFINITY;
  return rootBefore([&](double tau) { return gapAt(tau, j); }, t0_, hi, g0, ghi, timeTolerance);
}

void ContactMonitor::accept() {
  if (!active()) return;
  t0_ = t1_;
  g0_ = g1_;
  r0_ = r1_;
  for (int j = 0; j < count_; ++j)  // open: watched as any other from here on
    if (released_[static_cast<std::size_t>(j)] && g0_[j] > touching_) released_[static_cast<std::size_t>(j)] = 0;
  // a step was taken since any event: its end is no longer the event's own state
  std::fill(justFired_.begin(), justFired_.end(), 0);
  updateSides(g0_);
}

}  // namespace lw::events
