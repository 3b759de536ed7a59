// The one interface every sensitivity method is written over (internal to engine/sensitivity):
// the direct method, the checkpointed adjoint and the cost values see a run as a sequence of
// points (t, x, v, a) in a formulation's coordinates, and ask the formulation only for what is its
// own: its step again, the step linearised (the map of the sensitivities and its transpose), the
// jump map of an impact, a change of coordinates, the outputs' partials, the initial state's
// sensitivities and the switch states of its forces. Matrix R (matrix_r_formulation.h) and the
// penalty formulation (penalty_formulation.h) implement it; a later formulation plugs in the same
// way, nothing of the methods copied.
#pragma once

#include <Eigen/Core>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sensitivity/impact_jump.h"
#include "sensitivity/sensitivity.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

/// A point of a run: the state (x, v, a) in the coordinate set `coords` (Matrix R: a choice of
/// independent coordinates; penalty: all the tree's, set 0), and `aux`, what the formulation needs
/// besides to step again from it (Matrix R: the dependent coordinates, its position problems'
/// start).
struct RunPoint {
  double t = 0;
  int coords = 0;
  Eigen::VectorXd x, v, a, aux;
};

/// An RK45 step's stages 3–6 as points (their aux the step's start's): what its integral costs'
/// quadrature weighs besides the step's ends (integ::dopri::quadratureB).
using StagePoints = std::array<RunPoint, 4>;

/// The outputs at an RK45 step's stages 3–6 and their d/dρ along the sensitivities: the direct
/// method's share of the integral costs' quadrature (CostAccumulator::rungeKuttaStages). `set`
/// false: the step has none (a trapezoidal step, or nothing integrated).
struct StageOutputs {
  std::array<Eigen::VectorXd, 4> outputs;
  std::array<Eigen::MatrixXd, 4> along;
  bool set = false;
};

/// Columns beside a state: the sensitivities ∂(x, v, a)/∂ρ (coordinates × chosen parameters) of
/// the direct method, or the adjoints (coordinates × costs) of the backward sweep.
struct StateColumns {
  Eigen::MatrixXd x, v, a;
};

/// A point's parameter partials A_ρ and O_ρ as products with weights, by reverse-mode kernels:
/// what the adjoint needs of them, at a cost that does not grow with the number of parameters.
class ParameterProducts {
 public:
  virtual ~ParameterProducts() = default;
  /// gradient (k × p) += wAᵀ A_ρ + wOᵀ O_ρ, wA (d × k) on the accelerations and wO (outputs × k)
  /// on the outputs, either empty for none.
  virtual void add(const Eigen::MatrixXd& wA, const Eigen::MatrixXd& wO, Eigen::MatrixXd& gradient) const = 0;
};

/// The outputs at a point and their partial derivatives (outputs × coordinates, × parameters).
/// Ax, Av, Ap (when asked for): the accelerations as a function of the positions and velocities
/// there, A = A_x X + A_v V + A_ρ (the start's, and just after an impact). Where `products` is
/// set, Ap and Op are left empty and given by it (Formulation::linearise's, for the adjoint).
struct PointPartials {
  Eigen::VectorXd outputs;
  Eigen::MatrixXd Ox, Ov, Oa, Op;
  Eigen::MatrixXd Ax, Av, Ap;
  std::shared_ptr<const ParameterProducts> products;
  /// gradient += wAᵀ A_ρ + wOᵀ O_ρ (either weight empty for none).
  void addParameterTerms(const Eigen::MatrixXd& wA, const Eigen::MatrixXd& wO, Eigen::MatrixXd& gradient) const {
    if (products) {
      products->add(wA, wO, gradient);
      return;
    }
    if (wA.size()) gradient += wA.transpose() * Ap;
    if (wO.size()) gradient += wO.transpose() * Op;
  }
  /// d(outputs)/dρ along the sensitivities S.
  Eigen::MatrixXd outputsAlong(const StateColumns& S) const {
    Eigen::MatrixXd D = Op;
    if (Ox.cols()) D += Ox * S.x + Ov * S.v;
    if (Oa.size()) D += Oa * S.a;
    return D;
  }
};

/// One step a → b linearised for the adjoint: the transpose of its tangent linear model (whose
/// products along the sensitivities are Formulation::stepAlong).
class StepTangent {
 public:
  virtual ~StepTangent() = default;
  /// λ₁ → λ₀ in place; gradient (costs × parameters) += λ₁ᵀ ∂(step)/∂ρ.
  virtual void reverse(StateColumns& l, Eigen::MatrixXd& gradient) const = 0;
  /// The parameter products the step's own terms are (the trapezoidal rule's: f_ρ at its end),
  /// or null: where they are the end's partials' products, the end's outputs' weights may join
  /// the step's in one product (reverseWithEndOutputs).
  virtual const ParameterProducts* endProducts() const { return nullptr; }
  /// reverse, and gradient += wOᵀ O_ρ of the end's outputs in the same product (only where
  /// endProducts() is the end's partials' products).
  virtual void reverseWithEndOutputs(StateColumns& l, Eigen::MatrixXd& gradient, const Eigen::MatrixXd& wO) const {
    (void)wO;
    reverse(l, gradient);
  }
  /// An RK45 step's stages 3–6 (times and outputs) whose outputs the integral costs' quadrature
  /// weighs; empty for other steps.
  struct StageOutput {
    double t = 0;
    const Eigen::VectorXd* outputs = nullptr;
  };
  virtual std::vector<StageOutput> stageOutputs() const { return {}; }
  /// reverse, with the costs' weights wO[i] (outputs × costs) on stage i's outputs: the
  /// quadrature's terms (λ at the stage += its partials' transposes times them).
  virtual void reverseWithStageOutputs(StateColumns& l, Eigen::MatrixXd& gradient, const std::vector<Eigen::MatrixXd>& wO) const {
    (void)wO;
    reverse(l, gradient);
  }
};

