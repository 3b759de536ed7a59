// A forward-dynamics simulation as one job (CLI, GUI, tests): formulation, integrator, time span.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "outputs/csv.h"
#include "outputs/results.h"
#include "dynamics/force_jacobian.h"
#include "dynamics/matrix_r.h"
#include "events/event_log.h"
#include "integrators/integrators.h"
#include "kinematics/global_solver.h"
#include "mechanism/resolved.h"

namespace lw::analysis {

// the semi-recursive formulations (Matrix R, seed 000; penalty, seed 004), and the global ones
// on the natural coordinates (seeds 001 §3, 003 §1): the index-3 augmented Lagrangian, index-1
// with Baumgarte stabilisation, and the penalty ODE
enum class Formulation { MatrixR, Penalty, Index3, Index1, PenaltyGlobal };
enum class Integrator { Trapezoidal, RK45 };
bool parseFormulation(const std::string& s, Formulation& out);
/// "matrix-r", "penalty", "index3", "index1", "penalty-global": what parseFormulation reads.
const char* toString(Formulation f);
/// Does the formulation integrate with the trapezoidal rule only (penalty, index-3)?
bool trapezoidalOnly(Formulation f);
/// Whether the file's costs include terms taken at the steps' points (targets, a minimum, a
/// maximum): RK45 then keeps its steps at most dt long, the spacing those terms read between.
/// Integral costs need no limit: RK45 integrates them as quadratures of its own order.
bool sampledCosts(const Mechanism& m);
/// Is it one of the global formulations on the natural coordinates?
bool isGlobal(Formulation f);
bool parseIntegrator(const std::string& s, Integrator& out);

/// Follows a Matrix R run (either integrator) step by step: a sensitivity analysis
/// differentiates exactly these steps (sensitivity/). States are in the independent coordinates
/// `dofs` in use; `z` is the dependent coordinates there (a start for position problems).
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  /// The gaps held closed at each report (a resting contact, events/resting_contact.h; sorted gap
  /// indices), set by the run: the steps' equations include their forces. A gap let go is reported
  /// as switched() with the same coordinates.
  const std::vector<int>* held = nullptr;
  /// During step(): an RK45 step's stages 3–6 (what its integral costs' quadrature weighs besides
  /// its ends, integ::dopri::quadratureB), set by the run; null for a trapezoidal step.
  const std::array<integ::State, 4>* stages = nullptr;
  /// The assembled initial state (t = 0), in the first choice of independent coordinates.
  virtual Status start(const dyn::MatrixRModel& model, const std::vector<dyn::Dof>& dofs, const integ::State& s,
                       const Eigen::VectorXd& z) = 0;
  /// One accepted step from `from` to `to`.
  virtual Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to,
                      const Eigen::VectorXd& z) = 0;
  /// The choice of independent coordinates changed at s.t: the same physical state, `s` in the
  /// coordinates `after`.
  virtual Status switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                          const Eigen::VectorXd& z) = 0;
  /// The contacts `contacts` closed at before.t: the velocities jumped from before.v to after.v
  /// (the positions are the same), in the coordinates `dofs`; `z` the dependent coordinates there.
  /// Observers that do not follow impacts refuse them.
  virtual Status impact(const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after,
                        const std::vector<int>& contacts, const Eigen::VectorXd& z);
};

/// Told of every step of a penalty run, in all the tree's coordinates: what a sensitivity of that
/// formulation differentiates. A run with one converges its Newton iterations to round-off and
/// projects with the mass matrix (penalty_derivatives.h); α is the run's penalty factor.
class PenaltyObserver {
 public:
  virtual ~PenaltyObserver() = default;
  /// The gaps held closed at each report (resting contacts enforced like the loops, sorted gap
  /// indices), set by the run.
  const std::vector<int>* held = nullptr;
  virtual Status start(const dyn::RecursiveModel& tree, double alpha, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
                       const Eigen::VectorXd& zdd) = 0;
  virtual Status step(double t0, double t1, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) = 0;
  /// The contacts `contacts` closed at t: ż jumped from zdBefore to zd (z̈ to zdd).
  virtual Status impact(double t, const std::vector<int>& contacts, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore,
                        const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) = 0;
  /// A held gap let go at t: the same state, the accelerations zdd without its rows.
  virtual Status released(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) = 0;
};

