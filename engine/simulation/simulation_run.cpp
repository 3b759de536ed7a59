// A dynamics run as one job: the spec checked, the model compiled and assembled, the rows'
// columns and storage, then the formulation's loop (matrix_r_run.cpp, penalty_run.cpp).
#include "simulation/simulation_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "outputs/csv.h"
#include "simulation/kinematics_run.h"
#include "simulation/result_size.h"
#include "simulation/simulation_parts.h"

namespace lw::analysis {

using events::ImpactSpeeds;
using events::impactSpeeds;
using events::mixedProblem;
using events::switchRecord;

const char* toString(Formulation f) {
  switch (f) {
    case Formulation::MatrixR: return "matrix-r";
    case Formulation::Penalty: return "penalty";
    case Formulation::Index3: return "index3";
    case Formulation::Index1: return "index1";
    case Formulation::PenaltyGlobal: return "penalty-global";
  }
  return "?";
}

bool parseFormulation(const std::string& s, Formulation& out) {
  for (auto f : {Formulation::MatrixR, Formulation::Penalty, Formulation::Index3, Formulation::Index1, Formulation::PenaltyGlobal})
    if (s == toString(f)) {
      out = f;
      return true;
    }
  return false;
}

bool trapezoidalOnly(Formulation f) { return f == Formulation::Penalty || f == Formulation::Index3; }

bool sampledCosts(const Mechanism& m) {
  for (const Cost& c : m.costs)
    if (c.type != Cost::Type::Terminal && c.type != Cost::Type::Integral) return true;
  return false;
}

bool isGlobal(Formulation f) { return f == Formulation::Index3 || f == Formulation::Index1 || f == Formulation::PenaltyGlobal; }

Status StepObserver::impact(const std::vector<dyn::Dof>&, const integ::State& before, const integ::State&, const std::vector<int>&,
                            const Eigen::VectorXd&) {
  return lw::failure(lw::Status::Code::BadRequest, before.t,
                     "an impact at t = " + lw::shortNumber(before.t) + " s: this analysis does not follow impacts");
}

bool parseIntegrator(const std::string& s, Integrator& out) {
  if (s == "trapezoidal") out = Integrator::Trapezoidal;
  else if (s == "rk45") out = Integrator::RK45;
  else return false;
  return true;
}

namespace {
SimulationResult simulate(const ResolvedMechanism& m, const SimulationSpec& spec, const std::function<void(double)>& progress,
                          const std::atomic<bool>* cancel);
}  // namespace

SimulationResult runSimulation(const ResolvedMechanism& m, const SimulationSpec& spec,
                               const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
  SimulationResult res = simulate(m, spec, progress, cancel);
  sendRows(spec.rows, res.columns, res.values, res.sentRows);  // the last block
  return res;
}

lw::Status switchesFirst(const dyn::MatrixRModel& model, dyn::TreeNumbers<double>& numbers, const std::vector<events::GapSource>& sources,
                         double t, const Eigen::VectorXd& z,
                         const Eigen::VectorXd& zd, bool observed, std::vector<int>& closing, std::vector<events::EventRecord>& log) {
  if (!events::mixedEvents(sources, closing)) return {};
  if (observed) return mixedProblem(sources, closing, t);
  std::vector<int> impacts;
  const std::vector<int> switching = events::switchesAmong(sources, closing, impacts);
  events::applySwitches(model.tree, sources, switching, numbers);
  log.push_back(switchRecord(model.tree, sources, t, switching, z, zd, dyn::energy(model.tree, z, zd).total()));
  closing = impacts;
  return {};
}

namespace {

SimulationResult simulate(const ResolvedMechanism& m, const SimulationSpec& spec, const std::function<void(double)>& progress,
                          const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  SimulationResult res;
  if (auto problem = timeSpanProblem(spec.tEnd, spec.dt); !problem.empty()) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return res;
  }
  if (auto problem = overDriven(m); !problem.empty()) {
    res.status = lw::failure(lw::Status::Code::Overdriven, 0, problem);
    return res;
  }
  if (auto problem = driverPrecisionProblem(m, spec.times.empty() ? spec.tEnd : spec.times.back()); !problem.empty()) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return res;
  }
  const dyn::MatrixRModel model = dyn::compileMatrixR(m);
  // the run's numbers: its switches turn forces on and off here, the model stays as compiled
  dyn::TreeNumbers<double> numbers = model.tree.numbers;
  dyn::MatrixRData data(model, &numbers);
  res.status = dyn::initialState(model, data);
  if (!res.status.ok()) return res;
  events::ContactMonitor monitor(model.tree);
  monitor.setChatterStep(spec.dt);  // a switch firing more often than once a step chatters
  const std::vector<events::GapSource> sources = events::gapSources(model.tree);
  const ImpactSpeeds speeds = impactSpeeds(m);
  RunRows rows(m, spec, model, numbers, data.dofs, res);  // the columns, and the file's costs compiled
  const bool atTimes = !spec.times.empty();
  if (atTimes) {
    std::string problem = timesProblem(spec.times);
    if (problem.empty() && spec.formulation != Formulation::MatrixR)
      problem = std::string("sample times (--times) serve the Matrix R formulation: the ") + toString(spec.formulation) +
                " formulation writes its rows every --output-dt";
    if (!problem.empty()) {
      res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
      return res;
    }
  }
  const double tEndRun = atTimes ? spec.times.back() : spec.tEnd;
  // RK45 chooses its own steps and writes its rows at any interval from its dense output
  const bool adaptive = !trapezoidalOnly(spec.formulation) && spec.integrator == Integrator::RK45;
  // RK45 at a tolerance doubles cannot meet rejects every step until the step underflows, which
  // then reads as a singular position: the tolerance is the reason
  if (adaptive && !(spec.tol >= kSmallestTolerance)) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0,
                             "the RK45 tolerance " + lw::shortNumber(spec.tol) + " is below what double precision can meet: choose at least " +
                                 lw::shortNumber(kSmallestTolerance));
    return res;
  }
  long every = 1;  // steps per stored row
  const bool streamed = static_cast<bool>(spec.rows);  // rows leave as they are computed
  const long outputs = spec.dt > 0 ? std::lround(tEndRun / spec.dt) : 0;
  // a fixed step ends where its steps end: an end time between two steps used to be rounded to
  // the nearer one silently (0.831 s at 2 ms ran to 0.832 s)
  if (!atTimes && !adaptive && spec.dt > 0)
    if (auto problem = wholeStepsProblem(spec.tEnd, spec.dt); !problem.empty()) {
      res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
      return res;
    }
  if (spec.outputDt > 0 && spec.dt > 0 && !adaptive) {
    const double k = spec.outputDt / spec.dt;
    every = std::lround(k);
    if (every < 1 || std::abs(k - static_cast<double>(every)) > 1e-6 * k) {
      res.status = lw::failure(lw::Status::Code::BadRequest, 0,
                                "the output interval (" + lw::shortNumber(spec.outputDt) + " s) must be a whole number of steps of " +
                                    lw::shortNumber(spec.dt) + " s");
      return res;
    }
  }
  // the rows' storage up front (growing it copies everything, a tenth of a large model's run),
  // up to 256 MB: a longer run grows as it goes. A run whose rows would not fit in memory is
  // refused before it starts, not killed by the system hours in.
  {
    const double rowCount = atTimes ? static_cast<double>(spec.times.size() + 1)
                            : adaptive ? std::ceil(spec.tEnd / (spec.outputDt > 0 ? spec.outputDt : spec.dt)) + 1
                                       : static_cast<double>(outputs / every + 1 + (outputs % every ? 1 : 0));
    const double perRow = static_cast<double>(res.columns.size() + 12 * m.bodies.size());
    if (auto problem = streamed ? std::string() : resultSizeProblem(rowCount, perRow, spec.maxResultBytes,
                                                                     "store fewer rows with a longer output interval, or shorten the run");
        !problem.empty()) {
      res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
      return res;
    }
    if (!streamed && rowCount * perRow * sizeof(double) < 256e6) {
      res.values.reserve(static_cast<std::size_t>(rowCount) * res.columns.size());
      res.poses.reserve(static_cast<std::size_t>(rowCount) * 12 * m.bodies.size());
    }
  }
  RunContext context{m, spec, progress, cancel, start, model, numbers, data, monitor, sources, speeds, rows, res, atTimes, tEndRun, outputs, every};
  if (spec.formulation == Formulation::Penalty) runPenalty(context);
  else if (isGlobal(spec.formulation)) runGlobal(context);
  else runMatrixR(context);
  // a step that failed where a driver's function is not finite (sqrt(0.5 - t) past 0.5 s): that
  // is the reason, not the singular matrix or the Newton iteration it caused
  if (!res.status.ok() && res.status.code != lw::Status::Code::Cancelled)
    if (auto problem = driverNotFiniteAt(m, res.status.time); !problem.empty()) res.status.message = problem;
  return res;
}

}  // namespace

std::string toCsv(const SimulationResult& r) { return tableToCsv(r.columns, r.values); }

}  // namespace lw::analysis