/// A change of coordinates linearised: (x, v, a) in the new set = S_x x + S_v v + S_ρ, rows the new
/// x, v, a stacked (3 d₁ × d₀, 3 d₁ × d₀, 3 d₁ × p).
struct CoordinateChange {
  Eigen::MatrixXd Sx, Sv, Sp;
};

class PointObserver;

/// The recorded run again on complex numbers with one parameter seeded (ρ + 1e-30 i): the complex
/// step's state, item by item; the real points recorded give its Newton matrices and its
/// position problems' starts.
class ComplexRun {
 public:
  virtual ~ComplexRun() = default;
  virtual Status start(const RunPoint& p0) = 0;
  virtual Status step(const RunPoint& a, const RunPoint& b) = 0;
  virtual Status change(const RunPoint& a, const RunPoint& b) = 0;
  /// An impact (seed 001 guide §1.4: the event time made complex, the jump there, and back with the
  /// motion after it); dtau: the event time's imaginary move, for the integrals' jump.
  virtual Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, Cplx& dtau) = 0;
  /// The outputs of the current state at time t.
  virtual Status outputs(double t, std::vector<Cplx>& out) = 0;
  /// The outputs at the last step's stages 3–6 (an RK45 step's, for its integral costs'
  /// quadrature): false for a step without them.
  bool stageOutputs(std::array<std::vector<Cplx>, 4>& out) const {
    if (!stagesSet_) return false;
    out = stages_;
    return true;
  }
  /// The parameters on complex numbers, the seeded one's imaginary part the step.
  virtual const Cplx* parameters() const = 0;

 protected:
  std::array<std::vector<Cplx>, 4> stages_;  // the last step's stages' outputs, when stagesSet_ (set by step)
  bool stagesSet_ = false;
};

class Formulation {
 public:
  virtual ~Formulation() = default;
  /// The run this formulation follows reports to `o` (the run's observer set in `spec`).
  virtual void observe(PointObserver* o, analysis::SimulationSpec& spec) = 0;
  /// Whether its steps are RK45's with stages (something integrated): their integral costs are
  /// quadratures over the stages (the adjoint's weights on the points then differ).
  virtual bool rungeKuttaQuadrature() const { return false; }
  /// The names of a coordinate set's coordinates (the impacts' report).
  virtual std::vector<std::string> coordinateNames(int coords) const = 0;

  /// The forces' switch states as at the run's start; an impact's switches applied.
  virtual void restartSwitches() = 0;
  virtual void applySwitches(const std::vector<int>& contacts) = 0;

  /// The outputs' values at p (the costs of a plain run).
  virtual Status outputValues(const RunPoint& p, Eigen::VectorXd& outputs) = 0;
  /// The outputs and their partials at p; with the acceleration map when `accelerations`.
  virtual Status partials(const RunPoint& p, bool accelerations, PointPartials& out) = 0;
  /// The initial positions' and velocities' sensitivities (the assembly's) at the start p0.
  virtual Status initial(const RunPoint& p0, StateColumns& S) = 0;
  /// The step from a to t1 taken again as the run took it: its end b.
  virtual Status replay(const RunPoint& a, double t1, RunPoint& b) = 0;
  /// The direct method's products along the sensitivities S (the tangent linear model, eight
  /// columns a pass): the step a → b carries S from a to b; the outputs at b and their d/dρ along
  /// it; `stages` (when given): an RK45 step's outputs at its stages and their d/dρ.
  virtual Status stepAlong(const RunPoint& a, const RunPoint& b, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong,
                           StageOutputs* stages) = 0;
  /// At a point whose S.x, S.v are known (the start, just after an impact): S.a from the
  /// accelerations there, the outputs and their d/dρ along S.
  virtual Status pointAlong(const RunPoint& p, StateColumns& S, Eigen::VectorXd& outputs, Eigen::MatrixXd& outputsAlong) = 0;
  /// The step a → b linearised, and the partials at b (without the acceleration map).
  virtual Status linearise(const RunPoint& a, const RunPoint& b, std::unique_ptr<StepTangent>& tangent, PointPartials& atEnd) = 0;
  /// The impact of `contacts` from `before` to `after` (same t, x) linearised (seed 001 T1–T3),
  /// the switches' states as before it.
  virtual Status jump(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts, ImpactJump& J) = 0;
  /// The point a in the coordinate set `coords`, and the change linearised (when map is set).
  virtual Status change(const RunPoint& a, int coords, RunPoint& b, CoordinateChange* map) = 0;
  /// The run on complex numbers with the chosen parameter `parameter` (a table index) seeded by
  /// `step` i (the switch states restarted).
  virtual std::unique_ptr<ComplexRun> complexRun(std::size_t parameter, double step) = 0;
};

