// The complex step of the penalty formulation (the reference): the recorded run again on complex
// numbers, one parameter at a time, the trapezoidal step of all the tree's coordinates with its
// projections as penalty_derivatives.h defines it. Internal to engine/sensitivity.
#pragma once

#include <memory>

#include "simulation/simulation_run.h"
#include "sensitivity/sensitivity.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

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
