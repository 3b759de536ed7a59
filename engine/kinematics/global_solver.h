// Global kinematics in natural coordinates (seed 002 §1.3): Newton–Raphson on Φ(q, t) = 0 for
// positions, then Φ_q q̇ = −Φ_t and Φ_q q̈ = −γ. Dense (Eigen LU) or sparse (KLU: the symbolic
// analysis once per run, numeric refactorisations inside the loop, no allocation per step).
// Redundant constraints (a planar loop built from spatial joints) are handled by solving with an
// independent subset of rows chosen once at assembly; all rows are still checked.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "kinematics/natural_model.h"
#include "core/status.h"

namespace lw::num {
class SparseLu;  // KLU wrapper (numeric/sparse_lu.h)
}

namespace lw::kin {

enum class LinearSolverKind { Dense, Sparse };

struct KinematicsOptions {
  LinearSolverKind solver = LinearSolverKind::Dense;
  double tolerance = 1e-12;  // on |Φ|∞, relative to the mechanism's length scale
  int maxIterations = 25;
  double singularRcond = 1e-12;  // reciprocal condition below which a position is singular
};

/// Mobility from the numerical rank of Φ_q at q (seed 002 §2.1 notes: Grübler–Kutzbach is only
/// necessary). Rows are named after their joints, bodies or drivers.
struct NumericalMobility {
  int coordinates = 0;
  int equations = 0;        // without drivers
  int rank = 0;             // of Φ_q without drivers
  int dof = 0;              // coordinates − rank
  int drivers = 0;
  int rankWithDrivers = 0;
  int freeDof = 0;          // coordinates − rankWithDrivers: not determined by the drivers
  std::vector<std::string> redundant;  // constraint rows that depend on others
  std::vector<std::string> passive;    // bodies with a locked passive spin
};

class DenseLu;   // Eigen LU holder (global_solver.cpp)

/// Every mutable buffer of a global kinematic run, sized once from the model (G2/G10).
struct GlobalData {
  explicit GlobalData(const NaturalModel& m, KinematicsOptions options = {});
  ~GlobalData();
  GlobalData(GlobalData&&) noexcept;

  KinematicsOptions options;
  // ---- state (nq) ----
  Eigen::VectorXd q, qd, qdd;
  double t = 0;
  // ---- rows used by the solves (independent subset of Φ, size nq), chosen by assemble() ----
  std::vector<int> rows;
  // ---- scratch ----
  Eigen::VectorXd phi, phiT, gamma;  // all rows (nrows)
  Eigen::VectorXd rhs, dq;           // selected rows (nq)
  Eigen::MatrixXd J;                 // dense solver: Φ_q, all rows (nrows × nq)
  Eigen::MatrixXd Jsel;              // dense solver: selected rows (nq × nq)
  std::unique_ptr<DenseLu> dense;
  std::unique_ptr<num::SparseLu> sparse;
  std::vector<int> sparseSlots;      // for each Jacobian entry (evaluateJacobian order): index in sparse->values, or -1
  NumericalMobility mobility;        // at the configuration assemble() found
  int iterations = 0;                // Newton iterations of the last position solve
  double rcond = 1;                  // reciprocal condition estimate of the last factorisation
};

/// Assembles the stored configuration (Newton from data.q, least squares over all rows, by sparse
/// QR), checks that the drivers determine the motion (data.mobility), and picks the independent
/// rows used afterwards.
Status assemble(const NaturalModel& m, GlobalData& data, double t);
/// Position at time t from the current data.q (Newton–Raphson). Fills data.q.
Status solvePositions(const NaturalModel& m, GlobalData& data, double t);
/// Velocities at data.q, data.t. Fills data.qd.
Status solveVelocities(const NaturalModel& m, GlobalData& data);
/// Accelerations at data.q, data.qd, data.t. Fills data.qdd.
Status solveAccelerations(const NaturalModel& m, GlobalData& data);
/// All three stages.
Status solveStep(const NaturalModel& m, GlobalData& data, double t);

NumericalMobility numericalMobility(const NaturalModel& m, const Eigen::VectorXd& q, double t = 0);

}  // namespace lw::kin
