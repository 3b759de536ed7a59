// Matrix R's equations on the differentiation scalars (Pinocchio's habit: the derivatives beside
// the algorithm). The same pipeline as evaluate() (seed 000 §4.1: positions, velocities, R^Φ, a,
// M̄ z̈ⁱ = Q̄) written once on any scalar S with dense algebra, with the model's numbers on S
// (TreeNumbers<S>): on dual numbers it differentiates z̈ⁱ = f(t, zⁱ, żⁱ; ρ) exactly along any
// directions of the state and of the design parameters (the tangent linear model's f_z, f_ż, f_ρ,
// seed 000 §7.5); on a complex step it is the whole-run reference. The double pipeline
// (matrix_r.cpp) stays the fast one; a test holds the two equal.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <span>
#include <vector>

#include "core/status.h"
#include "dynamics/matrix_r.h"

namespace lw::num {
template <int N> struct Dual;
}

namespace lw::dyn {

class MotionAtState;  // inverse_dynamics_derivatives.h
struct NumbersAdjoint;
struct NumbersLanes;
class MatrixRParameterTranspose;

template <class S>
using VectorOn = Eigen::Matrix<S, Eigen::Dynamic, 1>;

/// One evaluation on S: the dependent state and the independent accelerations.
template <class S>
struct MatrixROn {
  VectorOn<S> z, zd, zdd;  // dependent (nz)
  VectorOn<S> zidd;        // independent accelerations (d)
  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> R, Mbar;  // R^Φ (nz × d) and R^Φᵀ M^d R^Φ (d × d)
};

/// f(t, zⁱ, żⁱ) on S in the independent coordinates `dofs`, numbers `p`. The position problem
/// starts from `zStart` (the double run's dependent coordinates there: Newton then converges in
/// two or three iterations, the derivative parts with the values). With `values` (the same
/// numbers on double: p's value parts) and zStart the solution at zⁱ's values, the derivative
/// parts come from the implicit function theorem instead: Θ_z factored once on doubles, every
/// solve on S a solve per part, a jet pass per right-hand side instead of one per coordinate
/// (the same numbers to round-off, several times faster on dual numbers).
template <class S>
Status evaluateOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, double t,
                  const VectorOn<S>& zi, const VectorOn<S>& zid, const Eigen::VectorXd& zStart, MatrixROn<S>& out,
                  const TreeNumbers<double>* values = nullptr);

/// Θ_z factored at a driven mechanism's state (t, z), kept by a caller that asks there again (the
/// parameter chunks of one point): drivenPositionsOn's.
class DrivenFactor {
 public:
  DrivenFactor();
  ~DrivenFactor();
  struct Impl;
  std::unique_ptr<Impl> d;
};

/// The positions alone of a fully driven mechanism (no independent coordinate) at t on S: by the
/// implicit function theorem about the double solution zStart (its numbers `values`), Θ_z
/// factored once on doubles and one residual pass on S — what the sensitivities of outputs that
/// read positions only need, without the velocities' and accelerations' jet passes or the
/// dynamics. Newton on S where zStart does not solve the position problem. `factor` (optional):
/// Θ_z's factorisation reused at the same (t, zStart).
template <class S>
Status drivenPositionsOn(const MatrixRModel& m, const TreeNumbers<S>& p, const TreeNumbers<double>& values, double t, const Eigen::VectorXd& zStart,
                         VectorOn<S>& z, DrivenFactor* factor = nullptr);

/// The independent coordinates `dofs` of a dependent state on S: zⁱ = h(z), żⁱ = B ż, and (with
/// zdd) z̈ⁱ = B z̈ + Ḃ ż. A change of the choice maps the state and its sensitivities through it.
template <class S>
void independentOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const VectorOn<S>& z,
                   const VectorOn<S>& zd, const VectorOn<S>* zdd, VectorOn<S>& zi, VectorOn<S>& zid, VectorOn<S>* zidd);

