// The global formulations' runs (issue 39; seeds 001 §3 and 003 §1): the natural coordinates
// integrated by the index-3 augmented Lagrangian (its own trapezoidal steps), or the index-1 and
// penalty ODEs by the trapezoidal rule or RK45; each state mapped onto the tree's coordinates
// (dynamics/natural_tree_map.h), so the rows, outputs, reactions and costs are RunRows' as in
// every other run, the constraint residuals the natural model's own.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "dynamics/natural_dynamics.h"
#include "dynamics/natural_tree_map.h"
#include "simulation/simulation_parts.h"

namespace lw::analysis {

namespace {

// x'' = F(t, x, v) of the index-1 or the penalty formulation, for the integrators
class GlobalOde final : public integ::SecondOrderSystem {
 public:
  GlobalOde(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, bool penalty) : m_(m), inertia_(inertia), penalty_(penalty), data_(m) {}
  Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    ++evaluations;
    if (penalty_) return dyn::globalPenaltyAcceleration(m_, inertia_, dyn::GlobalPenalty{}, t, x, v, data_, a);
    return dyn::index1Acceleration(m_, inertia_, dyn::Baumgarte{}, t, x, v, data_, a);
  }
  long evaluations = 0;

 private:
  const kin::NaturalModel& m_;
  const dyn::NaturalInertia& inertia_;
  bool penalty_;
  dyn::GlobalOdeData data_;
};

// the natural constraints' largest |Φ| and |Φ̇| at (t, q, q̇): the rows' residual columns
struct NaturalResiduals {
  Eigen::VectorXd phi, phiT;
  Eigen::MatrixXd J;
  double values[2] = {0, 0};
  const double* at(const kin::NaturalModel& m, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    phi.resize(m.nrows);
    phiT.resize(m.nrows);
    kin::evaluateConstraints(m, q, t, phi);
    kin::evaluateJacobianDense(m, q, t, J);
    kin::evaluatePhiT(m, q, t, phiT);
    values[0] = m.nrows ? phi.cwiseAbs().maxCoeff() : 0.0;
    values[1] = m.nrows ? (J * qd + phiT).cwiseAbs().maxCoeff() : 0.0;
    return values;
  }
};

}  // namespace

std::string globalRunProblem(const RunContext& run) {
  if (!run.sources.empty())
    return "the global formulations do not follow contacts, limits or switches yet (this mechanism has " + std::to_string(run.sources.size()) +
           "): use --formulation matrix-r or penalty";
  return {};
}

