// The global formulations' run on complex numbers for the complex step (complex_step.h, issue 39):
// the natural model's numbers again with one parameter moved by i·ε (kin::NaturalNumbers on
// complex numbers), and every recorded step taken again on them. The accelerations of the index-1
// and penalty formulations solve their linear system with the real matrix at the real state and
// a Newton correction on the complex residual (exact in the imaginary part after one); the
// trapezoidal rule's and the index-3 step's implicit equations are solved again by Newton with
// the real matrices at the recorded end; Dormand–Prince's stages are explicit. Impacts move the
// event time into the complex plane (seed 001 guide §1.4). Nothing here shares the direct
// method's or the adjoint's linearisations, which it checks: only the real matrices that make
// Newton converge.
#include <Eigen/LU>
#include <functional>

#include "dynamics/matrix_r.h"
#include "dynamics/matrix_r_derivatives.h"
#include "events/contact_gaps.h"
#include "events/impact_law.h"
#include "outputs/outputs.h"
#include "sensitivity/global_formulation.h"
#include "sensitivity/impact_jump.h"

namespace lw::sens::detail {
namespace {

using VecC = Vec<Cplx>;

// x ← x − L⁻¹ r, the real and the imaginary parts solved apart
template <class Solve>
void correct(VecC& x, const VecC& r, Solve&& solve) {
  Eigen::MatrixXd parts(r.size(), 2);
  parts.col(0) = r.real();
  parts.col(1) = r.imag();
  solve(parts);
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] -= Cplx(parts(i, 0), parts(i, 1));
}

class GlobalComplex final : public ComplexRun {
 public:
  GlobalComplex(const Study& st, const kin::NaturalModel& nm, const dyn::NaturalInertia& inertia, dyn::NaturalForceElements& elements,
                HeldModes& modes, const dyn::NaturalTreeMap& map,
                const dyn::TreeNumbers<double>& real, GlobalKind kind, bool rungeKutta, std::size_t parameter, double eps,
                std::function<void(const std::vector<int>&)> applyRealSwitches)
      : st_(st), tree_(st.model.tree), nm_(nm), inertia_(inertia), elements_(elements), modes_(modes), map_(map), real_(real), penalty_(kind == GlobalKind::Penalty),
        index3_(kind == GlobalKind::Index3), rungeKutta_(rungeKutta && kind != GlobalKind::Index3),
        n_(st, {parameter}, {Cplx(st.table().values()[parameter], eps)}), sources_(events::gapSources(st.model.tree)),
        applyRealSwitches_(std::move(applyRealSwitches)) {
    status_ = dyn::naturalOn<Cplx>(nm, n_.tree.mech, on_);
  }

  // the assembly's start on complex numbers in the tree's coordinates, mapped to the natural ones
  Status start(const RunPoint& p0) override {
    if (!status_.ok()) return status_;
    elements_.continueFrom(p0.aux);
    coords_ = p0.coords;
    VecC z, zd;
    if (Status s = dyn::initialCoordinatesOn<Cplx>(st_.model, n_.tree, p0.aux, z, zd); !s.ok()) return s;
    dyn::naturalStateOn<Cplx>(tree_, n_.tree, nm_, map_, &on_.k, z, zd, VecC::Zero(z.size()), q_, qd_, nullptr);
    zNear_ = p0.aux;
    return accelerations(p0.t, q_, qd_, qdd_);
  }

  Status step(const RunPoint& a, const RunPoint& b) override {
    const double h = b.t - a.t;
    elements_.continueFrom(a.aux);  // the step's turns: its start's
    coords_ = a.coords;
    Status s;
    stagesSet_ = false;
    if (index3_) s = index3Step(a, b);
    else if (rungeKutta_) s = rungeKuttaStep(a.t, h);
    else s = trapezoidalStep(a, b);
    zNear_ = b.aux;
    return s;
  }

  // a held gap let go: the same state, the accelerations of the model without its row
  Status change(const RunPoint&, const RunPoint& b) override {
    coords_ = b.coords;
    return accelerations(b.t, q_, qd_, qdd_);
  }

