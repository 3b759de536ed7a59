#include "events/contact_gaps.h"

#include <complex>

#include "dynamics/tree_kernels.h"
#include "numeric/dual.h"
#include "numeric/jet.h"

namespace lw::events {

namespace {

template <class T, class P>
void gapsWith(const dyn::RecursiveModel& m, const dyn::TreeNumbers<P>& p, const T* z, T* gap, std::vector<dyn::detail::Frame<T>>& f) {
  using namespace dyn::detail;
  const auto& contacts = m.mechanism->contacts;
  // the poses, where a contact, a switch on a point or a joint that closes a loop (a slider, a
  // spatial revolute) reads them
  bool framesNeeded = !contacts.empty();
  for (const auto& s : m.mechanism->switches)
    framesNeeded = framesNeeded || s.point.valid() || dyn::jointCoordinateNeedsFrames(m, s.joint);
  for (const auto& l : m.mechanism->limits) framesNeeded = framesNeeded || dyn::jointCoordinateNeedsFrames(m, l.joint);
  if (framesNeeded) computeFrames<T, P>(m, p, z, f);
  // a joint's coordinate as the outputs measure it (resolve refuses a joint without one)
  auto jointCoordinate = [&](int joint, T& q) { return dyn::jointCoordinateOn<T, P>(m, p, z, framesNeeded ? &f : nullptr, joint, q); };
  // the limits: the joint's coordinate against its stops
  std::size_t k = contacts.size();
  for (std::size_t i = 0; i < m.mechanism->limits.size(); ++i) {
    const auto& l = m.mechanism->limits[i];
    T q;
    if (!jointCoordinate(l.joint, q)) q = T(0.0);
    if (l.hasMin) gap[k++] = q - T(p.mech.limits[i].min);
    if (l.hasMax) gap[k++] = T(p.mech.limits[i].max) - q;
  }
  // the switches: a point's world coordinate or a joint's against the value
  for (std::size_t i = 0; i < m.mechanism->switches.size(); ++i) {
    const auto& s = m.mechanism->switches[i];
    T q;
    if (s.point.valid()) {
      q = worldPoint(f[static_cast<std::size_t>(s.point.body)], p.mech.point(s.point))[s.component];
    } else if (!jointCoordinate(s.joint, q)) {
      q = T(0.0);
    }
    gap[k++] = s.falling ? q - T(p.mech.switchValues[i]) : T(p.mech.switchValues[i]) - q;
  }
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ResolvedMechanism::Contact& c = contacts[i];
    const V3<T> x = worldPoint(f[static_cast<std::size_t>(c.point.body)], p.mech.point(c.point));
    const V3<T> F = worldPoint(f[static_cast<std::size_t>(c.planePoint.body)], p.mech.point(c.planePoint));
    const V3<T> n = worldDir(f[static_cast<std::size_t>(c.planeNormal.body)], p.mech.vector(c.planeNormal));
    gap[i] = dot(sub(x, F), n) - T(p.mech.contacts[i].radius);
  }
}

}  // namespace

std::size_t gapCount(const dyn::RecursiveModel& m) {
  if (!m.mechanism) return 0;
  std::size_t n = m.mechanism->contacts.size() + m.mechanism->switches.size();
  for (const auto& l : m.mechanism->limits) n += (l.hasMin ? 1 : 0) + (l.hasMax ? 1 : 0);
  return n;
}

