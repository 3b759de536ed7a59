// The Matrix R formulation's run (seed 000) with the trapezoidal rule or RK45: the independent
// coordinates integrated, the dependent ones from the position problems; singular positions
// stepped over, the choice of coordinates changed before it turns singular, contacts located on
// the step's interpolant and their impacts applied (seed 001).
#include <Eigen/Core>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "simulation/simulation_parts.h"
#include "dynamics/inverse_dynamics_derivatives.h"
#include "dynamics/matrix_r_derivatives.h"
#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "events/resting_contact.h"
#include "integrators/integrators.h"

namespace lw::analysis {

using events::ImpactSpeeds;
using events::impactRecord;
using events::impactSpeeds;
using events::kEventTime;
using events::mixedProblem;
using events::startsInside;
using events::switchRecord;

namespace {

// the Matrix R ODE as a second-order system in the independent coordinates. It keeps the state of
// the last accepted step (its anchor): every attempt of a step starts its position problems from
// there, not from what a rejected attempt evaluated last, and a step's end is accepted only as the
// continuation of its start (the same assembly branch).
class MatrixRSystem : public integ::SecondOrderSystem {
 public:
  MatrixRSystem(const dyn::MatrixRModel& m, dyn::MatrixRData& d, const dyn::TreeNumbers<double>& numbers) : m_(m), d_(d), numbers_(numbers) {}
  long evaluations = 0;
  events::RestingContacts* resting = nullptr;  // the contacts held closed, whose forces join the equations
  lw::Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a) override {
    const lw::Status s = evaluateAt(t, x, v);
    if (s.ok()) a = d_.zidd;
    return s;
  }
  /// The data at (t, x, v), with the held contacts' forces.
  lw::Status evaluateAt(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v) {
    ++evaluations;
    dirty_ = true;
    lw::Status s = dyn::evaluate(m_, d_, t, x, v);
    if (s.ok() && resting) s = resting->apply(m_, d_);  // (none held: nothing, and no forces)
    return s;
  }
  /// The data now describe an accepted state: keep it.
  void setAnchor() {
    t_ = d_.t;
    z_ = d_.z;
    zd_ = d_.zd;
    zdd_ = d_.zdd;
    dirty_ = false;
  }
  /// The data back at the anchor (before a new attempt, or for a new choice of coordinates).
  void restoreAnchor() {
    if (!dirty_) return;
    dyn::restoreState(d_, t_, z_, zd_);
    d_.zdd = zdd_;
    dirty_ = false;
  }
  const Eigen::VectorXd& z() const { return z_; }
  const Eigen::VectorXd& zd() const { return zd_; }
  const Eigen::VectorXd& zdd() const { return zdd_; }
  void beginStep(const integ::State& s) override {
    if (s.t == t_) restoreAnchor();
  }
  /// Told of each Dormand–Prince stage evaluated (3–7): the run's quadratures read the data there.
  std::function<void(int)> onStage;
  void stageEvaluated(int stage) override {
    if (onStage) onStage(stage);
  }
  /// f_x, f_v at the last evaluation by the derivative kernels (MatrixRTangent::stateJacobians:
  /// τ's derivatives, the loops' rates and the multipliers' turn), not with held contacts (their
  /// forces are not the kernels').
  bool jacobians(Eigen::MatrixXd& Fx, Eigen::MatrixXd& Fv) override {
    if (!d_.evaluated || d_.dofs.empty() || (resting && resting->any())) return false;
    const dyn::MatrixROn<double> e{d_.z, d_.zd, d_.zdd, d_.zidd, d_.R, d_.Mbar};
    if (!tangent_.at(m_, numbers_, d_.dofs, d_.t, e, &d_).ok() || !tangent_.stateJacobiansCover()) return false;
    motion_.compute(m_.tree, numbers_, d_.z.data(), d_.zd.data(), d_.zdd.data(), d_.t);
    if (!tangent_.stateJacobians(numbers_, motion_, parts_)) return false;
    Fx = parts_.fx;
    Fv = parts_.fv;
    return true;
  }
  // A change of branch shows in the dependent velocities: along the branch ż is smooth and the
  // trapezoidal rule ż₁ ≈ ż₀ + h(z̈₀ + z̈₁)/2 holds to O(h³); on another branch ż differs by the
  // order of ż itself however short the step (at a bifurcation the branches' tangents differ).
  // The positions likewise, for a branch change at rest.
  lw::Status acceptStep(const integ::State& from, const integ::State& to) override {
    if (from.t != t_ || d_.z.size() == 0) return {};
    const double h = to.t - from.t;
    const double vScale = std::max(zd_.cwiseAbs().maxCoeff(), d_.zd.cwiseAbs().maxCoeff());
    const double aScale = std::max(zdd_.cwiseAbs().maxCoeff(), d_.zdd.cwiseAbs().maxCoeff());
    double dv = 0, dz = 0;
    for (Eigen::Index k = 0; k < d_.z.size(); ++k) {
      dv = std::max(dv, std::abs(d_.zd[k] - zd_[k] - 0.5 * h * (zdd_[k] + d_.zdd[k])));
      dz = std::max(dz, std::abs(d_.z[k] - z_[k] - 0.5 * h * (zd_[k] + d_.zd[k])));
    }
    const double allowV = 0.1 * (vScale + h * aScale) + 1e-12;
    const double allowZ = 0.1 * h * (vScale + h * aScale) + 1e-9 * std::max(1.0, m_.lengthScale);
    if (dv <= allowV && dz <= allowZ) return {};
    return lw::failure(lw::Status::Code::LeftBranch, to.t,
                        "the motion left its assembly branch between t = " + lw::shortNumber(from.t) + " and " + lw::shortNumber(to.t) +
                            " s (the dependent velocities jumped by " + lw::shortNumber(dv) + "): a singular position the step could not pass");
  }