  // the event time made complex (its imaginary part: the real one is the run's), the jump there
  // by the tree's impact law on the complex numbers, and back with the motion after it
  Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, Cplx& dtau) override {
    const double t = after.t;
    const int c = contacts.front();
    const auto n = static_cast<Eigen::Index>(nm_.nq);
    const Eigen::VectorXd none = Eigen::VectorXd::Zero(n);
    // the real gap's rate ṙ⁻, the independent coordinates of the impact law (chosen as the
    // formulation's jump chooses them)
    dyn::MatrixRData data(st_.model, &real_);
    data.t = t;
    data.z = before.aux;
    dyn::treeStateOf(tree_, nm_, before.x, before.v, none, data.z, data.zd, data.zdd);
    Eigen::VectorXd g, rate;
    events::contactGaps(tree_, data.z, data.zd, g, rate);
    // contacts closing together, grazing: no derivative (refused, named, as the direct method
    // does); at rest from the start: no crossing, no event time (impact_jump.h)
    const std::vector<int> plastic = modes_.plastic(before.coords, after.coords);
    const bool restingFromStart = t == 0 && !sources_[static_cast<std::size_t>(c)].isSwitch() && plastic.size() == contacts.size();
    if (!restingFromStart || !st_.resolved.drivers.empty())
      if (Status s = differentiableImpact(st_, contacts, t, rate[c]); !s.ok()) return s;
    if (Status s = dyn::chooseDofs(st_.model, data); !s.ok()) return s;
    // the gap on complex numbers: its imaginary part moves the event time
    VecC z, zd, zdd;
    dyn::treeStateOn<Cplx>(tree_, n_.tree, nm_, &on_.k, q_, qd_, qdd_, before.aux, z, zd, zdd);
    std::vector<Cplx> gc(sources_.size());
    events::contactGapsOn<Cplx, Cplx>(tree_, n_.tree, z.data(), gc.data());
    dtau = restingFromStart ? Cplx(0.0) : Cplx(0.0, -gc[static_cast<std::size_t>(c)].imag() / rate[c]);
    const VecC qc = q_ + qd_ * dtau, qdc = qd_ + qdd_ * dtau;
    VecC qdPlus = qdc, qAt;
    if (!sources_[static_cast<std::size_t>(c)].isSwitch()) {
      dyn::treeStateOn<Cplx>(tree_, n_.tree, nm_, &on_.k, qc, qdc, VecC::Zero(n), before.aux, z, zd, zdd);
      VecC zi, zid;
      dyn::independentOn<Cplx>(st_.model, n_.tree, data.dofs, z, zd, nullptr, zi, zid, nullptr);
      events::ImpactOn<Cplx> imp;
      if (Status s = events::impactOn<Cplx>(st_.model, n_.tree, data.dofs, t, zi, zid, before.aux, contacts, imp, plastic); !s.ok()) return s;
      dyn::naturalStateOn<Cplx>(tree_, n_.tree, nm_, map_, &on_.k, z, VecC(zd + (imp.zdPlus - imp.zdMinus)), VecC::Zero(z.size()), qAt, qdPlus,
                                nullptr);
    }
    events::applySwitches(tree_, sources_, contacts, n_.tree);  // a switch: its forces from here on
    applyRealSwitches_(contacts);
    coords_ = after.coords;  // the gaps held after it
    VecC qddPlus;
    if (Status s = accelerations(t, qc, qdPlus, qddPlus); !s.ok()) return s;
    q_ = qc - qdPlus * dtau;
    qd_ = qdPlus - qddPlus * dtau;
    zNear_ = after.aux;
    return accelerations(t, q_, qd_, qdd_);
  }

  Status outputs(double t, std::vector<Cplx>& out) override {
    VecC z, zd, zdd;
    dyn::treeStateOn<Cplx>(tree_, n_.tree, nm_, &on_.k, q_, qd_, qdd_, zNear_, z, zd, zdd);
    out.resize(st_.outputs.names.size());
    analysis::outputsOn<Cplx>(st_.outputs, tree_, n_.tree, z, zd, zdd, t, out.data());
    return {};
  }
  const Cplx* parameters() const override { return n_.parameters.data(); }

