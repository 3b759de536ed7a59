// The global formulations' model (issue 39, seeds 001 §3 and 003 §1): the natural-coordinate
// model's constant mass matrix and generalized gravity, and the index-1 equations of motion with
// Baumgarte stabilisation on them,
//   [M  Φ_qᵀ] [q̈]   [Q                    ]
//   [Φ_q  0 ] [λ ] = [−γ − 2αΦ̇ − β²Φ      ].
// A planar body's points are linear in its natural coordinates (p = O + a d + b R90 d), a spatial
// body's with linear frames (p = O + a d + b d' + c w, kin::NaturalOptions), so the mass matrix
// is constant.
#pragma once

#include <memory>
#include <string>

#include <Eigen/Core>
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/SparseCore>

#include "core/status.h"
#include "dynamics/recursive_model.h"
#include "kinematics/natural_model.h"
#include "kinematics/natural_numbers.h"

namespace lw::dyn {

/// The force elements on the natural coordinates (springs with their dampers and actuators, point
/// forces, torques, the torsion springs of every joint): their generalized forces by virtual work
/// on the bodies' frames — planar, a force F at p = O + a d + b R90 d puts F on O and
/// a F + b R90ᵀF on d, a torque T puts T R90 d / |d|² on d; spatial (linear frames, p = O + X ρ),
/// F puts F on O and ρ_i F on the basis vector x_i, T puts ½ T × x̃_i (x̃ the reciprocal basis). The laws are the recursive
/// formulations' own (force_elements.h), read from `tree`'s mechanism and `numbers` (the tree's,
/// or a run's with its switch states); all three outlive this.
class NaturalForceElements {
 public:
  NaturalForceElements(const RecursiveModel& tree, const TreeNumbers<double>& numbers, const kin::NaturalModel& m);
  bool empty() const { return empty_; }
  /// Q += the elements' generalized forces at (t, q, q̇).
  void add(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q) const;
  /// Q += the elements' generalized forces at (t, q, q̇) with the numbers on P (the tree's and
  /// the natural model's again: kin::NaturalNumbers), the torsion turns as last accepted.
  template <class P>
  void addOn(const TreeNumbers<P>& numbers, const kin::NaturalNumbers<P>& shape, double t, const kin::CoordinatesOn<P>& q,
             const kin::CoordinatesOn<P>& qd, kin::CoordinatesOn<P>& Q) const;
  /// An accepted state: the torsion springs' angles continue from it (a spring wound past half a
  /// turn keeps its torque; the recursive formulations' tree coordinates count the turns alike).
  void accept(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd);
  /// The torsion springs' angles continue from the tree's coordinates z instead (a joint's
  /// coordinate less its stored value, turns counted as the recursive formulations count them):
  /// an evaluation at a recorded point, whatever state was accepted last (a sensitivity's replays
  /// and columns visit the points out of the run's order).
  void continueFrom(const Eigen::VectorXd& z);

