// Matrix R's equations on the differentiation scalars (Pinocchio's habit: the derivatives beside
// the algorithm). The same pipeline as evaluate() (seed 000 §4.1: positions, velocities, R^Φ, a,
// M̄ z̈ⁱ = Q̄) written once on any scalar S with dense algebra, with the model's numbers on S
// (TreeNumbers<S>): on dual numbers it differentiates z̈ⁱ = f(t, zⁱ, żⁱ; ρ) exactly along any
// directions of the state and of the design parameters (the tangent linear model's f_z, f_ż, f_ρ,
// seed 000 §7.5); on a complex step it is the whole-run reference. The double pipeline
// (matrix_r.cpp) stays the fast one; a test holds the two equal.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/status.h"
#include "dynamics/matrix_r.h"

namespace lw::dyn {

template <class S>
using VectorOn = Eigen::Matrix<S, Eigen::Dynamic, 1>;

/// One evaluation on S: the dependent state and the independent accelerations.
template <class S>
struct MatrixROn {
  VectorOn<S> z, zd, zdd;  // dependent (nz)
  VectorOn<S> zidd;        // independent accelerations (d)
  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> R, Mbar;  // R^Φ (nz × d) and R^Φᵀ M^d R^Φ (d × d)
};

/// f(t, zⁱ, żⁱ) on S in the independent coordinates `dofs`, numbers `p`. The position problem
/// starts from `zStart` (the double run's dependent coordinates there: Newton then converges in
/// two or three iterations, the derivative parts with the values). With `values` (the same
/// numbers on double: p's value parts) and zStart the solution at zⁱ's values, the derivative
/// parts come from the implicit function theorem instead: Θ_z factored once on doubles, every
/// solve on S a solve per part, a jet pass per right-hand side instead of one per coordinate
/// (the same numbers to round-off, several times faster on dual numbers).
template <class S>
Status evaluateOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, double t,
                  const VectorOn<S>& zi, const VectorOn<S>& zid, const Eigen::VectorXd& zStart, MatrixROn<S>& out,
                  const TreeNumbers<double>* values = nullptr);

/// The independent coordinates `dofs` of a dependent state on S: zⁱ = h(z), żⁱ = B ż, and (with
/// zdd) z̈ⁱ = B z̈ + Ḃ ż. A change of the choice maps the state and its sensitivities through it.
template <class S>
void independentOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const VectorOn<S>& z,
                   const VectorOn<S>& zd, const VectorOn<S>* zdd, VectorOn<S>& zi, VectorOn<S>& zid, VectorOn<S>* zidd);

/// The initial state on S, as initialState() assembles it: the loops closed with the coordinates
/// the assembly left free held where the double assembly put them (`z0`, `zd0`: data.z, data.zd
/// after initialState), the initial rates imposed. zi, zid in the choice `dofs`.
template <class S>
Status initialStateOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const Eigen::VectorXd& z0,
                      VectorOn<S>& zi, VectorOn<S>& zid);
/// The same initial state in all the tree's coordinates (z, ż: nz each), for the penalty
/// formulation that integrates them all.
template <class S>
Status initialCoordinatesOn(const MatrixRModel& m, const TreeNumbers<S>& p, const Eigen::VectorXd& z0, VectorOn<S>& z, VectorOn<S>& zd);

}  // namespace lw::dyn