std::vector<GapSource> gapSources(const dyn::RecursiveModel& m) {
  std::vector<GapSource> out;
  if (!m.mechanism) return out;
  for (std::size_t i = 0; i < m.mechanism->contacts.size(); ++i) {
    const auto& c = m.mechanism->contacts[i];
    out.push_back({GapSource::Kind::Contact, static_cast<int>(i), c.name, c.law});
  }
  for (std::size_t i = 0; i < m.mechanism->limits.size(); ++i) {
    const auto& l = m.mechanism->limits[i];
    GapSource g{GapSource::Kind::LimitMin, static_cast<int>(i), l.name + " (lower)", l.law};
    g.joint = l.joint;
    if (l.hasMin) out.push_back(g);
    g.kind = GapSource::Kind::LimitMax;
    g.name = l.name + " (upper)";
    if (l.hasMax) out.push_back(g);
  }
  for (std::size_t i = 0; i < m.mechanism->switches.size(); ++i) {
    const auto& s = m.mechanism->switches[i];
    GapSource g{GapSource::Kind::Switch, static_cast<int>(i), s.name, Contact::Law::Newton};
    g.joint = s.joint;
    out.push_back(g);
  }
  return out;
}

template <class T, class P>
void contactGapsOn(const dyn::RecursiveModel& m, const dyn::TreeNumbers<P>& p, const T* z, T* gap) {
  std::vector<dyn::detail::Frame<T>> f;
  gapsWith<T, P>(m, p, z, gap, f);
}

struct GapEvaluator::Buffers {
  std::vector<kin::Jet> z, g;
  std::vector<dyn::detail::Frame<kin::Jet>> frames;
};

GapEvaluator::GapEvaluator(const dyn::RecursiveModel& m) : m_(m), b_(std::make_unique<Buffers>()) {
  b_->z.resize(static_cast<std::size_t>(m.nz));
  b_->g.resize(gapSources(m).size());
}
GapEvaluator::~GapEvaluator() = default;

void GapEvaluator::operator()(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& gap, Eigen::VectorXd& rate) {
  const std::size_t nc = b_->g.size();
  gap.resize(static_cast<Eigen::Index>(nc));
  rate.resize(static_cast<Eigen::Index>(nc));
  for (int i = 0; i < m_.nz; ++i) b_->z[static_cast<std::size_t>(i)] = kin::Jet(z[i], zd[i], 0.0);
  gapsWith<kin::Jet, double>(m_, m_.numbers, b_->z.data(), b_->g.data(), b_->frames);
  for (std::size_t i = 0; i < nc; ++i) {
    gap[static_cast<Eigen::Index>(i)] = b_->g[i].v;
    rate[static_cast<Eigen::Index>(i)] = b_->g[i].d;
  }
}

void contactGaps(const dyn::RecursiveModel& m, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& gap,
                 Eigen::VectorXd& rate) {
  GapEvaluator evaluate(m);
  evaluate(z, zd, gap, rate);
}

void contactAccelerations(const dyn::RecursiveModel& m, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd,
                          Eigen::VectorXd& accel) {
  const std::size_t nc = gapSources(m).size();
  accel.resize(static_cast<Eigen::Index>(nc));
  std::vector<kin::Jet> zj(static_cast<std::size_t>(m.nz)), g(nc);
  for (int i = 0; i < m.nz; ++i) zj[static_cast<std::size_t>(i)] = kin::Jet(z[i], zd[i], zdd[i]);
  contactGapsOn<kin::Jet, double>(m, m.numbers, zj.data(), g.data());
  for (std::size_t i = 0; i < nc; ++i) accel[static_cast<Eigen::Index>(i)] = g[i].dd;
}

#define LW_CONTACT_GAPS_ON(T, P) \
  template void contactGapsOn<T, P>(const dyn::RecursiveModel&, const dyn::TreeNumbers<P>&, const T*, T*);
LW_CONTACT_GAPS_ON(double, double)
LW_CONTACT_GAPS_ON(kin::Jet, double)
LW_CONTACT_GAPS_ON(num::Dual8, num::Dual8)
LW_CONTACT_GAPS_ON(kin::BasicJet<num::Dual8>, num::Dual8)
LW_CONTACT_GAPS_ON(std::complex<double>, std::complex<double>)
LW_CONTACT_GAPS_ON(kin::BasicJet<std::complex<double>>, std::complex<double>)
#undef LW_CONTACT_GAPS_ON

}  // namespace lw::events
