// The adjoint of the penalty formulation's step (penalty_methods.h): the transposed tangent of
// Newton's F(z₁) = 0 and of the projections, swept backward once for all costs. The forward run
// is kept by checkpoints (z, ż, z̈ every k steps, the steps between solved again from them).
// Internal to engine/sensitivity.
#pragma once

#include <vector>

#include "analysis/simulation_run.h"
#include "sensitivity/adjoint.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

class PenaltyAdjointRecorder : public analysis::PenaltyObserver {
 public:
  /// dt: the run's nominal step (its grid).
  PenaltyAdjointRecorder(long interval, double dt) : times(dt), interval_(interval < 1 ? 1 : interval) {}
  struct Saved {
    std::size_t node = 0;  // index into times
    Eigen::VectorXd z, zd, zdd;
  };
  Status start(const dyn::RecursiveModel&, double alpha, double t, const Eigen::VectorXd& z, const Eigen::VectorXd& zd,
               const Eigen::VectorXd& zdd) override {
    alpha_ = alpha;
    times.push(t);
    saved.push_back({0, z, zd, zdd});
    return {};
  }
  Status step(double, double t1, const Eigen::VectorXd& z, const Eigen::VectorXd& zd, const Eigen::VectorXd& zdd) override {
    times.push(t1);
    if (++since_ >= interval_) {
      saved.push_back({times.size() - 1, z, zd, zdd});
      since_ = 0;
    }
    return {};
  }
  /// An impact: a node of its own at the same time, the state after it saved (a segment ends
  /// there), its contacts and the velocities before it kept.
  Status impact(double t, const std::vector<int>& contacts, const Eigen::VectorXd& z, const Eigen::VectorXd& zdBefore, const Eigen::VectorXd& zd,
                const Eigen::VectorXd& zdd) override {
    times.push(t);
    saved.push_back({times.size() - 1, z, zd, zdd});
    impacts.push_back({times.size() - 1, contacts, zdBefore});
    since_ = 0;
    return {};
  }
  struct ImpactAt {
    std::size_t node = 0;  // the node after it
    std::vector<int> contacts;
    Eigen::VectorXd zdBefore;
  };
  std::vector<ImpactAt> impacts;
  double alpha() const { return alpha_; }
  NodeSpan nodeSpan(std::size_t n) const {
    const std::size_t last = times.size() - 1;
    return {n > 0 ? times[n] - times[n - 1] : 0.0, n < last ? times[n + 1] - times[n] : 0.0, n == last};
  }
  std::size_t bytes() const {
    std::size_t b = times.bytes() + saved.capacity() * sizeof(Saved);
    for (const auto& s : saved) b += sizeof(double) * static_cast<std::size_t>(s.z.size() + s.zd.size() + s.zdd.size());
    return b;
  }
  TimeList times;  // every node: the start, then each step's end
  std::vector<Saved> saved;

 private:
  long interval_;
  long since_ = 0;
  double alpha_ = 0;
};

/// Every chosen cost's gradient by the adjoint over the recorded penalty run (values included).
Status penaltyAdjointGradient(const Study& st, const PenaltyAdjointRecorder& rec, const CostSites* sites, std::vector<double>& values,
                              Eigen::MatrixXd& gradient, AdjointStats& stats);

}  // namespace lw::sens::detail
