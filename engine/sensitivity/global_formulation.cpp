#include "sensitivity/global_formulation.h"

#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cmath>

#include "dynamics/matrix_r.h"
#include "dynamics/natural_dynamics.h"
#include "dynamics/natural_tree_map.h"
#include "numeric/dual_eigen.h"
#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "events/resting_contact.h"
#include "sensitivity/formulation_numbers.h"
#include "sensitivity/impact_jump.h"
#include "sensitivity/ode_steps.h"

namespace lw::sens::detail {
namespace {

// the natural model of one set of numbers (the nominal, or one moved by δ) and what its
// accelerations and outputs are evaluated with; it stays where it is made (references inside)
struct NaturalSystem {
  std::shared_ptr<const ResolvedMechanism> resolved;  // a moved set's (the nominal: the study's)
  std::unique_ptr<dyn::MatrixRModel> ownModel;        // a moved set's tree
  const dyn::MatrixRModel* model = nullptr;
  const dyn::TreeNumbers<double>* numbers = nullptr;  // the force elements' and outputs' (their switch states)
  kin::NaturalModel nm;
  dyn::NaturalInertia inertia;
  std::unique_ptr<dyn::NaturalForceElements> elements;
  dyn::NaturalTreeMap map;
  std::unique_ptr<dyn::GlobalOdeData> data;
  // a moved set whose bodies keep the nominal's shape (a mass, a force, a driver moved): the same
  // natural state is the same tree state, the map need not be taken again
  bool sameShape = false;
};

bool sameShape(const ResolvedMechanism& a, const ResolvedMechanism& b) {
  if (a.bodies.size() != b.bodies.size()) return false;
  for (std::size_t i = 0; i < a.bodies.size(); ++i) {
    const auto &x = a.bodies[i], &y = b.bodies[i];
    if (x.position != y.position || x.rotation != y.rotation || x.points != y.points || x.vectors != y.vectors) return false;
  }
  return true;
}

Status buildSystem(const ResolvedMechanism& r, const dyn::MatrixRModel& model, const dyn::TreeNumbers<double>& numbers, NaturalSystem& s) {
  s.model = &model;
  s.numbers = &numbers;
  s.nm = kin::compileNaturalModel(r, {.linearFrames = true});
  std::string why;
  if (!dyn::naturalInertia(s.nm, s.inertia, why) || !dyn::compileNaturalTreeMap(model.tree, s.nm, s.map, why))
    return failure(Status::Code::BadRequest, 0, why);
  s.elements = std::make_unique<dyn::NaturalForceElements>(model.tree, numbers, s.nm);
  s.inertia.elements = s.elements.get();
  s.data = std::make_unique<dyn::GlobalOdeData>(s.nm);
  return {};
}

class GlobalOde final : public Formulation, public HeldModes, private FormulationNumbers {
 public:
  GlobalOde(const Study& st, GlobalKind kind, bool rungeKutta, Partials partials, double delta)
      : FormulationNumbers(st, partials, delta), penalty_(kind == GlobalKind::Penalty), index3_(kind == GlobalKind::Index3),
        rungeKutta_(rungeKutta && kind != GlobalKind::Index3), kind_(kind), partials_(partials), delta_(delta), adapter_(*this) {
    status_ = buildSystem(st.resolved, st.model, real_.tree, nominal_);
  }

  void observe(PointObserver* o, analysis::SimulationSpec& spec) override {
    adapter_.to = o;
    spec.naturalObserver = &adapter_;
  }
  std::vector<std::string> coordinateNames(int) const override {
    std::vector<std::string> names(static_cast<std::size_t>(nominal_.nm.nq));
    const char* axes[3] = {".x", ".y", ".z"};
    for (const kin::Entity& e : nominal_.nm.entities)
      if (!e.fixed())
        for (int i = 0; i < nominal_.nm.dimension; ++i) names[static_cast<std::size_t>(e.offset + i)] = e.name + axes[i];
    return names;
  }
  void restartSwitches() override { FormulationNumbers::restartSwitches(); }
  void applySwitches(const std::vector<int>& contacts) override { FormulationNumbers::applySwitches(contacts); }

  Status outputValues(const RunPoint& p, Eigen::VectorXd& out) override {
    if (!status_.ok()) return status_;
    return outputsAt(nominal_, p.t, p.x, p.v, p.a, p.aux, out);
  }

  Status partials(const RunPoint& p, bool, PointPartials& n) override {
    Eigen::VectorXd f;
    return partialsAt(p, f, n);
  }