 private:
  const RecursiveModel& tree_;
  const TreeNumbers<double>& numbers_;
  const kin::NaturalModel& m_;
  bool empty_ = true;
  std::vector<double> near_;              // by force: the torsion angles of the last accepted state
  mutable std::vector<double> measured_;  // scratch: those of the last evaluation
};

/// M (nq × nq, constant) and Q_g (nq): T = ½ q̇ᵀ M q̇ and the gravity's generalized force;
/// `error` says why not (a spatial model compiled without linear frames, a rod between ball
/// joints, which has no orientation coordinates). `elements`, when set, adds
/// the force elements' (appliedForces).
struct NaturalInertia {
  Eigen::MatrixXd M;
  Eigen::VectorXd gravity;
  const NaturalForceElements* elements = nullptr;
  /// Do the applied forces depend on the state (force elements), or only gravity's?
  bool stateDependent() const { return elements && !elements->empty(); }
};
bool naturalInertia(const kin::NaturalModel& m, NaturalInertia& out, std::string& error);
/// Q(t, q, q̇): gravity and the force elements.
void appliedForces(const NaturalInertia& inertia, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::VectorXd& Q);

/// The global formulations' model on other numbers (the parameters' partials by forward AD,
/// sensitivity/global_formulation.cpp): the natural model's constants, its mass matrix and weight
/// computed again from the mechanism's numbers on P (natural_dynamics.cpp), and the terms of its
/// equations on them at a state on doubles (natural_parameters.cpp).
template <class P>
struct NaturalOn {
  using Vector = Eigen::Matrix<P, Eigen::Dynamic, 1>;
  kin::NaturalNumbers<P> k;
  Eigen::Matrix<P, Eigen::Dynamic, Eigen::Dynamic> M;
  Vector gravity;
  P massScale;  // max(1, M's largest diagonal entry): the penalty's scale
};
template <class P>
Status naturalOn(const kin::NaturalModel& m, const MechanismNumbers<P>& numbers, NaturalOn<P>& out);
/// The state on P (a complex step moves it; forward AD's is on doubles, cast).
template <class P>
using StateOn = kin::CoordinatesOn<P>;
/// Φ, Φ̇ = Φ_q q̇ + Φ_t and γ at (t, q, q̇) on the numbers.
template <class P>
void constraintRatesOn(const kin::NaturalModel& m, const NaturalOn<P>& on, double t, const StateOn<P>& q, const StateOn<P>& qd, StateOn<P>& phi,
                       StateOn<P>& rate, StateOn<P>& gamma);
/// Φ_q v on the numbers.
template <class P>
void jacobianTimesOn(const kin::NaturalModel& m, const NaturalOn<P>& on, double t, const StateOn<P>& q, const StateOn<P>& v, StateOn<P>& out);
/// Φ_qᵀ w on the numbers.
template <class P>
void jacobianTransposeTimesOn(const kin::NaturalModel& m, const NaturalOn<P>& on, double t, const StateOn<P>& q, const StateOn<P>& w,
                              StateOn<P>& out);

/// The buffers of the index-1 and penalty formulations (one per run).
struct GlobalOdeData {
  Eigen::MatrixXd J, A;  // Φ_q, the augmented matrix
  Eigen::VectorXd phi, phiT, gamma, rhs, solution, Q;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  Eigen::LLT<Eigen::MatrixXd> penaltyLu;  // the penalty formulation's M + αΦ_qᵀΦ_q (symmetric positive)
  explicit GlobalOdeData(const kin::NaturalModel& m);
};

struct Baumgarte {
  double alpha = 5, beta = 5;  // the stabilisation's damping and stiffness (1/s)
};

/// q̈ (and the multipliers in d.solution's tail) at (t, q, q̇); fails at a singular augmented
/// matrix (a redundant constraint or a singular position), with the reason.
Status index1Acceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, const Baumgarte& b, double t,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd);

/// The penalty formulation on the global model (seed 001 §3.5, eqs. 40): the constraints leave
/// the equations and a stiff spring-damper on them keeps the motion near the manifold,
///   (M + αΦ_qᵀΦ_q) q̈ = Q − αΦ_qᵀ(γ + 2ξωΦ̇ + ω²Φ),   λ* = α(Φ̈ + 2ξωΦ̇ + ω²Φ),
/// an ODE in q (redundant constraints allowed: the matrix stays regular).
struct GlobalPenalty {
  double alpha = 1e7;  // scaled by the mass matrix's largest diagonal entry
  double xi = 1, omega = 10;
};

/// q̈ of the penalty formulation at (t, q, q̇) .
Status globalPenaltyAcceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, const GlobalPenalty& p, double t,
                                 const Eigen::VectorXd& q, const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd);

/// A combination of the constraints' time derivatives, g = a·Φ_q q̈ + γ·γ(q, q̇) + rate·Φ̇ + value·Φ
/// (γ = Φ̇_q q̇ + Φ̇_t, so a = γ = 1 is Φ̈): the index-1 and penalty accelerations' (1, 1, c₁, c₂),
/// the velocity constraint's (0, 0, 1, 0), the acceleration constraint's (1, 1, 0, 0).
struct ConstraintCombination {
  double acceleration = 1, gamma = 1, rate = 0, value = 0;
};
/// g at (q, q̇, q̈) and its exact partials at q̈ held: G_q = ∂g/∂q, G_v = ∂g/∂q̇ (nrows × nq), and
/// with weights w, H = ∂(Φ_qᵀw)/∂q (nq × nq) — constraint by constraint on its own columns, a
/// five-point stencil of unit steps (exact: the terms are polynomials of degree at most four).
struct ConstraintTerms {
  Eigen::VectorXd g;
  Eigen::MatrixXd H, Gq, Gv;
};
void constraintTerms(const kin::NaturalModel& m, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd,
                     const Eigen::VectorXd* w, const ConstraintCombination& k, ConstraintTerms& out, bool withPartials = true);
/// ∂Q/∂q, ∂Q/∂q̇ of the applied forces (the force elements' by central differences; gravity none).
void forcePartials(const NaturalInertia& inertia, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, Eigen::MatrixXd& Qq,
                   Eigen::MatrixXd& Qv);

