// The penalty formulation's trapezoidal step (seed 004 §3, penalty.h) on the differentiation
// scalars, as a sensitivity run defines it: Newton on (17) converged to round-off, then the
// projections (24), (26) with the mass matrix as their metric at the step's end,
//   (M + h²/4 Φ_zᵀαΦ_z) ż = M ż* − h²/4 Φ_zᵀ α Φ_t
//   (M + h²/4 Φ_zᵀαΦ_z) z̈ = M z̈* + h²/4 Φ_zᵀ α c,   c = −(Φ̇_z ż + Φ̇_t)
// (the plain run projects with M + h/2 C + h²/4 K of an earlier iterate: a matrix that depends on
// the run's history, so not a function of the step's inputs that could be differentiated; with M
// the step is one, and penaltyStep takes it when PenaltyOptions::massProjections is set).
// α is held at the double run's value (it scales with the largest mass: a choice, not physics).
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <functional>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/matrix_r_derivatives.h"
#include "dynamics/recursive_model.h"

namespace lw::dyn {


/// Rows a run enforces besides the loops for a while (resting contacts held closed,
/// events/resting_contact.h), on S: at z their values Φ and Jacobian Φ_z and, along ż when given,
/// c = −Φ̇_z ż (no explicit time). The kernels below take them like the loops' rows.
template <class S>
using ExtraRowsOn = std::function<void(const VectorOn<S>& z, const VectorOn<S>* zd, VectorOn<S>& phi,
                                       Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J, VectorOn<S>& c)>;

/// A += s Φ_zᵀΦ_z over each loop row's structural columns (rowColumns; a row past the loops', an
/// extra row's, over every column): a row reads few coordinates, and the dense product was half of
/// a large grid's forward step and most of its projections' derivatives on dual numbers (the grid
/// 1×15: 75 rows, 45 coordinates). J: the rows × nz.
template <class S>
void addRowsGram(const RecursiveModel& m, const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& J, double s,
                 Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& A) {
  thread_local std::vector<int> all;
  all.resize(static_cast<std::size_t>(A.cols()));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  for (Eigen::Index r = 0; r < J.rows(); ++r) {
    const std::vector<int>& cols = r < m.nrows ? m.rowColumns[static_cast<std::size_t>(r)] : all;
    for (int a : cols) {
      const S v = J(r, a) * s;
      if constexpr (std::is_same_v<S, double>)
        if (v == 0.0) continue;
      for (int b : cols) A(b, a) += v * J(r, b);
    }
  }
}

/// F = M z̈ + Φ_zᵀ α Φ − Q at (z, ż, z̈, t): (17) divided by h²/4, zero at a step's end.
template <class S>
void penaltyResidualOn(const RecursiveModel& m, const TreeNumbers<S>& p, double alpha, double t, const VectorOn<S>& z,
                       const VectorOn<S>& zd, const VectorOn<S>& zdd, VectorOn<S>& F, const ExtraRowsOn<S>* extra = nullptr);

/// F's partials by z and ż on doubles by the analytic kernels, no dual number: with λ = αΦ,
///   F_z = τ_z + α Φ_zᵀΦ_z + H,  H = ∂(Φ_zᵀλ)/∂z at λ held (loopJacobianRates),  F_ż = τ_ż
/// (τ's by inverseDynamicsDerivatives; the rows read no rates), and M = F_z̈. False where those
/// kernels do not cover the model (a quaternion, a row other than a cut joint's points'
/// difference, a driver, a force element τ's kernel refuses): the caller's dual numbers then.
/// Without extra rows (a resting contact held: the caller's dual numbers).
/// `state`: the tree's motion at (z, ż, z̈, t) computed already (one pass for this and the
/// parameters' lanes below), or null.
bool penaltyResidualJacobians(const RecursiveModel& m, const TreeNumbers<double>& p, double alpha, double t, const Eigen::VectorXd& z,
                              const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, Eigen::MatrixXd& Fz, Eigen::MatrixXd& Fzd, Eigen::MatrixXd& M,
                              const MotionAtState* state = nullptr);

/// F's lanes along a chunk of the numbers (p on dual numbers, `lanes` = numbersLanes(p)) at a
/// fixed (z, ż, z̈) on doubles, without a dual-number pass: F_ρ = τ_ρ + (Φ_z)_ρᵀ αΦ + α Φ_zᵀ Φ_ρ,
/// τ's lanes with the multipliers αΦ as loads at the rows' points (inverseDynamicsAlongNumbers)
/// and Φ_ρ those points' r lanes. Fp: nz × 8. False where the rows are not all cut joints'
/// points' differences or the lanes kernel does not take the lanes.
bool penaltyResidualAlongNumbers(const RecursiveModel& m, const TreeNumbers<double>& values, const NumbersLanes& lanes,
                                 const TreeNumbers<num::Dual8>& p, double alpha, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                                 const Eigen::VectorXd& zdd, Eigen::MatrixXd& Fp, const MotionAtState* state = nullptr);

/// The transpose of penaltyResidualAlongNumbers for weights w on F (nz) at the state `state` (the
/// motion at z, ż, z̈ with the numbers `values`): the numbers' fields' adjoint of wᵀF_ρ, F_ρ =
/// τ_ρ + (Φ_z)_ρᵀαΦ + αΦ_zᵀΦ_ρ, in one reverse pass of the lanes kernel whatever the number of
/// parameters — τ weighed by w, the multipliers αΦ as loads at the rows' points, those points' r
/// weighed by α(Φ_z w). Each parameter's product is then its fields dotted (numbersLanesProducts
/// with `points`, the points it weighed, and wTau = w). False where penaltyResidualAlongNumbers
/// would be for its rows (the lanes' coverage is the caller's: numbersLanesCovered).
bool penaltyResidualNumbersAdjoint(const RecursiveModel& m, const TreeNumbers<double>& values, double alpha, double t, const Eigen::VectorXd& z,
                                   const MotionAtState& state, const Eigen::VectorXd& w, NumbersAdjoint& out, std::vector<ItemIndex>& points);

/// The projected velocities and accelerations of a step's end z from the trapezoidal ones.
template <class S>
Status penaltyProjectOn(const RecursiveModel& m, const TreeNumbers<S>& p, double alpha, double t, double h, const VectorOn<S>& z,
                        const VectorOn<S>& zdStar, const VectorOn<S>& zddStar, VectorOn<S>& zd, VectorOn<S>& zdd,
                        const ExtraRowsOn<S>* extra = nullptr);

/// The projections' partials by the trapezoidal velocities and accelerations at z, which they
/// are linear in: with A = M + h²/4 Φ_zᵀαΦ_z, ∂ż/∂ż* = A⁻¹M = ∂z̈/∂z̈*, ∂z̈/∂ż* = A⁻¹ h²/4 Φ_zᵀα c_ż
/// ∂ż/∂ż* (c_ż = ∂c/∂ż = −2Θ̇ at the projected ż), ∂ż/∂z̈* = 0; and M, the residual's ∂F/∂z̈.
/// With z̈* given (the analytic kernels asked for), where the loops' rates cover every row (no
/// driver's, no extra row), c_ż in closed form and also the partials by z, Pz = ∂ż/∂z and
/// Qz = ∂z̈/∂z (no dual number: τ's derivatives for ∂(M e)/∂z, the loops' rates and turns);
/// otherwise c_ż by a pass of the curvatures on dual numbers, eight columns a pass, and Pz, Qz
/// empty. On doubles:
/// what a step's linearisation needs besides the parameters' columns. p8: the same numbers on dual
/// numbers (unseeded).
struct PenaltyProjectionPartials {
  Eigen::MatrixXd M, Pd, Qd, Qdd, Pz, Qz;
  // with Pz: what the inertial lanes read (penaltyProjectionInertialLanes), the factor of A, the
  // corrections e_v = ż* − ż, e_a = z̈* − z̈, B = h²/4 α Φ_zᵀ 2Θ̇, the motions at (z, 0, e_v),
  // (z, 0, e_a) and (z, 0, 0)
  Eigen::PartialPivLU<Eigen::MatrixXd> A;
  Eigen::MatrixXd B;
  MotionAtState* atV = nullptr;  // thread_local motions of the last call
  MotionAtState* atA = nullptr;
  MotionAtState* atRest = nullptr;
  // and what the geometry's lanes read besides: the motion at the projected (z, ż, z̈), Φ_z, the
  // rows' rates g_v = Φ_z ż and g_a = Φ̈ there, and h²/4 α
  MotionAtState* atProjected = nullptr;
  Eigen::MatrixXd J;
  Eigen::VectorXd gv, ga;
  double hhAlpha = 0;
};
Status penaltyProjectionPartials(const RecursiveModel& m, const TreeNumbers<double>& p, const TreeNumbers<num::Dual8>& p8, double alpha, double t,
                                 double h, const Eigen::VectorXd& z, const Eigen::VectorXd& zdStar, PenaltyProjectionPartials& out,
                                 const ExtraRowsOn<double>* extra = nullptr, const ExtraRowsOn<num::Dual8>* extra8 = nullptr,
                                 const Eigen::VectorXd* zddStar = nullptr);

/// The projections' lanes along the numbers' lanes by the lanes kernel on doubles, from the
/// partials' closed form at the same point (`at`, Pz set). Differentiating A ż = M ż* and
/// A z̈ = M z̈* + h²/4 α Φ_zᵀ c at z, ż*, z̈* held:
///   A ż_ρ = M_ρ e_v − h²/4 α ((Φ_zᵀλ)_ρ|λ=g_v + Φ_zᵀ Φ̇_ρ),
///   A z̈_ρ = M_ρ e_a − h²/4 α ((Φ_zᵀλ)_ρ|λ=g_a + Φ_zᵀ Φ̈_ρ) − B ż_ρ,
/// with M_ρ e + (Φ_zᵀλ)_ρ = τ_ρ(z, 0, e; the multipliers λ as loads at the rows' points) −
/// τ_ρ(z, 0, 0), and Φ̇_ρ, Φ̈_ρ the rows' points' v, a lanes at the projected state. Lanes that
/// change the bodies' masses, centres and inertias alone (`lanes` = inertialLanes of p's chunk)
/// leave Φ and its rates: the three τ passes without loads. Pp, Qp: nz × 8. False where the lanes
/// kernel does not take them.
bool penaltyProjectionNumbersLanes(const RecursiveModel& m, const TreeNumbers<double>& values, const PenaltyProjectionPartials& at,
                                   const NumbersLanes& lanes, const TreeNumbers<num::Dual8>& p, Eigen::MatrixXd& Pp, Eigen::MatrixXd& Qp);

/// The initial accelerations, as penaltyStart: (M + Φ_zᵀαΦ_z) z̈ = Q + Φ_zᵀ α c.
template <class S>
Status penaltyStartOn(const RecursiveModel& m, const TreeNumbers<S>& p, double alpha, double t, const VectorOn<S>& z,
                      const VectorOn<S>& zd, VectorOn<S>& zdd, const ExtraRowsOn<S>* extra = nullptr);

/// The pieces the penalty equations are made of, at (z, ż, z̈, t) on doubles with numbers p: M,
/// Q, Φ_z, Φ, and c = −(Φ̇_z ż + Φ̇_t). A semi-analytical partial differences them apart: the
/// equations' α Φ_zᵀ(…) differenced whole carries α δ ∂Φ_z/∂ρ (∂…/∂ρ), as large as the answer.
struct PenaltyParts {
  Eigen::MatrixXd M, J;
  Eigen::VectorXd Q, phi, c;
};
void penaltyParts(const RecursiveModel& m, const TreeNumbers<double>& p, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                  PenaltyParts& out, const ExtraRowsOn<double>* extra = nullptr);

}  // namespace lw::dyn