/// The initial state on S, as initialState() assembles it: the loops closed with the coordinates
/// the assembly left free held where the double assembly put them (`z0`, `zd0`: data.z, data.zd
/// after initialState), the initial rates imposed. zi, zid in the choice `dofs`.
template <class S>
Status initialStateOn(const MatrixRModel& m, const TreeNumbers<S>& p, const std::vector<Dof>& dofs, const Eigen::VectorXd& z0,
                      VectorOn<S>& zi, VectorOn<S>& zid);
/// The same initial state in all the tree's coordinates (z, ż: nz each), for the penalty
/// formulation that integrates them all. `oneStep`: on dual numbers, where the stored
/// configuration is assembled already, the assembly's derivative parts in one minimum-norm step
/// with J Jᵀ on doubles (and one refinement) instead of Newton iterations on dual numbers — the
/// same to round-off, which the independent coordinates do not see but a penalty's α amplifies.
template <class S>
Status initialCoordinatesOn(const MatrixRModel& m, const TreeNumbers<S>& p, const Eigen::VectorXd& z0, VectorOn<S>& z, VectorOn<S>& zd,
                            bool oneStep = false);

/// The points the independent coordinates follow (their point components' items, in order).
std::vector<ItemIndex> dofPoints(const std::vector<Dof>& dofs);

/// The Matrix R ODE z̈ⁱ = f(t, zⁱ, żⁱ; ρ) linearised at an evaluated state without a dual-number
/// pass of the pipeline (seed 000 §7.5–7.6 on the dependent coordinates): for directions δzⁱ,
/// δżⁱ and the numbers' own lanes (a chunk's seeded parameters),
///   Θ_z δz = [−Φ_ρ; δzⁱ − h_ρ],  Θ_z δż = [−δΦ̇; δżⁱ − δḣ],  Θ_z δa = −[δΦ̈; δḧ]  (z̈ held),
///   M̄ δz̈ⁱ = −R^Φᵀ (M^d δa + δτ) − [λᵀ δΦ_z r_c]_c,  δz̈ = R^Φ δz̈ⁱ + δa,
/// with τ = M^d z̈ − Q^d, Φ_zᵀλ = −τ, and every δ of Φ, its rates and τ read off one jet-free
/// motion pass on dual numbers (tree_motion.h: frames as jets built from the bodies' V and A, no
/// jet recursion), Θ_z factored once on doubles. Eight directions a call, the lanes of the inputs.
class MatrixRTangent {
 public:
  MatrixRTangent();
  ~MatrixRTangent();
  /// At the double evaluation e of (t, dofs) with the numbers `values` (the model's geometry: Θ_z
  /// is read off the model's analytic Jacobians). Fails when Θ_z or M̄ is singular there.
  /// `evaluated`: the pipeline's data that evaluated e (its factorisations of Θ_z and M̄ and its
  /// Q^d are reused; it must outlive the calls of along at this point).
  Status at(const MatrixRModel& m, const TreeNumbers<double>& values, const std::vector<Dof>& dofs, double t, const MatrixROn<double>& e,
            const MatrixRData* evaluated = nullptr);
  /// The lanes of z̈ⁱ and of the dependent z, ż, z̈ for the lanes of dx, dv (d each) and of p's
  /// numbers (the model's geometry on dual numbers, parameters seeded or none: `seeded` false
  /// says none, and the positions' pass, which then has no lanes, is left out); with `points`,
  /// also their r, v, a (3 per point each, all three given) from the same motion pass.
  void along(const TreeNumbers<num::Dual<8>>& p, bool seeded, const VectorOn<num::Dual<8>>& dx, const VectorOn<num::Dual<8>>& dv, VectorOn<num::Dual<8>>& zidd,
             VectorOn<num::Dual<8>>& z, VectorOn<num::Dual<8>>& zd, VectorOn<num::Dual<8>>& zdd, std::span<const ItemIndex> points = {},
             num::Dual<8>* r = nullptr, num::Dual<8>* v = nullptr, num::Dual<8>* a = nullptr) const;
  using MatrixOnDual8 = Eigen::Matrix<num::Dual<8>, Eigen::Dynamic, Eigen::Dynamic>;
  /// The positions and velocities alone along the same lanes (z, ż as `along` has them), with
  /// R^Φ's lanes (nz × d: Θ δR_c = −[δ(Φ_z R_c); δ(h_z R_c)], the rows' rates along ż = R_c) and
  /// the tree's mass matrix M^d on them: what an impact's jump map reads (events::impactAt),
  /// without the accelerations' passes or a Newton solve on dual numbers.
  void velocitiesAlong(const TreeNumbers<num::Dual<8>>& p, bool seeded, const VectorOn<num::Dual<8>>& dx, const VectorOn<num::Dual<8>>& dv,
                       VectorOn<num::Dual<8>>& z, VectorOn<num::Dual<8>>& zd, MatrixOnDual8& R, MatrixOnDual8& Md) const;
  /// The same for lanes that change nothing but the bodies' masses, centres and inertias, from
  /// τ's lanes at the point's state (`tau`: the lanes kernel's at `state`, the motion at the
  /// point's z, ż, z̈ with the numbers `values`): positions and rates keep, δz̈ⁱ = −M̄⁻¹ R^Φᵀ δτ
  /// (no multiplier turns: the loops do not see these numbers), δz̈ = R^Φ δz̈ⁱ; the points' r, v,
  /// a with the accelerations' lanes.
  void alongInertia(const TreeNumbers<double>& values, const MotionAtState& state, const VectorOn<num::Dual<8>>& tau,
                    VectorOn<num::Dual<8>>& zidd, VectorOn<num::Dual<8>>& z, VectorOn<num::Dual<8>>& zd, VectorOn<num::Dual<8>>& zdd,
                    std::span<const ItemIndex> points = {}, num::Dual<8>* r = nullptr, num::Dual<8>* v = nullptr, num::Dual<8>* a = nullptr) const;

