#include "events/resting_contact.h"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>

#include "numeric/jet.h"

namespace lw::events {

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
  const auto k = static_cast<Eigen::Index>(held_.size());
  force_.setZero(k);
  if (k == 0) return {};
  const int nz = m.tree.nz;
  const auto nd = d.zidd.size();
  zj_.resize(static_cast<std::size_t>(nz));  // kept between evaluations
  g_.resize(sources_.size());
  std::vector<kin::Jet>& g = g_;
  auto gapsAlong = [&](auto direction, auto second) {
    for (int i = 0; i < nz; ++i) zj_[static_cast<std::size_t>(i)] = kin::Jet(d.z[i], direction(i), second(i));
    contactGapsOn<kin::Jet, double>(m.tree, m.tree.numbers, zj_.data(), g.data());
  };
  // r, ṙ and r̈ without the held forces
  gapsAlong([&](int i) { return d.zd[i]; }, [&](int i) { return d.zdd[i]; });
  Eigen::VectorXd wanted(k);
  for (Eigen::Index j = 0; j < k; ++j) {
    const kin::Jet& r = g[static_cast<std::size_t>(held_[static_cast<std::size_t>(j)])];
    wanted[j] = stabilised ? -2 * omega_ * r.d - omega_ * omega_ * r.v - r.dd : -r.dd;
  }
  // W: the held gaps' gradients in the independent coordinates, by columns of R^Φ
  W_.resize(nd, k);
  for (Eigen::Index c = 0; c < nd; ++c) {
    gapsAlong([&](int i) { return d.R(i, c); }, [](int) { return 0.0; });
    for (Eigen::Index j = 0; j < k; ++j) W_(c, j) = g[static_cast<std::size_t>(held_[static_cast<std::size_t>(j)])].d;
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(d.Mbar);
  if (llt.info() != Eigen::Success) return failure(Status::Code::Singular, d.t, "the reduced mass matrix is singular at a resting contact");
  Y_ = llt.solve(W_);
  const Eigen::MatrixXd A = W_.transpose() * Y_;
  const double scale = A.diagonal().cwiseAbs().maxCoeff();
  for (Eigen::Index j = 0; j < k; ++j)
    if (!(A(j, j) > 1e-14 * scale) || scale == 0)
      return failure(Status::Code::Singular, d.t,
                     sources_[static_cast<std::size_t>(held_[static_cast<std::size_t>(j)])].label() +
                         " rests where the mechanism cannot move its point along the plane's normal (or the joint along its coordinate): "
                         "no force holds it");
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
  cod.setThreshold(1e-12);
  force_ = cod.solve(wanted);
  const Eigen::VectorXd dzid = Y_ * force_;
  d.zidd += dzid;
  d.zdd.noalias() += d.R * dzid;
  return {};
}

void RestingContacts::evaluate(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& phi, Eigen::MatrixXd& J,
                               Eigen::VectorXd& c) {
  const auto k = static_cast<Eigen::Index>(held_.size());
  const int nz = tree_.nz;
  zj_.resize(static_cast<std::size_t>(nz));
  g_.resize(sources_.size());
  phi.resize(k);
  c.resize(k);
  J.resize(k, nz);
  auto gapsAlong = [&](auto direction) {
    for (int i = 0; i < nz; ++i) zj_[static_cast<std::size_t>(i)] = kin::Jet(z[i], direction(i), 0.0);
    contactGapsOn<kin::Jet, double>(tree_, tree_.numbers, zj_.data(), g_.data());
  };
  gapsAlong([&](int i) { return zd[i]; });  // r, and r̈ at z̈ = 0: żᵀ r_zz ż
  for (Eigen::Index j = 0; j < k; ++j) {
    const kin::Jet& r = g_[static_cast<std::size_t>(held_[static_cast<std::size_t>(j)])];
    phi[j] = r.v;
    c[j] = -r.dd;
  }
  for (int col = 0; col < nz; ++col) {
    gapsAlong([&](int i) { return i == col ? 1.0 : 0.0; });
    for (Eigen::Index j = 0; j < k; ++j) J(j, col) = g_[static_cast<std::size_t>(held_[static_cast<std::size_t>(j)])].d;
  }
}

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