  // the initial state's sensitivities: the assembly's in the tree's coordinates (z₀, ż₀: exact, by
  // forward AD through the tree's kernels, as Matrix R's), mapped to natural coordinates, q₀ =
  // N(z₀, ż₀; ρ): N's state partials by central differences, its parameter partials on the moved
  // sets (no position problem there: differencing the assembly itself would carry its Newton
  // tolerance over δ)
  Status initial(const RunPoint& p0, StateColumns& S) override {
    if (Status s = buildMovedSets(); !s.ok()) return s;
    const auto nz = static_cast<Eigen::Index>(st_.model.tree.nz), n = p0.x.size(), np = static_cast<Eigen::Index>(st_.parameters.size());
    Eigen::MatrixXd Z;  // [dz₀/dρ; dż₀/dρ]
    if (Status s = initialCoordinateColumns(p0.aux, Z, true); !s.ok()) return s;
    Vec<double> z0, zd0;
    if (Status s = dyn::initialCoordinatesOn<double>(st_.model, real_.tree, p0.aux, z0, zd0); !s.ok()) return s;
    const Eigen::VectorXd none = Eigen::VectorXd::Zero(nz);
    auto mapped = [&](const NaturalSystem& sys, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, Eigen::VectorXd& q, Eigen::VectorXd& qd) {
      dyn::naturalStateOf(sys.model->tree, sys.nm, sys.map, z, zd, none, q, qd, nullptr);
    };
    Eigen::VectorXd q0, qd0, qp, qdp;
    mapped(nominal_, z0, zd0, q0, qd0);
    // N's columns by (z, ż) (forward AD through the map, eight a pass), then along the assembly's
    // sensitivities
    Eigen::MatrixXd N(2 * n, 2 * nz);
    const Eigen::VectorXd zz = (Eigen::VectorXd(2 * nz) << z0, zd0).finished();
    for (Eigen::Index first = 0; first < 2 * nz; first += kLanes) {
      Vec<Dual> in = zz.cast<Dual>(), q, qd;
      for (Eigen::Index j = first; j < std::min(2 * nz, first + kLanes); ++j) in[j].g[j - first] = 1;
      dyn::naturalStateOn<Dual>(st_.model.tree, plain_.tree, nominal_.nm, nominal_.map, nullptr, in.head(nz), in.tail(nz), Vec<Dual>::Zero(nz), q, qd,
                                nullptr);
      for (Eigen::Index j = first; j < std::min(2 * nz, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < n; ++i) {
          N(i, j) = q[i].g[j - first];
          N(n + i, j) = qd[i].g[j - first];
        }
    }
    Eigen::MatrixXd X = N * Z;
    if (!semiAnalytical()) {
      // N's parameter partials at (z₀, ż₀) by forward AD: the map on each chunk's numbers
      if (Status s = buildOn(); !s.ok()) return s;
      Vec<Dual> q, qd;
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        dyn::naturalStateOn<Dual>(st_.model.tree, chunks_[c]->tree, nominal_.nm, nominal_.map, &on_[c].k, z0.cast<Dual>(), zd0.cast<Dual>(),
                                  Vec<Dual>::Zero(nz), q, qd, nullptr);
        Vec<Dual> both(2 * n);
        both << q, qd;
        Eigen::MatrixXd P = Eigen::MatrixXd::Zero(2 * n, np);
        lanesInto(c, both, P);
        X += P;
      }
    }
    for (Eigen::Index k = 0; semiAnalytical() && k < np; ++k)
      for (const auto& set : sets_[static_cast<std::size_t>(k)]) {
        mapped(*set, z0, zd0, qp, qdp);
        X.col(k).head(n) += (qp - q0) / deltas_[static_cast<std::size_t>(k)];
        X.col(k).tail(n) += (qdp - qd0) / deltas_[static_cast<std::size_t>(k)];
      }
    S.x = X.topRows(n);
    S.v = X.bottomRows(n);
    return {};
  }

  Status replay(const RunPoint& a, double t1, RunPoint& b) override {
    NaturalSystem& s = nominal_;
    turnsAt(a.aux);
    const double h = t1 - a.t;
    Eigen::VectorXd x1, v1, a1;
    if (index3_) {
      const HeldModel& held = heldModel(a.coords);
      if (!held.ok()) return held.status;
      const kin::NaturalModel& m = held.nm ? *held.nm : s.nm;
      dyn::Index3Data d(m);
      dyn::Index3State st{a.t, a.x, a.v, a.a, Eigen::VectorXd::Zero(m.nrows)};
      if (Status e = dyn::index3Step(m, s.inertia, dyn::Index3Options::roundOff(), h, d, st); !e.ok()) return e;
      x1 = st.q;
      v1 = st.qd;
      a1 = st.qdd;
    } else if (rungeKutta_) {
      if (Status st = rungeKuttaStepWith<double>(
              [&](double t, const Vec<double>& x, const Vec<double>& v, Vec<double>& acc) { return acceleration(s, t, x, v, acc, a.coords); }, a.t, h,
              a.x, a.v, x1, v1);
          !st.ok())
        return st;
      if (Status st = acceleration(s, t1, x1, v1, a1, a.coords); !st.ok()) return st;
    } else if (Status st = trapezoidalStep(a, h, x1, v1, a1); !st.ok()) {
      return st;
    }
    b = {t1, a.coords, x1, v1, a1, treeCoordinates(s, x1, v1, a1, a.aux)};
    return {};
  }

  // the direct method's products: f's partials carry S, the outputs are differenced along S's
  // columns alone (a column of parameters, not one per coordinate: the adjoint's full partials
  // are not needed here)
  bool rungeKuttaQuadrature() const override { return rungeKutta_; }

  Status stepAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong,
                   StageOutputs* stageOutputs) override {
    const double h = b.t - a.t;
    if (index3_) {
      Eigen::MatrixXd T, Tp;
      if (Status s = index3Tangent(a, b, T, Tp); !s.ok()) return s;
      linearAlong(T, Tp, S);
      return outputsAlongColumns(b, b.a, S, outputs, outputsAlong);
    }
    if (rungeKutta_) {
      std::vector<Stage> st;
      if (Status s = stages()(a, h, st, false); !s.ok()) return s;
      std::array<StateColumns, 4> columns;  // at stages 3–6: their outputs along S (the integral costs' quadrature)
      rungeKuttaAlong(h, st, S, nullptr, stageOutputs ? &columns : nullptr);
      if (stageOutputs) {
        for (std::size_t i = 0; i < 4; ++i) {
          const Stage& sg = st[i + 2];
          if (Status s = outputsAlongColumns(RunPoint{sg.t, a.coords, sg.x, sg.v, sg.f, a.aux}, sg.f, columns[i], stageOutputs->outputs[i],
                                             stageOutputs->along[i]);
              !s.ok())
            return s;
        }
        stageOutputs->set = true;
      }
      return pointAlong(b, S, outputs, outputsAlong);
    }
    PointPartials n;
    Eigen::VectorXd f;
    if (Status s = accelerationPartials(b, f, n); !s.ok()) return s;
    trapezoidalAlong(h, n, S);
    return outputsAlongColumns(b, f, S, outputs, outputsAlong);
  }
  Status pointAlong(const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) override {
    PointPartials n;
    Eigen::VectorXd f;
    if (Status s = accelerationPartials(p, f, n); !s.ok()) return s;
    accelerationsFrom(n, S);
    return outputsAlongColumns(p, f, S, outputs, outputsAlong);
  }
  Status linearise(const RunPoint& a, const RunPoint& b, std::unique_ptr<StepTangent>& tangent, PointPartials& atEnd) override {
    if (!index3_) return lineariseByPartials(*this, rungeKutta_, stages(), a, b, tangent, atEnd, st_.costs.hasType(Cost::Type::Integral));
    Eigen::MatrixXd T, Tp;
    if (Status s = index3Tangent(a, b, T, Tp); !s.ok()) return s;
    tangent = linearTangent(std::move(T), std::move(Tp));
    return outputPartials(b, b.a, atEnd);  // the accelerations are the state's: no map at a step's end
  }

