// The rates of Matrix R's Θ_z along the motion and the multipliers' turn, in closed form (seed 000
// §7 on the dependent coordinates): what the loops' state Jacobians need besides τ's, without a
// dual-number pass of the tree.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "dynamics/matrix_r.h"

namespace lw::dyn {

class MotionAtState;  // inverse_dynamics_derivatives.h

/// Why loopJacobianRates does not cover the rows `rows` of Φ, or empty: it covers rows that are
/// cut joints' points' differences x(P₁) − x(P₀) (pins, spherical joints, a revolute's position
/// rows), a spatial revolute's axis rows (a dot product of a vector on each body) and
/// quaternions' unit rows, and the drivers that read a tree joint's coordinate or a point's
/// component, on any tree, with any independent coordinates (the tree's coordinates or points'
/// components). Not a driven cut joint's angle or slide, nor a distance driver.
std::string loopJacobianRatesUnsupported(const RecursiveModel& m, const std::vector<int>& rows);

/// With Ψ(z) = [Φ (rows `rows`); h] (h: the independent coordinates `dofs`) and Θ = Ψ_z, along the
/// motion of (z, ż, z̈) (`state`: its frames, columns and the bodies' and columns' frames' V, A):
///   Θ̇ = dΘ/dt = ∂Ψ̇/∂z (ż held),  Θ̈ = d²Θ/dt² = ∂Ψ̈/∂z (ż, z̈ held),  ∂Ψ̈/∂ż = 2Θ̇ (rows of Ψ × nz),
/// and H = ∂(Φᵀλ)/∂z (nz × nz) for the multipliers λ (one per row of `rows`). Row r of a cut
/// joint's point difference, on its bodies b with sign s_b (+1 for the joint's second body) and
/// the joint's point x on b, reads column j (S_j, moving b) as s_b e_r·(S_j.v + S_j.ω × x); its
/// rates follow from Ṡ_j = V_j × S_j, S̈_j = A_j × S_j + V_j × Ṡ_j (V_j, A_j: the frame that carries
/// S_j) and ẋ, ẍ of the point, its z-derivative from ∂S_j/∂z_i = S_i × S_j (z_i before z_j on
/// the path; a quaternion node's columns by their exact derivatives, detail::columnDerivatives) and
/// ∂x/∂z_i = S_i.v + S_i.ω × x. Only where loopJacobianRatesUnsupported is empty.
void loopJacobianRates(const RecursiveModel& m, const TreeNumbers<double>& p, const MotionAtState& state, const std::vector<int>& rows,
                       const std::vector<Dof>& dofs, const Eigen::VectorXd& lambda, Eigen::MatrixXd& Thetad, Eigen::MatrixXd& Thetadd,
                       Eigen::MatrixXd& H);

}  // namespace lw::dyn