/// Follows a run point by point, in a formulation's coordinates: what every method records or
/// differentiates.
class PointObserver {
 public:
  virtual ~PointObserver() = default;
  virtual Status start(const RunPoint& p) = 0;
  /// `stages`: an RK45 step's stages 3–6, or null.
  virtual Status step(const RunPoint& from, const RunPoint& to, const StagePoints* stages) = 0;
  /// The coordinates changed: the same state in another set.
  virtual Status changed(const RunPoint& before, const RunPoint& after) = 0;
  /// The contacts closed: from `before` to `after` (same t, positions; the point after a node).
  virtual Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts) = 0;
};

/// The costs' values of a run (the forward run's accumulator: values, and where sampled costs
/// took their terms).
class CostValues : public PointObserver {
 public:
  CostValues(const Study& st, Formulation& f) : st_(st), f_(f), numbers_(st, {}, {}), costs_(st.costs) {}
  Status start(const RunPoint& p) override { return add(p); }
  Status step(const RunPoint&, const RunPoint& to, const StagePoints* stages) override {
    // the integral costs' quadrature over RK45's stages
    if (stages && st_.costs.hasType(Cost::Type::Integral)) {
      std::array<Eigen::VectorXd, 4> out;
      for (std::size_t i = 0; i < 4; ++i)
        if (Status s = f_.outputValues((*stages)[i], out[i]); !s.ok()) return s;
      costs_.rungeKuttaStages({out[0].data(), out[1].data(), out[2].data(), out[3].data()});
    }
    return add(to);
  }
  Status changed(const RunPoint&, const RunPoint&) override { return {}; }
  Status impact(const RunPoint&, const RunPoint& after, const std::vector<int>& contacts) override {
    f_.applySwitches(contacts);
    return add(after);  // the state after it: a node of its own at the same time
  }
  std::vector<double> values() const { return costs_.values(); }
  const analysis::CostAccumulator<double>& accumulator() const { return costs_; }

 private:
  Status add(const RunPoint& p) {
    Eigen::VectorXd out;
    if (Status s = f_.outputValues(p, out); !s.ok()) return s;
    costs_.add(p.t, out.data(), numbers_.parameters.data());
    return {};
  }
  const Study& st_;
  Formulation& f_;
  NumbersOn<double> numbers_;
  analysis::CostAccumulator<double> costs_;
};

/// One run told to two observers.
class BothObservers : public PointObserver {
 public:
  BothObservers(PointObserver& a, PointObserver& b) : a_(a), b_(b) {}
  Status start(const RunPoint& p) override {
    const Status s = a_.start(p);
    return s.ok() ? b_.start(p) : s;
  }
  Status step(const RunPoint& from, const RunPoint& to, const StagePoints* stages) override {
    const Status s = a_.step(from, to, stages);
    return s.ok() ? b_.step(from, to, stages) : s;
  }
  Status changed(const RunPoint& before, const RunPoint& after) override {
    const Status s = a_.changed(before, after);
    return s.ok() ? b_.changed(before, after) : s;
  }
  Status impact(const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts) override {
    const Status s = a_.impact(before, after, contacts);
    return s.ok() ? b_.impact(before, after, contacts) : s;
  }

 private:
  PointObserver& a_;
  PointObserver& b_;
};

}  // namespace lw::sens::detail

namespace lw::sens::detail {

/// One item of a run linearised, what the direct method applies and the adjoint transposes: a
/// step's tangent and the partials at its end; an impact's jump, the outputs just before it and
/// the partials just after it (its switches applied, as they stay); a change's map.
struct LinearisedItem {
  std::unique_ptr<StepTangent> step;
  PointPartials end;
  ImpactJump jump;
  Eigen::VectorXd outputsBefore;
  CoordinateChange change;
};

inline Status lineariseStep(Formulation& f, const RunPoint& a, const RunPoint& b, LinearisedItem& out) {
  return f.linearise(a, b, out.step, out.end);
}

inline Status lineariseImpact(Formulation& f, const RunPoint& before, const RunPoint& after, const std::vector<int>& contacts,
                              LinearisedItem& out) {
  if (Status s = f.jump(before, after, contacts, out.jump); !s.ok()) return s;
  if (Status s = f.outputValues(before, out.outputsBefore); !s.ok()) return s;
  f.applySwitches(contacts);
  return f.partials(after, true, out.end);
}

/// The accelerations' sensitivities from the positions' and velocities' through the map at a point.
inline void accelerationsFrom(const PointPartials& n, StateColumns& S) {
  S.a = n.Ap;
  if (n.Ax.cols()) S.a += n.Ax * S.x + n.Av * S.v;
}

}  // namespace lw::sens::detail