  /// f's state Jacobians at the point by products, no lanes: with Θ̇, Θ̈ and H = ∂(Φ_zᵀλ)/∂z in
  /// closed form (loopJacobianRates) and τ_z, τ_ż (inverseDynamicsDerivatives on `state`: the motion
  /// at the point's z, ż, z̈ with the numbers `values`),
  ///   δz = R^Φ δzⁱ,  Θ_z δż = [0; δżⁱ] − Θ̇ δz,  Θ_z δa = −(Θ̈ δz + 2 Θ̇ δż),
  ///   M̄ δz̈ⁱ = −R^Φᵀ (M^d δa + τ_z δz + τ_ż δż + H δz),  δz̈ = R^Φ δz̈ⁱ + δa
  /// (along's state lanes, every direction at once). False where those kernels do not cover the
  /// loops, the independent coordinates or the tree: the lanes serve there.
  struct StateJacobians {
    Eigen::MatrixXd fx, fv;                    // ∂z̈ⁱ/∂zⁱ, ∂z̈ⁱ/∂żⁱ (d × d)
    Eigen::MatrixXd zx, zdx, zdv, zddx, zddv;  // z, ż, z̈ by zⁱ and żⁱ (nz × d; z by żⁱ is zero)
    Eigen::MatrixXd rates, secondRates, tauZ, tauZd;  // what they are made of: Θ̇, Θ̈, τ_z + H, τ_ż (nz × nz)
  };
  bool stateJacobians(const TreeNumbers<double>& values, const MotionAtState& state, StateJacobians& out) const;
  /// Does stateJacobians cover the model and independent coordinates the tangent was set with?
  bool stateJacobiansCover() const;
  /// along's lanes for lanes of the numbers alone (the state held), without dual numbers where the
  /// lanes kernel takes them (inverseDynamicsAlongNumbers on `state`, the motion at the point
  /// with the numbers `values`, `lanes` = numbersLanes(p)): the rows' points' r, v, a lanes are
  /// Ψ's explicit lanes, τ's with the multipliers as loads at the loops' points carry the turn,
  /// and stateJacobians' parts (`parts`) chain them:
  ///   Θ δz = −Ψ_ρ,  Θ δż = −(Θ̇ δz + Ψ̇_ρ),  Θ δa = −(Θ̈ δz + 2Θ̇ δż + Ψ̈_ρ),
  ///   M̄ δz̈ⁱ = −R^Φᵀ(M^d δa + (τ_z + H) δz + τ_ż δż + (τ + Φ_zᵀλ)_ρ),  δz̈ = R^Φ δz̈ⁱ + δa.
  /// `extra` (the outputs' points): their explicit lanes at the fixed state. False where the
  /// kernels do not take them (the caller's dual-number lanes then).
  struct NumbersAlong {
    Eigen::MatrixXd zidd, z, zd, zdd;  // d × 8, nz × 8 (the dependent coordinates' lanes)
    Eigen::MatrixXd points;            // the extra points' r, v, a lanes at the fixed state, stacked (9 per point × 8)
  };
  bool alongNumbers(const TreeNumbers<double>& values, const MotionAtState& state, const StateJacobians& parts, const NumbersLanes& lanes,
                    const TreeNumbers<num::Dual<8>>& p, std::span<const ItemIndex> extra, NumbersAlong& out) const;
  /// The transpose of along's parameter lanes at the point, for the adjoint: from stateJacobians'
  /// parts and the motion there (`state`, moved in: the object keeps it), the outputs' points
  /// `extra` listed first among the points it weighs. Null where the loops' rows or the
  /// independent coordinates are not points' (stateJacobiansCover false).
  std::shared_ptr<const MatrixRParameterTranspose> parameterTranspose(StateJacobians&& parts, MotionAtState&& state,
                                                                            std::span<const ItemIndex> extra) const;

