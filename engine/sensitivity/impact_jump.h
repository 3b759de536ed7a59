// The linearised jump of the state at an impact (seed 001 Theorems 1–3 and 5), in the
// independent coordinates of Matrix R, for sensitivities that cross it: with Q = ∂x/∂ρ,
// V = ∂v/∂ρ just before (−) and after (+) the event time t_e,
//   dt_e/dρ = c_xᵀ Q⁻ + c_ρ,                 c = −(r_x, r_ρ)/ṙ⁻       (Theorem 1)
//   Q⁺ = Q⁻ − Δv dt_e/dρ,                    Δv = v⁺ − v⁻             (Theorem 2)
//   V⁺ = h_x Q⁻ + h_v V⁻ + h_ρ + w dt_e/dρ,  w = h_x v⁻ + h_v a⁻ − a⁺  (Theorem 3)
//   Z⁺ = Z⁻ − (g⁺ − g⁻) dt_e/dρ                                        (Theorem 5)
// r is the gap of the contact as a function of (x, ρ) through the position problem, h the
// impact law's jump map (events/impact_law.h), both differentiated by forward AD. The direct
// method applies the map, the adjoint its transpose: one set of matrices serves both.
// Internal to engine/sensitivity.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sensitivity/study.h"

namespace lw::dyn {
class MatrixRTangent;
}
namespace lw::events {
template <class S> struct ImpactOn;
}

namespace lw::sens::detail {

struct ImpactJump {
  double t = 0;
  double normalBefore = 0;   // ṙ⁻
  Eigen::VectorXd cx;        // d
  Eigen::RowVectorXd cp;     // p (chosen parameters)
  Eigen::VectorXd dv, w;     // d
  Eigen::MatrixXd hx, hv;    // d × d
  Eigen::MatrixXd hp;        // d × p
  /// dt_e/dρ for the sensitivities Q⁻ before it (1 × p).
  Eigen::RowVectorXd eventTime(const Eigen::MatrixXd& Q) const { return cx.transpose() * Q + cp; }
  /// Seed 001's negative control (T2): the jump without the event time's sensitivity.
  void dropEventTime() {
    cx.setZero();
    cp.setZero();
  }
  /// The sensitivities after the impact from those before (in place).
  void apply(Eigen::MatrixXd& Q, Eigen::MatrixXd& V) const {
    const Eigen::RowVectorXd dt = eventTime(Q);
    const Eigen::MatrixXd Vplus = hx * Q + hv * V + hp + w * dt;
    Q -= dv * dt;
    V = Vplus;
  }
};

/// `tangent` set at the state (t, zⁱ = x, żⁱ = v) in `dofs` with the numbers `values`, the
/// position problem from zStart: false where it cannot be (Θ_z or M̄ singular there).
bool jumpTangentAt(const Study& st, const dyn::TreeNumbers<double>& values, const std::vector<dyn::Dof>& dofs, double t, const Eigen::VectorXd& x,
                   const Eigen::VectorXd& v, const Eigen::VectorXd& zStart, dyn::MatrixRTangent& tangent);

/// The impact law at the state `tangent` is set at, along the lanes of x, v (its independent
/// coordinates' and rates', their values unread) and of the numbers p: z, ż, R^Φ and M̄ from the
/// tangent's kernels into ev (its accelerations left out), the law into h (when given).
Status impactByKernels(const Study& st, const dyn::MatrixRTangent& tangent, const dyn::TreeNumbers<Dual>& p, bool seeded, double t, const Vec<Dual>& x,
                       const Vec<Dual>& v, const std::vector<int>& contacts, const std::vector<int>& plastic, dyn::MatrixROn<Dual>& ev,
                       events::ImpactOn<Dual>* h);

/// Empty when the impact of `contacts` at t, closing at ṙ⁻ = normalBefore, has sensitivities;
/// else the refusal (the three cases below).
Status differentiableImpact(const Study& st, const std::vector<int>& contacts, double t, double normalBefore);

/// The jump at the impact from `before` to `after` (the same t and x) of the contacts `contacts`
/// in the coordinates `dofs`; z the dependent coordinates there. Refused (with the reason) where
/// the derivative does not exist or is not derived: simultaneous contacts (their event times
/// part under a perturbation), a grazing contact (ṙ⁻ → 0: dt_e/dρ unbounded, seed 001 T9), and a
/// driven mechanism (the jump's time derivative h_t). `plastic`: those of `contacts` that come to
/// rest (e = 0, events/impact_law.h). `tangent` (set at `before` in `dofs`): the derivatives by
/// its kernels (positions, velocities, R^Φ and M^d along the lanes); without one, by forward AD
/// of the whole pipeline (the reference).
Status impactJump(const Study& st, const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after,
                  const std::vector<int>& contacts, const Eigen::VectorXd& z, ImpactJump& out, const std::vector<int>& plastic = {},
                  const dyn::MatrixRTangent* tangent = nullptr);

}  // namespace lw::sens::detail
