// The parts of a dynamics run (simulation_run.cpp) that its two loops share, internal to
// simulation/: the rows and costs it writes (RunRows), and what a loop is given (RunContext). The
// loops: runMatrixR (matrix_r_run.cpp, either integrator) and runPenalty (penalty_run.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "outputs/outputs.h"
#include "simulation/simulation_run.h"
#include "dynamics/generalized_forces.h"
#include "dynamics/matrix_r.h"
#include "events/contact_monitor.h"
#include "events/impact_records.h"

namespace lw::analysis {

// A conservative run keeps E − E0 − W_applied − W_driver + E_dissipated at zero up to the
// integration error: a jump of it between two rows larger than the tolerance allows (an inaccurate
// pass of a singular position, a step too long for a fast event) is worth a warning that names
// the time. The trapezoidal rule has no tolerance: it is warned of gross jumps only. Rows are seen
// one at a time (a streamed run keeps none), the energy's scale so far sets the bound; an
// increment is measured against the rate of the one before (the quadrature's smooth drift).
struct EnergyJumpWatch {
  double relative = 1e-4;
  double scale = 0, lastT = 0, lastBalance = 0, rate = 0;
  bool haveLast = false, haveRate = false;
  std::string warning;
  void add(double t, double total, double kinetic, double balance);
};

/// The table of a dynamics run, row by row (the columns: toCsv in simulation_run.h), with the
/// energy bookkeeping (works and dissipation by the trapezoidal rule over the steps) and the
/// file's costs summed over the steps as the sensitivities differentiate them.
class RunRows {
 public:
  /// Sets the result's columns and compiles the file's costs (a problem goes to res.costProblem).
  /// `outputDofs`: the independent coordinates written as columns, fixed for the run.
  /// `numbers`: the run's (the model's with its switch states), outliving the rows.
  RunRows(const ResolvedMechanism& mechanism, const SimulationSpec& runSpec, const dyn::MatrixRModel& compiled,
          const dyn::TreeNumbers<double>& numbers, std::vector<dyn::Dof> dofs, SimulationResult& result);
  RunRows(const RunRows&) = delete;
  RunRows& operator=(const RunRows&) = delete;
  /// The state at t: the powers' quadrature takes every step, a row is written when `store`.
  /// A row that is not finite is dropped and stops the run (nonFinite()).
  /// `residuals` (optional): the largest |Φ| and |Φ̇| of the formulation's own constraints (a
  /// global formulation's natural ones), in place of the tree's loops at z.
  void record(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, bool store,
              const double* residuals = nullptr);
  /// The costs' terms at an accepted state.
  void addCosts(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd);
  /// Whether the costs have integrals: a Dormand–Prince run then gives the next addCosts the
  /// outputs at its step's stages 3–6 (its quadrature, CostAccumulator::rungeKuttaStages).
  bool integralCosts() const { return costs && costSet.hasType(Cost::Type::Integral); }
  /// An RK45 run: the powers (dissipated, applied, the drivers') are integrated over the steps'
  /// stages as quadratures too, the rows inside a step read them off its continuous extension
  /// (the trapezoidal rule over the rows missed by 1e-3 J over RK45's long steps).
  void integratePowersByStages() { stagePowers = powersNeeded; }
  /// Whether an RK45 run gives the stages (stageOutputs, keepStep, worksOverSteps, addSteps).
  bool stageQuadratures() const { return integralCosts() || stagePowers; }
  /// The costs' outputs and the powers at stage `stage` (3–7, 7 the end) of the step being
  /// attempted.
  void stageOutputs(int stage, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd);
  /// The attempt whose stages were given last is an accepted step from t0: kept for
  /// worksOverSteps and addSteps.
  void keepStep(double t0);
  /// The works over the steps kept, by their quadratures (before the rows inside them, and their
  /// end, are recorded).
  void worksOverSteps();
  /// The steps kept are dropped (the run takes them again).
  void dropSteps() { keptCount = 0; }
  /// The costs' terms of the steps kept, each by its quadrature and its end (in place of
  /// addCosts at the last one's end).
  void addSteps();
  /// The stages 3–6 given last are those of the step whose end the next addCosts adds.
  void stagesOfNextCosts() { stagesPending = true; }
  /// What an impact took from the motion: counted as dissipated, so that the balance holds.
  void addDissipated(double e) { dissipated += e; }
  /// An event (an impact or a switch) at `event.t`: logged in the result, the energy it took
  /// counted as dissipated, and the state just after it recorded (a row when `store`) and added
  /// to the costs.
  void logEvent(events::EventRecord event, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, bool store) {
    addDissipated(event.energyBefore - event.energyAfter);
    const double t = event.t;
    res.events.push_back(std::move(event));
    record(t, z, zd, zdd, store);
    addCosts(t, z, zd, zdd);
  }
  double lastStoredT() const { return lastStoredTime; }
  /// The last state recorded, a row or not (negative before the first).
  double lastRecordedT() const { return recordedAny ? lastT : -1; }
  bool nonFinite() const { return nonFiniteRow; }
  /// The costs' values and the energy warning into the result, and the time since `start`.
  void finish(std::chrono::steady_clock::time_point start);

