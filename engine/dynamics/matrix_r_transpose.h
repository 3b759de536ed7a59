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

struct MatrixRParameterTranspose::Data {
  const RecursiveModel* tree = nullptr;
  double t = 0;
  Eigen::VectorXd z, lambda;
  Eigen::MatrixXd R, Md, rates, secondRates, tauZ, tauZd;  // R^Φ, M^d, Θ̇, Θ̈, τ_z + H, τ_ż
  Eigen::PartialPivLU<Eigen::MatrixXd> theta;
  Eigen::LLT<Eigen::MatrixXd> mbar;
  std::unique_ptr<MotionAtState> state;
  std::vector<ItemIndex> points;  // the extra points, then those Ψ's rows read
  std::size_t extra = 0;
  // Ψ's rows by point: the row, the point's index in `points`, its component and the sign it enters with
  struct RowPoint {
    int row, point, component;
    double sign;
  };
  std::vector<RowPoint> rowPoints;
};

}  // namespace lw::dyn
