// What the adjoint's parameter products share across the Matrix R points (internal to
// engine/sensitivity): an open chain's (open_chain_partials.h) and a tree with loops'
// (matrix_r_columns.h) both weigh τ and some points by the lanes kernel's transpose, then dot each
// parameter's fields — here the rule of when that serves, the outputs' Jacobian by their points
// and the dots.
#pragma once

#include <Eigen/Core>
#include <span>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "sensitivity/formulation_numbers.h"

namespace lw::sens::detail {

/// Do the adjoint's products serve the study (AD partials, every chunk in the lanes kernel with
/// the switch states of `numbers`, outputs that read points, rates or nothing, no reactions)?
bool parameterProductsCover(const Study& st, const FormulationNumbers& numbers);

/// The outputs' Jacobian by their points' [r; v; a] (3 per point each) at the state (t, z, ż, z̈)
/// whose motion is `motion`: what weighs the points' explicit lanes (eight columns a pass).
Eigen::MatrixXd outputsByPoints(const Study& st, const FormulationNumbers& numbers, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                                const Eigen::VectorXd& zdd, const dyn::MotionAtState& motion);

/// gradient.row(column) += every chosen parameter's product: its lanes' fields dotted with the
/// adjoint (dyn::numbersLanesProducts, chunk by chunk), τ's weight wTau for the torsion springs'.
void addLanesProducts(const Study& st, const FormulationNumbers& numbers, const dyn::MotionAtState& motion, const dyn::NumbersAdjoint& adjoint,
                      const double* wTau, std::span<const ItemIndex> points, Eigen::Index column, Eigen::MatrixXd& gradient);

}  // namespace lw::sens::detail
