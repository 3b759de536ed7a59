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
#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "events/resting_contact.h"
#include "simulation/simulation_parts.h"

namespace lw::analysis {

namespace {

// x'' = F(t, x, v) of the index-1 or the penalty formulation, for the integrators
class GlobalOde final : public integ::SecondOrderSystem {
 public:
  GlobalOde(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, bool penalty) : m_(&m), inertia_(inertia), penalty_(penalty), data_(m) {}
  Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    ++evaluations;
    return dyn::globalOdeAcceleration(*m_, inertia_, penalty_, t, x, v, data_, a);
  }
  /// The model with other rows (gaps held or let go): the same coordinates.
  void setModel(const kin::NaturalModel& m) {
    m_ = &m;
    data_ = dyn::GlobalOdeData(m);
  }
  long evaluations = 0;

 private:
  const kin::NaturalModel* m_;
  const dyn::NaturalInertia& inertia_;
  bool penalty_;
  dyn::GlobalOdeData data_;
};

// the natural constraints' largest |Φ| and |Φ̇| at (t, q, q̇): the rows' residual columns
// (Φ̇ = Φ_q q̇ + Φ_t summed entry by entry: no dense Φ_q)
struct NaturalResiduals {
  Eigen::VectorXd phi, phiDot;
  double values[2] = {0, 0};
  const double* at(const kin::NaturalModel& m, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    phi.resize(m.nrows);
    phiDot.resize(m.nrows);
    kin::evaluateConstraints(m, q, t, phi);
    kin::evaluatePhiT(m, q, t, phiDot);
    kin::evaluateJacobian(m, q, t, [&](int r, int c, double v) { phiDot[r] += v * qd[c]; });
    values[0] = m.nrows ? phi.cwiseAbs().maxCoeff() : 0.0;
    values[1] = m.nrows ? phiDot.cwiseAbs().maxCoeff() : 0.0;
    return values;
  }
};

// the state a global run keeps, which an event restarts: (t, q, q̇) with its accelerations
class GlobalState {
 public:
  virtual ~GlobalState() = default;
  /// The state (t, q, q̇) with its accelerations (a start, or just after an event).
  virtual Status start(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) = 0;
  virtual double t() const = 0;
  virtual const Eigen::VectorXd& q() const = 0;
  virtual const Eigen::VectorXd& qd() const = 0;
  virtual const Eigen::VectorXd& qdd() const = 0;
  /// The model with other rows (the gaps held closed changed; the same coordinates): start()
  /// again after it.
  virtual void setModel(const kin::NaturalModel& m) = 0;
};

// a global formulation's fixed steps from its state: index-3's own, or an ODE's by the
// trapezoidal rule; saved before a step, restored to take it again shorter (to an event)
class FixedStepper : public GlobalState {
 public:
  virtual Status step(double h) = 0;
  virtual void save() = 0;
  virtual void restore() = 0;
  long evaluations = 0, tangents = 0;
};

// RK45's state (integ::State), restarted by an event with its accelerations
class RungeKuttaState final : public GlobalState {
 public:
  RungeKuttaState(GlobalOde& ode, integ::State& s) : ode_(ode), s_(s) {}
  Status start(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) override {
    s_.t = t;
    s_.x = q;
    s_.v = qd;
    return ode_.acceleration(t, s_.x, s_.v, s_.a);
  }
  double t() const override { return s_.t; }
  const Eigen::VectorXd& q() const override { return s_.x; }
  const Eigen::VectorXd& qd() const override { return s_.v; }
  const Eigen::VectorXd& qdd() const override { return s_.a; }
  void setModel(const kin::NaturalModel& m) override { ode_.setModel(m); }

