// The parts MatrixRParameterTranspose keeps of a point (internal to engine/dynamics: the tangent
// fills them, matrix_r_transpose.cpp takes them backwards).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <memory>
#include <vector>

#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/matrix_r_derivatives.h"

namespace lw::dyn {

/// A row of Ψ = [Φ (selected rows); h] on a point: Ψ's row, the point's index in a list, its
/// component and the sign it enters with (a cut joint's row k is e_k·(x(P₁) − x(P₀)), an
/// independent point's its component).
struct RowPoint {
  int row, point, component;
  double sign;
};
/// Ψ's rows on points for the rows `selected` of Φ (Ψ's row i is selected[i]) and the independent
/// coordinates `dofs` (Ψ's rows after them), the points listed after `extra` (the caller's own) in
/// `points`. Only where loopJacobianRates covers the rows (each a cut joint's point difference).
void rowPointsOf(const RecursiveModel& tree, const std::vector<int>& selected, const std::vector<Dof>& dofs, std::span<const ItemIndex> extra,
                 std::vector<ItemIndex>& points, std::vector<RowPoint>& rows);

struct MatrixRParameterTranspose::Data {
  const RecursiveModel* tree = nullptr;
  Eigen::VectorXd lambda;
  Eigen::MatrixXd R, Md, rates, secondRates, tauZ, tauZd;  // R^Φ, M^d, Θ̇, Θ̈, τ_z + H, τ_ż
  Eigen::PartialPivLU<Eigen::MatrixXd> theta;
  Eigen::LLT<Eigen::MatrixXd> mbar;
  std::unique_ptr<MotionAtState> state;
  std::vector<ItemIndex> points;  // the extra points, then those Ψ's rows read
  std::size_t extra = 0;
  std::vector<RowPoint> rowPoints;
};

}  // namespace lw::dyn