  // the impact's jump (impact_jump.h) in natural coordinates: the gap r(q; ρ) and the jump map
  // v⁺ = h(q, v⁻; ρ) are the run's own — q, v⁻ to the tree's state, the recursive impact law there,
  // back to q̇ — their state partials by central differences, their parameter partials on the moved
  // sets; a switch changes no velocity (h the identity, Theorem 4)
  Status jump(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, ImpactJump& J) override {
    if (Status s = buildMovedSets(); !s.ok()) return s;
    const double t = before.t;
    const int c = contacts.front();
    const bool isSwitch = sources_[static_cast<std::size_t>(c)].isSwitch();
    const std::vector<int> plastic = plasticAt(before, after);  // those that come to rest: e = 0
    const auto n = before.x.size(), np = static_cast<Eigen::Index>(st_.parameters.size());
    const Eigen::VectorXd none = Eigen::VectorXd::Zero(n);
    // the independent coordinates of the impact law: chosen once, at the nominal state
    dyn::MatrixRData data(st_.model, &real_.tree);
    data.t = t;
    data.z = before.aux;
    dyn::treeStateOf(st_.model.tree, nominal_.nm, before.x, before.v, none, data.z, data.zd, data.zdd);
    if (Status s = dyn::chooseDofs(st_.model, data); !s.ok()) return s;
    const std::vector<dyn::Dof> dofs = data.dofs;
    auto gapOf = [&](const NaturalSystem& s, const Eigen::VectorXd& q) {
      Eigen::VectorXd z = before.aux, zd, zdd, g, rate;
      dyn::treeStateOf(s.model->tree, s.nm, q, none, none, z, zd, zdd);
      events::contactGaps(s.model->tree, z, zd, g, rate);
      return g[c];
    };
    auto jumpOf = [&](const NaturalSystem& s, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& vPlus) -> Status {
      if (isSwitch) {
        vPlus = v;
        return {};
      }
      Eigen::VectorXd z = before.aux, zd, zdd, qAt;
      dyn::treeStateOf(s.model->tree, s.nm, q, v, none, z, zd, zdd);
      Vec<double> zi, zid;
      dyn::independentOn<double>(*s.model, *s.numbers, dofs, z, zd, nullptr, zi, zid, nullptr);
      events::ImpactOn<double> imp;
      if (Status st = events::impactOn<double>(*s.model, *s.numbers, dofs, t, zi, zid, z, contacts, imp, plastic); !st.ok()) return st;
      dyn::naturalStateOf(s.model->tree, s.nm, s.map, z, Eigen::VectorXd(zd + (imp.zdPlus - imp.zdMinus)), Eigen::VectorXd::Zero(z.size()), qAt,
                          vPlus, nullptr);
      return {};
    };
    J.t = t;
    J.cx.resize(n);
    J.hx.resize(n, n);
    J.hv.resize(n, n);
    // the gap's and the jump's state partials by forward AD, (q, v⁻) seeded eight a pass: the
    // map to the tree's coordinates, the gap and the impact law there, back to q̇
    const Eigen::VectorXd qv = (Eigen::VectorXd(2 * n) << before.x, before.v).finished();
    const Vec<Dual> noneD = Vec<Dual>::Zero(n);
    for (Eigen::Index first = 0; first < 2 * n; first += kLanes) {
      Vec<Dual> in = qv.cast<Dual>();
      for (Eigen::Index j = first; j < std::min(2 * n, first + kLanes); ++j) in[j].g[j - first] = 1;
      Vec<Dual> z, zd, zdd;
      dyn::treeStateOn<Dual>(st_.model.tree, plain_.tree, nominal_.nm, nullptr, in.head(n), in.tail(n), noneD, before.aux, z, zd, zdd);
      Vec<Dual> g(static_cast<Eigen::Index>(sources_.size())), vPlus = in.tail(n);
      events::contactGapsOn<Dual, Dual>(st_.model.tree, plain_.tree, z.data(), g.data());
      if (!isSwitch) {
        Vec<Dual> zi, zid, qAt;
        dyn::independentOn<Dual>(st_.model, plain_.tree, dofs, z, zd, nullptr, zi, zid, nullptr);
        events::ImpactOn<Dual> imp;
        if (Status s = events::impactOn<Dual>(st_.model, plain_.tree, dofs, t, zi, zid, before.aux, contacts, imp, plastic); !s.ok()) return s;
        dyn::naturalStateOn<Dual>(st_.model.tree, plain_.tree, nominal_.nm, nominal_.map, nullptr, z, Vec<Dual>(zd + (imp.zdPlus - imp.zdMinus)),
                                  Vec<Dual>::Zero(z.size()), qAt, vPlus, nullptr);
      }
      for (Eigen::Index j = first; j < std::min(2 * n, first + kLanes); ++j) {
        const int lane = static_cast<int>(j - first);
        if (j < n) {
          J.cx[j] = g[c].g[lane];
          for (Eigen::Index i = 0; i < n; ++i) J.hx(i, j) = vPlus[i].g[lane];
        } else {
          for (Eigen::Index i = 0; i < n; ++i) J.hv(i, j - n) = vPlus[i].g[lane];
        }
      }
    }
    // ṙ⁻ = r_q v⁻ (no drivers: r_t = 0)
    J.normalBefore = J.cx.dot(before.v);
    // contacts at rest from the start (touching, not moving): held closed there, no crossing whose
    // time could move; only the e = 0 law's projection of the velocities (impact_jump.h)
    // (drivers may move its plane: then it is checked as any impact)
    const bool restingFromStart = t == 0 && !isSwitch && plastic.size() == contacts.size();
    if (!restingFromStart || !st_.resolved.drivers.empty())
      if (Status s = differentiableImpact(st_, contacts, t, J.normalBefore); !s.ok()) return s;
    if (restingFromStart) J.cx.setZero();
    else J.cx /= -J.normalBefore;
    const double g0 = gapOf(nominal_, before.x);
    Eigen::VectorXd v0;
    if (Status s = jumpOf(nominal_, before.x, before.v, v0); !s.ok()) return s;
    J.cp.setZero(np);
    J.hp.setZero(n, np);
    if (!semiAnalytical()) {
      // the gap's and the jump's parameter partials by forward AD: the state mapped to the tree's
      // coordinates on each chunk's numbers, the gap and the impact law there, back to q̇
      if (Status s = buildOn(); !s.ok()) return s;
      for (std::size_t ch = 0; ch < chunks_.size(); ++ch) {
        const auto& numbers = chunks_[ch]->tree;
        Vec<Dual> z, zd, zdd;
        dyn::treeStateOn<Dual>(st_.model.tree, numbers, nominal_.nm, &on_[ch].k, dual(before.x), dual(before.v), dual(none), before.aux, z, zd, zdd);
        Vec<Dual> g(static_cast<Eigen::Index>(sources_.size()));
        events::contactGapsOn<Dual, Dual>(st_.model.tree, numbers, z.data(), g.data());
        for (int j = 0; j < counts_[ch] && !restingFromStart; ++j) J.cp[firsts_[ch] + j] -= g[c].g[j] / J.normalBefore;
        if (isSwitch) continue;
        Vec<Dual> zi, zid;
        dyn::independentOn<Dual>(st_.model, numbers, dofs, z, zd, nullptr, zi, zid, nullptr);
        events::ImpactOn<Dual> imp;
        if (Status s = events::impactOn<Dual>(st_.model, numbers, dofs, t, zi, zid, before.aux, contacts, imp, plastic); !s.ok()) return s;
        Vec<Dual> qAt, vPlus;
        dyn::naturalStateOn<Dual>(st_.model.tree, numbers, nominal_.nm, nominal_.map, &on_[ch].k, z, Vec<Dual>(zd + (imp.zdPlus - imp.zdMinus)),
                                  Vec<Dual>::Zero(z.size()), qAt, vPlus, nullptr);
        Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, np);
        lanesInto(ch, vPlus, P);
        J.hp += P;
      }
    }
    for (Eigen::Index k = 0; semiAnalytical() && k < np; ++k)
      for (const auto& set : sets_[static_cast<std::size_t>(k)]) {
        const double d = deltas_[static_cast<std::size_t>(k)];
        if (!restingFromStart) J.cp[k] -= (gapOf(*set, before.x) - g0) / d / J.normalBefore;
        Eigen::VectorXd vp;
        if (Status s = jumpOf(*set, before.x, before.v, vp); !s.ok()) return s;
        J.hp.col(k) += (vp - v0) / d;
      }
    J.dv = after.v - before.v;
    J.w = J.hx * before.v + J.hv * before.a - after.a;
    return {};
  }
  Status model(int coords, const kin::NaturalModel*& out) override {
    const HeldModel& h = heldModel(coords);
    if (!h.ok()) return h.status;
    out = h.nm ? h.nm.get() : &nominal_.nm;
    return {};
  }
  std::vector<int> plastic(int before, int after) const override {
    std::vector<int> out;
    const auto& was = helds_[static_cast<std::size_t>(before)];
    for (int g : helds_[static_cast<std::size_t>(after)])
      if (!std::binary_search(was.begin(), was.end(), g)) out.push_back(g);
    return out;
  }

