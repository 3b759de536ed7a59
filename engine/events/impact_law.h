// Impact laws (seed 001 §2.8, §4.2): the jump of the velocities when contacts close, in Matrix R's
// independent coordinates zⁱ, where every joint stays closed by construction (ż = R^Φ żⁱ + S^Φ b).
// With w_j = R^Φᵀ r_{j,z}ᵀ the normal velocity's gradient of contact j (ṙ_j = w_jᵀ żⁱ + ṙ_j,t) and
// W the metric of the law, the impulses P solve
//   (Wcᵀ W⁻¹ Wc) P = −(1 + e)∘ṙ⁻,   żⁱ⁺ = żⁱ⁻ + W⁻¹ Wc P,
// so that every closing contact leaves with ṙ⁺ = −e·ṙ⁻ (simultaneous contacts together):
//   Newton:    W = M̄ = R^Φᵀ M^d R^Φ, the constrained mass matrix: the impulse of the augmented
//              system [M −Φ_qᵀ −n; Φ_q 0 0; nᵀ 0 0] of the guide, energy-conserving for e = 1;
//   kinematic: W = I in the independent coordinates: the seed's law for the five-bar (flip ẏ₂,
//              keep ẋ₂ when the independent coordinates are x₂, y₂), which depends on the choice.
// On any scalar S: on dual numbers and complex steps it gives the jump map's derivatives h_q, h_v,
// h_ρ that the sensitivities through impacts use (seed 001 Theorems 2–3).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/status.h"
#include "dynamics/matrix_r_derivatives.h"

namespace lw::events {

template <class S>
struct ImpactOn {
  dyn::VectorOn<S> zidPlus;             // independent velocities after the impact
  dyn::VectorOn<S> zdMinus, zdPlus;     // the tree's velocities before and after
  dyn::VectorOn<S> normalBefore;        // ṙ⁻ of each contact of the impact
  dyn::VectorOn<S> normalAfter;         // ṙ⁺ = −e·ṙ⁻
  dyn::VectorOn<S> impulse;             // P (N·s for Newton's law)
};

/// The jump at (t, zⁱ, żⁱ⁻) when the contacts `contacts` (indices into the mechanism's) close
/// together, in the independent coordinates `dofs`. zStart: the dependent coordinates there (the
/// position problem's start). `plastic`: those of `contacts` that stay closed (e = 0 whatever
/// their own: a contact coming to rest, events/resting_contact.h).
template <class S>
Status impactOn(const dyn::MatrixRModel& m, const dyn::TreeNumbers<S>& p, const std::vector<dyn::Dof>& dofs, double t,
                const dyn::VectorOn<S>& zi, const dyn::VectorOn<S>& zidMinus, const Eigen::VectorXd& zStart,
                const std::vector<int>& contacts, ImpactOn<S>& out, const std::vector<int>& plastic = {});

/// The same law on a state already evaluated at (t, zⁱ, żⁱ⁻): it reads `ev`'s z, ż, R^Φ and M̄ only
/// (not its accelerations), so the sensitivities' derivative kernels can supply them on dual
/// numbers (dyn::MatrixRTangent::velocitiesAlong) instead of the whole pipeline.
template <class S>
Status impactAt(const dyn::MatrixRModel& m, const dyn::TreeNumbers<S>& p, double t, const dyn::VectorOn<S>& zidMinus, const dyn::MatrixROn<S>& ev,
                const std::vector<int>& contacts, ImpactOn<S>& out, const std::vector<int>& plastic = {});

}  // namespace lw::events