/// The index-1 (penalty false) or the global penalty formulation's q̈ = f(t, q, q̇) and its exact
/// partials F_q = ∂f/∂q, F_v = ∂f/∂q̇ (natural_derivatives.cpp): the linear system that gives q̈
/// differentiated, its constraint terms — Φ_qᵀλ and g = Φ̈ + c₁Φ̇ + c₂Φ at q̈ held — polynomials
/// of degree at most four in (q, q̇) differenced exactly by a five-point stencil, the force
/// elements' by central differences.
/// stabilised false: index-1 without Baumgarte's terms (the consistent accelerations of a state on
/// the constraints: the index-3 formulation's at its start and after an impact).
Status globalOdeJacobian(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd, Eigen::MatrixXd& Fq, Eigen::MatrixXd& Fv,
                         bool stabilised = true);
/// The residual of the linear system that gives q̈ at a trial (q̈, λ), zero at the solution: index-1
/// [Q − Mq̈ − Φ_qᵀλ; −g] (nq + nrows), penalty Q − Mq̈ − αΦ_qᵀg (nq), g = Φ_q q̈ + γ + c₁Φ̇ + c₂Φ.
/// Seed 003's GSAM differences it at the frozen solution: perturbing the numbers by δ moves the
/// solution by the system matrix⁻¹ times the residual's difference over δ — whose rounding along
/// Φ_qᵀ (the penalty's large α) the matrix then damps, where a difference of two solutions would
/// keep it.
void globalOdeResidual(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& qd, const Eigen::VectorXd& qdd, const Eigen::VectorXd& lambda, Eigen::VectorXd& out,
                       bool stabilised = true);
/// globalOdeResidual with the numbers on P: `numbers` the tree's on P (the force elements' laws),
/// `inertia` the nominal's (its force elements' torsion turns).
template <class P>
void globalOdeResidualOn(const kin::NaturalModel& m, const NaturalInertia& inertia, const TreeNumbers<P>& numbers, const NaturalOn<P>& on,
                         bool penalty, double t, const StateOn<P>& q, const StateOn<P>& qd, const StateOn<P>& qdd, const StateOn<P>& lambda,
                         StateOn<P>& out, bool stabilised = true);
/// Q(t, q, q̇) on the numbers: gravity and the force elements (appliedForces').
template <class P>
void appliedForcesOn(const NaturalInertia& inertia, const TreeNumbers<P>& numbers, const NaturalOn<P>& on, double t, const StateOn<P>& q,
                     const StateOn<P>& qd, StateOn<P>& Q);
/// x ← A⁻¹ x with the system matrix the last globalOdeAcceleration on d factored (rows as the
/// residual's; index-1: the multipliers' rows last).
void globalOdeSolve(bool penalty, const GlobalOdeData& d, Eigen::MatrixXd& x);
/// The multipliers of the last solution on d (index-1; the penalty's λ* = αg is not kept).
Eigen::VectorXd globalOdeMultipliers(const kin::NaturalModel& m, const GlobalOdeData& d);
/// f alone, as globalOdeJacobian's.
Status globalOdeAcceleration(const kin::NaturalModel& m, const NaturalInertia& inertia, bool penalty, double t, const Eigen::VectorXd& q,
                             const Eigen::VectorXd& qd, GlobalOdeData& d, Eigen::VectorXd& qdd, bool stabilised = true);

/// The index-3 augmented Lagrangian formulation with mass-orthogonal projections of velocities
/// and accelerations (García de Jalón and Bayo; seed 001 §3.2): one step of the trapezoidal rule
/// solves M q̈ + Φ_qᵀ(αΦ + λ) = Q by Newton–Raphson on q with the multipliers' iteration
/// λ ← λ + αΦ, then projects q̇ and q̈ onto Φ̇ = 0 and Φ̈ = 0 with the matrix
/// M + (h²/4) α Φ_qᵀΦ_q. Redundant constraints are allowed (the penalty α keeps the matrix
/// regular).
struct Index3Options {
  double penalty = 1e9;       // α, scaled by the mass matrix's largest diagonal entry
  double tolerance = 1e-10;   // on the Newton update of q (scaled by max(1, |q|)) and on Φ
  int maxIterations = 20;
  // the matrices dense (Eigen LU), or on their sparsity pattern (KLU, exact constraint
  // Hessians); Auto: sparse from kSparseFrom coordinates when no force element needs a tangent
  enum class Matrices { Auto, Dense, Sparse };
  Matrices matrices = Matrices::Auto;
  static constexpr int kSparseFrom = 60;
  /// The options of a run a sensitivity follows: converged further, the dense matrices (its step
  /// is differentiated as a function of its start: sensitivity/global_formulation.cpp).
  static Index3Options roundOff() {
    Index3Options o;
    o.tolerance = 1e-12;
    o.matrices = Matrices::Dense;
    return o;
  }
};