  // a held gap let go (the only change there is: the coordinates stay the natural ones): the
  // same q, q̇, the accelerations of the model without its row, (x, v, a) = (X, V, A_x X + A_v V + A_ρ)
  Status change(const RunPoint& a, int coords, RunPoint& b, CoordinateChange* map) override {
    b = a;
    b.coords = coords;
    PointPartials n;
    Eigen::VectorXd f;
    if (Status s = accelerationPartials(b, f, n); !s.ok()) return s;
    b.a = f;
    if (map) sameStateChange(n, *map);
    return {};
  }
  std::unique_ptr<ComplexRun> complexRun(std::size_t parameter, double step) override {
    restartSwitches();  // the real matrices' numbers as at the run's start
    return globalComplexRun(st_, nominal_.nm, nominal_.inertia, *nominal_.elements, *this, nominal_.map, real_.tree, kind_, rungeKutta_, parameter, step,
                            [this](const std::vector<int>& contacts) { applySwitches(contacts); });
  }

 private:
  // the torsion springs' turns at a recorded point (its tree coordinates z), on every system: the
  // points are visited out of the run's order, the turns the run accepted are not theirs
  void turnsAt(const Eigen::VectorXd& z) {
    nominal_.elements->continueFrom(z);
    for (auto& moved : sets_)
      for (auto& s : moved) s->elements->continueFrom(z);
  }

  Status acceleration(NaturalSystem& s, double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& a, int coords = 0) {
    const HeldModel& held = heldModel(coords);
    if (!held.ok()) return held.status;
    if (held.nm) return dyn::globalOdeAcceleration(*held.nm, s.inertia, penalty_, t, x, v, *held.data, a, !index3_);
    return dyn::globalOdeAcceleration(s.nm, s.inertia, penalty_, t, x, v, *s.data, a, !index3_);
  }

