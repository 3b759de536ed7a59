// The complex step (the reference): the recorded run replayed on complex numbers, one parameter
// at a time (h = 1e-30 i), the same steps and choices of coordinates. Internal to
// engine/sensitivity.
#pragma once

#include "simulation/simulation_run.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

/// The run recorded, for the complex step to follow step by step.
class Recorder : public analysis::StepObserver {
 public:
  struct Event {
    enum class Kind { Start, Step, Switch, Impact } kind;
    std::vector<dyn::Dof> dofs, before;
    integ::State from, to;  // Start and Switch: `to`; Impact: just before and just after
    Eigen::VectorXd z;
    std::vector<int> contacts;  // Impact
  };
  std::vector<Event> events;
  Status start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Start, dofs, {}, {}, s, z, {}});
    return {};
  }
  Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Step, dofs, {}, from, to, z, {}});
    return {};
  }
  Status switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                  const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Switch, after, before, {}, s, z, {}});
    return {};
  }
  Status impact(const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after, const std::vector<int>& contacts,
                const Eigen::VectorXd& z) override {
    events.push_back({Event::Kind::Impact, dofs, {}, before, after, z, contacts});
    return {};
  }
};

// One parameter's complex-step run over the recorded steps: the trapezoidal step solved again on
// complex numbers (a₁ = f(x̂ + h²/4 a₁, v̂ + h/2 a₁) by Newton with the real Newton matrix of central
// differences of f: any matrix close to it converges, to the same answer)
/// One parameter's gradient of every cost by the complex step over the recorded run. At an impact
/// the event time is made complex (seed 001 guide §1.4): one complex Newton step δτ = −r/ṙ⁻ on
/// the gap, the state moved to t + δτ by a first-order Taylor step, the jump applied there, and
/// moved back by −δτ with the motion after it; the integrals move by (g⁻ − g⁺) δτ.
Status complexRun(const Study& st, const Recorder& rec, std::size_t parameter, bool rungeKutta, std::vector<double>& gradient);

}  // namespace lw::sens::detail