 private:
  // q̈ = f(t, q, q̇) on complex numbers: the real system factored at the real state, then Newton on
  // the complex residual (index-3: the consistent accelerations, no stabilisation)
  Status accelerations(double t, const VecC& x, const VecC& v, VecC& a) {
    Mode* mode = nullptr;
    if (Status s = current(mode); !s.ok()) return s;
    const kin::NaturalModel& m = *mode->nm;
    const auto n = static_cast<Eigen::Index>(m.nq), r = static_cast<Eigen::Index>(m.nrows);
    Eigen::VectorXd ar;
    if (Status s = dyn::globalOdeAcceleration(m, inertia_, penalty_, t, x.real(), v.real(), *mode->data, ar, !index3_); !s.ok()) return s;
    VecC y(penalty_ ? n : n + r), res;
    y.head(n) = ar.cast<Cplx>();
    if (!penalty_) y.tail(r) = dyn::globalOdeMultipliers(m, *mode->data).cast<Cplx>();
    for (int it = 0; it < 2; ++it) {
      const VecC lambda = penalty_ ? VecC() : VecC(y.tail(r));
      dyn::globalOdeResidualOn<Cplx>(m, inertia_, n_.tree, mode->on, penalty_, t, x, v, VecC(y.head(n)), lambda, res, !index3_);
      // the residual is the system's right side minus its left: the step is +A⁻¹ res
      correct(y, VecC(-res), [&](Eigen::MatrixXd& parts) { dyn::globalOdeSolve(penalty_, *mode->data, parts); });
    }
    a = y.head(n);
    return {};
  }

  // x₁ = x₀ + h v₀ + h²/4 (a₀ + a₁), v₁ = v₀ + h/2 (a₀ + a₁), a₁ = f(x₁, v₁): Newton on a₁ with
  // the real I − h²/4 f_x − h/2 f_v at the recorded end
  Status trapezoidalStep(const RunPoint& a, const RunPoint& b) {
    const double h = b.t - a.t;
    const auto n = static_cast<Eigen::Index>(nm_.nq);
    Mode* mode = nullptr;
    if (Status s = current(mode); !s.ok()) return s;
    Eigen::VectorXd f;
    Eigen::MatrixXd Fx, Fv;
    if (Status s = dyn::globalOdeJacobian(*mode->nm, inertia_, penalty_, b.t, b.x, b.v, *mode->data, f, Fx, Fv, true); !s.ok()) return s;
    const Eigen::PartialPivLU<Eigen::MatrixXd> newton(Eigen::MatrixXd(Eigen::MatrixXd::Identity(n, n) - (h * h / 4) * Fx - (h / 2) * Fv));
    const VecC xHat = q_ + Cplx(h) * qd_ + Cplx(h * h / 4) * qdd_, vHat = qd_ + Cplx(h / 2) * qdd_;
    VecC a1 = b.a.cast<Cplx>(), x1, v1, f1;
    for (int it = 0; it < 3; ++it) {
      x1 = xHat + Cplx(h * h / 4) * a1;
      v1 = vHat + Cplx(h / 2) * a1;
      if (Status s = accelerations(b.t, x1, v1, f1); !s.ok()) return s;
      correct(a1, VecC(a1 - f1), [&](Eigen::MatrixXd& parts) { parts = newton.solve(parts); });
    }
    q_ = xHat + Cplx(h * h / 4) * a1;
    qd_ = vHat + Cplx(h / 2) * a1;
    qdd_ = a1;
    return {};
  }

  // (the integral costs' quadrature: the outputs at stages 3–6, stagesSet_)
  Status rungeKuttaStep(double t0, double h) {
    VecC x1, v1;
    const bool quadrature = st_.costs.hasType(Cost::Type::Integral);
    int stage = 0;
    stagesSet_ = false;
    auto stageAcceleration = [&](double t, const VecC& x, const VecC& v, VecC& acc) -> Status {
      const Status s = accelerations(t, x, v, acc);
      if (s.ok() && quadrature && stage >= 2) {
        VecC z, zd, zdd;
        dyn::treeStateOn<Cplx>(tree_, n_.tree, nm_, &on_.k, x, v, acc, zNear_, z, zd, zdd);
        auto& out = stages_[static_cast<std::size_t>(stage - 2)];
        out.resize(st_.outputs.names.size());
        analysis::outputsOn<Cplx>(st_.outputs, tree_, n_.tree, z, zd, zdd, t, out.data());
      }
      ++stage;
      return s;
    };
    if (Status s = rungeKuttaStepWith<Cplx>(stageAcceleration, t0, h, q_, qd_, x1, v1); !s.ok()) return s;
    stagesSet_ = quadrature;
    q_ = x1;
    qd_ = v1;
    return accelerations(t0 + h, q_, qd_, qdd_);
  }