 private:
  const dyn::MatrixRModel& m_;
  dyn::MatrixRData& d_;
  const dyn::TreeNumbers<double>& numbers_;  // the run's (its switch states)
  dyn::MatrixRTangent tangent_;
  dyn::MotionAtState motion_;
  dyn::MatrixRTangent::StateJacobians parts_;
  double t_ = -1;
  Eigen::VectorXd z_, zd_, zdd_;
  bool dirty_ = true;
};

// Where the loops turn singular for every choice of coordinates (a flat parallelogram), the
// position and velocity problems lose accuracy as 1/rcond and the accelerations as 1/rcond²: no
// evaluation may land there. Θ_z's reciprocal condition falls linearly towards such a point;
// from its last two values at step ends, the distance in time to where it would reach zero.
struct SingularAhead {
  double t0 = 0, rc0 = 0, t1 = 0, rc1 = 0;
  int samples = 0;
  void add(double t, double rc) {
    t0 = t1;
    rc0 = rc1;
    t1 = t;
    rc1 = rc;
    ++samples;
  }
  /// Time from the last sample to the predicted singular point, or infinity.
  double distance() const {
    if (samples < 2 || rc1 > 1e-3 || rc0 <= rc1 || t1 <= t0) return std::numeric_limits<double>::infinity();
    return rc1 * (t1 - t0) / (rc0 - rc1);
  }
  /// How fast the condition falls (per second), when it does.
  double slope() const { return samples < 2 || t1 <= t0 ? 0.0 : std::max(0.0, (rc0 - rc1) / (t1 - t0)); }
};

}  // namespace