 private:
  struct Work;
  std::unique_ptr<Work> w_;
};

/// The transpose of MatrixRTangent::along's parameter lanes at one point, the state held (seed
/// 000 §7 taken backwards; the adjoint's λᵀ f_ρ and λᵀ O_ρ at a cost that does not grow with the
/// parameters). For weights w on z̈ⁱ and on the dependent z, ż, z̈ (the outputs' partials'
/// transposes) and on the outputs' points' r, v, a at the fixed state,
///   u = M̄⁻¹(w_z̈ⁱ + R^Φᵀ w_z̈),  y = −R^Φ u  (τ's weight, and the multipliers' turn's),
///   ψa = −Θ⁻ᵀ(w_z̈ + M^d y),  ψv = −Θ⁻ᵀ(w_ż + τ_żᵀ y + 2Θ̇ᵀψa),
///   ψz = −Θ⁻ᵀ(w_z + (τ_z + H)ᵀ y + Θ̈ᵀψa + Θ̇ᵀψv)
/// weigh Ψ = [Φ; h]'s explicit lanes, its rows' Ψ_ρ, Ψ̇_ρ, Ψ̈_ρ: Φ's rows are cut joints' points'
/// differences and h points' components (or coordinates, without lanes), so those lanes are the
/// points' r, v, a at the fixed state; and yᵀ δ(Φ_zᵀλ) is τ's lanes with the multipliers as
/// constant loads at the same points (as alongNumbers takes them). So one reverse pass of the
/// lanes kernel on the point's motion with τ weighed by y gives the numbers' fields' adjoint,
/// every parameter's product a dot of its fields (numbersLanesProducts).
class MatrixRParameterTranspose {
 public:
  MatrixRParameterTranspose();
  ~MatrixRParameterTranspose();
  /// The adjoint of the numbers' fields (`out`) for the weights wzidd (d), wz, wzd, wzdd (nz), and
  /// wr, wv, wa on the extra points (3 per point each; null: none); wTau, τ's weight (for the
  /// torsion springs' products). `values`: the numbers the point was evaluated with.
  void adjoint(const TreeNumbers<double>& values, const Eigen::VectorXd& wzidd, const Eigen::VectorXd& wz, const Eigen::VectorXd& wzd,
               const Eigen::VectorXd& wzdd, const double* wr, const double* wv, const double* wa, NumbersAdjoint& out, Eigen::VectorXd& wTau) const;
  /// The points the adjoint weighs (the extra ones first): numbersLanesProducts' list.
  std::span<const ItemIndex> points() const;
  /// The motion at the point (the torsion springs' products read it).
  const MotionAtState& state() const;
  struct Data;  // matrix_r_transpose.cpp

 private:
  friend class MatrixRTangent;
  std::unique_ptr<Data> d_;
};

}  // namespace lw::dyn
