// The event functions of contacts (seed 001 §2.1): the gap of a point to a plane (a line in 2D),
//   r(z) = (p − F)·n − radius,
// p the contact point, F the plane's point, n its unit normal, all in world coordinates at the
// tree coordinates z. A contact closes when r falls through zero. Written once on any scalar, like
// the recursive kernels: on jets along (ż, 1) it gives the gap's rate ṙ = r_z ż (the normal
// velocity the impact laws act on), on dual numbers and complex steps its design derivatives.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "dynamics/recursive_model.h"

namespace lw::events {

/// The gaps of every contact of the mechanism at z (m.mechanism->contacts, in order) into gap[].
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
