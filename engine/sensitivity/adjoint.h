// The adjoint (discrete adjoint of the trapezoidal steps, seed 000 Algorithm 2 on the discrete
// step): one backward pass carries every cost's adjoint through the transposed linearised steps,
// whatever the number of parameters; the forward trajectory is kept by checkpointing (a full state
// every `interval` steps, the steps between recomputed segment by segment) or stored whole.
// Internal to engine/sensitivity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/simulation_run.h"
#include "sensitivity/study.h"

namespace lw::sens::detail {

struct CostSites;  // cost_integrand.h

/// Records a forward run for the adjoint: every step's times and choice of coordinates (a few
/// bytes each), a full state at the start and after every `interval` steps (interval 1: every
/// step, the whole trajectory stored).
class AdjointRecorder : public analysis::StepObserver {
 public:
  explicit AdjointRecorder(long interval) : interval_(interval < 1 ? 1 : interval) {}
  struct Item {
    enum class Kind : std::uint8_t { Start, Step, Switch, Impact };
    double t0 = 0, t1 = 0;
    int dofs = -1, before = -1;  // indices into dofSets
    int impact = -1;             // Impact: index into impacts (its contacts)
    Kind kind = Kind::Step;      // last: 32 bytes an item
  };
  struct Saved {
    std::size_t item = 0;        // the state after this item
    Eigen::VectorXd x, v, a, z;
  };
  Status start(const dyn::MatrixRModel&, const std::vector<dyn::Dof>& dofs, const integ::State& s, const Eigen::VectorXd& z) override;
  Status step(const std::vector<dyn::Dof>& dofs, const integ::State& from, const integ::State& to, const Eigen::VectorXd& z) override;
  Status switched(const std::vector<dyn::Dof>& before, const std::vector<dyn::Dof>& after, const integ::State& s,
                  const Eigen::VectorXd& z) override;
  /// An impact: the state after it saved (a segment ends at each), the contacts kept.
  Status impact(const std::vector<dyn::Dof>& dofs, const integ::State& before, const integ::State& after, const std::vector<int>& contacts,
                const Eigen::VectorXd& z) override;
  std::vector<Item> items;
  std::vector<std::vector<int>> impacts;
  std::vector<std::vector<dyn::Dof>> dofSets;
  std::vector<Saved> saved;  // in item order
  std::size_t bytes() const;  // what the recording holds

 private:
  int dofIndex(const std::vector<dyn::Dof>& dofs);
  void save(const integ::State& s, const Eigen::VectorXd& z);
  long interval_;
  long sinceSaved_ = 0;
};

struct AdjointStats {
  std::size_t recordBytes = 0;    // the recording (checkpoints and step list)
  std::size_t segmentBytes = 0;   // the largest segment's states and partial derivatives
  long recomputedSteps = 0;
};

/// Every chosen cost's gradient by the adjoint over the recorded run (values included); its steps
/// are the trapezoidal rule's, or (rungeKutta) Dormand–Prince's with their sizes held. `sites`:
/// where the forward run took the targets', minimum's and maximum's terms (null without such costs).
Status adjointGradient(const Study& st, const AdjointRecorder& rec, bool rungeKutta, const CostSites* sites, std::vector<double>& values,
                       Eigen::MatrixXd& gradient, AdjointStats& stats);

}  // namespace lw::sens::detail
