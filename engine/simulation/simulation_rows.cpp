#include "outputs/csv.h"
#include "simulation/simulation_parts.h"

#include "integrators/integrators.h"

#include <algorithm>
#include <cmath>

namespace lw::analysis {

void EnergyJumpWatch::add(double t, double total, double kinetic, double balance) {
  scale = std::max({scale, std::abs(total), std::abs(kinetic)});
  if (haveLast && warning.empty()) {
    // against the trend of the rows before: the drivers' work is a quadrature over the steps,
    // whose error drifts smoothly (second order in the step), while a lost branch or a step
    // across a fast event shows as one increment off the trend
    const double dt = t - lastT, jump = balance - lastBalance, allowed = relative * std::max(scale, 1e-12);
    if (haveRate && std::abs(jump - rate * dt) > allowed)
      warning = "the energy balance jumped by " + lw::shortNumber(jump - rate * dt) + " J between t = " + lw::shortNumber(lastT) + " and " +
                lw::shortNumber(t) + " s, more than the accuracy allows (" + lw::shortNumber(allowed) +
                " J): the motion there is not to be trusted (a singular position, or a step too long)";
    // two rows at an impact's instant (or at two events a rounding apart) leave the trend as it was
    if (dt > 1e-9 * std::max(1.0, std::abs(t))) {
      rate = jump / dt;
      haveRate = true;
    }
  }
  haveLast = true;
  lastT = t;
  lastBalance = balance;
}

RunRows::RunRows(const ResolvedMechanism& mechanism, const SimulationSpec& runSpec, const dyn::MatrixRModel& compiled,
                 const dyn::TreeNumbers<double>& runNumbers, std::vector<dyn::Dof> dofs, SimulationResult& result)
    : m(mechanism), spec(runSpec), model(compiled), numbers(runNumbers), res(result), outputDofs(std::move(dofs)), forces(compiled.tree, runNumbers) {
  forces.shareFrames(rowData);
  powersNeeded = !m.forces.empty() || !m.drivers.empty();
  streamed = static_cast<bool>(spec.rows);
  energyWatch.relative = spec.integrator == Integrator::RK45 && !trapezoidalOnly(spec.formulation) ? std::max(100 * spec.tol, 1e-9) : 1e-4;
  // the penalty's constraints yield by force/α, storing (force)²/α that the balance does not
  // book: a body settling on a held contact from rest (energies near zero) is measured against
  // the weight's scale m g L, not against the nothing its energy is
  if (spec.formulation == Formulation::Penalty || spec.formulation == Formulation::PenaltyGlobal) {
    double mass = 0;
    for (const auto& b : m.bodies) mass += b.mass;
    energyWatch.scale = mass * std::max(1.0, m.gravity.norm()) * std::max(1e-3, m.lengthScale());
  }
  // the file's costs
  if (spec.mechanism && !spec.mechanism->costs.empty()) {
    costOutputs = compileOutputs(*spec.mechanism, m, model.tree, model.rows);
    res.costProblem = compileRunCosts(*spec.mechanism, m, costOutputs, spec.times.empty() ? spec.tEnd : spec.times.back(), true, costSet);
    if (!costSet.names.empty()) {
      costs = std::make_unique<CostAccumulator<double>>(costSet);
      outputValues.resize(costOutputs.names.size());
      for (const auto& c : costOutputs.components) {
        costEnergies = costEnergies || c.type == Output::Type::Energy;
        costResiduals = costResiduals || c.type == Output::Type::ConstraintResidual;
      }
    }
  }
  // columns
  res.columns.push_back("time");
  // "dof." sets the independent coordinates apart from the point columns they may repeat
  // (the five-bar's bar_12.P2.x): a table's columns are unique names
  for (const auto& f : outputDofs) res.columns.push_back("dof." + f.name);
  const char* axes[] = {"x", "y", "z"};
  for (const char* prefix : {"", "v"})
    for (std::size_t b = 1; b < m.bodies.size(); ++b)
      for (const auto& p : m.bodies[b].pointNames)
        for (int k = 0; k < m.dimension; ++k) res.columns.push_back(m.bodies[b].name + "." + p + "." + prefix + axes[k]);
  for (const char* c : {"energy.kinetic", "energy.potential", "energy.total", "constraint.position", "constraint.velocity",
                        "energy.dissipated", "energy.applied_work", "energy.driver_work", "energy.balance"})
    res.columns.push_back(c);
  // the file's outputs by name ("rocker_angle", "p2.x")
  if (spec.mechanism) rowOutputs = compileOutputs(*spec.mechanism, m, model.tree, model.rows);
  for (const auto& name : rowOutputs.names) res.columns.push_back(name);
  if (rowOutputs.reactions) rowReactions = std::make_unique<dyn::ReactionsOn<double>>(model.tree, rowOutputs.rows);
  if (costOutputs.reactions) costReactions = std::make_unique<dyn::ReactionsOn<double>>(model.tree, costOutputs.rows);
  rowOutputValues.resize(rowOutputs.names.size());
}

void RunRows::addCosts(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) {
  if (!costs) return;
  costOutputsAt(t, z, zd, zdd, outputValues);
  if (stagesPending) {
    const auto& o = attempt.outputs;
    costs->rungeKuttaStages({o[0].data(), o[1].data(), o[2].data(), o[3].data()});
    stagesPending = false;
  }
  costs->add(t, outputValues.data(), m.parameters->values().data());
}

void RunRows::stageOutputs(int stage, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) {
  const auto i = static_cast<std::size_t>(stage - 3);
  if (costs) {
    std::vector<double>& out = attempt.outputs[i];
    out.resize(outputValues.size());
    costOutputsAt(t, z, zd, zdd, out);
  }
  if (stagePowers) {
    dyn::motionSnapshot(model.tree, rowData, z, zd, t, snap);
    attempt.powers[i] = dyn::powers(model.tree, rowData, snap, z, zd, zdd, t, forces);
  }
  if (stage == 7) attempt.t = t;
}

void RunRows::keepStep(double t0) {
  attempt.t0 = t0;
  if (keptCount == kept.size()) kept.emplace_back();
  kept[keptCount++] = attempt;
}

void RunRows::worksOverSteps() {
  if (!stagePowers || keptCount == 0) return;
  dyn::Powers start = lastPower;  // the power where the step began (its last point recorded)
  for (std::size_t i = 0; i < keptCount; ++i) {
    const StageValues& s = kept[i];
    const double h = s.t - s.t0;
    DenseWorks& d = dense;
    d.t0 = s.t0;
    d.t1 = s.t;
    d.w0[0] = dissipated;
    d.w0[1] = applied;
    d.w0[2] = driver;
    auto stagesOf = [&](double dyn::Powers::*part, double* g) {
      g[0] = start.*part;
      g[1] = 0;
      for (int k = 0; k < 5; ++k) g[2 + k] = s.powers[static_cast<std::size_t>(k)].*part;
    };
    stagesOf(&dyn::Powers::dissipated, d.g[0]);
    stagesOf(&dyn::Powers::applied, d.g[1]);
    stagesOf(&dyn::Powers::driver, d.g[2]);
    dissipated = integ::dopri::quadratureAt(1.0, h, d.w0[0], d.g[0]);
    applied = integ::dopri::quadratureAt(1.0, h, d.w0[1], d.g[1]);
    driver = integ::dopri::quadratureAt(1.0, h, d.w0[2], d.g[2]);
    start = s.powers[4];
  }
  dense.active = true;
}

void RunRows::addSteps() {
  for (std::size_t k = 0; k < keptCount && costs; ++k) {
    const StageValues& s = kept[k];
    const auto& o = s.outputs;
    costs->rungeKuttaStages({o[0].data(), o[1].data(), o[2].data(), o[3].data()});
    costs->add(s.t, o[4].data(), m.parameters->values().data());
  }
  keptCount = 0;
}

void RunRows::costOutputsAt(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, std::vector<double>& out) {
  outputsOn<double>(costOutputs, model.tree, numbers, z, zd, zdd, t, out.data(), costReactions.get());
  // what outputsOn leaves zero (no derivative): filled here, for costs a run only evaluates
  if (costEnergies || costResiduals) {
    const dyn::Energy e = dyn::energy(model.tree, z, zd);
    if (costResiduals) dyn::motionSnapshot(model.tree, rowData, z, zd, t, snap);
    for (std::size_t i = 0; i < costOutputs.components.size(); ++i) {
      const auto& c = costOutputs.components[i];
      if (c.type == Output::Type::Energy)
        out[i] = c.which == Output::Energy::Kinetic ? e.kinetic : c.which == Output::Energy::Potential ? e.potential : e.total();
      else if (c.type == Output::Type::ConstraintResidual)
        out[i] = snap.phi.size() ? snap.phi.cwiseAbs().maxCoeff() : 0.0;
    }
  }
}

void RunRows::record(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd, bool store,
                     const double* residuals) {
  if (!store && !powersNeeded) return;
  // one pass of the frames along ż serves the poses, points, energies, powers and residuals
  dyn::motionSnapshot(model.tree, rowData, z, zd, t, snap);
  const dyn::Powers p = dyn::powers(model.tree, rowData, snap, z, zd, zdd, t, forces);
  const bool first = lastStoredTime < 0;
  // the works at t: RK45's quadratures over its last step (a row inside it reads their continuous
  // extension, the step's end their value; the next step starts from the end), else the
  // trapezoidal rule from the last point
  double worksAt[3] = {dissipated, applied, driver};
  const bool inside = dense.active && t < dense.t1;
  if (inside) {
    const double h = dense.t1 - dense.t0, theta = h > 0 ? std::clamp((t - dense.t0) / h, 0.0, 1.0) : 1.0;
    for (int k = 0; k < 3; ++k) worksAt[k] = integ::dopri::quadratureAt(theta, h, dense.w0[k], dense.g[k]);
  } else if (dense.active) {
    dense.active = false;
  } else if (!first) {
    const double dt = t - lastT;
    dissipated += 0.5 * dt * (p.dissipated + lastPower.dissipated);
    applied += 0.5 * dt * (p.applied + lastPower.applied);
    driver += 0.5 * dt * (p.driver + lastPower.driver);
    worksAt[0] = dissipated;
    worksAt[1] = applied;
    worksAt[2] = driver;
  }
  if (!inside) {
    lastPower = p;
    lastT = t;
  }
  recordedAny = true;
  if (!store) return;
  lastStoredTime = t;
  if (!streamed)  // a streamed run keeps no poses
    for (const auto& pose : snap.poses) {
      res.poses.insert(res.poses.end(), pose.R, pose.R + 9);
      res.poses.insert(res.poses.end(), pose.x, pose.x + 3);
    }
  res.values.push_back(t);
  for (const auto& f : outputDofs) {
    if (f.kind == dyn::Dof::Kind::Coordinate) {
      res.values.push_back(z[f.z]);
    } else {
      const auto& pose = snap.poses[static_cast<std::size_t>(f.body)];
      const Eigen::Vector3d r = Eigen::Vector3d(pose.x[0], pose.x[1], pose.x[2]) +
                                Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(pose.R) * f.point;
      res.values.push_back(r[f.component]);
    }
  }
  for (const auto& r : snap.r)
    for (int k = 0; k < m.dimension; ++k) res.values.push_back(r[k]);
  for (const auto& v : snap.v)
    for (int k = 0; k < m.dimension; ++k) res.values.push_back(v[k]);
  const dyn::Energy e = dyn::energy(model.tree, rowData, snap, z);
  res.values.push_back(e.kinetic);
  res.values.push_back(e.potential);
  res.values.push_back(e.total());
  res.values.push_back(residuals ? residuals[0] : snap.phi.size() ? snap.phi.cwiseAbs().maxCoeff() : 0.0);
  res.values.push_back(residuals ? residuals[1] : snap.phiDot.size() ? snap.phiDot.cwiseAbs().maxCoeff() : 0.0);
  if (first) E0 = e.total();
  res.values.push_back(worksAt[0]);
  res.values.push_back(worksAt[1]);
  res.values.push_back(worksAt[2]);
  // zero up to the quadrature and integration errors: E − E0 − W_applied − W_driver + E_dissipated
  const double balance = e.total() - E0 - worksAt[1] - worksAt[2] + worksAt[0];
  res.values.push_back(balance);
  if (!rowOutputs.names.empty()) {
    outputsOn<double>(rowOutputs, model.tree, numbers, z, zd, zdd, t, rowOutputValues.data(), rowReactions.get());
    for (std::size_t i = 0; i < rowOutputValues.size(); ++i) {
      const auto& c = rowOutputs.components[i];
      if (c.type == Output::Type::Energy)
        rowOutputValues[i] = c.which == Output::Energy::Kinetic ? e.kinetic : c.which == Output::Energy::Potential ? e.potential : e.total();
      else if (c.type == Output::Type::ConstraintResidual)
        rowOutputValues[i] = snap.phi.size() ? snap.phi.cwiseAbs().maxCoeff() : 0.0;
      else if (c.type == Output::Type::JointCoordinate && c.angle && c.node < 0 && !lastRowOutputs.empty())
        // a spatial joint that closes a loop reads its turn within half a turn: continued through
        // ±π from the row before, as the kinematic runs do
        rowOutputValues[i] += 2 * M_PI * std::round((lastRowOutputs[i] - rowOutputValues[i]) / (2 * M_PI));
    }
    lastRowOutputs = rowOutputValues;
    res.values.insert(res.values.end(), rowOutputValues.begin(), rowOutputValues.end());
  }
  // a row that is not finite is not kept, and the run stops with the column and the time
  if (auto problem = nonFiniteInLastRow(res.columns, res.values); !problem.empty()) {
    res.values.resize(res.values.size() - res.columns.size());
    if (!streamed) res.poses.resize(res.poses.size() - 12 * snap.poses.size());
    if (res.status.ok()) res.status = lw::failure(lw::Status::Code::NotConverged, t, problem);
    nonFiniteRow = true;
    return;
  }
  // a driven mechanism (no freedom) moves exactly as its position problems say: its balance
  // measures only the quadrature of the drivers' power (second order in the step), no error
  // of the motion worth a warning
  if (!outputDofs.empty()) energyWatch.add(t, e.total(), e.kinetic, balance);
  // a streamed run passes its rows on in blocks and keeps none
  if (res.values.size() >= 256 * res.columns.size()) sendRows(spec.rows, res.columns, res.values, res.sentRows);
}

void RunRows::finish(std::chrono::steady_clock::time_point start) {
  if (costs) {
    res.costNames = costSet.names;
    res.costValues = costs->values();
    if (auto problems = keepFiniteCosts(*costs, res.costNames, res.costValues); !problems.empty())
      res.costProblem += (res.costProblem.empty() ? "" : "\n") + problems;
  }
  if (!energyWatch.warning.empty()) res.warnings.push_back(energyWatch.warning);
  res.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace lw::analysis
