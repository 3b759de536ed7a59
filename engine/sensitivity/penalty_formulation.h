// The penalty formulation (seed 004 §3) as a formulation of the sensitivity methods
// (formulation.h): all the tree's coordinates, the trapezoidal step F(z₁) = 0 solved to
// round-off and projected with the mass matrix (penalty_derivatives.h), impacts by Matrix R's
// law in the coordinates chosen there (penalty_impact.h). Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "dynamics/penalty_derivatives.h"
#include "sensitivity/formulation.h"

namespace lw::sens::detail {

/// `analytic` false: the impacts' jumps by the pipeline on dual numbers (the reference) instead of
/// the derivative kernels.
std::unique_ptr<Formulation> penaltyFormulation(const Study& st, Partials partials, double delta, bool analytic = true);

/// A point's coordinates (RunPoint::coords indexes these): all the tree's, with the gaps held
/// closed by resting contacts (sorted gap indices) as rows the penalty enforces like the loops'.
using HeldSets = std::vector<std::vector<int>>;

/// The held gaps as the penalty kernels' extra rows on the numbers p (none held: an empty one).
template <class S>
dyn::ExtraRowsOn<S> heldRows(const dyn::RecursiveModel& tree, const dyn::TreeNumbers<S>& p, const std::vector<int>& held);

/// Its run on complex numbers (penalty_complex.cpp): α the run's penalty factor, `held` the
/// formulation's held sets (outliving the run), parameter a table index seeded by eps i.
std::unique_ptr<ComplexRun> penaltyComplexRun(const Study& st, double alpha, const HeldSets& held, std::size_t parameter, double eps);

/// The penalty step's Newton matrix T = F_z + 2/h F_ż + 4/h² F_z̈ at the end z₁ (ż*, z̈* the
/// trapezoidal ones from the start), by forward AD eight columns per pass, numbers `plain`.
Eigen::MatrixXd penaltyTangent(const dyn::RecursiveModel& tree, const NumbersOn<Dual>& plain, double alpha, double t1, double h,
                               const Eigen::VectorXd& z1, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS,
                               const std::vector<int>& held = {});

}  // namespace lw::sens::detail
