// The generalized forces of the recursive model on any scalar (DESIGN.md §3):
//   Q^d(z, ż, t) = R^vᵀ (Q^v − M^v V̇⁰)
// the applied body wrenches (gravity, force elements, gyroscopic ω × Jω) and the inertia forces of
// the accelerations with z̈ = 0, projected on the partial velocities b_k by accumulating the
// subtrees' wrenches from the leaves to the root (seed 000 §2.2, seed 004 §3.1), without R^v.
//
// Instantiated for double (the dynamics), num::Dual<kForceChunk> (the penalty tangent
// J = −∂Q^d/∂[z; ż] by forward AD), std::complex<double> (complex step) and num::Pattern (the
// tangent's sparsity pattern).
#pragma once

#include <complex>
#include <memory>

#include "dynamics/recursive_model.h"

namespace lw::num {
template <int N> struct Dual;
struct Pattern;
}  // namespace lw::num

namespace lw::dyn {

/// Directions per forward-AD pass of the force kernel.
inline constexpr int kForceChunk = 8;

/// S: the scalar of the state; P: that of the model's numbers (double: the compiled model's; S
/// itself for a sensitivity with respect to the design parameters, numbers from treeNumbers).
template <class S, class P = double>
class GeneralizedForces {
 public:
  /// With the model's own numbers (P = double).
  explicit GeneralizedForces(const RecursiveModel& m);
  /// With numbers of the same tree on P (kept by the caller, outliving this).
  GeneralizedForces(const RecursiveModel& m, const TreeNumbers<P>& numbers);
  ~GeneralizedForces();
  GeneralizedForces(GeneralizedForces&&) noexcept;

  /// Q^d (nz) at (z, ż, t); z, zd and Qd hold nz scalars each. No allocation after construction
  /// (except on num::Pattern). With accelerations zdd (may be null), the inertia forces are those
  /// of the full accelerations: the result is the inverse-dynamics residual Q^d − M^d z̈, whose
  /// derivative includes ∂M^d/∂z z̈.
  void operator()(const S* z, const S* zd, double t, S* Qd, const S* zdd = nullptr);

  /// M^d v (nz) at the positions of the last operator() call: the inertia forces of the
  /// accelerations z̈ = v alone (velocities zero), projected as operator() projects them. No frames
  /// of its own: d of them after one operator() give M^d R^Φ at a d-th of the cost of d more
  /// calls (the reduced mass matrix on dual numbers, where frames are most of the work).
  void massTimes(const S* v, S* Mv);

  /// The applied body wrenches Q^v (6 per body, ground included as zeros): force at the centre of
  /// mass, torque; gravity, force elements and −ω × Jω. Torsion springs of tree joints are not
  /// here (they act on their coordinate in Q^d directly).
  void bodyWrenches(const S* z, const S* zd, double t, S* Qv);

  /// Plain forces (no z̈) read the frames of `data` along ż, which the loop rates and outputs of
  /// the same state share; without it they compute their own. Only for numbers with the model's
  /// geometry (the model's own, or a run's copy of them with its switch states).
  void shareFrames(RecursiveData& data) { shared_ = &data; }
  /// The numbers evaluated with (a run's: their forces' switch states).
  const TreeNumbers<P>& numbers() const { return *p_; }

 private:
  struct Work;
  void kinematics(const S* z, const S* zd, const S* zdd);
  void applied(double t);
  /// Q = R^vᵀ (the body wrenches in force and torque): leaves to root over the subtrees.
  void project(S* Q);
  const RecursiveModel* m_;
  const TreeNumbers<P>* p_;
  std::unique_ptr<Work> w_;
  RecursiveData* shared_ = nullptr;
};

extern template class GeneralizedForces<double>;
extern template class GeneralizedForces<num::Dual<kForceChunk>>;
extern template class GeneralizedForces<std::complex<double>>;
extern template class GeneralizedForces<num::Pattern>;
extern template class GeneralizedForces<num::Dual<kForceChunk>, num::Dual<kForceChunk>>;
extern template class GeneralizedForces<std::complex<double>, std::complex<double>>;

}  // namespace lw::dyn