void runGlobal(RunContext& run) {
  const ResolvedMechanism& m = run.m;
  const SimulationSpec& spec = run.spec;
  const dyn::MatrixRModel& model = run.model;
  SimulationResult& res = run.res;
  RunRows& rows = run.rows;
  if (auto problem = globalRunProblem(run); !problem.empty()) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return;
  }
  const kin::NaturalModel nm = kin::compileNaturalModel(m);
  dyn::NaturalInertia inertia;
  dyn::NaturalTreeMap map;
  std::string why;
  if (!dyn::naturalInertia(nm, inertia, why) || !dyn::compileNaturalTreeMap(model.tree, nm, map, why)) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0, why + ": use --formulation matrix-r or penalty");
    return;
  }
  dyn::NaturalForceElements elements(model.tree, nm);
  inertia.elements = &elements;
  // the start Matrix R assembled, in natural coordinates
  Eigen::VectorXd q, qd, qdd;
  dyn::naturalStateOf(model.tree, nm, map, run.data.z, run.data.zd, run.data.zdd, q, qd, nullptr);
  Eigen::VectorXd z = run.data.z, zd, zdd;  // the tree's state of the last row (angles continue from it)
  NaturalResiduals residuals;
  bool stopped = false;
  // the state at t into the tree's coordinates: a row when `store`, and into the costs
  auto record = [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a, bool store) {
    elements.accept(t, x, v);
    dyn::treeStateOf(model.tree, nm, x, v, a, z, zd, zdd);
    rows.record(t, z, zd, zdd, store, store ? residuals.at(nm, t, x, v) : nullptr);
    rows.addCosts(t, z, zd, zdd);
    stopped = rows.nonFinite();
  };
  auto cancelled = [&](double t) {
    if (run.progress) run.progress(std::min(1.0, t / run.tEndRun));
    if (!run.cancel || !run.cancel->load(std::memory_order_relaxed)) return false;
    res.status = lw::failure(lw::Status::Code::Cancelled, t, "cancelled at t = " + lw::shortNumber(t));
    return true;
  };
  const long outputs = run.outputs, every = run.every;
  auto stored = [&](long i) { return i % every == 0 || i == outputs; };

  if (spec.formulation == Formulation::Index3) {
    dyn::Index3Options options;
    dyn::Index3State s;
    s.q = q;
    s.qd = qd;
    dyn::Index3Data d(nm);
    res.status = dyn::index3Start(nm, inertia, options, s);
    if (!res.status.ok()) return;
    record(0, s.q, s.qd, s.qdd, true);
    for (long i = 1; i <= outputs && res.status.ok() && !stopped; ++i) {
      const double tOut = static_cast<double>(i) * spec.dt;
      res.status = dyn::index3Step(nm, inertia, options, tOut - s.t, d, s);
      if (!res.status.ok()) break;
      ++res.steps;
      res.evaluations += d.iterations;
      record(s.t, s.q, s.qd, s.qdd, stored(i));
      if (i % 32 == 0 && cancelled(s.t)) {
        if (!stored(i)) record(s.t, s.q, s.qd, s.qdd, true);  // where it stopped
        break;
      }
    }
    res.tangents = d.tangents;
  } else {
    GlobalOde ode(nm, inertia, spec.formulation == Formulation::PenaltyGlobal);
    integ::State s;
    s.t = 0;
    s.x = q;
    s.v = qd;
    res.status = ode.acceleration(0, s.x, s.v, s.a);
    if (!res.status.ok()) return;
    record(0, s.x, s.v, s.a, true);
    if (spec.integrator == Integrator::Trapezoidal) {
      integ::Trapezoidal trap(nm.nq);
      for (long i = 1; i <= outputs && res.status.ok() && !stopped; ++i) {
        const double tOut = static_cast<double>(i) * spec.dt;
        res.status = trap.step(ode, s, tOut - s.t);
        if (!res.status.ok()) break;
        ++res.steps;
        record(s.t, s.x, s.v, s.a, stored(i));
        if (i % 32 == 0 && cancelled(s.t)) {
          if (!stored(i)) record(s.t, s.x, s.v, s.a, true);
          break;
        }
      }
      res.tangents = trap.jacobians();
    } else {
      // integral costs are a trapezoidal rule over the steps: at most dt long (as Matrix R's)
      double maxStep = spec.maxStep;
      if (maxStep == 0 && spec.mechanism)
        for (const Cost& c : spec.mechanism->costs)
          if (c.type != Cost::Type::Terminal) maxStep = spec.dt;
      integ::DormandPrince rk(nm.nq, integ::RungeKuttaOptions{spec.tol, spec.tol * 1e-2, maxStep});
      const double rowDt = spec.outputDt > 0 ? spec.outputDt : spec.dt;
      const long rowCount = static_cast<long>(std::ceil(spec.tEnd / rowDt - 1e-9));
      long nextRow = 1;
      Eigen::VectorXd xRow, vRow, aRow;
      while (res.status.ok() && !stopped && nextRow <= rowCount) {
        res.status = rk.step(ode, s, spec.tEnd);
        if (!res.status.ok()) break;
        // the rows the step passed, from its dense output
        for (; nextRow <= rowCount && !stopped; ++nextRow) {
          const double tRow = std::min(static_cast<double>(nextRow) * rowDt, spec.tEnd);
          if (tRow > s.t + 1e-12 * std::max(1.0, s.t)) break;
          rk.interpolate(tRow, xRow, vRow);
          res.status = ode.acceleration(tRow, xRow, vRow, aRow);
          if (!res.status.ok()) break;
          record(tRow, xRow, vRow, aRow, true);
        }
        // the step's end into the energies' and costs' quadratures, a row or not
        if (res.status.ok() && !stopped && s.t > rows.lastRecordedT()) record(s.t, s.x, s.v, s.a, false);
        if (cancelled(s.t)) break;
      }
      res.steps = rk.acceptedSteps;
      res.rejectedSteps = rk.rejectedSteps;
    }
    res.evaluations = ode.evaluations;
  }
  rows.finish(run.start);
}

}  // namespace lw::analysis
