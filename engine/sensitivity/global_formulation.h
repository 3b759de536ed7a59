// The global index-3, index-1 and penalty formulations (issue 39; seeds 001 §3.5, 003 §1) as
// formulations of the sensitivity methods (formulation.h): the state all the natural coordinates
// (q, q̇), the steps the trapezoidal rule's or Dormand–Prince's (ode_steps.h) or index-3's own;
// f's state partials exact (dynamics: globalOdeJacobian), its parameter partials by forward AD on
// the natural model's numbers computed again on dual numbers (dyn::NaturalOn), or by seed 003's
// differences (GSAM: the natural model compiled again at ρ + δ; LSAM: one element at a time); the
// outputs, the start and the impacts, written in the tree's coordinates of (q, q̇, q̈), by forward
// AD through the map between the two. Internal to engine/sensitivity.
#pragma once

#include <Eigen/LU>
#include <functional>
#include <memory>

#include "dynamics/natural_dynamics.h"
#include "dynamics/natural_tree_map.h"
#include "sensitivity/formulation.h"

namespace lw::sens::detail {

enum class GlobalKind { Index1, Penalty, Index3 };
/// index-1 with Baumgarte's stabilisation, the global penalty formulation, or the index-3
/// augmented Lagrangian (its own trapezoidal steps; rungeKutta ignored); partials AD, GSAM or LSAM.
std::unique_ptr<Formulation> globalFormulation(const Study& st, GlobalKind kind, bool rungeKutta, Partials partials, double delta);

/// The index-3 step a → b at its converged end (García de Jalón–Bayo; global_index3.cpp): with
/// q̂̇ = 2/h q₀ + q̇₀, q̂̈ = 4/h² q₀ + 4/h q̇₀ + q̈₀, q̇* = 2/h q₁ − q̂̇, q̈* = 4/h² q₁ − q̂̈,
///   (1) M q̈* + Φ_qᵀμ = Q(q₁, q̇*), Φ(q₁) = 0              (the augmented Lagrangian's fixed point)
///   (2) M(q̇₁ − q̇*) + Φ_qᵀν = 0, Φ_q q̇₁ + Φ_t = 0          (the velocities' projection's)
///   (3) M(q̈₁ − q̈*) + Φ_qᵀκ = 0, Φ_q q̈₁ + γ(q₁, q̇₁) = 0     (the accelerations')
/// their multipliers, and their matrices differentiated: S1 = [K Φ_qᵀ; Φ_q 0] for (1), K = 4/h² M
/// + ∂(Φ_qᵀμ)/∂q − Q_q − 2/h Q_v, A = [M Φ_qᵀ; Φ_q 0] for (2) and (3). Fails, naming the reason,
/// where the constraints are redundant (the multipliers are not unique).
struct Index3Systems {
  double h = 0, t1 = 0;
  Eigen::VectorXd qdS, qddS, mu, nu, kappa;
  Eigen::MatrixXd J, Qv;
  dyn::ConstraintTerms T2, T3;  // (2)'s and (3)'s constraint terms at the end
  Eigen::PartialPivLU<Eigen::MatrixXd> S1, A;
};
Status index3Systems(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, const RunPoint& a, const RunPoint& b, Index3Systems& out);
/// The step's tangent from its systems: the state's terms exact (S1 and A's solves with the
/// constraint terms), T mapping (X₀; V₀; A₀) to (X₁; V₁; A₁); with P[i] the parameter columns of
/// system i's residual at the frozen solution ((n + r) × p), Tp the parameters' columns.
void index3StepTangent(const Index3Systems& sys, const Eigen::MatrixXd& M, const Eigen::MatrixXd P[3], Eigen::MatrixXd& T, Eigen::MatrixXd& Tp);
/// The three systems' residuals at the step's frozen solution (b, the multipliers of `sys`) with
/// another natural model and inertia (seed 003's differences: a moved parameter's).
void index3Residuals(const kin::NaturalModel& nm, const dyn::NaturalInertia& inertia, const RunPoint& b, const Index3Systems& sys,
                     Eigen::VectorXd res[3]);
/// The three systems' residuals (left side minus right, n + r rows each) at the end (q₁, q̇₁, q̈₁)
/// with multipliers (μ, ν, κ), on the numbers on P (forward AD's parameter columns, the complex
/// step's Newton residuals); q̂̇, q̂̈ the step's start's.
template <class P>
void index3ResidualsOn(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, const dyn::TreeNumbers<P>& numbers, const dyn::NaturalOn<P>& on,
                       double h, double t1, const Vec<P>& qdHat, const Vec<P>& qddHat, const Vec<P>& x1, const Vec<P>& v1, const Vec<P>& a1,
                       const Vec<P>& mu, const Vec<P>& nu, const Vec<P>& kappa, Vec<P> res[3]);

/// The sets of gaps held closed (resting contacts) a run went through, a point's coords their
/// index (0: none), and the natural model of each (kin::HeldGap rows appended).
class HeldModes {
 public:
  virtual ~HeldModes() = default;
  /// The natural model of the points with coords `coords`, or why there is none.
  virtual Status model(int coords, const kin::NaturalModel*& out) = 0;
  /// The gaps held at `after` that were not at `before`: closed with e = 0.
  virtual std::vector<int> plastic(int before, int after) const = 0;
};

/// The global formulations' run on complex numbers (global_complex.cpp): the recorded run again
/// with parameter `parameter` (a table index) moved by i·eps, each implicit step's Newton iterations
/// on complex numbers with the real matrices at the recorded end. `real`: the numbers the real
/// matrices are made with (the formulation's), whose switches `applyRealSwitches` turns with the
/// run's; `elements` (inertia's) count their torsion springs' turns from each step's start; each
/// point's model (its gaps held) from `modes`.
std::unique_ptr<ComplexRun> globalComplexRun(const Study& st, const kin::NaturalModel& nm, const dyn::NaturalInertia& inertia,
                                             dyn::NaturalForceElements& elements, HeldModes& modes, const dyn::NaturalTreeMap& map, const dyn::TreeNumbers<double>& real, GlobalKind kind, bool rungeKutta,
                                             std::size_t parameter, double eps, std::function<void(const std::vector<int>&)> applyRealSwitches);

}  // namespace lw::sens::detail