 private:
  GlobalOde& ode_;
  integ::State& s_;
};

class Index3Stepper final : public FixedStepper {
 public:
  // roundOff: the steps converged further, and the dense matrices (a sensitivity differentiates
  // the step as a function of its start, as sensitivity/global_formulation.cpp takes it)
  Index3Stepper(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, bool roundOff)
      : m_(&m), inertia_(inertia), options_(roundOff ? dyn::Index3Options::roundOff() : dyn::Index3Options{}), d_(m) {}
  Status start(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) override {
    s_.t = t;
    s_.q = q;
    s_.qd = qd;
    return dyn::index3Start(*m_, inertia_, options_, s_, &d_);
  }
  Status step(double h) override {
    const Status st = dyn::index3Step(*m_, inertia_, options_, h, d_, s_);
    evaluations += d_.iterations;
    tangents = earlierTangents_ + d_.tangents;
    return st;
  }
  void setModel(const kin::NaturalModel& m) override {
    earlierTangents_ += d_.tangents;
    m_ = &m;
    d_ = dyn::Index3Data(m);
  }
  void save() override { saved_ = s_; }
  void restore() override { s_ = saved_; }
  double t() const override { return s_.t; }
  const Eigen::VectorXd& q() const override { return s_.q; }
  const Eigen::VectorXd& qd() const override { return s_.qd; }
  const Eigen::VectorXd& qdd() const override { return s_.qdd; }

 private:
  const kin::NaturalModel* m_;
  const dyn::NaturalInertia& inertia_;
  dyn::Index3Options options_;
  dyn::Index3Data d_;
  dyn::Index3State s_, saved_;
  long earlierTangents_ = 0;  // those of the models before
};

class TrapezoidalStepper final : public FixedStepper {
 public:
  // roundOff: Newton to round-off (a sensitivity differentiates the step as a function of its start)
  TrapezoidalStepper(const kin::NaturalModel& m, const dyn::NaturalInertia& inertia, bool penalty, bool roundOff)
      : n_(m.nq), ode_(m, inertia, penalty), options_{.tolerance = roundOff ? 1e-13 : 1e-10}, trap_(m.nq, options_) {}
  Status start(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) override {
    s_.t = t;
    s_.x = q;
    s_.v = qd;
    // the predictor and tangent of the motion before an event do not serve the one after it
    tangents += trap_.jacobians();
    trap_ = integ::Trapezoidal(n_, options_);
    const Status st = ode_.acceleration(t, s_.x, s_.v, s_.a);
    evaluations = ode_.evaluations;
    return st;
  }
  Status step(double h) override {
    const Status st = trap_.step(ode_, s_, h);
    evaluations = ode_.evaluations;
    return st;
  }
  void save() override { saved_ = s_; }
  void restore() override { s_ = saved_; }
  double t() const override { return s_.t; }
  const Eigen::VectorXd& q() const override { return s_.x; }
  const Eigen::VectorXd& qd() const override { return s_.v; }
  const Eigen::VectorXd& qdd() const override { return s_.a; }
  void setModel(const kin::NaturalModel& m) override { ode_.setModel(m); }
  long allTangents() const { return tangents + trap_.jacobians(); }

 private:
  int n_;
  GlobalOde ode_;
  integ::TrapezoidalOptions options_;
  integ::Trapezoidal trap_;
  integ::State s_, saved_;
};

}  // namespace

