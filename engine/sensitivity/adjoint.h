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

/// A node among the run's nodes: the time steps to the one before and after it (0 at the ends),
/// and whether it is the last.
struct NodeSpan {
  double before = 0, after = 0;
  bool last = false;
};

/// The times of a run's points, compact: a run of times on the grid k·dt (the trapezoidal rule's
/// step ends, which the run computes as k·dt) costs one entry for the whole run, other times 8
/// bytes each. What keeps a 10^6-step adjoint's record within the forward run's memory.
class TimeList {
 public:
  explicit TimeList(double dt) : dt_(dt) {}
  void push(double t);
  double operator[](std::size_t i) const;
  double back() const { return (*this)[size_ - 1]; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return runs_.capacity() * sizeof(Run) + listed_.capacity() * sizeof(double); }

 private:
  struct Run {
    std::size_t first = 0;   // the index of its first time
    double k0 = 0;           // on the grid: time j of the run is (k0 + j)·dt
    std::size_t listed = 0;  // off it: time j is listed_[listed + j]
    bool grid = false;
  };
  double dt_;
  std::vector<Run> runs_;
  std::vector<double> listed_;
  std::size_t size_ = 0;
};

/// Records a forward run for the adjoint: every step's end time (TimeList), the choice of
/// coordinates by runs of steps, the starts, switches and impacts as marks, and a full state at
/// the start and after every `interval` steps (interval 1: every step, the whole trajectory stored).
class AdjointRecorder : public analysis::StepObserver {
 public:
  /// dt: the run's nominal step (its grid).
  AdjointRecorder(long interval, double dt) : times_(dt), interval_(interval < 1 ? 1 : interval) {}
  /// One item of the run: the start, a step, a switch of coordinates or an impact.
  struct Item {
    enum class Kind : std::uint8_t { Start, Step, Switch, Impact };
    double t0 = 0, t1 = 0;
    int dofs = -1, before = -1;  // indices into dofSets
    int impact = -1;             // Impact: index into impacts (its contacts)
    Kind kind = Kind::Step;
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
  std::size_t size() const { return times_.size(); }
  Item item(std::size_t i) const;
  /// The items that are not switches (the run's points, where costs are taken) are its nodes:
  /// item i's node index, and its place among them (the steps to its neighbours, last or not).
  long nodeOf(std::size_t i) const;
  NodeSpan nodeSpan(std::size_t i) const;
  /// The impacts' items, in order, with their indices into impacts.
  std::vector<std::pair<std::size_t, std::size_t>> impactItems() const;
  std::vector<std::vector<int>> impacts;
  std::vector<std::vector<dyn::Dof>> dofSets;
  std::vector<Saved> saved;  // in item order
  std::size_t bytes() const;  // what the recording holds

 private:
  struct Mark {  // an item that is not a step
    std::size_t item = 0;
    Item::Kind kind = Item::Kind::Start;
    int before = -1, impact = -1;
  };
  struct DofsRun {
    std::size_t first = 0;
    int dofs = -1;
  };
  int dofIndex(const std::vector<dyn::Dof>& dofs);
  void push(double t, int dofs);
  void save(const integ::State& s, const Eigen::VectorXd& z);
  const Mark* markAt(std::size_t i) const;
  TimeList times_;
  std::vector<Mark> marks_;
  std::vector<std::size_t> switches_;  // the switches' items, in order
  std::vector<DofsRun> dofRuns_;
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