/// Told of every step of a global index-1 or penalty run (the ODEs in natural coordinates q): what
/// a sensitivity of those formulations differentiates. A run with one converges its trapezoidal
/// steps to round-off; with RK45 it refuses events (its steps are not retaken to them).
class NaturalObserver {
 public:
  virtual ~NaturalObserver() = default;
  /// The start (t = 0); z the tree's coordinates there (Matrix R's assembly, mapped).
  virtual Status start(const integ::State& s, const Eigen::VectorXd& z) = 0;
  /// One accepted step; z the tree's coordinates at its end.
  virtual Status step(const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) = 0;
  /// The contacts (or switches) `contacts` acted at before.t: the velocities jumped from before.v
  /// to after.v (the accelerations with them), the positions the same.
  virtual Status impact(const integ::State& before, const integ::State& after, const std::vector<int>& contacts, const Eigen::VectorXd& z) = 0;
  /// A held gap let go at s.t: the same state, the accelerations s.a of the model without its row.
  virtual Status released(const integ::State& s, const Eigen::VectorXd& z) = 0;
  /// The gaps held closed at each report (resting contacts: rows of the natural model, sorted gap
  /// indices), set by the run; an impact reports the set after it.
  const std::vector<int>* held = nullptr;
  /// During step(): an RK45 step's stages 3–6 (StepObserver::stages), null for other steps.
  const std::array<integ::State, 4>* stages = nullptr;
};

/// The smallest RK45 relative tolerance double precision can meet (its absolute tolerance, a
/// hundredth of it, is then some fifty roundings of a unit value).
constexpr double kSmallestTolerance = 1e-13;

struct SimulationSpec {
  Formulation formulation = Formulation::MatrixR;
  Integrator integrator = Integrator::Trapezoidal;  // penalty and index-3 are always trapezoidal (trapezoidalOnly)
  double tEnd = 1;
  double dt = 1e-3;     // trapezoidal and penalty: the step; RK45 (which chooses its own steps):
                        // the interval between rows when outputDt is 0
  double tol = 1e-8;    // RK45 relative tolerance (absolute: a hundredth of it), at least kSmallestTolerance
  // RK45: the longest step (0: none). The file's costs taken at the steps' points (targets,
  // minimum, maximum: sampledCosts) set it to dt: the error control alone takes a few long steps
  // where the motion is smooth. Integral costs do not: they are quadratures over RK45's stages,
  // of its order (CostAccumulator::rungeKuttaStages)
  double maxStep = 0;
  // set (Matrix R): the rows at t = 0 and these times (increasing, > 0) from the steps'
  // interpolants instead of every outputDt; the run ends at the last
  std::vector<double> times;
  double outputDt = 0;  // interval between stored rows; trapezoidal: a whole number of steps dt
                        // (0: every step); RK45: any interval (0: dt), rows from its dense output
  double maxResultBytes = 0;  // the stored rows may take at most this; 0: half the physical memory
  dyn::TangentMethod tangent = dyn::TangentMethod::SparseAD;  // penalty: how K and C are computed
  RowSink rows;  // set: rows go here in blocks as they are computed, not into the result (no poses)
  StepObserver* observer = nullptr;  // Matrix R: told of every accepted step
  PenaltyObserver* penaltyObserver = nullptr;  // penalty: told of every step
  NaturalObserver* naturalObserver = nullptr;  // global index-1 and penalty: told of every step
  // set (the Mechanism the run's was resolved from): its outputs become named columns of the rows
  // and its costs are evaluated
  const Mechanism* mechanism = nullptr;
};

struct SimulationResult : RunTable {
  int dofSwitches = 0;
  long steps = 0;                    // integrator steps (accepted)
  long rejectedSteps = 0;            // RK45: steps its error control (or the branch check) rejected
  long tangents = 0;                 // Newton tangents built (trapezoidal); Jacobians [K C] (penalty)
  long exactTangents = 0;            // of the trapezoidal's, by the derivative kernels (not differences)
  long evaluations = 0;              // right-hand side evaluations (Matrix R); Newton iterations, one residual each (penalty)
  double wallSeconds = 0;
  std::vector<std::string> warnings; // e.g. an inaccurate pass of a singular position
  std::vector<events::EventRecord> events;  // the impacts, in time order (two rows at each in the table)
};

SimulationResult runSimulation(const ResolvedMechanism& m, const SimulationSpec& spec,
                               const std::function<void(double)>& progress = {},
                               const std::atomic<bool>* cancel = nullptr);

/// time, the independent coordinates, every point's position and velocity (as in the kinematics
/// CSV), energy.kinetic, energy.potential, energy.total, constraint.position, constraint.velocity,
/// the energy bookkeeping, then (with SimulationSpec::mechanism) the file's outputs by component
std::string toCsv(const SimulationResult& r);

}  // namespace lw::analysis