  // The natural model with a point's gaps held closed (its coords: the set of held gaps, a
  // resting contact's rows appended, kin::HeldGap), its buffers and (AD) its numbers on each
  // chunk; coords 0, none held, is the nominal's own (nm null).
  struct HeldModel {
    std::unique_ptr<kin::NaturalModel> nm;
    std::unique_ptr<dyn::GlobalOdeData> data;
    std::vector<dyn::NaturalOn<Dual>> on;
    Status status;
    bool ok() const { return status.ok(); }
  };
  const HeldModel& heldModel(int coords) {
    const auto c = static_cast<std::size_t>(coords);
    if (heldModels_.size() <= c) heldModels_.resize(c + 1);
    if (!heldModels_[c]) {
      heldModels_[c] = std::make_unique<HeldModel>();
      HeldModel& h = *heldModels_[c];
      const std::vector<int>& held = helds_[c];
      if (held.empty()) return h;
      if (semiAnalytical()) {
        h.status = failure(Status::Code::BadRequest, 0,
                           "a contact at rest: the global formulations take their parameter partials through a rest by AD only (not --partials gsam or lsam)");
        return h;
      }
      h.nm = std::make_unique<kin::NaturalModel>(
          kin::compileNaturalModel(st_.resolved, {.linearFrames = true}, events::naturalHeldGaps(st_.model.tree, real_.tree, held)));
      h.data = std::make_unique<dyn::GlobalOdeData>(*h.nm);
      h.on.resize(chunks_.size());
      for (std::size_t k = 0; k < chunks_.size() && h.status.ok(); ++k) h.status = dyn::naturalOn(*h.nm, chunks_[k]->tree.mech, h.on[k]);
    }
    return *heldModels_[c];
  }
  int coordsOf(const std::vector<int>& held) {
    for (std::size_t i = 0; i < helds_.size(); ++i)
      if (helds_[i] == held) return static_cast<int>(i);
    helds_.push_back(held);
    return static_cast<int>(helds_.size()) - 1;
  }
  const kin::NaturalModel& modelOf(int coords) {
    const HeldModel& h = heldModel(coords);
    return h.nm ? *h.nm : nominal_.nm;
  }
  // the gaps an impact leaves held that were not before it: closed with e = 0
  std::vector<int> plasticAt(const RunPoint& before, const RunPoint& after) const { return plastic(before.coords, after.coords); }

  // z of (q, q̇, q̈), its angles continued from zNear
  Eigen::VectorXd treeCoordinates(const NaturalSystem& s, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                  const Eigen::VectorXd& zNear) const {
    Eigen::VectorXd z = zNear, zd, zdd;
    dyn::treeStateOf(s.model->tree, s.nm, x, v, a, z, zd, zdd);
    return z;
  }

  // the outputs of the natural state: the tree's state it maps to, the outputs of that
  Status outputsAt(const NaturalSystem& s, double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                   const Eigen::VectorXd& zNear, Eigen::VectorXd& out) const {
    Eigen::VectorXd z = zNear, zd, zdd;
    dyn::treeStateOf(s.model->tree, s.nm, x, v, a, z, zd, zdd);
    outputsOfTree(s, t, z, zd, zdd, out);
    return {};
  }
  void outputsOfTree(const NaturalSystem& s, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd,
                     Eigen::VectorXd& out) const {
    out.resize(static_cast<Eigen::Index>(st_.outputs.names.size()));
    analysis::outputsOn<double>(st_.outputs, s.model->tree, *s.numbers, z, zd, zdd, t, out.data());
  }
  // Σ over parameter k's moved sets of (outputs there − nominal) / δ_k at the state (x, v, a)
  void outputsParameterColumn(Eigen::Index k, double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                              const Eigen::VectorXd& zNear, const Eigen::VectorXd& nominal, Eigen::Ref<Eigen::VectorXd> column) {
    Eigen::VectorXd z = zNear, zd, zdd, o;
    bool mapped = false;
    for (const auto& set : sets_[static_cast<std::size_t>(k)]) {
      if (set->sameShape) {
        if (!mapped) dyn::treeStateOf(nominal_.model->tree, nominal_.nm, x, v, a, z, zd, zdd);
        mapped = true;
        outputsOfTree(*set, t, z, zd, zdd, o);
      } else {
        outputsAt(*set, t, x, v, a, zNear, o);
      }
      column += (o - nominal) / deltas_[static_cast<std::size_t>(k)];
    }
  }

  // the natural model's numbers again on each chunk's seeded parameters (AD), made when first needed
  Status buildOn() {
    if (!status_.ok()) return status_;
    if (on_.size() == chunks_.size()) return {};
    on_.resize(chunks_.size());
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      if (Status s = dyn::naturalOn(nominal_.nm, chunks_[c]->tree.mech, on_[c]); !s.ok()) return status_ = s;
    return {};
  }
  static Vec<Dual> dual(const Eigen::VectorXd& x) { return x.cast<Dual>(); }
  // chunk c's lanes of x into the parameters' columns of `out`
  void lanesInto(std::size_t c, const Vec<Dual>& x, Eigen::MatrixXd& out) const {
    for (int j = 0; j < counts_[c]; ++j)
      for (Eigen::Index i = 0; i < x.size(); ++i) out(i, firsts_[c] + j) = x[i].g[j];
  }