/// Φ_qᵀΦ_q at q, constraint by constraint on its own columns (a row of Φ_q holds a few entries: a
/// dense product costs nrows·nq² where this costs Σ rows·columns²): add(k, a, b, v) for each
/// constraint k and each pair (a, b) of its columns (indices into its `columns`), v = Σ_r Φ_r,a Φ_r,b.
template <class Add>
void forEachConstraintGram(const kin::NaturalModel& m, const Eigen::VectorXd& q, double t, Add&& add) {
  double block[kin::kMaxBlockEntries];
  for (std::size_t k = 0; k < m.constraints.size(); ++k) {
    const kin::Constraint& c = m.constraints[k];
    kin::constraintBlock(m, c, q, t, block);
    const std::size_t nc = c.columns.size(), rows = static_cast<std::size_t>(c.rows);
    for (std::size_t b = 0; b < nc; ++b)
      for (std::size_t a = 0; a < nc; ++a) {
        double v = 0;
        for (std::size_t r = 0; r < rows; ++r) v += block[a * rows + r] * block[b * rows + r];
        add(k, a, b, v);
      }
  }
}

/// The index-3 iteration matrix M + (h²/4)(αΦ_qᵀΦ_q + Σ w_k Φ_k,qq) and the projections'
/// M + (h²/4)αΦ_qᵀΦ_q on their sparsity pattern, factored by KLU (natural_sparse.cpp). Forces
/// whose stiffness the tangent would need are not here (the dense path takes them).
class Index3Sparse {
 public:
  Index3Sparse(const kin::NaturalModel& m, const Eigen::MatrixXd& M);
  ~Index3Sparse();
  /// Factors the iteration matrix at q with multipliers' weights w (w set), or the projections'
  /// (w null); s = h²/4. False when singular.
  bool factor(const kin::NaturalModel& m, double s, double alpha, double t, const Eigen::VectorXd& q, const Eigen::VectorXd* w);
  /// x ← A⁻¹ x with the last factored iteration (tangent) or projection matrix.
  bool solve(bool tangent, Eigen::VectorXd& x);

 private:
  struct Pattern;
  std::unique_ptr<Pattern> p_;
};

struct Index3State {
  double t = 0;
  Eigen::VectorXd q, qd, qdd, lambda;  // lambda: the multipliers (nrows)
};

struct Index3Data {
  Eigen::MatrixXd J, tangent;
  std::vector<double> hessian;  // one constraint's weighted Hessian on its columns (column-major)
  // the sparse path's projections (velocities, accelerations): their multipliers at the last step,
  // where the next starts (empty: from zero)
  Eigen::VectorXd projectionMultipliers[2];
  Eigen::VectorXd phi, phiT, gamma, residual, dq, qHat, qdHat, qddHat, qdd, w, Q, Qplus, Qminus, qdShift;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  std::shared_ptr<Index3Sparse> sparse;  // the sparse matrices, when the step uses them
  bool sparseChosen = false;             // the choice made (at the start or the first step)
  // with the sparse matrices: Φ_q and M in compressed rows, Φ_q's entries refreshed in the
  // Jacobian's evaluation order (jSlot: that order's place in Js's values)
  Eigen::SparseMatrix<double, Eigen::RowMajor> Js, Ms;
  std::vector<int> jSlot;
  int iterations = 0;  // the last step's Newton iterations
  long tangents = 0;   // Newton tangents built, all steps
  bool rebuild = false;  // the next iteration rebuilds the tangent
  explicit Index3Data(const kin::NaturalModel& m);
};

/// The consistent start: q̈ and the multipliers at (q, q̇), redundant constraints allowed. With
/// the step's data `d` its matrices' choice (dense or sparse) is made here and serves the start.
Status index3Start(const kin::NaturalModel& m, const NaturalInertia& inertia, const Index3Options& o, Index3State& s,
                   Index3Data* d = nullptr);
/// The step's Newton residual f(q) = (h²/4)(M q̈ + Φ_qᵀ(αΦ + λ) − Q) with q̈ = (4/h²) q − q̂̈
/// (d.qddHat), into d.residual (d.J, d.phi at q on the way).
void index3Residual(const kin::NaturalModel& m, const NaturalInertia& inertia, double alpha, double h, double t,
                    const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, Index3Data& d);
/// ∂f/∂q at q (λ held) into d.tangent; q is shifted and restored on the way.
void index3Tangent(const kin::NaturalModel& m, const NaturalInertia& inertia, double alpha, double h, double t, Eigen::VectorXd& q,
                   const Eigen::VectorXd& lambda, Index3Data& d);
/// One step of size h from s (s advances on success, stays on failure).
Status index3Step(const kin::NaturalModel& m, const NaturalInertia& inertia, const Index3Options& o, double h, Index3Data& d,
                  Index3State& s);

}  // namespace lw::dyn