 private:
  const ResolvedMechanism& m;
  const SimulationSpec& spec;
  const dyn::MatrixRModel& model;
  const dyn::TreeNumbers<double>& numbers;  // the run's
  SimulationResult& res;
  const std::vector<dyn::Dof> outputDofs;
  OutputComponents costOutputs, rowOutputs;
  // the reactions' workspaces, kept between rows (set when the outputs have reactions)
  std::unique_ptr<dyn::ReactionsOn<double>> costReactions, rowReactions;
  CostSet costSet;
  std::unique_ptr<CostAccumulator<double>> costs;
  bool costEnergies = false, costResiduals = false;  // costs of energies or residuals: filled in addCosts
  std::vector<double> outputValues, rowOutputValues, lastRowOutputs;
  struct StageValues {  // the costs' outputs and the powers at a step's stages 3–6 and at its end (stage 7)
    std::array<std::vector<double>, 5> outputs;
    std::array<dyn::Powers, 5> powers;
    double t0 = 0, t = 0;  // the start's, the end's
  };
  StageValues attempt;
  std::vector<StageValues> kept;  // the first keptCount (their buffers reused: no allocation a step)
  std::size_t keptCount = 0;
  bool stagesPending = false;
  bool stagePowers = false;
  // the last step's works by its continuous extension (for the rows inside it): its start and
  // end, the works at its start, the powers at its stages 1, 3–7 (dissipated, applied, driver)
  struct DenseWorks {
    double t0 = 0, t1 = 0, w0[3] = {0, 0, 0};
    double g[3][7] = {};
    bool active = false;
  } dense;
  void costOutputsAt(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, std::vector<double>& out);
  dyn::Powers lastPower;
  double lastT = 0, dissipated = 0, applied = 0, driver = 0, E0 = 0;
  dyn::MotionSnapshot snap;
  dyn::RecursiveData rowData;  // the rows' kernels (the integration has its own)
  dyn::GeneralizedForces<double> forces;  // the drivers' power
  // the powers are integrated at every step; without force elements or drivers they are zero and
  // the steps between stored rows cost nothing here
  bool powersNeeded = false;
  bool nonFiniteRow = false;  // a row was not finite: the run stops there
  bool recordedAny = false;
  EnergyJumpWatch energyWatch;
  // rows that leave as they are computed take no memory; the file's size is the disk's business
  bool streamed = false;
  double lastStoredTime = -1;  // negative before the first row
};

/// What a run's loop is given: the compiled model and its data at the assembled start, the
/// contacts watched, the rows, the result to fill, and the output schedule.
struct RunContext {
  const ResolvedMechanism& m;
  const SimulationSpec& spec;
  const std::function<void(double)>& progress;
  const std::atomic<bool>* cancel;
  std::chrono::steady_clock::time_point start;
  const dyn::MatrixRModel& model;
  // the run's numbers: the model's, with the forces' switch states of this run (events::applySwitches);
  // every kernel of the run evaluates with them
  dyn::TreeNumbers<double>& numbers;
  dyn::MatrixRData& data;
  events::ContactMonitor& monitor;
  const std::vector<events::GapSource>& sources;
  const events::ImpactSpeeds& speeds;
  RunRows& rows;
  SimulationResult& res;
  bool atTimes;     // rows at spec.times only
  double tEndRun;   // the run's end
  long outputs;     // steps of dt to the end (fixed-step rules)
  long every;       // steps per stored row
};

/// The global formulations (global_run.cpp): index-3, index-1, penalty on the natural coordinates.
void runGlobal(RunContext& run);
/// The Matrix R formulation with the trapezoidal rule or RK45.
void runMatrixR(RunContext& run);
/// The penalty formulation (trapezoidal rule).
void runPenalty(RunContext& run);

/// An impact and a switch at once: the switch first (its forces changed, logged), then the impact
/// with the forces after it: the switches leave `closing`, the impacts stay. A coincidence any
/// change of a parameter separates, so a sensitivity (observed) is refused there.
lw::Status switchesFirst(const dyn::MatrixRModel& model, dyn::TreeNumbers<double>& numbers, const std::vector<events::GapSource>& sources,
                         double t, const Eigen::VectorXd& z,
                         const Eigen::VectorXd& zd, bool observed, std::vector<int>& closing, std::vector<events::EventRecord>& log);

}  // namespace lw::analysis
