// An impact in the penalty formulation, for sensitivities that cross it: the jump of all the
// tree's velocities that the run applies (the impact law in the independent coordinates chosen at
// the impact's positions, mapped back through R^Φ), on any scalar, and the coordinates chosen.
// With it, seed 001's Theorems 1–3 in the tree's coordinates: dt/dρ = −(r_z Z + r_ρ)/ṙ⁻,
// Z⁺ = Z − Δż dt/dρ, Ż⁺ = h_z Z + h_ż Ż + h_ρ + (h_z ż⁻ + h_ż z̈⁻ − z̈⁺) dt/dρ.
// Internal to engine/sensitivity.
#pragma once

#include <vector>

#include "sensitivity/study.h"

namespace lw::sens::detail {

/// The independent coordinates a penalty run's impact at (t, z, ż) takes its law in.
std::vector<dyn::Dof> penaltyImpactDofs(const Study& st, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd);

/// A penalty run's impact of `contacts` at (t, z, ż⁻) as the sensitivities take it: the first
/// contact's closing rate ṙ⁻ and the coordinates its law is taken in; refused with the reason
/// where it has no derivative (differentiableImpact). `restingFromStart`: contacts at rest from
/// the start (closed with e = 0 without a crossing, impact_jump.h): not refused for their ṙ⁻ = 0.
Status penaltyImpactAt(const Study& st, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore, const std::vector<int>& contacts,
                       double& rate, std::vector<dyn::Dof>& dofs, bool restingFromStart = false);

/// ż⁺ = h(z, ż⁻; ρ) on S; zStart: z's values (the position problem's start); `plastic`: those of
/// `contacts` that come to rest (e = 0). On dual numbers with `tangent` (set at the state's
/// independent coordinates in `dofs`: penaltyJumpTangent), the law's z, ż, R^Φ and M̄ come from its
/// kernels (impact_jump.h); without one, from the whole pipeline on S.
template <class S>
Status penaltyJumpOn(const Study& st, const dyn::TreeNumbers<S>& p, const std::vector<dyn::Dof>& dofs, double t, const Vec<S>& z,
                     const Vec<S>& zd, const Eigen::VectorXd& zStart, const std::vector<int>& contacts, Vec<S>& zdPlus,
                     const std::vector<int>& plastic = {}, const dyn::MatrixRTangent* tangent = nullptr);

/// `tangent` set at the penalty state (t, z, ż) through its independent coordinates `dofs`, with
/// the numbers `values`: false where it cannot be (Θ_z or M̄ singular there).
bool penaltyJumpTangent(const Study& st, const dyn::TreeNumbers<double>& values, const std::vector<dyn::Dof>& dofs, double t, const Eigen::VectorXd& z,
                        const Eigen::VectorXd& zd, dyn::MatrixRTangent& tangent);

}  // namespace lw::sens::detail
