// Sensitivities of the penalty formulation (seed 004 §3 differentiated): the trapezoidal step of
// all the tree's coordinates with its projections, as penalty_derivatives.h defines it.
//   direct   F(z₁) = 0 differentiated: (F_z + 2/h F_ż + 4/h² M) Z₁ = −(F_ż Ẑ' + M Ẑ'' + F_ρ), with
//            Ẑ' = −(2/h Z₀ + Z'₀), Ẑ'' = −(4/h² Z₀ + 4/h Z'₀ + Z''₀); then the projections on dual
//            numbers give Z'₁, Z''₁ (the AD tangent of the step: F_z by forward AD, a chunk of
//            eight columns per pass)
//   complex  the recorded run again on complex numbers, one parameter at a time
// Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "analysis/simulation_run.h"
#include "sensitivity/sensitivity.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

/// The penalty step's Newton matrix T = F_z + 2/h F_ż + 4/h² F_z̈ at the end z₁ (ż*, z̈* the
/// trapezoidal ones from the start), by forward AD eight columns per pass, numbers `plain`.
Eigen::MatrixXd penaltyTangent(const dyn::RecursiveModel& tree, const NumbersOn<Dual>& plain, double alpha, double t1, double h,
                               const Eigen::VectorXd& z1, const Eigen::VectorXd& zdS, const Eigen::VectorXd& zddS);

class PenaltyDirect : public analysis::PenaltyObserver {
 public:
  virtual void finish(Gradient& g) const = 0;
  virtual void flush() = 0;
  /// What it saw at each impact: dt_e/dρ and the jumps of the tree's coordinates' sensitivities.
  virtual const std::vector<ImpactSensitivity>& impacts() const = 0;
};
std::unique_ptr<PenaltyDirect> penaltyDirect(const Study& st, const SensitivitySpec& spec);

/// The costs of a double penalty run (their values; finite differences).
class PenaltyCosts : public analysis::PenaltyObserver {
 public:
  explicit PenaltyCosts(const Study& st) : st_(st), numbers_(st, {}, {}), costs_(st.costs) {}
  Status start(const dyn::RecursiveModel&, double, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
               const Eigen::VectorXd& zdd) override {
    add(t, z, zd, zdd);
    return {};
  }
  Status step(double, double t1, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
    add(t1, z, zd, zdd);
    return {};
  }
  Status impact(double t, const std::vector<int>&, const Eigen::VectorXd& z, const Eigen::VectorXd&, const Eigen::VectorXd& zd,
                const Eigen::VectorXd& zdd) override {
    add(t, z, zd, zdd);  // the state after it: a node of its own at the same time
    return {};
  }
  std::vector<double> values() const { return costs_.values(); }
  const analysis::CostAccumulator<double>& accumulator() const { return costs_; }

 private:
  void add(double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) {
    std::vector<double> out(st_.outputs.names.size());
    analysis::outputsOn<double>(st_.outputs, st_.model.tree, numbers_.tree, z, zd, zdd, t, out.data());
    costs_.add(t, out.data(), numbers_.parameters.data());
  }
  const Study& st_;
  NumbersOn<double> numbers_;
  analysis::CostAccumulator<double> costs_;
};

/// The run recorded, for the complex step.
class PenaltyRecorder : public analysis::PenaltyObserver {
 public:
  struct Point {
    double t;
    Eigen::VectorXd z, zd, zdd;  // an impact: the state after it
    bool impact = false;
    std::vector<int> contacts;   // an impact's
    Eigen::VectorXd zdBefore;
  };
  double alpha = 0;
  std::vector<Point> points;  // the start, then every step's end
  Status start(const dyn::RecursiveModel&, double a, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
               const Eigen::VectorXd& zdd) override {
    alpha = a;
    points.push_back({t, z, zd, zdd, false, {}, {}});
    return {};
  }
  Status step(double, double t1, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
    points.push_back({t1, z, zd, zdd, false, {}, {}});
    return {};
  }
  Status impact(double t, const std::vector<int>& contacts, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore, const Eigen::VectorXd& zd,
                const Eigen::VectorXd& zdd) override {
    points.push_back({t, z, zd, zdd, true, contacts, zdBefore});
    return {};
  }
};

/// One parameter's gradient of every cost by the complex step over the recorded penalty run.
Status penaltyComplexRun(const Study& st, const PenaltyRecorder& rec, std::size_t parameter, std::vector<double>& gradient);

}  // namespace lw::sens::detail