  // the outputs' parameter columns at the natural state (x, v, a) by forward AD: the state mapped
  // to the tree's coordinates on each chunk's numbers (the map moves with the shape), the
  // outputs of that on the same numbers
  Status outputsParameterColumnsAD(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                   const Eigen::VectorXd& zNear, Eigen::MatrixXd& out) {
    if (Status s = buildOn(); !s.ok()) return s;
    const auto no = static_cast<Eigen::Index>(st_.outputs.names.size());
    out.setZero(no, static_cast<Eigen::Index>(st_.parameters.size()));
    const Vec<Dual> xd = dual(x), vd = dual(v), ad = dual(a);
    Vec<Dual> o;
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      outputsOnDuals(*chunks_[c], &on_[c].k, t, xd, vd, ad, zNear, o);
      lanesInto(c, o, out);
    }
    return {};
  }
  // all the outputs' parameter columns at (x, v, a), by the route chosen, added into `out`
  Status addOutputsParameterColumns(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                                    const Eigen::VectorXd& zNear, const Eigen::VectorXd& nominal, Eigen::MatrixXd& out) {
    if (!semiAnalytical()) {
      Eigen::MatrixXd P;
      if (Status s = outputsParameterColumnsAD(t, x, v, a, zNear, P); !s.ok()) return s;
      out += P;
      return {};
    }
    for (Eigen::Index k = 0; k < out.cols(); ++k) outputsParameterColumn(k, t, x, v, a, zNear, nominal, out.col(k));
    return {};
  }

  // the moved sets' natural systems, made when first needed (a run of values alone has none)
  Status buildMovedSets() {
    if (!status_.ok()) return status_;
    if (movedBuilt_ || !semiAnalytical()) return {};  // AD has its chunks' numbers instead
    movedBuilt_ = true;
    const auto mechanisms = movedMechanisms(st_, partials_, delta_);
    sets_.resize(st_.parameters.size());
    for (std::size_t k = 0; k < st_.parameters.size(); ++k) {
      const auto& numbers = FormulationNumbers::moved_[k];
      if (mechanisms[k].size() != numbers.size())
        return status_ = failure(Status::Code::BadRequest, 0,
                                 "parameter '" + st_.table().names()[st_.parameters[k]] + "' moved by δ makes the mechanism invalid");
      for (std::size_t j = 0; j < numbers.size(); ++j) {
        auto s = std::make_unique<NaturalSystem>();
        s->resolved = mechanisms[k][j];
        s->ownModel = std::make_unique<dyn::MatrixRModel>(dyn::compileMatrixR(*s->resolved));
        if (!s->ownModel->ok()) return status_ = failure(Status::Code::BadRequest, 0, s->ownModel->error);
        if (Status st = buildSystem(*s->resolved, *s->ownModel, numbers[j]->tree, *s); !st.ok()) return status_ = st;
        s->sameShape = sameShape(*s->resolved, st_.resolved);
        sets_[k].push_back(std::move(s));
      }
    }
    return {};
  }

  // f's partials and the outputs' at p: at the point's accelerations — f's, folded in
  // (O_x + O_a f_x ...), or index-3's own, a part of its state
  Status partialsAt(const RunPoint& p, Eigen::VectorXd& f, PointPartials& n) {
    if (Status s = accelerationPartials(p, f, n); !s.ok()) return s;
    if (index3_ && p.a.size() == p.x.size()) return outputPartials(p, p.a, n);
    if (Status s = outputPartials(p, f, n); !s.ok()) return s;
    n.Ox += n.Oa * n.Ax;
    n.Ov += n.Oa * n.Av;
    n.Op += n.Oa * n.Ap;
    n.Oa.resize(0, 0);
    return {};
  }

  // f and its partials at p: the state's exact (globalOdeJacobian), the parameters' by seed 003's
  // differences of the system's residual at the frozen solution on each moved set, one solve with
  // the nominal matrix
  Status accelerationPartials(const RunPoint& p, Eigen::VectorXd& f, PointPartials& n) {
    if (Status s = buildMovedSets(); !s.ok()) return s;
    turnsAt(p.aux);
    NaturalSystem& s0 = nominal_;
    const HeldModel& held = heldModel(p.coords);
    if (!held.ok()) return held.status;
    const kin::NaturalModel& m = held.nm ? *held.nm : s0.nm;
    dyn::GlobalOdeData& data = held.nm ? *held.data : *s0.data;
    if (Status s = dyn::globalOdeJacobian(m, s0.inertia, penalty_, p.t, p.x, p.v, data, f, n.Ax, n.Av, !index3_); !s.ok()) {
      // index-3: the consistent accelerations' map (its start, after an impact) needs the same
      // independent constraints as its steps' tangent
      if (index3_) s.message = "the index-3 sensitivities need independent constraints: " + s.message + " (use --formulation penalty-global)";
      return s;
    }
    const auto nq = p.x.size(), np = static_cast<Eigen::Index>(st_.parameters.size());
    const Eigen::VectorXd lambda = penalty_ ? Eigen::VectorXd() : dyn::globalOdeMultipliers(m, data);
    Eigen::MatrixXd R;
    if (!semiAnalytical()) {
      // forward AD: the residual on each chunk's numbers, its lanes the parameters' columns
      if (Status s = buildOn(); !s.ok()) return s;
      Vec<Dual> r;
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        dyn::globalOdeResidualOn<Dual>(m, s0.inertia, chunks_[c]->tree, held.nm ? held.on[c] : on_[c], penalty_, p.t, dual(p.x), dual(p.v), dual(f),
                                       dual(lambda), r, !index3_);
        if (c == 0) R.setZero(r.size(), np);
        lanesInto(c, r, R);
      }
    } else {
      Eigen::VectorXd r0, rk;
      dyn::globalOdeResidual(s0.nm, s0.inertia, penalty_, p.t, p.x, p.v, f, lambda, r0, !index3_);
      R = Eigen::MatrixXd::Zero(r0.size(), np);
      for (Eigen::Index k = 0; k < np; ++k)
        for (const auto& set : sets_[static_cast<std::size_t>(k)]) {
          dyn::globalOdeResidual(set->nm, set->inertia, penalty_, p.t, p.x, p.v, f, lambda, rk, !index3_);
          R.col(k) += (rk - r0) / deltas_[static_cast<std::size_t>(k)];
        }
    }
    dyn::globalOdeSolve(penalty_, data, R);
    n.Ap = R.topRows(nq);
    return {};
  }

  // the outputs of (x, v, a), each on dual numbers, with the numbers `numbers` (and the natural
  // model's again on them, `shape`; null: the model's own): their lanes the outputs' derivatives
  // along the inputs' lanes
  void outputsOnDuals(const NumbersOn<Dual>& numbers, const kin::NaturalNumbers<Dual>* shape, double t, const Vec<Dual>& x, const Vec<Dual>& v,
                      const Vec<Dual>& a, const Eigen::VectorXd& zNear, Vec<Dual>& out) const {
    Vec<Dual> z, zd, zdd;
    dyn::treeStateOn<Dual>(st_.model.tree, numbers.tree, nominal_.nm, shape, x, v, a, zNear, z, zd, zdd);
    out.resize(static_cast<Eigen::Index>(st_.outputs.names.size()));
    analysis::outputsOn<Dual>(st_.outputs, st_.model.tree, numbers.tree, z, zd, zdd, t, out.data());
  }

  // the outputs at (p.x, p.v, acc) and their partials by x, v, a (forward AD through the map to
  // the tree's coordinates, eight coordinates a pass) and by the numbers at that state
  Status outputPartials(const RunPoint& p, const Eigen::VectorXd& acc, PointPartials& n) {
    if (Status s = buildMovedSets(); !s.ok()) return s;
    const auto nq = p.x.size(), np = static_cast<Eigen::Index>(st_.parameters.size());
    if (Status s = outputsAt(nominal_, p.t, p.x, p.v, acc, p.aux, n.outputs); !s.ok()) return s;
    Eigen::MatrixXd O;
    Vec<Dual> o;
    const Eigen::VectorXd xva = (Eigen::VectorXd(3 * nq) << p.x, p.v, acc).finished();
    for (Eigen::Index first = 0; first < 3 * nq; first += kLanes) {
      Vec<Dual> in = xva.cast<Dual>();
      for (Eigen::Index j = first; j < std::min(3 * nq, first + kLanes); ++j) in[j].g[j - first] = 1;
      outputsOnDuals(plain_, nullptr, p.t, in.head(nq), in.segment(nq, nq), in.tail(nq), p.aux, o);
      if (first == 0) O.resize(o.size(), 3 * nq);
      for (Eigen::Index j = first; j < std::min(3 * nq, first + kLanes); ++j)
        for (Eigen::Index i = 0; i < o.size(); ++i) O(i, j) = o[i].g[j - first];
    }
    n.Ox = O.leftCols(nq);
    n.Ov = O.middleCols(nq, nq);
    n.Oa = O.rightCols(nq);
    n.Op.setZero(n.outputs.size(), np);
    return addOutputsParameterColumns(p.t, p.x, p.v, acc, p.aux, n.outputs, n.Op);
  }

  // the outputs at p (a = f) and their d/dρ along S, by forward AD: the state seeded along S's
  // columns, eight a pass; with AD partials each chunk's numbers seeded with the same parameters
  // (the outputs' own dependence on them, and the map's, in the same pass), else the moved sets'
  Status outputsAlongColumns(const RunPoint& p, const Eigen::VectorXd& f, const StateColumns& S, Eigen::VectorXd& outputs,
                             Eigen::MatrixXd& along) {
    if (Status s = outputsAt(nominal_, p.t, p.x, p.v, f, p.aux, outputs); !s.ok()) return s;
    const auto np = static_cast<Eigen::Index>(st_.parameters.size());
    along.setZero(outputs.size(), np);
    Vec<Dual> o;
    if (!semiAnalytical()) {
      if (Status s = buildOn(); !s.ok()) return s;
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        outputsOnDuals(*chunks_[c], &on_[c].k, p.t, seededBy(p.x, S.x, firsts_[c]), seededBy(p.v, S.v, firsts_[c]), seededBy(f, S.a, firsts_[c]), p.aux,
                       o);
        lanesInto(c, o, along);
      }
      return {};
    }
    for (Eigen::Index first = 0; first < np; first += kLanes) {
      outputsOnDuals(plain_, nullptr, p.t, seededBy(p.x, S.x, first), seededBy(p.v, S.v, first), seededBy(f, S.a, first), p.aux, o);
      for (Eigen::Index k = first; k < std::min(np, first + kLanes); ++k)
        for (Eigen::Index i = 0; i < o.size(); ++i) along(i, k) = o[i].g[k - first];
    }
    return addOutputsParameterColumns(p.t, p.x, p.v, f, p.aux, outputs, along);
  }

  // a Dormand–Prince step's stages: f's state and parameter partials at each, the outputs' where
  // asked (the integral costs' quadrature)
  StagesOf stages() {
    return [this](const RunPoint& a, double h, std::vector<Stage>& out, bool outputs) {
      return rungeKuttaStages(
          [&](double t, const Eigen::VectorXd& X, const Eigen::VectorXd& V, Eigen::VectorXd& f, PointPartials& n, bool withOutputs) -> Status {
            if (Status s = accelerationPartials(RunPoint{t, a.coords, X, V, {}, a.aux}, f, n); !s.ok()) return s;
            if (!withOutputs) return {};
            PointPartials o;
            if (Status s = partials(RunPoint{t, a.coords, X, V, f, a.aux}, false, o); !s.ok()) return s;
            n.outputs = std::move(o.outputs);
            n.Ox = std::move(o.Ox);
            n.Ov = std::move(o.Ov);
            n.Oa = std::move(o.Oa);
            n.Op = std::move(o.Op);
            return {};
          },
          a.t, a.x, a.v, h, out, outputs);
    };
  }

  // The index-3 step a → b linearised (its converged form, García de Jalón–Bayo): its three
  // systems' residuals' parameter columns at the frozen solution (forward AD, or differences on
  // the moved sets), then index3StepTangent. T maps (X₀; V₀; A₀) to (X₁; V₁; A₁), Tp is the
  // parameters' columns.
  Status index3Tangent(const RunPoint& a, const RunPoint& b, Eigen::MatrixXd& T, Eigen::MatrixXd& Tp) {
    if (Status s = buildMovedSets(); !s.ok()) return s;
    turnsAt(b.aux);
    const NaturalSystem& s0 = nominal_;
    const HeldModel& held = heldModel(b.coords);
    if (!held.ok()) return held.status;
    const kin::NaturalModel& m = held.nm ? *held.nm : s0.nm;
    const auto n = static_cast<Eigen::Index>(m.nq), r = static_cast<Eigen::Index>(m.nrows), np = static_cast<Eigen::Index>(st_.parameters.size());
    Index3Systems sys;
    if (Status s = index3Systems(m, s0.inertia, a, b, sys); !s.ok()) return s;
    const double h = sys.h, t1 = sys.t1;
    Eigen::MatrixXd P[3];
    for (auto& Pi : P) Pi = Eigen::MatrixXd::Zero(n + r, np);
    if (!semiAnalytical()) {
      // forward AD: the three residuals on each chunk's numbers
      if (Status s = buildOn(); !s.ok()) return s;
      const Eigen::VectorXd qdHat = (2 / h) * a.x + a.v, qddHat = (4 / (h * h)) * a.x + (4 / h) * a.v + a.a;
      Vec<Dual> res[3];
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        index3ResidualsOn<Dual>(m, s0.inertia, chunks_[c]->tree, held.nm ? held.on[c] : on_[c], h, t1, dual(qdHat), dual(qddHat), dual(b.x), dual(b.v), dual(b.a),
                                dual(sys.mu), dual(sys.nu), dual(sys.kappa), res);
        for (int i = 0; i < 3; ++i) lanesInto(c, res[i], P[i]);
      }
    } else {
      Eigen::VectorXd r0[3], rk[3];
      index3Residuals(s0.nm, s0.inertia, b, sys, r0);
      for (Eigen::Index k = 0; k < np; ++k)
        for (const auto& set : sets_[static_cast<std::size_t>(k)]) {
          index3Residuals(set->nm, set->inertia, b, sys, rk);
          for (int i = 0; i < 3; ++i) P[i].col(k) += (rk[i] - r0[i]) / deltas_[static_cast<std::size_t>(k)];
        }
    }
    index3StepTangent(sys, s0.inertia.M, P, T, Tp);
    return {};
  }

  // the trapezoidal step again as the run takes it (to round-off), from a fresh integrator
  Status trapezoidalStep(const RunPoint& a, double h, Eigen::VectorXd& x1, Eigen::VectorXd& v1, Eigen::VectorXd& a1) {
    struct Ode final : integ::SecondOrderSystem {
      GlobalOde& f;
      explicit Ode(GlobalOde& owner) : f(owner) {}
      Status acceleration(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& acc) override {
        return f.acceleration(f.nominal_, t, x, v, acc, coords);
      }
      int coords = 0;
    } ode(*this);
    ode.coords = a.coords;
    integ::Trapezoidal trap(static_cast<int>(a.x.size()), integ::TrapezoidalOptions{.tolerance = 1e-13});
    integ::State s{a.t, a.x, a.v, a.a};
    if (Status st = trap.step(ode, s, h); !st.ok()) return st;
    x1 = s.x;
    v1 = s.v;
    a1 = s.a;
    return {};
  }

  // the run's states as points, in the one set of coordinates
  struct Adapter final : analysis::NaturalObserver {
    explicit Adapter(GlobalOde& owner) : f(owner) {}
    GlobalOde& f;
    PointObserver* to = nullptr;
    Eigen::VectorXd lastZ;
    int last = 0;  // the coordinates (held gaps) of the last report
    int coords() {
      static const std::vector<int> none;
      return f.coordsOf(held ? *held : none);
    }
    Status start(const integ::State& s, const Eigen::VectorXd& z) override {
      if (!f.status_.ok()) return f.status_;
      lastZ = z;
      last = coords();
      return to->start({s.t, last, s.x, s.v, s.a, z});
    }
    Status step(const integ::State& from, const integ::State& s, const Eigen::VectorXd& z) override {
      StagePoints at;  // RK45's stages
      if (stages)
        for (std::size_t i = 0; i < 4; ++i) {
          const integ::State& g = (*stages)[i];
          at[i] = {g.t, last, g.x, g.v, g.a, lastZ};
        }
      const Status st = to->step({from.t, last, from.x, from.v, from.a, lastZ}, {s.t, last, s.x, s.v, s.a, z}, stages ? &at : nullptr);
      lastZ = z;
      return st;
    }
    // before it, the gaps held before it (a contact that comes to rest is held after)
    Status impact(const integ::State& before, const integ::State& after, const std::vector<int>& contacts, const Eigen::VectorXd& z) override {
      const int now = coords();
      const Status st = to->impact({before.t, last, before.x, before.v, before.a, z}, {after.t, now, after.x, after.v, after.a, z}, contacts);
      lastZ = z;
      last = now;
      return st;
    }
    Status released(const integ::State& s, const Eigen::VectorXd& z) override {
      const int now = coords();
      const Status st = to->changed({s.t, last, s.x, s.v, s.a, z}, {s.t, now, s.x, s.v, s.a, z});
      lastZ = z;
      last = now;
      return st;
    }
  };

  bool penalty_, index3_, rungeKutta_;
  GlobalKind kind_;
  Partials partials_;
  double delta_;
  Status status_;
  NaturalSystem nominal_;
  bool movedBuilt_ = false;
  std::vector<std::vector<std::unique_ptr<NaturalSystem>>> sets_;  // by chosen parameter: its moved systems
  std::vector<dyn::NaturalOn<Dual>> on_;                           // AD: by chunk, the model's numbers on it
  std::vector<std::vector<int>> helds_{{}};                        // by coords: the gaps held
  std::vector<std::unique_ptr<HeldModel>> heldModels_;             // by coords, made when first needed
  Adapter adapter_;
};

}  // namespace

std::unique_ptr<Formulation> globalFormulation(const Study& st, GlobalKind kind, bool rungeKutta, Partials partials, double delta) {
  return std::make_unique<GlobalOde>(st, kind, rungeKutta, partials, delta);
}

}  // namespace lw::sens::detail
