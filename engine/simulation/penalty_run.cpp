// The penalty formulation's run (seed 004): all tree coordinates by the trapezoidal rule, loops by
// penalty forces, contacts located on the rule's polynomial and their impacts applied with the
// velocity jump Matrix R's law gives at that state.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "simulation/simulation_parts.h"
#include "dynamics/penalty.h"
#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "events/resting_contact.h"

namespace lw::analysis {

using events::ImpactSpeeds;
using events::impactRecord;
using events::impactSpeeds;
using events::kEventTime;
using events::mixedProblem;
using events::startsInside;
using events::switchRecord;

void runPenalty(RunContext& run) {
  const ResolvedMechanism& m = run.m;
  const SimulationSpec& spec = run.spec;
  const dyn::MatrixRModel& model = run.model;
  dyn::TreeNumbers<double>& numbers = run.numbers;
  dyn::MatrixRData& data = run.data;
  events::ContactMonitor& monitor = run.monitor;
  const std::vector<events::GapSource>& sources = run.sources;
  const ImpactSpeeds& speeds = run.speeds;
  SimulationResult& res = run.res;
  RunRows& rows = run.rows;
  const std::function<void(double)>& progress = run.progress;
  const std::atomic<bool>* cancel = run.cancel;
  const long outputs = run.outputs, every = run.every;
  auto stored = [&](long i) { return i % every == 0 || i == outputs; };
  // progress at least every 32 outputs; true (with the status set) when the user cancelled
  auto reportAndCheckCancel = [&](long i, double tOut) {
    if (progress && (i % 32 == 0 || i == outputs)) progress(static_cast<double>(i) / static_cast<double>(outputs));
    if (!cancel || !cancel->load(std::memory_order_relaxed)) return false;
    res.status = lw::failure(lw::Status::Code::Cancelled, tOut, "cancelled at t = " + lw::shortNumber(tOut));
    return true;
  };
  // same assembled start as Matrix R; all tree coordinates integrated, loops by penalty
  dyn::PenaltyOptions options;
  options.tangent = spec.tangent;
  PenaltyObserver* observer = spec.penaltyObserver;
  if (observer) {  // a step that is a function of its inputs, solved to round-off
    options.massProjections = true;
    options.tolerance = 1e-13;
  }
  dyn::PenaltyData pd(model.tree, options, &numbers);
  pd.z = data.z;
  pd.zd = data.zd;
  res.status = dyn::penaltyStart(model.tree, pd, 0.0);
  if (observer && res.status.ok()) res.status = observer->start(model.tree, pd.alpha, 0.0, pd.z, pd.zd, pd.zdd);
  rows.record(0, pd.z, pd.zd, pd.zdd, true);
  rows.addCosts(0, pd.z, pd.zd, pd.zdd);
  if (rows.nonFinite()) return;
  // the contacts at rest: held closed by the penalty like the loops (pd.extra), their forces
  // measured as Matrix R's at the state (coordinates chosen there, an evaluation)
  events::RestingContacts resting(model.tree, events::restingOmega(m), &monitor);
  pd.extra = &resting;
  if (observer) observer->held = &resting.held();
  Eigen::VectorXd forcesAtAccepted;  // the held forces at the last accepted state
  auto measureHeld = [&]() -> lw::Status {
    data.t = pd.t;
    data.z = pd.z;
    data.zd = pd.zd;
    if (lw::Status e = dyn::chooseDofs(model, data); !e.ok()) return e;
    if (lw::Status e = dyn::evaluate(model, data, pd.t, data.zi, data.zid); !e.ok()) return e;
    return resting.apply(model, data, false);
  };
  // an impact: the jump of the tree's velocities that Matrix R's law gives at this state (in the
  // independent coordinates chosen there), the accelerations again, the row just after
  auto penaltyImpact = [&](const std::vector<int>& crossing) -> lw::Status {
    // the switches among them wait until their coordinates come back
    if (lw::Status e = monitor.fired(crossing, pd.t); !e.ok()) return e;
    std::vector<int> closing = crossing;
    if (lw::Status e = switchesFirst(model, numbers, sources, pd.t, pd.z, pd.zd, observer != nullptr, closing, res.events); !e.ok()) return e;
    if (events::applySwitches(model.tree, sources, closing, numbers)) {
      const Eigen::VectorXd zdBefore = pd.zd;
      if (lw::Status e = dyn::penaltyStart(model.tree, pd, pd.t); !e.ok()) return e;
      rows.logEvent(switchRecord(model.tree, sources, pd.t, closing, pd.z, zdBefore, dyn::energy(model.tree, pd.z, pd.zd).total()), pd.z, pd.zd,
                    pd.zdd, true);
      if (observer)
        if (lw::Status e = observer->impact(pd.t, closing, pd.z, zdBefore, pd.zd, pd.zdd); !e.ok()) return e;
      monitor.start(pd.t, pd.z, pd.zd);
      return {};
    }
    data.t = pd.t;
    data.z = pd.z;
    data.zd = pd.zd;
    if (lw::Status e = dyn::chooseDofs(model, data); !e.ok()) return e;
    events::ImpactOn<double> imp;
    if (lw::Status e = events::impactOn<double>(model, numbers, data.dofs, pd.t, data.zi, data.zid, pd.z, closing, imp); !e.ok())
      return e;
    const double eBefore = dyn::energy(model.tree, pd.z, pd.zd).total();
    const Eigen::VectorXd zdBefore = pd.zd;
    pd.zd += imp.zdPlus - imp.zdMinus;
    if (lw::Status e = dyn::penaltyStart(model.tree, pd, pd.t); !e.ok()) return e;
    // those that leave too slowly to fly again come to rest (as in Matrix R's run): the impact
    // again with e = 0 for them, and their gaps held closed by the penalty from here on
    std::vector<int> comingToRest = events::comingToRest(model.tree, closing, imp, pd.z, pd.zd, pd.zdd, 1e-4 * spec.dt, speeds.resting);
    while (!comingToRest.empty()) {
      if (lw::Status e = events::impactOn<double>(model, numbers, data.dofs, pd.t, data.zi, data.zid, pd.z, closing, imp, comingToRest);
          !e.ok())
        return e;
      pd.zd = zdBefore + (imp.zdPlus - imp.zdMinus);
      std::vector<int> held = comingToRest;
      if (lw::Status e = resting.holdAll(held, measureHeld); !e.ok()) return e;
      if (held.size() != comingToRest.size()) {
        // one whose force pulls at once leaves with its own law's impact (the gaps held are
        // exactly those closed with e = 0)
        for (int j : held) resting.release(j);
        comingToRest = std::move(held);
        if (!comingToRest.empty()) continue;
        if (lw::Status e = events::impactOn<double>(model, numbers, data.dofs, pd.t, data.zi, data.zid, pd.z, closing, imp); !e.ok()) return e;
        pd.zd = zdBefore + (imp.zdPlus - imp.zdMinus);
      }
      if (lw::Status e = dyn::penaltyStart(model.tree, pd, pd.t); !e.ok()) return e;
      break;
    }
    forcesAtAccepted = resting.forces();
    events::EventRecord record = impactRecord(sources, pd.t, closing, imp, eBefore, dyn::energy(model.tree, pd.z, pd.zd).total(), speeds);
    if (!comingToRest.empty()) record.kind = "closes";
    rows.logEvent(std::move(record), pd.z, pd.zd, pd.zdd, true);
    if (observer)
      if (lw::Status e = observer->impact(pd.t, closing, pd.z, zdBefore, pd.zd, pd.zdd); !e.ok()) return e;
    monitor.start(pd.t, pd.z, pd.zd);
    return {};
  };
  // a held contact whose force would pull opens: no jump, the accelerations without it
  auto penaltyOpening = [&](int j) -> lw::Status {
    resting.release(j);
    if (lw::Status e = dyn::penaltyStart(model.tree, pd, pd.t); !e.ok()) return e;
    if (lw::Status e = measureHeld(); !e.ok()) return e;
    forcesAtAccepted = resting.forces();
    rows.logEvent(events::openingRecord(model.tree, sources, pd.t, j, pd.z, pd.zd, dyn::energy(model.tree, pd.z, pd.zd).total()), pd.z, pd.zd,
                  pd.zdd, true);
    if (observer)
      if (lw::Status e = observer->released(pd.t, pd.z, pd.zd, pd.zdd); !e.ok()) return e;
    monitor.start(pd.t, pd.z, pd.zd);
    return {};
  };
  std::vector<int> closing;
  monitor.start(0, pd.z, pd.zd, &closing);
  if (auto problem = startsInside(m, sources, monitor.gaps()); !problem.empty()) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return;
  }
  if (!closing.empty()) res.status = penaltyImpact(closing);
  Eigen::VectorXd acceptedZ, acceptedZd, acceptedZdd;  // the last accepted state: a failed step changes pd
  for (long i = 1; i <= outputs && res.status.ok(); ++i) {
    const double tOut = static_cast<double>(i) * spec.dt;
    const double acceptedT = pd.t;
    acceptedZ = pd.z;
    acceptedZd = pd.zd;
    acceptedZdd = pd.zdd;
    res.status = dyn::penaltyStep(model.tree, pd, tOut - pd.t);
    if (!res.status.ok()) {
      if (acceptedT > rows.lastStoredT()) rows.record(acceptedT, acceptedZ, acceptedZd, acceptedZdd, true);  // where it stopped
      break;
    }
    // a contact that closed inside the step: located on the rule's own polynomial (constant
    // average acceleration), the step taken again to there, and its length corrected by
    // Newton's method on the gap at its end
    bool impact = false;
    if (monitor.active()) {
      double tEvent = 0;
      const double tStepEnd = pd.t;
      res.status = monitor.closesWithin(pd.t, pd.z, pd.zd, {}, kEventTime, impact, tEvent, closing);
      for (int retake = 0; impact && res.status.ok() && tEvent < tStepEnd - kEventTime && retake < 6; ++retake) {
        pd.t = acceptedT;
        pd.z = acceptedZ;
        pd.zd = acceptedZd;
        pd.zdd = acceptedZdd;
        res.status = dyn::penaltyStep(model.tree, pd, tEvent - acceptedT);
        if (!res.status.ok()) break;
        Eigen::VectorXd g, rate;
        events::contactGaps(model.tree, pd.z, pd.zd, g, rate);
        const double correction = rate[closing[0]] < 0 ? -g[closing[0]] / rate[closing[0]] : 0.0;
        if (std::abs(correction) <= kEventTime) break;
        tEvent = std::clamp(tEvent + correction, acceptedT + 0.5 * (tEvent - acceptedT), tOut);
      }
      if (!res.status.ok()) {
        if (acceptedT > rows.lastStoredT()) rows.record(acceptedT, acceptedZ, acceptedZd, acceptedZdd, true);
        break;
      }
    }
    // a held contact whose force came to pull inside the step opens where the force falls
    // through zero: the Illinois rule on it between the step's ends, the step taken again to there
    int opening = -1;
    if (!impact && resting.any()) {
      res.status = measureHeld();
      const int j = res.status.ok() ? resting.pulling() : -1;
      if (j >= 0) {
        res.status = events::locateOpening(resting, j, acceptedT, forcesAtAccepted, pd.t, kEventTime, [&](double t) {
          pd.t = acceptedT;  // the step again from its start
          pd.z = acceptedZ;
          pd.zd = acceptedZd;
          pd.zdd = acceptedZdd;
          lw::Status st = dyn::penaltyStep(model.tree, pd, t - acceptedT);
          return st.ok() ? measureHeld() : st;
        });
        opening = j;
      }
      if (!res.status.ok()) {
        if (acceptedT > rows.lastStoredT()) rows.record(acceptedT, acceptedZ, acceptedZd, acceptedZdd, true);
        break;
      }
      forcesAtAccepted = resting.forces();
    }
    ++res.steps;
    if (observer) {
      res.status = observer->step(acceptedT, pd.t, pd.z, pd.zd, pd.zdd);
      if (!res.status.ok()) break;
    }
    rows.record(pd.t, pd.z, pd.zd, pd.zdd, impact || opening >= 0 || stored(i));
    rows.addCosts(pd.t, pd.z, pd.zd, pd.zdd);
    if (rows.nonFinite()) break;
    if (impact) {
      res.status = penaltyImpact(closing);
      if (!res.status.ok()) break;
      if (tOut - pd.t > kEventTime) --i;  // the same grid point again, from the impact
      continue;
    }
    if (opening >= 0) {
      monitor.accept();
      res.status = penaltyOpening(opening);
      if (!res.status.ok()) break;
      if (tOut - pd.t > kEventTime) --i;  // the same grid point again, from the opening
      continue;
    }
    monitor.accept();
    if (reportAndCheckCancel(i, tOut)) {
      if (!stored(i)) rows.record(tOut, pd.z, pd.zd, pd.zdd, true);  // where it stopped
      break;
    }
  }
  res.tangents = pd.jacobians;
  res.evaluations = pd.iterations;
  rows.finish(run.start);
}

}  // namespace lw::analysis
