#include "events/resting_contact.h"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <complex>

#include "numeric/jet.h"
#include "numeric/scalar.h"
#include "numeric/solve_on.h"

namespace lw::events {

namespace {

// the held gaps' forces added to a state's accelerations, on any scalar S: d is the run's
// MatrixRData (S = double) or a MatrixROn<S> of the sensitivities' evaluations
template <class S, class Data>
Status holdOnData(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held, double omega, double t, Data& d,
                  dyn::VectorOn<S>& force) {
  using Jet = kin::BasicJet<S>;
  using MatrixOn = num::MatrixOn<S>;
  const auto k = static_cast<Eigen::Index>(held.size());
  force.setZero(k);
  if (k == 0) return {};
  const int nz = tree.nz;
  const auto nd = d.zidd.size();
  std::vector<Jet> zj(static_cast<std::size_t>(nz)), g(gapCount(tree));
  auto gapsAlong = [&](auto direction, auto second) {
    for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet(d.z[i], direction(i), second(i));
    contactGapsOn<Jet, S>(tree, p, zj.data(), g.data());
  };
  auto gap = [&](Eigen::Index j) -> const Jet& { return g[static_cast<std::size_t>(held[static_cast<std::size_t>(j)])]; };
  // r, ṙ and r̈ without the held forces
  gapsAlong([&](int i) { return S(d.zd[i]); }, [&](int i) { return S(d.zdd[i]); });
  MatrixOn wanted(k, 1);
  for (Eigen::Index j = 0; j < k; ++j) wanted(j, 0) = -2 * omega * gap(j).d - omega * omega * gap(j).v - gap(j).dd;
  // W: the held gaps' gradients in the independent coordinates, by columns of R^Φ
  MatrixOn W(nd, k), Y;
  for (Eigen::Index c = 0; c < nd; ++c) {
    gapsAlong([&](int i) { return S(d.R(i, c)); }, [](int) { return S(0.0); });
    for (Eigen::Index j = 0; j < k; ++j) W(c, j) = gap(j).d;
  }
  const MatrixOn Mbar = d.Mbar;
  if (!num::solveOn(Mbar, W, Y)) return failure(Status::Code::Singular, t, "the reduced mass matrix is singular at a resting contact");
  const MatrixOn A = W.transpose() * Y;
  double scale = 0;
  for (Eigen::Index j = 0; j < k; ++j) scale = std::max(scale, std::abs(num::value(A(j, j))));
  for (Eigen::Index j = 0; j < k; ++j)
    if (!(std::abs(num::value(A(j, j))) > 1e-14 * scale) || scale == 0)
      return failure(Status::Code::Singular, t,
                     gapSources(tree)[static_cast<std::size_t>(held[static_cast<std::size_t>(j)])].label() +
                         " rests where the mechanism cannot move its point along the plane's normal (or the joint along its coordinate): "
                         "no force holds it");
  MatrixOn lambda;
  if constexpr (std::is_same_v<S, double>) {
    // redundant supports (a bar on three collinear points): the least-norm forces
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
    cod.setThreshold(1e-12);
    lambda = cod.solve(wanted);
  } else if (!num::solveOn(A, wanted, lambda)) {
    // the least-norm forces of redundant supports are not differentiable where the rank changes
    return failure(Status::Code::Singular, t, "the resting contacts hold redundantly (their forces are not unique): their sensitivities are not available");
  }
  force = lambda.col(0);
  const dyn::VectorOn<S> dzid = Y * force;
  d.zidd += dzid;
  d.zdd += d.R * dzid;
  return {};
}

}  // namespace

template <class S>
Status holdOn(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held, double omega, double t,
              dyn::MatrixROn<S>& e, dyn::VectorOn<S>& force) {
  return holdOnData<S>(tree, p, held, omega, t, e, force);
}
template Status holdOn<double>(const dyn::RecursiveModel&, const dyn::TreeNumbers<double>&, const std::vector<int>&,
                               double, double, dyn::MatrixROn<double>&, dyn::VectorOn<double>&);
template Status holdOn<num::Dual8>(const dyn::RecursiveModel&, const dyn::TreeNumbers<num::Dual8>&,
                                   const std::vector<int>&, double, double, dyn::MatrixROn<num::Dual8>&, dyn::VectorOn<num::Dual8>&);
template Status holdOn<std::complex<double>>(const dyn::RecursiveModel&, const dyn::TreeNumbers<std::complex<double>>&,
                                             const std::vector<int>&, double, double,
                                             dyn::MatrixROn<std::complex<double>>&, dyn::VectorOn<std::complex<double>>&);

RestingContacts::RestingContacts(const dyn::RecursiveModel& tree, double omega, ContactMonitor* monitor)
    : tree_(tree), sources_(gapSources(tree)), omega_(omega), monitor_(monitor) {
  double mass = 0;
  if (tree.mechanism)
    for (const auto& b : tree.mechanism->bodies) mass += b.mass;
  const double g = tree.mechanism ? std::max(1.0, tree.mechanism->gravity.norm()) : 1.0;
  const double L = tree.mechanism ? std::max(1e-3, tree.mechanism->lengthScale()) : 1.0;
  forceTolerance_ = 1e-9 * std::max(1e-6, mass) * g * std::max(1.0, L);
}

bool RestingContacts::isHeld(int gap) const { return std::find(held_.begin(), held_.end(), gap) != held_.end(); }

void RestingContacts::hold(int gap) {
  if (!isHeld(gap)) held_.push_back(gap);
  std::sort(held_.begin(), held_.end());
  if (monitor_) monitor_->setHeld(gap, true);
}

void RestingContacts::release(int gap) {
  held_.erase(std::remove(held_.begin(), held_.end(), gap), held_.end());
  if (monitor_) monitor_->setHeld(gap, false);
}

Status RestingContacts::holdAll(std::vector<int>& closing, const std::function<Status()>& measure) {
  for (int j : closing) hold(j);
  if (Status s = measure(); !s.ok()) return s;
  for (int j = pulling(); j >= 0; j = pulling()) {  // no velocity, accelerating away: it leaves
    release(j);
    closing.erase(std::remove(closing.begin(), closing.end(), j), closing.end());
    if (Status s = measure(); !s.ok()) return s;
  }
  return {};
}

Status RestingContacts::apply(const dyn::MatrixRModel& m, dyn::MatrixRData& d, bool stabilised) {
  return holdOnData<double>(m.tree, m.tree.numbers, held_, stabilised ? omega_ : 0.0, d.t, d, force_);
}

void RestingContacts::evaluate(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& phi, Eigen::MatrixXd& J,
                               Eigen::VectorXd& c) {
  heldRowsOn<double>(tree_, tree_.numbers, held_, z, &zd, phi, J, c);
}

template <class S>
void heldRowsOn(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held, const dyn::VectorOn<S>& z,
                const dyn::VectorOn<S>* zd, dyn::VectorOn<S>& phi, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J, dyn::VectorOn<S>& c) {
  using Jet = kin::BasicJet<S>;
  const auto k = static_cast<Eigen::Index>(held.size());
  const int nz = tree.nz;
  std::vector<Jet> zj(static_cast<std::size_t>(nz)), g(gapCount(tree));
  auto gapsAlong = [&](auto direction) {
    for (int i = 0; i < nz; ++i) zj[static_cast<std::size_t>(i)] = Jet(z[i], direction(i), S(0.0));
    contactGapsOn<Jet, S>(tree, p, zj.data(), g.data());
  };
  auto gap = [&](Eigen::Index j) -> const Jet& { return g[static_cast<std::size_t>(held[static_cast<std::size_t>(j)])]; };
  phi.resize(k);
  c = dyn::VectorOn<S>::Zero(k);
  J.resize(k, nz);
  gapsAlong([&](int i) { return zd ? (*zd)[i] : S(0.0); });  // r, and r̈ at z̈ = 0: żᵀ r_zz ż
  for (Eigen::Index j = 0; j < k; ++j) {
    phi[j] = gap(j).v;
    if (zd) c[j] = -gap(j).dd;
  }
  for (int col = 0; col < nz; ++col) {
    gapsAlong([&](int i) { return i == col ? S(1.0) : S(0.0); });
    for (Eigen::Index j = 0; j < k; ++j) J(j, col) = gap(j).d;
  }
}
#define LW_HELD_ROWS_ON(S)                                                                                                                  \
  template void heldRowsOn<S>(const dyn::RecursiveModel&, const dyn::TreeNumbers<S>&, const std::vector<int>&, const dyn::VectorOn<S>&, \
                              const dyn::VectorOn<S>*, dyn::VectorOn<S>&, Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>&, dyn::VectorOn<S>&);
LW_HELD_ROWS_ON(double)
LW_HELD_ROWS_ON(num::Dual8)
LW_HELD_ROWS_ON(std::complex<double>)
#undef LW_HELD_ROWS_ON

int RestingContacts::pulling() const {
  int worst = -1;
  double least = -forceTolerance_;
  for (Eigen::Index j = 0; j < force_.size(); ++j)
    if (force_[j] < least) {
      least = force_[j];
      worst = held_[static_cast<std::size_t>(j)];
    }
  return worst;
}

Status locateOpening(RestingContacts& resting, int gap, double t0, const Eigen::VectorXd& atStart, double t1, double timeTolerance,
                     const std::function<Status(double)>& forceAt) {
  const auto k = static_cast<Eigen::Index>(std::find(resting.held().begin(), resting.held().end(), gap) - resting.held().begin());
  double ta = t0, la = k < atStart.size() ? atStart[k] : 0.0, tb = t1, lb = resting.forces()[k];
  int kept = 0;  // which end the last two brackets kept (Illinois: halve the other's value)
  for (int retake = 0; retake < 40 && tb - ta > timeTolerance; ++retake) {
    const double secant = la > 0 && la > lb ? ta + (tb - ta) * la / (la - lb) : 0.5 * (ta + tb);
    const double t = std::clamp(secant, ta + 0.01 * (tb - ta), tb - 0.01 * (tb - ta));
    if (Status s = forceAt(t); !s.ok()) return s;
    const double l = resting.forces()[k];
    if (std::abs(l) <= resting.forceTolerance()) break;
    if (l < 0) {
      tb = t;
      lb = l;
      if (kept == 1) la *= 0.5;
      kept = 1;
    } else {
      ta = t;
      la = l;
      if (kept == -1) lb *= 0.5;
      kept = -1;
    }
  }
  return {};
}

std::vector<kin::HeldGap> naturalHeldGaps(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<double>& p, const std::vector<int>& held) {
  std::vector<kin::HeldGap> out;
  const std::vector<GapSource> sources = gapSources(tree);
  for (int j : held) {
    const GapSource& g = sources[static_cast<std::size_t>(j)];
    if (g.kind == GapSource::Kind::Contact) {  // (its normal is a body's vector: never a spin-free rod's, which has none)
      out.push_back({true, g.index, 0.0, false});
      continue;
    }
    const auto& limit = p.mech.limits[static_cast<std::size_t>(g.index)];
    const double at = g.kind == GapSource::Kind::LimitMin ? limit.min : limit.max;
    out.push_back({false, g.index, at - dyn::storedJointCoordinate<double>(tree, p, g.joint), g.kind == GapSource::Kind::LimitMax});
  }
  return out;
}

double restingOmega(const ResolvedMechanism& m) {
  return 10 * std::sqrt(std::max(1.0, m.gravity.norm()) / std::max(1e-3, m.lengthScale()));
}

std::vector<int> comingToRest(const dyn::RecursiveModel& tree, const std::vector<int>& closing, const ImpactOn<double>& imp,
                              const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, double flight, double resting) {
  Eigen::VectorXd accel;
  contactAccelerations(tree, z, zd, zdd, accel);
  std::vector<int> out;
  for (std::size_t j = 0; j < closing.size(); ++j) {
    const double after = imp.normalAfter[static_cast<Eigen::Index>(j)], a = accel[closing[j]];
    const double next = a < 0 ? 2 * after / -a : INFINITY;
    if (after < resting || next < flight) out.push_back(closing[j]);
  }
  return out;
}

}  // namespace lw::events
