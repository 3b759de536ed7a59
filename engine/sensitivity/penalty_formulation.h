// The penalty formulation (seed 004 §3) as a formulation of the sensitivity methods
// (formulation.h): all the tree's coordinates, the trapezoidal step F(z₁) = 0 solved to
// round-off and projected with the mass matrix (penalty_derivatives.h), impacts by Matrix R's
// law in the coordinates chosen there (penalty_impact.h). Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "sensitivity/formulation.h"

namespace lw::sens::detail {

std::unique_ptr<Formulation> penaltyFormulation(const Study& st, Partials partials, double delta);

/// Its run on complex numbers (penalty_complex.cpp): α the run's penalty factor, parameter a table
/// index seeded by eps i.
std::unique_ptr<ComplexRun> penaltyComplexRun(const Study& st, double alpha, std::size_t parameter, double eps);

/// The penalty step's Newton matrix T = F_z + 2/h F_ż + 4/h² F_z̈ at the end z₁ (ż*, z̈* the
/// trapezoidal ones from the start), by forward AD eight columns per pass, numbers `plain`.
Eigen::MatrixXd penaltyTangent(const dyn::RecursiveModel& tree, const NumbersOn<Dual>& plain, double alpha, double t1, double h,
                               const Eigen::VectorXd& z1, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS);

}  // namespace lw::sens::detail
