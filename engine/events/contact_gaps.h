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
/// given).
struct GapSource {
  enum class Kind { Contact, LimitMin, LimitMax };
  Kind kind = Kind::Contact;
  int index = -1;    // into the mechanism's contacts or limits
  std::string name;  // the contact's; a limit's with " (lower)" or " (upper)"
  Contact::Law law = Contact::Law::Newton;
  int z = -1;        // a limit's joint: its tree coordinate, the coordinate's sign
  double sign = 1;
  int joint = -1;
  /// "contact 'floor'", "limit 'stop (upper)'": for messages
  std::string label() const { return (kind == Kind::Contact ? "contact '" : "limit '") + name + "'"; }
};
std::vector<GapSource> gapSources(const dyn::RecursiveModel& m);
/// Why the gaps cannot be watched (a limit on a joint that closes a loop of the tree), or empty.
std::string unwatchedGaps(const dyn::RecursiveModel& m);
/// A gap's coefficient of restitution with the numbers p.
template <class P>
P restitutionOf(const dyn::TreeNumbers<P>& p, const GapSource& g) {
  return g.kind == GapSource::Kind::Contact ? p.mech.contacts[static_cast<std::size_t>(g.index)].restitution
                                            : p.mech.limits[static_cast<std::size_t>(g.index)].restitution;
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
