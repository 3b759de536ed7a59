// Semi-recursive penalty formulation (seed 004 §3): all tree coordinates z integrated with the
// implicit trapezoidal rule, loop closures enforced by the penalty forces Φ_zᵀ α Φ (14), Newton–
// Raphson on (17) — the Newmark loop of integrators/newmark.h — with the tangent (20) M^d + (h/2) C + (h²/4)(Φ_zᵀ α Φ_z + K), then velocity and
// acceleration projections (24), (26) with the last factorisation. K and C (J = −∂Q^d/∂[z; ż]) are
// the expensive part: computed every `jacobianReuse` iterations by sparse forward AD (default),
// dense forward AD or central differences (force_jacobian.h).
#pragma once

#include <Eigen/Core>
#include <memory>

#include "dynamics/force_jacobian.h"
#include "dynamics/recursive_model.h"
#include "integrators/newmark.h"
#include "kinematics/global_solver.h"

namespace lw::dyn {

struct PenaltyOptions {
  double alpha = 1e8;         // penalty factor for 1 kg, 1 m bodies; scaled by the model's mass
  double tolerance = 1e-10;   // on the Newton update (scaled by max(1, |z|))
  int maxIterations = 25;
  int jacobianReuse = 3;      // within a step, K and C are evaluated again at iterations 3, 6, ... (§8.4)
  // K and C are kept across steps while Newton converges in at most this many iterations (they
  // only shape the iteration matrix: the residual is exact), and rebuilt after this many steps
  // or when the step size changes
  int reuseWhileIterationsAtMost = 3;
  int maxTangentAge = 20;
  TangentMethod tangent = TangentMethod::SparseAD;
  // project with the mass matrix at the step's end (penalty_derivatives.h): the step then is a
  // function of its inputs, as a sensitivity run differentiates it
  bool massProjections = false;
};

class PenaltySolvers;

/// Constraints a run adds for a while besides the loops (resting contacts held closed,
/// events/resting_contact.h), enforced by the same penalty: their rows of Φ, Φ_z and
/// c = −(Φ̇_z ż + Φ̇_t). None may depend on t explicitly (Φ_t = 0).
class ExtraConstraints {
 public:
  virtual ~ExtraConstraints() = default;
  virtual int rows() const = 0;
  virtual void evaluate(const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& phi, Eigen::MatrixXd& J, Eigen::VectorXd& c) = 0;
};

struct PenaltyData {
  /// numbers: the run's, the model's numbers with its forces' switch states (they outlive the
  /// data); the model's own when null.
  PenaltyData(const RecursiveModel& m, PenaltyOptions o = {}, const TreeNumbers<double>* numbers = nullptr);
  ~PenaltyData();
  PenaltyData(PenaltyData&&) noexcept;

  PenaltyOptions options;
  double alpha = 1e8;          // the scaled factor in use
  double t = 0;
  Eigen::VectorXd z, zd, zdd;  // nz
  long jacobians = 0;          // evaluations of J = [K C] (a reported metric)
  int lastIterations = 0;      // Newton iterations of the last step
  long iterations = 0;         // Newton iterations so far (a reported metric)
  integ::Newmark newmark;      // the trapezoidal rule's loop (its predictor's memory, cleared by penaltyStart)
  int tangentAge = -1;         // steps since K and C were evaluated (−1: none yet)
  double tangentH = 0;         // the step they were evaluated for
  // scratch, sized once
  Eigen::MatrixXd Md, K, C, P, A, J;
  Eigen::VectorXd Qd, phi, phiT, c, rhs;
  std::unique_ptr<PenaltySolvers> solvers;
  std::unique_ptr<ForceJacobian> tangent;
  ExtraConstraints* extra = nullptr;  // the run's (none: null)
  Eigen::VectorXd extraPhi, extraC;   // their rows at the last evaluation
  Eigen::MatrixXd extraJ;
};

/// Initial accelerations (M + Φ_zᵀαΦ_z) z̈ = Q − Φ_zᵀα(Φ̇_z ż + Φ̇_t) at the data's z, ż.
lw::Status penaltyStart(const RecursiveModel& m, PenaltyData& d, double t);
/// One trapezoidal step of size h.
lw::Status penaltyStep(const RecursiveModel& m, PenaltyData& d, double h);

}  // namespace lw::dyn
