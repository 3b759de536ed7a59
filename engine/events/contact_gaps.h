// The event functions of a mechanism's unilateral constraints (seed 001 §2.1), its "gaps": a
// contact's distance of a point to a plane (a line in 2D),
//   r(z) = (p − F)·n − radius,
// p the contact point, F the plane's point, n its unit normal, all in world coordinates at the
// tree coordinates z; and a joint limit's q − min and max − q, q the joint's coordinate. An
// impact happens when a gap falls through zero. Written once on any scalar, like
// the recursive kernels: on jets along (ż, 1) it gives the gap's rate ṙ = r_z ż (the normal
// velocity the impact laws act on), on dual numbers and complex steps its design derivatives.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "dynamics/recursive_model.h"

namespace lw::events {

/// The gaps in order: each contact's, then each joint limit's lower side and upper side (those
/// given), then each switch's (its coordinate less its value, negated for a rising switch: a
/// switch fires as its gap falls through zero, and changes no velocity).
struct GapSource {
  enum class Kind { Contact, LimitMin, LimitMax, Switch };
  Kind kind = Kind::Contact;
  int index = -1;    // into the mechanism's contacts or limits
  std::string name;  // the contact's; a limit's with " (lower)" or " (upper)"
  Contact::Law law = Contact::Law::Newton;
  int joint = -1;    // a limit's or a joint switch's joint
  /// "contact 'floor'", "limit 'stop (upper)'", "switch 'cross'": for messages
  std::string label() const {
    return (kind == Kind::Contact ? "contact '" : kind == Kind::Switch ? "switch '" : "limit '") + name + "'";
  }
  bool isSwitch() const { return kind == Kind::Switch; }
};
std::vector<GapSource> gapSources(const dyn::RecursiveModel& m);
/// How many gaps there are (gapSources(m).size(), without building them).
std::size_t gapCount(const dyn::RecursiveModel& m);
/// A gap's coefficient of restitution with the numbers p.
template <class P>
P restitutionOf(const dyn::TreeNumbers<P>& p, const GapSource& g) {
  if (g.kind == GapSource::Kind::Switch) return P(1.0);
  return g.kind == GapSource::Kind::Contact ? p.mech.contacts[static_cast<std::size_t>(g.index)].restitution
                                            : p.mech.limits[static_cast<std::size_t>(g.index)].restitution;
}

/// The switches among `closing` turn their forces on and off in the numbers p (a run's, or a
/// sensitivity's on its scalar). True when all of `closing` are switches.
template <class P>
bool applySwitches(const dyn::RecursiveModel& m, const std::vector<GapSource>& sources, const std::vector<int>& closing,
                   dyn::TreeNumbers<P>& p) {
  bool all = !closing.empty();
  for (int j : closing) {
    const GapSource& g = sources[static_cast<std::size_t>(j)];
    if (!g.isSwitch()) {
      all = false;
      continue;
    }
    const auto& sw = m.mechanism->switches[static_cast<std::size_t>(g.index)];
    for (int f : sw.enable) p.mech.forces[static_cast<std::size_t>(f)].active = true;
    for (int f : sw.disable) p.mech.forces[static_cast<std::size_t>(f)].active = false;
  }
  return all;
}
/// The switches among `closing`; the others (the impacts) into `impacts`.
inline std::vector<int> switchesAmong(const std::vector<GapSource>& sources, const std::vector<int>& closing, std::vector<int>& impacts) {
  std::vector<int> switching;
  impacts.clear();
  for (int j : closing) (sources[static_cast<std::size_t>(j)].isSwitch() ? switching : impacts).push_back(j);
  return switching;
}
/// Are some but not all of `closing` switches (an impact and a switch at once)?
inline bool mixedEvents(const std::vector<GapSource>& sources, const std::vector<int>& closing) {
  int switches = 0;
  for (int j : closing) switches += sources[static_cast<std::size_t>(j)].isSwitch() ? 1 : 0;
  return switches > 0 && switches < static_cast<int>(closing.size());
}

/// Every gap at z (gapSources' order) into gap[].
/// T is the scalar of z and t (P, or a jet on P), P that of the numbers `p`.
template <class T, class P>
void contactGapsOn(const dyn::RecursiveModel& m, const dyn::TreeNumbers<P>& p, const T* z, T* gap);

/// Gaps and their rates at (z, ż) on doubles (the model's numbers), with buffers kept between
/// calls: what a run monitors after every step, without allocating.
class GapEvaluator {
 public:
  explicit GapEvaluator(const dyn::RecursiveModel& m);
  ~GapEvaluator();
  void operator()(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& gap, Eigen::VectorXd& rate);

 private:
  struct Buffers;
  const dyn::RecursiveModel& m_;
  std::unique_ptr<Buffers> b_;
};

/// The same, once.
void contactGaps(const dyn::RecursiveModel& m, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& gap,
                 Eigen::VectorXd& rate);
/// The gaps' second derivatives r̈ = r_z z̈ + żᵀ r_zz ż at (z, ż, z̈): how fast a contact that has
/// just bounced comes back (its next flight lasts about 2ṙ/|r̈|).
void contactAccelerations(const dyn::RecursiveModel& m, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd,
                          Eigen::VectorXd& accel);

}  // namespace lw::events
