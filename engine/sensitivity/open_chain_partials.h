// Matrix R's derivatives on an open chain integrated in its own coordinates (no loop, no driver:
// z = x, M̄ = M^d, R^Φ = I) whose joints and forces the analytic kernels cover (internal to
// engine/sensitivity; the caller decides that a point is one, MatrixR::treeCovers): f = −M⁻¹ τ(z,
// ż, z̈ = f), so f_x = −M⁻¹ τ_z, f_v = −M⁻¹ τ_ż and f_ρ = −M⁻¹ τ_ρ, the outputs' partials exact
// too, from one jet-free motion pass on doubles per point (dyn::MotionAtState) — no dual-number
// pass of the whole pipeline.
#pragma once

#include <memory>

#include "sensitivity/formulation.h"
#include "sensitivity/formulation_numbers.h"

namespace lw::sens::detail {

class OpenChainPartials {
 public:
  virtual ~OpenChainPartials() = default;
  /// Do the adjoint's products serve (AD partials, every chunk in the lanes kernel, outputs that
  /// read points, rates or nothing, no parameter of their own)?
  virtual bool productsCover() const = 0;
  /// The outputs' and the accelerations' partials at p; with `products`, A_ρ and O_ρ as
  /// ParameterProducts (the adjoint's) instead of columns. False where the kernels fail there (M^d
  /// not positive definite, an output without partials): the caller's other route.
  virtual bool partials(const RunPoint& p, PointPartials& n, bool products = false) = 0;
  /// The direct method's trapezoidal step a → b along S, and the outputs at b along it.
  virtual bool trapezoidalAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs,
                                Eigen::MatrixXd& outputsAlong) = 0;
  /// τ's partials and M^d at a linearised end: a replay's Newton matrix from there.
  struct NewtonParts {
    Eigen::MatrixXd Tz, Tzd, M;
  };
  /// The adjoint's trapezoidal step a → b linearised (its parameter terms products; false where
  /// they do not serve), the end's partials, and what a replay's Newton matrix needs.
  virtual bool trapezoidalLinearised(const RunPoint& a, const RunPoint& b, std::unique_ptr<StepTangent>& tangent, PointPartials& n,
                                     NewtonParts& newton) = 0;
};

/// The kernels over the study's numbers (`numbers` outlives them: its switch states are read).
std::unique_ptr<OpenChainPartials> openChainPartials(const Study& st, const FormulationNumbers& numbers);

}  // namespace lw::sens::detail