void runGlobal(RunContext& run) {
  const ResolvedMechanism& m = run.m;
  const SimulationSpec& spec = run.spec;
  const dyn::MatrixRModel& model = run.model;
  SimulationResult& res = run.res;
  RunRows& rows = run.rows;
  events::ContactMonitor& monitor = run.monitor;
  const std::vector<events::GapSource>& sources = run.sources;
  const kin::NaturalModel nm = kin::compileNaturalModel(m, {.linearFrames = true});
  dyn::NaturalInertia inertia;
  dyn::NaturalTreeMap map;
  std::string why;
  if (!dyn::naturalInertia(nm, inertia, why) || !dyn::compileNaturalTreeMap(model.tree, nm, map, why)) {
    res.status = lw::failure(lw::Status::Code::BadRequest, 0, why + ": use --formulation matrix-r or penalty");
    return;
  }
  // the force elements with the run's numbers: its switches turn them on and off
  dyn::NaturalForceElements elements(model.tree, run.numbers, nm);
  inertia.elements = &elements;
  // the start Matrix R assembled, in natural coordinates
  Eigen::VectorXd q, qd;
  dyn::naturalStateOf(model.tree, nm, map, run.data.z, run.data.zd, run.data.zdd, q, qd, nullptr);
  Eigen::VectorXd z = run.data.z, zd, zdd;  // the tree's state last mapped (angles continue from it)
  auto mapped = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a) {
    dyn::treeStateOf(model.tree, nm, x, v, a, z, zd, zdd);
  };
  // the contacts at rest: held closed as rows of the natural model (kin::HeldGap, compiled again
  // when they change; the same coordinates), their forces measured as Matrix R's at the state
  // mapped onto the tree (a formulation holds them, without Baumgarte's terms)
  events::RestingContacts resting(model.tree, events::restingOmega(m), &monitor);
  if (spec.naturalObserver) spec.naturalObserver->held = &resting.held();
  std::unique_ptr<kin::NaturalModel> heldModel;
  const kin::NaturalModel* current = &nm;
  auto compileHeld = [&] {
    const std::vector<kin::HeldGap> held = events::naturalHeldGaps(model.tree, run.numbers, resting.held());
    heldModel = held.empty() ? nullptr : std::make_unique<kin::NaturalModel>(kin::compileNaturalModel(m, {.linearFrames = true}, held));
    current = heldModel ? heldModel.get() : &nm;
  };
  NaturalResiduals residuals;
  bool stopped = false;
  NaturalObserver* observer = spec.naturalObserver;
  auto observed = [](const GlobalState& st) { return integ::State{st.t(), st.q(), st.qd(), st.qdd()}; };
  // the state at t into the tree's coordinates: a row when `store`, and into the costs
  // `costs` false: not a point of the costs (RK45's rows inside a step, whose integrals are the
  // step's quadrature)
  auto record = [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a, bool store, bool costs = true) {
    elements.accept(t, x, v);
    mapped(x, v, a);
    rows.record(t, z, zd, zdd, store, store ? residuals.at(*current, t, x, v) : nullptr);
    if (costs) rows.addCosts(t, z, zd, zdd);
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

  // the held gaps' forces at the tree's state (z, ż) (resting.forces(), pulling())
  Eigen::VectorXd forcesAtAccepted;  // those at the last accepted state
  auto measureHeld = [&](double t, const Eigen::VectorXd& zAt, const Eigen::VectorXd& zdAt) -> lw::Status {
    run.data.t = t;
    run.data.z = zAt;
    run.data.zd = zdAt;
    if (lw::Status e = dyn::chooseDofs(model, run.data); !e.ok()) return e;
    if (lw::Status e = dyn::evaluate(model, run.data, t, run.data.zi, run.data.zid); !e.ok()) return e;
    return resting.apply(model, run.data, false);
  };
  // an event at the state st: the switches among `crossing` turn their forces, the
  // contacts' velocities jump by the recursive formulations' impact law (the same physics in
  // the tree's coordinates), the accelerations after it, the row just after
  auto event = [&](GlobalState& st, const std::vector<int>& crossing) -> lw::Status {
    const double t = st.t();
    if (observer && spec.integrator == Integrator::RK45)
      return lw::failure(lw::Status::Code::BadRequest, t,
                         sources[static_cast<std::size_t>(crossing.front())].label() + " acts at t = " + lw::shortNumber(t) +
                             " s: sensitivities through events of the global formulations integrate with the trapezoidal rule "
                             "(use --integrator trapezoidal)");
    const integ::State before = observed(st);
    mapped(st.q(), st.qd(), st.qdd());
    if (lw::Status e = monitor.fired(crossing, t); !e.ok()) return e;
    std::vector<int> closing = crossing;
    if (lw::Status e = switchesFirst(model, run.numbers, sources, t, z, zd, observer != nullptr, closing, res.events); !e.ok()) return e;
    if (events::applySwitches(model.tree, sources, closing, run.numbers)) {
      const Eigen::VectorXd zdBefore = zd;
      if (lw::Status e = st.start(t, st.q(), st.qd()); !e.ok()) return e;
      mapped(st.q(), st.qd(), st.qdd());
      rows.logEvent(events::switchRecord(model.tree, sources, t, closing, z, zdBefore, dyn::energy(model.tree, z, zd).total()), z, zd, zdd,
                    true);
      monitor.start(t, z, zd);
      return observer ? observer->impact(before, observed(st), closing, z) : lw::Status{};
    }
    run.data.t = t;
    run.data.z = z;
    run.data.zd = zd;
    if (lw::Status e = dyn::chooseDofs(model, run.data); !e.ok()) return e;
    events::ImpactOn<double> imp;
    if (lw::Status e = events::impactOn<double>(model, run.numbers, run.data.dofs, t, run.data.zi, run.data.zid, z, closing, imp); !e.ok())
      return e;
    const double eBefore = dyn::energy(model.tree, z, zd).total();
    const Eigen::VectorXd zAt = z, zdBefore = zd, ziAt = run.data.zi, zidAt = run.data.zid;
    const std::vector<dyn::Dof> dofsAt = run.data.dofs;  // measureHeld chooses them again
    Eigen::VectorXd zdAfter = zd + (imp.zdPlus - imp.zdMinus);
    // the accelerations just after it, in the tree's coordinates: whether a contact comes to rest
    auto startAfter = [&]() -> lw::Status {
      Eigen::VectorXd qAt, qdAfter;
      dyn::naturalStateOf(model.tree, nm, map, zAt, zdAfter, Eigen::VectorXd::Zero(model.tree.nz), qAt, qdAfter, nullptr);
      if (lw::Status e = st.start(t, st.q(), qdAfter); !e.ok()) return e;
      z = zAt;
      mapped(st.q(), st.qd(), st.qdd());
      return {};
    };
    if (lw::Status e = startAfter(); !e.ok()) return e;
    // those that leave too slowly to fly again come to rest (as in the recursive formulations):
    // the impact again with e = 0 for them, their gaps held closed from here on
    std::vector<int> comingToRest = events::comingToRest(model.tree, closing, imp, z, zd, zdd, 1e-4 * spec.dt, run.speeds.resting);
    const bool rests = !comingToRest.empty();
    while (!comingToRest.empty()) {
      if (lw::Status e = events::impactOn<double>(model, run.numbers, dofsAt, t, ziAt, zidAt, zAt, closing, imp, comingToRest);
          !e.ok())
        return e;
      zdAfter = zdBefore + (imp.zdPlus - imp.zdMinus);
      std::vector<int> held = comingToRest;
      if (lw::Status e = resting.holdAll(held, [&] { return measureHeld(t, zAt, zdAfter); }); !e.ok()) return e;
      if (held.size() != comingToRest.size()) {
        // one whose force pulls at once leaves with its own law's impact (the gaps held are
        // exactly those closed with e = 0)
        for (int j : held) resting.release(j);
        comingToRest = std::move(held);
        if (!comingToRest.empty()) continue;
        if (lw::Status e = events::impactOn<double>(model, run.numbers, dofsAt, t, ziAt, zidAt, zAt, closing, imp); !e.ok()) return e;
        zdAfter = zdBefore + (imp.zdPlus - imp.zdMinus);
      }
      break;
    }
    if (rests) {
      compileHeld();
      st.setModel(*current);
      if (lw::Status e = startAfter(); !e.ok()) return e;
      forcesAtAccepted = resting.forces();
    }
    events::EventRecord logged = events::impactRecord(sources, t, closing, imp, eBefore, dyn::energy(model.tree, z, zd).total(), run.speeds);
    if (!comingToRest.empty()) logged.kind = "closes";
    rows.logEvent(std::move(logged), z, zd, zdd, true);
    monitor.start(t, z, zd);
    return observer ? observer->impact(before, observed(st), closing, z) : lw::Status{};
  };
  // a held contact whose force would pull opens at the state st: no jump, the model without its
  // row, the accelerations without it
  auto opening = [&](GlobalState& st, int j) -> lw::Status {
    const double t = st.t();
    resting.release(j);
    compileHeld();
    st.setModel(*current);
    if (lw::Status e = st.start(t, st.q(), st.qd()); !e.ok()) return e;
    mapped(st.q(), st.qd(), st.qdd());
    if (lw::Status e = measureHeld(t, z, zd); !e.ok()) return e;
    forcesAtAccepted = resting.forces();
    rows.logEvent(events::openingRecord(model.tree, sources, t, j, z, zd, dyn::energy(model.tree, z, zd).total()), z, zd, zdd, true);
    monitor.start(t, z, zd);
    return observer ? observer->released(observed(st), z) : lw::Status{};
  };
  // the contacts at the start: one inside its plane is refused, those closing there act at once
  auto startEvents = [&](GlobalState& st) -> lw::Status {
    std::vector<int> closing;
    monitor.start(0, z, zd, &closing);
    if (auto problem = events::startsInside(m, sources, monitor.gaps()); !problem.empty())
      return lw::failure(lw::Status::Code::BadRequest, 0, problem);
    return closing.empty() ? lw::Status{} : event(st, closing);
  };

  if (spec.formulation == Formulation::Index3 || spec.integrator == Integrator::Trapezoidal) {
    std::unique_ptr<FixedStepper> stepper;
    if (spec.formulation == Formulation::Index3) stepper = std::make_unique<Index3Stepper>(nm, inertia, observer != nullptr);
    else stepper = std::make_unique<TrapezoidalStepper>(nm, inertia, spec.formulation == Formulation::PenaltyGlobal, observer != nullptr);
    FixedStepper& st = *stepper;
    res.status = st.start(0, q, qd);
    if (!res.status.ok()) return;
    record(0, st.q(), st.qd(), st.qdd(), true);
    if (observer) res.status = observer->start(observed(st), z);
    if (res.status.ok()) res.status = startEvents(st);
    std::vector<int> closing;
    integ::State from;
    for (long i = 1; i <= outputs && res.status.ok() && !stopped; ++i) {
      const double tOut = static_cast<double>(i) * spec.dt;
      const double tA = st.t();
      if (observer) from = observed(st);
      st.save();
      auto stopAtAccepted = [&] {  // the row where it stopped
        st.restore();
        if (st.t() > rows.lastStoredT()) record(st.t(), st.q(), st.qd(), st.qdd(), true);
      };
      res.status = st.step(tOut - tA);
      if (!res.status.ok()) {
        stopAtAccepted();
        break;
      }
      // a contact that closed inside the step: located on the gaps' interpolant, the step taken
      // again to there, its length corrected by Newton's method on the gap at its end
      bool impact = false;
      if (monitor.active()) {
        double tEvent = 0;
        const double tStepEnd = st.t();
        mapped(st.q(), st.qd(), st.qdd());
        res.status = monitor.closesWithin(st.t(), z, zd, {}, events::kEventTime, impact, tEvent, closing);
        for (int retake = 0; impact && res.status.ok() && tEvent < tStepEnd - events::kEventTime && retake < 6; ++retake) {
          st.restore();
          res.status = st.step(tEvent - tA);
          if (!res.status.ok()) break;
          mapped(st.q(), st.qd(), st.qdd());
          Eigen::VectorXd g, rate;
          events::contactGaps(model.tree, z, zd, g, rate);
          const double correction = rate[closing[0]] < 0 ? -g[closing[0]] / rate[closing[0]] : 0.0;
          if (std::abs(correction) <= events::kEventTime) break;
          tEvent = std::clamp(tEvent + correction, tA + 0.5 * (tEvent - tA), tOut);
        }
        if (!res.status.ok()) {
          stopAtAccepted();
          break;
        }
      }
      // a held contact whose force came to pull inside the step opens where the force falls
      // through zero: the Illinois rule on it between the step's ends, the step taken again to there
      int opens = -1;
      if (!impact && resting.any()) {
        mapped(st.q(), st.qd(), st.qdd());
        res.status = measureHeld(st.t(), z, zd);
        const int j = res.status.ok() ? resting.pulling() : -1;
        if (j >= 0) {
          res.status = events::locateOpening(resting, j, tA, forcesAtAccepted, st.t(), events::kEventTime, [&](double t) {
            st.restore();
            lw::Status e = st.step(t - tA);
            if (!e.ok()) return e;
            mapped(st.q(), st.qd(), st.qdd());
            return measureHeld(t, z, zd);
          });
          opens = j;
        }
        if (!res.status.ok()) {
          stopAtAccepted();
          break;
        }
        forcesAtAccepted = resting.forces();
      }
      ++res.steps;
      record(st.t(), st.q(), st.qd(), st.qdd(), impact || opens >= 0 || stored(i));
      if (stopped) break;
      if (observer && !(res.status = observer->step(from, observed(st), z)).ok()) break;
      if (impact) {
        res.status = event(st, closing);
        if (!res.status.ok()) break;
        if (tOut - st.t() > events::kEventTime) --i;  // the same grid point again, from the event
        continue;
      }
      if (opens >= 0) {
        monitor.accept();
        res.status = opening(st, opens);
        if (!res.status.ok()) break;
        if (tOut - st.t() > events::kEventTime) --i;  // the same grid point again, from the opening
        continue;
      }
      monitor.accept();
      if (i % 32 == 0 && cancelled(st.t())) {
        if (!stored(i)) record(st.t(), st.q(), st.qd(), st.qdd(), true);  // where it stopped
        break;
      }
    }
    res.evaluations = st.evaluations;
    auto* trap = dynamic_cast<TrapezoidalStepper*>(&st);
    res.tangents = trap ? trap->allTangents() : st.tangents;
  } else {
    GlobalOde ode(nm, inertia, spec.formulation == Formulation::PenaltyGlobal);
    integ::State s;
    RungeKuttaState st(ode, s);
    res.status = st.start(0, q, qd);
    if (!res.status.ok()) return;
    record(0, s.x, s.v, s.a, true);
    if (observer) res.status = observer->start(s, z);
    if (res.status.ok()) res.status = startEvents(st);
    integ::State from;
    // terms taken at the steps' points: steps at most dt long (as Matrix R's)
    double maxStep = spec.maxStep;
    if (maxStep == 0 && spec.mechanism && sampledCosts(*spec.mechanism)) maxStep = spec.dt;
    // integral costs: quadratures over the steps' stages (a step cut at an event: the
    // trapezoidal rule over its rows up to the event)
    const bool quadrature = rows.integralCosts() && nm.nq > 0;
    std::array<integ::State, 4> stages;
    const double heldStep = 2 / events::restingOmega(m);
    integ::DormandPrince rk(nm.nq, integ::RungeKuttaOptions{spec.tol, spec.tol * 1e-2, maxStep});
    const double rowDt = spec.outputDt > 0 ? spec.outputDt : spec.dt;
    const long rowCount = static_cast<long>(std::ceil(spec.tEnd / rowDt - 1e-9));
    long nextRow = 1;
    Eigen::VectorXd xRow, vRow, aRow, zAt, zdAt, gRate;
    const Eigen::VectorXd noAcceleration = Eigen::VectorXd::Zero(nm.nq);
    // the gaps on the step's dense output (the tree's coordinates continued from the step's start)
    Eigen::VectorXd zStart;
    const std::function<bool(double, Eigen::VectorXd&)> gapsAt = [&](double tau, Eigen::VectorXd& g) {
      rk.interpolate(tau, xRow, vRow);
      zAt = zStart;
      Eigen::VectorXd zddAt;
      dyn::treeStateOf(model.tree, nm, xRow, vRow, noAcceleration, zAt, zdAt, zddAt);
      events::contactGaps(model.tree, zAt, zdAt, g, gRate);
      return true;
    };
    std::vector<int> closing;
    while (res.status.ok() && !stopped && nextRow <= rowCount) {
      zStart = z;
      from = s;
      rk.setStepLimit(resting.any() ? heldStep : 0.0);  // (as Matrix R's: the held gaps' stabilisation)
      res.status = rk.step(ode, s, spec.tEnd);
      if (!res.status.ok()) break;
      if (quadrature || observer)
        for (int i = 0; i < 4; ++i) rk.stageState(3 + i, stages[static_cast<std::size_t>(i)]);
      // a contact that closed inside the step: located on its dense output, the step cut there
      bool impact = false;
      double tEvent = s.t;
      if (monitor.active()) {
        mapped(s.x, s.v, s.a);
        res.status = monitor.closesWithin(s.t, z, zd, gapsAt, events::kEventTime, impact, tEvent, closing);
        if (!res.status.ok()) break;
      }
      // a held contact whose force came to pull inside the step opens where the force falls
      // through zero: the Illinois rule on it along the step's dense output
      int opens = -1;
      if (!impact && resting.any()) {
        mapped(s.x, s.v, s.a);
        res.status = measureHeld(s.t, z, zd);
        const int j = res.status.ok() ? resting.pulling() : -1;
        if (j >= 0) {
          const double tA = from.t, tB = s.t;
          tEvent = tB;
          res.status = events::locateOpening(resting, j, tA, forcesAtAccepted, tB, events::kEventTime, [&](double t) {
            rk.interpolate(t, xRow, vRow);
            tEvent = t;
            mapped(xRow, vRow, noAcceleration);
            return measureHeld(t, z, zd);
          });
          opens = j;
        }
        if (!res.status.ok()) break;
        forcesAtAccepted = resting.forces();
      }
      const double tEnd = impact || opens >= 0 ? tEvent : s.t;
      // the rows the step passed (up to the event), from its dense output
      for (; nextRow <= rowCount && !stopped; ++nextRow) {
        const double tRow = std::min(static_cast<double>(nextRow) * rowDt, spec.tEnd);
        if (tRow > tEnd + 1e-12 * std::max(1.0, tEnd)) break;
        rk.interpolate(tRow, xRow, vRow);
        res.status = ode.acceleration(tRow, xRow, vRow, aRow);
        if (!res.status.ok()) break;
        record(tRow, xRow, vRow, aRow, true, !quadrature || impact || opens >= 0);
      }
      if (!res.status.ok() || stopped) break;
      if (impact || opens >= 0) {
        // the state at the event (an impact, or a held contact letting go), its row just before
        // it, then the event from there
        if (!impact) monitor.accept();
        rk.interpolate(tEvent, xRow, vRow);
        res.status = st.start(tEvent, xRow, vRow);
        if (!res.status.ok()) break;
        if (tEvent > rows.lastRecordedT()) record(s.t, s.x, s.v, s.a, true);
        res.status = impact ? event(st, closing) : opening(st, opens);
        if (!res.status.ok()) break;
        continue;
      }
      monitor.accept();
      // the step's end into the energies' and costs' quadratures, a row or not
      if (quadrature) {
        for (std::size_t i = 0; i < 4; ++i) {
          mapped(stages[i].x, stages[i].v, stages[i].a);
          rows.stageOutputs(static_cast<int>(3 + i), stages[i].t, z, zd, zdd);
        }
        rows.stagesOfNextCosts();
      }
      if (s.t > rows.lastRecordedT()) record(s.t, s.x, s.v, s.a, false, !quadrature);
      if (quadrature) {
        mapped(s.x, s.v, s.a);
        rows.addCosts(s.t, z, zd, zdd);
      }
      if (observer) {
        mapped(s.x, s.v, s.a);
        observer->stages = &stages;
        res.status = observer->step(from, s, z);
        observer->stages = nullptr;
        if (!res.status.ok()) break;
      }
      if (cancelled(s.t)) break;
    }
    res.steps = rk.acceptedSteps;
    res.rejectedSteps = rk.rejectedSteps;
    res.evaluations = ode.evaluations;
  }
  rows.finish(run.start);
}

}  // namespace lw::analysis