void runMatrixR(RunContext& run) {
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
  const bool atTimes = run.atTimes;
  const double tEndRun = run.tEndRun;
  const long outputs = run.outputs, every = run.every;
  integ::State s{0.0, data.zi, data.zid, data.zidd};
  StepObserver* observer = spec.observer;
  if (observer) {
    res.status = observer->start(model, data.dofs, s, data.z);
    if (!res.status.ok()) return;
  }
  std::vector<integ::State> pieceEnds;  // an accepted step's pieces, for the observer
  Eigen::VectorXd zAccepted, zdAccepted, zddAccepted, update;
  MatrixRSystem sys(model, data, numbers);
  const int n = static_cast<int>(data.dofs.size());
  // a differentiated run converges its steps to round-off: its derivatives linearise the
  // recorded states, and a stiff force (a tyre) amplifies what a looser tolerance leaves
  integ::TrapezoidalOptions trapOptions;
  if (observer) trapOptions.tolerance = 1e-13;
  integ::Trapezoidal trap(n, trapOptions);
  // the tangents an integrator built (exact or by differences), before it is replaced
  auto countTangents = [&] {
    res.tangents += trap.jacobians();
    res.exactTangents += trap.exactJacobians();
  };
  double maxStep = spec.maxStep;
  if (maxStep == 0 && spec.mechanism && sampledCosts(*spec.mechanism)) maxStep = spec.dt;
  // a driven mechanism has nothing to integrate: its steps are position problems from the last
  // state, which must be near (one step to the end fails to converge), and the drivers' work is a
  // quadrature over them. At most one row interval each.
  if (n == 0 && spec.dt > 0) maxStep = maxStep > 0 ? std::min(maxStep, spec.dt) : spec.dt;
  integ::DormandPrince rk(n, integ::RungeKuttaOptions{spec.tol, spec.tol * 1e-2, maxStep});
  const bool trapezoidal = spec.integrator == Integrator::Trapezoidal;
  // RK45's integral costs and works are quadratures beside the state: its stages' outputs and
  // powers, each step's
  if (!trapezoidal && n > 0) rows.integratePowersByStages();
  const bool quadrature = !trapezoidal && n > 0 && rows.stageQuadratures();
  if (quadrature) sys.onStage = [&](int stage) { rows.stageOutputs(stage, data.t, data.z, data.zd, data.zdd); };
  // an accepted step's pieces: their ends and RK45's stages for the observer, their stages'
  // outputs for the costs
  std::vector<std::array<integ::State, 4>> pieceStages;
  auto clearPieces = [&] {
    pieceEnds.clear();
    pieceStages.clear();
    if (quadrature) rows.dropSteps();
  };
  auto acceptedPiece = [&] {
    if (observer) {
      pieceEnds.push_back(s);
      if (!trapezoidal && n > 0) {
        pieceStages.emplace_back();
        for (int i = 0; i < 4; ++i) rk.stageState(3 + i, pieceStages.back()[static_cast<std::size_t>(i)]);
      }
    }
    if (quadrature) rows.keepStep(rk.stepStart());
  };
  rows.record(0, data.z, data.zd, data.zdd, true);
  if (rows.nonFinite()) return;
  rows.addCosts(0, data.z, data.zd, data.zdd);
  sys.setAnchor();
  // the rows: at k·rowDt up to tFinal (the trapezoidal rule's rows are every `every` steps, the
  // adaptive rule's at --output-dt, or --dt when not given, from its dense output)
  const double tFinal = atTimes ? tEndRun : trapezoidal ? static_cast<double>(outputs) * spec.dt : spec.tEnd;
  const double rowDt = trapezoidal ? static_cast<double>(every) * spec.dt : (spec.outputDt > 0 ? spec.outputDt : spec.dt);
  const double tTiny = 1e-9 * std::max(1e-3, spec.dt);
  const long rowCount = atTimes ? static_cast<long>(spec.times.size()) : static_cast<long>(std::ceil(tFinal / rowDt - 1e-9));
  long nextRow = 1;
  auto rowTime = [&](long k) {
    return atTimes ? spec.times[static_cast<std::size_t>(k - 1)] : std::min(static_cast<double>(k) * rowDt, tFinal);
  };
  // the choice of independent coordinates changes when Θ_z's condition falls below this
  constexpr double kSwitchBelow = 1e-7;
  double switchBelow = kSwitchBelow;
  std::vector<dyn::Dof> previousDofs;
  SingularAhead singular;
  singular.add(0, data.rcond);
  double rcondStart = data.rcond;  // Θ_z's at the accepted state, in the current coordinates
  // RK45 near a singular point: the step allowed away from it; the last forced step failed; forced
  // steps failed since the last that passed
  double hFar = 0;
  bool forcedFailed = false;
  int forcedFailures = 0;
  // the loops' own rows at the last accepted state far better conditioned than Θ_z (σ_min/σ_max
  // of Φ_z's rows over a hundred times Θ_z's rcond): a singular point ahead is the choice's
  std::unique_ptr<dyn::RecursiveData> loopsData;
  Eigen::MatrixXd loopsJ;
  auto loopsFarFromSingular = [&](double t) {
    if (model.rows.empty()) return false;
    if (!loopsData) loopsData = std::make_unique<dyn::RecursiveData>();
    dyn::loopJacobian(model.tree, *loopsData, sys.z(), t, loopsJ);
    Eigen::MatrixXd rowsJ(static_cast<Eigen::Index>(model.rows.size()), loopsJ.cols());
    for (std::size_t i = 0; i < model.rows.size(); ++i) rowsJ.row(static_cast<Eigen::Index>(i)) = loopsJ.row(model.rows[i]);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(rowsJ);
    const Eigen::VectorXd& sv = svd.singularValues();
    return sv.size() > 0 && sv[sv.size() - 1] > 100 * rcondStart * sv[0];
  };
  integ::State saved;           // the accepted state of a step, kept for a retry (buffers reused)
  Eigen::VectorXd xRow, vRow;
  // the prediction missed (Θ_z's condition estimate is not smooth): an end whose condition fell
  // tenfold in the step lies within a tenth of the step from the singular point
  auto endNextToSingular = [&] { return data.rcond < 0.1 * rcondStart && data.rcond < 1e-6; };
  // the contacts at rest, held closed by their forces (events/resting_contact.h), and those
  // forces at the last accepted state (where one that pulls at a step's end began to)
  events::RestingContacts resting(model.tree, events::restingOmega(m), &monitor);
  sys.resting = &resting;
  if (observer) observer->held = &resting.held();
  Eigen::VectorXd forcesAtAnchor;
  // an impact at s: the velocities jump (events/impact_law.h), the integrators start again from
  // the state after it, and the table gets the row just after beside the one just before
  // after an event at s (the state `before` it): the observer told, the trapezoidal rule's predictor
  // and tangent dropped (they belong to the motion before it), the contacts watched from s
  auto startAfter = [&](const integ::State& before, const std::vector<int>& closing) -> lw::Status {
    if (observer)
      if (lw::Status e = observer->impact(data.dofs, before, s, closing, data.z); !e.ok()) return e;
    countTangents();
    trap = integ::Trapezoidal(static_cast<int>(data.dofs.size()), trapOptions);
    monitor.start(s.t, data.z, data.zd);
    return {};
  };
  auto applyImpact = [&](const std::vector<int>& crossing) -> lw::Status {
    // the switches among them wait until their coordinates come back
    if (lw::Status e = monitor.fired(crossing, s.t); !e.ok()) return e;
    if (lw::Status e = sys.acceleration(s.t, s.x, s.v, s.a); !e.ok()) return e;
    const integ::State before = s;
    std::vector<int> closing = crossing;
    if (lw::Status e = switchesFirst(model, numbers, sources, s.t, data.z, data.zd, observer != nullptr, closing, res.events); !e.ok()) return e;
    if (events::applySwitches(model.tree, sources, closing, numbers)) {
      // the equations of motion switch: the same state, other accelerations (seed 001 Theorem 4)
      const Eigen::VectorXd zdBefore = data.zd;
      if (lw::Status e = sys.acceleration(s.t, s.x, s.v, s.a); !e.ok()) return e;
      sys.setAnchor();
      rows.logEvent(switchRecord(model.tree, sources, s.t, closing, data.z, zdBefore, dyn::energy(model.tree, data.z, data.zd).total()), data.z,
                    data.zd, data.zdd, !atTimes);
      return startAfter(before, closing);
    }
    const double eBefore = dyn::energy(model.tree, data.z, data.zd).total();
    events::ImpactOn<double> imp;
    if (lw::Status e = events::impactOn<double>(model, numbers, data.dofs, s.t, s.x, s.v, data.z, closing, imp); !e.ok())
      return e;
    s.v = imp.zidPlus;
    if (lw::Status e = sys.acceleration(s.t, s.x, s.v, s.a); !e.ok()) return e;
    // those that leave too slowly to fly again (their bounces would accumulate: Zeno) come to
    // rest: the impact again with e = 0 for them, and their gaps held closed from here on (before
    // their bounces graze: ImpactSpeeds; a differentiated run the same as a plain one)
    std::vector<int> comingToRest =
        events::comingToRest(model.tree, closing, imp, data.z, data.zd, data.zdd, 1e-4 * spec.dt, speeds.resting);
    while (!comingToRest.empty()) {
      if (lw::Status e = events::impactOn<double>(model, numbers, data.dofs, s.t, before.x, before.v, data.z, closing, imp, comingToRest);
          !e.ok())
        return e;
      s.v = imp.zidPlus;
      std::vector<int> held = comingToRest;
      if (lw::Status e = resting.holdAll(held, [&] { return sys.acceleration(s.t, s.x, s.v, s.a); }); !e.ok()) return e;
      if (held.size() == comingToRest.size()) break;
      // one whose force pulls at once leaves: its impact is its own law's, not a plastic one (the
      // gaps held are exactly those closed with e = 0)
      for (int j : held) resting.release(j);
      comingToRest = std::move(held);
      if (comingToRest.empty()) {
        if (lw::Status e = events::impactOn<double>(model, numbers, data.dofs, s.t, before.x, before.v, data.z, closing, imp); !e.ok()) return e;
        s.v = imp.zidPlus;
        if (lw::Status e = sys.acceleration(s.t, s.x, s.v, s.a); !e.ok()) return e;
      }
    }
    sys.setAnchor();
    forcesAtAnchor = resting.forces();
    // rows at given times: those only
    events::EventRecord record = impactRecord(sources, s.t, closing, imp, eBefore, dyn::energy(model.tree, data.z, data.zd).total(), speeds);
    if (!comingToRest.empty()) record.kind = "closes";
    rows.logEvent(std::move(record), data.z, data.zd, data.zdd, !atTimes);
    return startAfter(before, closing);
  };
  // a held contact whose force would pull opens at s: no jump, the accelerations without it
  auto applyOpening = [&](int j) -> lw::Status {
    resting.release(j);
    if (lw::Status e = sys.acceleration(s.t, s.x, s.v, s.a); !e.ok()) return e;
    sys.setAnchor();
    forcesAtAnchor = resting.forces();
    rows.logEvent(events::openingRecord(model.tree, sources, s.t, j, data.z, data.zd, dyn::energy(model.tree, data.z, data.zd).total()), data.z,
                  data.zd, data.zdd, !atTimes);
    if (observer)  // the same coordinates, one gap fewer held
      if (lw::Status e = observer->switched(data.dofs, data.dofs, s, data.z); !e.ok()) return e;
    countTangents();
    trap = integ::Trapezoidal(static_cast<int>(data.dofs.size()), trapOptions);
    monitor.start(s.t, data.z, data.zd);
    return {};
  };
  {
    std::vector<int> closing;
    monitor.start(0, data.z, data.zd, &closing);
    if (auto problem = startsInside(m, sources, monitor.gaps()); !problem.empty()) {
      res.status = lw::failure(lw::Status::Code::BadRequest, 0, problem);
      return;
    }
    if (!closing.empty()) res.status = applyImpact(closing);
  }
  Eigen::VectorXd aRow;
  std::vector<int> closing;
  // the gaps on the last step's interpolant (an evaluation each)
  const std::function<bool(double, Eigen::VectorXd&)> noInterpolant;
  const std::function<bool(double, Eigen::VectorXd&)> gapsAt = [&](double tau, Eigen::VectorXd& g) {
    if (trapezoidal) trap.interpolate(tau, xRow, vRow);
    else rk.interpolate(tau, xRow, vRow);
    if (!sys.acceleration(tau, xRow, vRow, aRow).ok()) return false;
    Eigen::VectorXd rate;
    events::contactGaps(model.tree, data.z, data.zd, g, rate);
    return true;
  };
  // a contact held at rest: its gap's stabilisation g̈ = −2ω ġ − ω² g has nothing for RK45's
  // error to see there (the gap is zero), and is stable for steps up to ≈ 3/ω only (a longer
  // one amplifies round-off and the sensitivities' gap terms)
  const double heldStep = 2 / events::restingOmega(m);
  while (res.status.ok() && s.t < tFinal - tTiny) {
    saved = s;
    rk.setStepLimit(resting.any() ? heldStep : 0.0);
    auto restart = [&] {  // the last accepted state, in the current coordinates
      sys.restoreAnchor();
      s = saved;
    };
    // the next step
    bool rechosen = false;
    bool nearSingular = false;  // this step is taken again at half its length
    double halfStep = 0;
    int pieces = 1;
    for (;;) {
      if (trapezoidal) {
        // to the next point of the grid k·dt, not a sliver short of it; a singular point ahead
        // is stepped over with both ends half a step from it
        const double h = spec.dt;
        double target = std::ceil((s.t + tTiny) / h) * h;
        if (target - s.t < 0.25 * h) target += h;
        target = std::min(target, tFinal);
        // both ends at least `margin` from it: half a step, or as far as Θ_z's condition needs to
        // come back above 1e-6 (the evaluations' errors grow as 1/rcond²), up to two steps (a
        // longer crossing step costs more in truncation than it saves)
        const double d = singular.distance();
        const double margin = std::clamp(1e-6 / singular.slope(), 0.5 * h, 2 * h);
        if (d < target - s.t + margin) target = s.t + (d - margin >= 0.25 * h ? d - margin : d + margin);
        if (target > tFinal - 0.25 * h) target = tFinal;
        if (nearSingular) target = s.t + 0.5 * (target - s.t);
        pieceEnds.clear();
        for (int p = 1; p <= pieces; ++p) {
          res.status = trap.step(sys, s, saved.t + (target - saved.t) * p / pieces - s.t);
          if (!res.status.ok()) break;
          if (observer) pieceEnds.push_back(s);
        }
        // an end next to the singular point: the step is taken again at half its length (its end
        // then at least 0.4 of it away)
        if (res.status.ok() && !nearSingular && endNextToSingular()) {
          nearSingular = true;
          restart();
          continue;
        }
      } else {
        // a singular point ahead is crossed by one step that puts it between the stages at 0.3
        // and 0.8 of the step, as long as the tolerance allows (hFar: the step proposed before
        // the point came near; the error control proposes shorter ones as the evaluations lose
        // accuracy near it, and would creep towards it for ever). Further away, a step brings it
        // within reach. A forced step that fails comes half-way closer; a few failures in a row
        // end the run with the reason.
        double tryStep = nearSingular ? halfStep : 0;
        const double d = singular.distance();
        const double proposed = rk.proposedStep();
        if (!std::isfinite(d)) hFar = 0;
        else if (hFar == 0 && proposed > 0 && d < 20 * proposed) hFar = proposed;
        const double reach = std::max(hFar, proposed);
        if (proposed > 0 && std::isfinite(d) && !nearSingular) {
          if (forcedFailed) tryStep = 0.5 * d;
          else if (d <= 0.55 * reach) tryStep = d / 0.55;
          else if (d < 3 * reach && proposed < 0.5 * reach) tryStep = d - 0.55 * reach;
        }
        res.status = rk.step(sys, s, tFinal, tryStep);
        clearPieces();
        if (res.status.ok()) acceptedPiece();
        // a second forced step rejected: the point ahead may be the choice's, not the loops' (the
        // RSSR's: Θ_z's condition falls through 3e-4 linearly while the loops' own rows stay well
        // conditioned): the coordinates chosen again at the last good state, below, before any
        // more crossings are forced
        const bool anotherChoice = res.status.code == lw::Status::Code::Rejected && forcedFailures >= 1 && !rechosen && !model.userDofs &&
                                   loopsFarFromSingular(saved.t);
        if (anotherChoice) ++forcedFailures;
        if (res.status.code == lw::Status::Code::Rejected && !anotherChoice) {
          if (++forcedFailures > 6) {
            res.status = lw::failure(lw::Status::Code::NotConverged, s.t,
                                      "RK45 cannot pass the singular position at t ≈ " + lw::shortNumber(s.t + (std::isfinite(d) ? d : 0.0)) + " s to the tolerance " +
                                          lw::shortNumber(spec.tol) + " (the loops' condition number there exceeds " +
                                          lw::shortNumber(1 / singular.rc1) + " and the accelerations lose their accuracy): loosen --tol, or use the trapezoidal rule");
            restart();
            break;
          }
          forcedFailed = !forcedFailed;
          restart();
          continue;
        }
        if (res.status.ok()) {
          forcedFailed = false;
          if (tryStep > 0) forcedFailures = 0;
          // as for the trapezoidal rule: an end that landed next to the singular point is taken
          // again with a step of half the length
          if (!nearSingular && endNextToSingular()) {
            nearSingular = true;
            halfStep = 0.5 * (s.t - saved.t);
            restart();
            continue;
          }
        }
      }
      if (res.status.ok()) break;
      restart();
      if (!rechosen && !model.userDofs) {
        // a singular choice of independent coordinates: choose again at the last good state
        rechosen = true;
        previousDofs = data.dofs;
        dyn::chooseDofs(model, data);
        saved.x = data.zi;
        saved.v = data.zid;
        ++res.dofSwitches;
        countTangents();
        trap = integ::Trapezoidal(static_cast<int>(data.dofs.size()), trapOptions);  // the run's tolerance kept
      } else if (trapezoidal && pieces < 16) {
        pieces *= 2;
      } else {
        break;
      }
      // the evaluation at the restored state in the (new) coordinates
      const lw::Status e = sys.evaluateAt(saved.t, saved.x, saved.v);
      if (!e.ok()) {
        res.status = e;
        break;
      }
      saved.a = data.zidd;
      s = saved;
      sys.setAnchor();
      rcondStart = data.rcond;
      if (rechosen && data.dofs != previousDofs) {
        // another choice: its own condition, its own prediction
        singular = SingularAhead{};
        singular.add(saved.t, data.rcond);
        hFar = 0;
        forcedFailed = false;
        forcedFailures = 0;
        if (observer) {
          res.status = observer->switched(previousDofs, data.dofs, saved, data.z);
          if (!res.status.ok()) break;
        }
      }
    }
    if (!res.status.ok()) break;
    // the accepted state's dependent coordinates: the trapezoidal rule accepts its last Newton
    // update without evaluating it, and R^Φ of the last evaluation carries that update to first
    // order (rows and costs of the accepted state, not of the iterate before it; RK45 ends on an
    // evaluation, where the update is zero)
    auto carry = [&](const Eigen::VectorXd& dependent, const Eigen::VectorXd& accepted, const Eigen::VectorXd& evaluated, Eigen::VectorXd& out) {
      update = accepted - evaluated;  // sized once: no allocation per step
      out = dependent;
      out.noalias() += data.R * update;
    };
    auto carryEnd = [&] {
      carry(data.z, s.x, data.zi, zAccepted);
      carry(data.zd, s.v, data.zid, zdAccepted);
      carry(data.zdd, s.a, data.zidd, zddAccepted);
    };
    carryEnd();
    // a contact that closed inside the step: its time located on the step's interpolant, the
    // step taken again to there, and its length corrected by Newton's method on the gap at its
    // end, so that the step ends on the contact (seed 001 Remark 7)
    // the step taken again from its start to tEvent (a contact that closes, a held one that opens)
    auto stepAgainTo = [&](double tEvent) -> lw::Status {
      restart();
      clearPieces();
      if (tEvent <= s.t + kEventTime) return {};  // at the step's start: the state there
      lw::Status st;
      if (trapezoidal) {
        st = trap.step(sys, s, tEvent - s.t);
        if (st.ok() && observer) pieceEnds.push_back(s);
      } else {
        st = rk.step(sys, s, tEvent, tEvent - s.t);
        if (st.ok()) acceptedPiece();
        while (st.code == lw::Status::Code::Rejected || (st.ok() && s.t < tEvent - kEventTime)) {
          st = rk.step(sys, s, tEvent);  // the error control's own steps up to the event
          if (st.ok()) acceptedPiece();
        }
      }
      return st;
    };
    bool impact = false;
    if (monitor.active()) {
      double tEvent = 0;
      const double tEnd = s.t;
      // RK45: on its dense output (fourth order: the retaken step then lands within the
      // tolerance); the trapezoidal rule's own polynomial is second order, no better a start than
      // the gaps' cubic, which costs nothing
      res.status = monitor.closesWithin(s.t, zAccepted, zdAccepted, trapezoidal ? noInterpolant : gapsAt, kEventTime, impact, tEvent, closing);
      for (int retake = 0; impact && res.status.ok() && tEvent < tEnd - kEventTime && retake < 6; ++retake) {
        res.status = stepAgainTo(tEvent);
        if (!res.status.ok()) break;
        carryEnd();
        Eigen::VectorXd g, rate;
        events::contactGaps(model.tree, zAccepted, zdAccepted, g, rate);
        const int j = closing[0];
        const double correction = rate[j] < 0 ? -g[j] / rate[j] : 0.0;
        if (std::abs(correction) <= kEventTime) break;
        tEvent = std::clamp(tEvent + correction, saved.t + 0.5 * (tEvent - saved.t), tEnd);
      }
      if (!res.status.ok()) {
        restart();
        break;
      }
    }
    // a held contact whose force came to pull inside the step opens where the force falls through
    // zero: located by the Illinois rule on λ between the step's ends, the step taken again to there
    int opening = -1;
    if (!impact && resting.any()) {
      res.status = sys.evaluateAt(s.t, s.x, s.v);
      const int j = res.status.ok() ? resting.pulling() : -1;
      if (j >= 0) {
        res.status = events::locateOpening(resting, j, saved.t, forcesAtAnchor, s.t, kEventTime, [&](double t) {
          lw::Status st = stepAgainTo(t);
          return st.ok() ? sys.evaluateAt(s.t, s.x, s.v) : st;
        });
        if (!res.status.ok()) {
          restart();
          break;
        }
        opening = j;
      }
      carryEnd();
      forcesAtAnchor = resting.forces();
    }
    ++res.steps;
    sys.setAnchor();
    if (observer) {
      const integ::State* from = &saved;
      for (std::size_t i = 0; i < pieceEnds.size(); ++i) {
        observer->stages = i < pieceStages.size() ? &pieceStages[i] : nullptr;
        res.status = observer->step(data.dofs, *from, pieceEnds[i], data.z);
        observer->stages = nullptr;
        if (!res.status.ok()) break;
        from = &pieceEnds[i];
      }
      if (!res.status.ok()) break;
    }
    if (!data.z.allFinite() || !data.zd.allFinite()) {
      res.status = lw::failure(lw::Status::Code::NotConverged, s.t, "the simulation diverged at t = " + lw::shortNumber(s.t) + " (non-finite state)");
      break;
    }
    const double rcondEnd = data.rcond;
    rcondStart = rcondEnd;
    singular.add(s.t, rcondEnd);
    // the rows inside the step, from the step's interpolant (an evaluation each), then its end
    if (quadrature) rows.worksOverSteps();
    for (; nextRow <= rowCount && rowTime(nextRow) < s.t - tTiny; ++nextRow) {
      const double tau = rowTime(nextRow);
      if (trapezoidal) trap.interpolate(tau, xRow, vRow);
      else rk.interpolate(tau, xRow, vRow);
      const lw::Status e = sys.acceleration(tau, xRow, vRow, data.zidd);
      if (!e.ok()) {
        res.status = e;
        break;
      }
      rows.record(tau, data.z, data.zd, data.zdd, true);
      if (rows.nonFinite()) break;
    }
    if (!res.status.ok()) break;
    const bool storeEnd = nextRow <= rowCount && std::abs(rowTime(nextRow) - s.t) <= tTiny;
    if (storeEnd) ++nextRow;
    rows.record(s.t, zAccepted, zdAccepted, zddAccepted, storeEnd || (impact && !atTimes));
    if (rows.nonFinite()) break;
    if (quadrature) rows.addSteps();
    else rows.addCosts(s.t, zAccepted, zdAccepted, zddAccepted);
    sys.restoreAnchor();
    if (impact) {
      res.status = applyImpact(closing);
      if (!res.status.ok()) break;
    } else if (opening >= 0) {
      monitor.accept();
      res.status = applyOpening(opening);
      if (!res.status.ok()) break;
    } else {
      monitor.accept();
    }
    // watch the conditioning of the choice: change it before it becomes singular. Where the
    // loops themselves approach a singular position (the grids' flat parallelograms, predicted
    // within ten steps) no choice is better conditioned: the choice is kept through it. Otherwise
    // the next change waits until this one has lost another factor of ten, not one change per
    // step (each costs a QR and the integrator's tangent)
    const double lastStep = s.t - saved.t;
    if (!model.userDofs && rcondEnd < switchBelow && !(singular.distance() < 10 * lastStep)) {
      // the dependent state of the accepted step exactly (the trapezoidal rule accepts its last
      // Newton update without evaluating it: its velocities would be (2/h)·update off)
      res.status = sys.acceleration(s.t, s.x, s.v, s.a);
      if (!res.status.ok()) break;
      sys.setAnchor();
      previousDofs = data.dofs;
      dyn::chooseDofs(model, data);
      if (data.dofs != previousDofs) {
        s = {s.t, data.zi, data.zid, s.a};
        res.status = sys.evaluateAt(s.t, s.x, s.v);
        if (!res.status.ok()) break;
        s.a = data.zidd;
        sys.setAnchor();
        if (observer) {
          res.status = observer->switched(previousDofs, data.dofs, s, data.z);
          if (!res.status.ok()) break;
        }
        singular = SingularAhead{};  // the condition of another choice: a new prediction
        singular.add(s.t, data.rcond);
        rcondStart = data.rcond;
        ++res.dofSwitches;
        countTangents();
        // a tangent near −I (short steps) is near −I in the new coordinates too: no new one
        // unless the iteration asks for it
        integ::TrapezoidalOptions options = trapOptions;  // the run's tolerance kept
        options.startWithMinusIdentity = trap.nearMinusIdentity();
        trap = integ::Trapezoidal(static_cast<int>(data.dofs.size()), options);
      }
      switchBelow = std::min(kSwitchBelow, 0.1 * rcondEnd);
    } else if (rcondEnd > 10 * kSwitchBelow) {
      switchBelow = kSwitchBelow;
    }
    if (progress && res.steps % 32 == 0) progress(s.t / tFinal);
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      res.status = lw::failure(lw::Status::Code::Cancelled, s.t, "cancelled at t = " + lw::shortNumber(s.t));
      if (!storeEnd) rows.record(s.t, zAccepted, zdAccepted, zddAccepted, true);  // where it stopped
      break;
    }
  }
  // a failed step: the last accepted state is the last row, whatever the output interval
  if (!res.status.ok() && !rows.nonFinite() && res.status.code != lw::Status::Code::Cancelled && saved.t > rows.lastStoredT() && sys.z().allFinite() &&
      sys.zd().allFinite())
    rows.record(saved.t, sys.z(), sys.zd(), sys.zdd(), true);
  if (progress && res.status.ok()) progress(1.0);
  res.evaluations = sys.evaluations;
  res.rejectedSteps = trapezoidal ? 0 : rk.rejectedSteps;
  countTangents();
  rows.finish(run.start);
}

}  // namespace lw::analysis
