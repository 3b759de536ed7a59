// The forces in the joints and the efforts of the drivers at a state (z, ż, z̈) of the tree, on
// any scalar (double; dual numbers and complex steps for their sensitivities):
//   τ = M^d z̈ − Q^d by the jet-free Newton–Euler pass (tree_motion.h), with every subtree's
//   wrench F_k; the loops' and drivers' multipliers from Φ_selᵀ λ = −τ (normal equations on the
//   independent rows: the run's own choice where loops are redundant); each loop constraint's
//   wrench on its bodies W = −∂(λᵀΦ_c)/∂ξ (a twist ξ of the body, one jet per direction);
//   a tree joint passes to its child F_k minus the loops' wrenches on the subtree, less what
//   its own coordinates' drivers and torsion springs carry along them (a couple about a turning
//   axis, a force along a sliding one): the reaction proper, whose moment about a pin is zero.
// Every wrench here is about the world origin, [F; n_O]; a joint's reaction is reported about the
// joint's point on the body it acts on.
#pragma once

#include <Eigen/Core>
#include <complex>
#include <memory>
#include <vector>

#include "dynamics/recursive_model.h"

namespace lw::num {
template <int N> struct Dual;
}

namespace lw::dyn {

template <class S>
class ReactionsOn {
 public:
  /// rows: the independent rows of Φ (MatrixRModel::rows).
  ReactionsOn(const RecursiveModel& m, std::vector<int> rows);
  ~ReactionsOn();
  ReactionsOn(ReactionsOn&&) noexcept;

  /// Everything at (z, ż, z̈, t) with numbers p. False when the loops are singular here (Φ_sel
  /// loses rank): the reactions are then not determined.
  bool compute(const TreeNumbers<S>& p, const S* z, const S* zd, const S* zdd, double t);

  /// The wrench joint `joint` applies on `body` (one of its two, the ground included): force, then
  /// moment about the joint's point on that body (6, world axes).
  void jointReaction(int joint, int body, S* out) const;
  /// The generalized force driver `driver` supplies along what it drives (a torque about a turning
  /// joint's axis, a force along a slider, a distance or a point's coordinate; positive where the
  /// driven quantity increases).
  S driverEffort(int driver) const;

 private:
  struct Work;
  std::unique_ptr<Work> w_;
};

extern template class ReactionsOn<double>;
extern template class ReactionsOn<num::Dual<8>>;
extern template class ReactionsOn<std::complex<double>>;

}  // namespace lw::dyn