  // the index-3 step's three systems (Index3Systems) solved again one after the other, Newton with
  // their real matrices at the recorded end from the recorded values and multipliers
  Status index3Step(const RunPoint& a, const RunPoint& b) {
    Mode* mode = nullptr;
    if (Status s = current(mode); !s.ok()) return s;
    const kin::NaturalModel& m = *mode->nm;
    Index3Systems sys;
    if (Status s = index3Systems(m, inertia_, a, b, sys); !s.ok()) return s;
    const double h = sys.h;
    const auto n = static_cast<Eigen::Index>(m.nq), r = static_cast<Eigen::Index>(m.nrows);
    const VecC qdHat = Cplx(2 / h) * q_ + qd_, qddHat = Cplx(4 / (h * h)) * q_ + Cplx(4 / h) * qd_ + qdd_;
    auto joined = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& multipliers) {
      VecC y(n + r);
      y << x.cast<Cplx>(), multipliers.cast<Cplx>();
      return y;
    };
    VecC y[3] = {joined(b.x, sys.mu), joined(b.v, sys.nu), joined(b.a, sys.kappa)};
    VecC res[3];
    for (int system = 0; system < 3; ++system) {
      const auto& lu = system == 0 ? sys.S1 : sys.A;
      for (int it = 0; it < 2; ++it) {
        index3ResidualsOn<Cplx>(m, inertia_, n_.tree, mode->on, h, b.t, qdHat, qddHat, y[0].head(n), y[1].head(n), y[2].head(n), y[0].tail(r),
                                y[1].tail(r), y[2].tail(r), res);
        correct(y[system], res[system], [&](Eigen::MatrixXd& parts) { parts = lu.solve(parts); });
      }
    }
    q_ = y[0].head(n);
    qd_ = y[1].head(n);
    qdd_ = y[2].head(n);
    return {};
  }

  // the model of the gaps held now (coords_): its buffers and its numbers on the complex step
  struct Mode {
    const kin::NaturalModel* nm = nullptr;
    std::unique_ptr<dyn::GlobalOdeData> data;
    dyn::NaturalOn<Cplx> on;
  };
  Status current(Mode*& out) {
    const auto c = static_cast<std::size_t>(coords_);
    if (models_.size() <= c) models_.resize(c + 1);
    if (!models_[c]) {
      auto mode = std::make_unique<Mode>();
      if (Status s = modes_.model(coords_, mode->nm); !s.ok()) return s;
      mode->data = std::make_unique<dyn::GlobalOdeData>(*mode->nm);
      if (Status s = dyn::naturalOn<Cplx>(*mode->nm, n_.tree.mech, mode->on); !s.ok()) return s;
      models_[c] = std::move(mode);
    }
    out = models_[c].get();
    return {};
  }

  const Study& st_;
  const dyn::RecursiveModel& tree_;
  const kin::NaturalModel& nm_;
  const dyn::NaturalInertia& inertia_;
  dyn::NaturalForceElements& elements_;
  HeldModes& modes_;
  int coords_ = 0;
  std::vector<std::unique_ptr<Mode>> models_;  // by coords
  const dyn::NaturalTreeMap& map_;
  const dyn::TreeNumbers<double>& real_;
  bool penalty_, index3_, rungeKutta_;
  NumbersOn<Cplx> n_;  // not const: switches turn forces on and off
  dyn::NaturalOn<Cplx> on_;
  std::vector<events::GapSource> sources_;
  std::function<void(const std::vector<int>&)> applyRealSwitches_;
  Status status_;
  VecC q_, qd_, qdd_;
  Eigen::VectorXd zNear_;
};

}  // namespace

std::unique_ptr<ComplexRun> globalComplexRun(const Study& st, const kin::NaturalModel& nm, const dyn::NaturalInertia& inertia,
                                             dyn::NaturalForceElements& elements, HeldModes& modes,
                                             const dyn::NaturalTreeMap& map, const dyn::TreeNumbers<double>& real, GlobalKind kind, bool rungeKutta,
                                             std::size_t parameter, double eps, std::function<void(const std::vector<int>&)> applyRealSwitches) {
  return std::make_unique<GlobalComplex>(st, nm, inertia, elements, modes, map, real, kind, rungeKutta, parameter, eps, std::move(applyRealSwitches));
}

}  // namespace lw::sens::detail
